// What every page does in the browser (the pages work without it): the phone menu, create forms
// that keep their choices consistent, and socket frames of what the page already shows dropped.
(function () {
  "use strict";

  // The phone menu: the button folds and unfolds the header's links.
  function setUpMenu() {
    var header = document.querySelector(".site-header");
    var toggle = header && header.querySelector(".nav-toggle");
    if (!toggle) return;
    toggle.addEventListener("click", function () {
      var open = header.classList.toggle("open");
      toggle.setAttribute("aria-expanded", open ? "true" : "false");
    });
  }

  // A ranked table always has a turn timer: choosing Ranked while "No timer" is selected picks
  // the first timer, and "No timer" is offered only to friendly tables (the server refuses a
  // ranked table without a timer, with a sentence, when this script is not there).
  function matchTimerToMode(form) {
    var mode = form.querySelector("select[name=mode]");
    var timer = form.querySelector("select[name=turn_seconds]");
    if (!mode || !timer) return;
    var ranked = mode.value === "ranked";
    var none = timer.querySelector('option[value=""]');
    if (none) none.disabled = ranked;
    if (ranked && !timer.value) {
      var first = timer.querySelector('option:not([value=""])');
      if (first) timer.value = first.value;
    }
  }

  document.addEventListener("change", function (event) {
    if (event.target.matches && event.target.matches("select[name=mode]")) {
      matchTimerToMode(event.target.form);
    }
  });

  // A box that scrolls (a wide table on a phone, a long move list) must be reachable by keyboard
  // to be scrolled without a mouse: it takes the focus while it scrolls.
  var SCROLL_BOXES = ".scroll, .move-log, table.tokens, .ratings-table, .recent-matches, .ladder-table";

  function focusableScrollBoxes() {
    document.querySelectorAll(SCROLL_BOXES).forEach(function (box) {
      var scrolls = box.scrollWidth > box.clientWidth + 1 || box.scrollHeight > box.clientHeight + 1;
      if (scrolls && !box.hasAttribute("tabindex")) {
        box.setAttribute("tabindex", "0");
        box.dataset.scrollFocus = "true";
      } else if (!scrolls && box.dataset.scrollFocus) {
        box.removeAttribute("tabindex");
        delete box.dataset.scrollFocus;
      }
    });
  }

  // A socket's parts without a version (the lobby's lists, an arena's parts, the header's
  // Friends link) carry a digest of what they show (``data-digest``): a frame whose every part
  // shows what the page already shows is dropped, so that the same links and Join buttons are not
  // swapped in again under a click (which would then land on neither) or the keyboard's focus.
  // Each socket sends its parts when it connects, right after the page showed the same ones.
  // Every part of the frame must carry the digest the page shows: a frame with a part that
  // carries none is never dropped for the others.
  function showsTheSameParts(html) {
    if (!html || html.indexOf("data-digest=") < 0) return false;
    var template = document.createElement("template");
    template.innerHTML = html;
    var parts = template.content.children;
    for (var i = 0; i < parts.length; i++) {
      var digest = parts[i].dataset.digest;
      var shown = parts[i].id ? document.getElementById(parts[i].id) : null;
      if (!digest || !shown || shown.dataset.digest !== digest) return false;
    }
    return parts.length > 0;
  }

  document.addEventListener("htmx:wsBeforeMessage", function (event) {
    if (showsTheSameParts(event.detail.message)) event.preventDefault();
  });

  document.addEventListener("DOMContentLoaded", function () {
    setUpMenu();
    document.querySelectorAll("form").forEach(matchTimerToMode);
    focusableScrollBoxes();
  });
  window.addEventListener("resize", focusableScrollBoxes);
  document.addEventListener("htmx:afterSettle", focusableScrollBoxes);
  document.addEventListener("htmx:wsAfterMessage", focusableScrollBoxes);
})();
