// Small helpers for the live pages: tables, lobby and arenas (no build step). The pages work
// without them.
(function () {
  "use strict";

  var COUNTDOWNS = "time.countdown[data-seconds-left], time.arena-countdown[data-seconds-left]";

  // Turn timers and arena clocks count down from the seconds the server gave (not from the time
  // itself, so a wrong clock on this computer does not matter).
  function clock(left) {
    var hours = Math.floor(left / 3600);
    var minutes = Math.floor((left % 3600) / 60);
    var seconds = String(left % 60).padStart(2, "0");
    return hours ? hours + ":" + String(minutes).padStart(2, "0") + ":" + seconds : minutes + ":" + seconds;
  }

  function tick() {
    document.querySelectorAll(COUNTDOWNS).forEach(function (el) {
      if (!el.dataset.endsAt) {
        el.dataset.endsAt = String(Date.now() + Number(el.dataset.secondsLeft) * 1000);
      }
      var left = Math.max(0, Math.round((Number(el.dataset.endsAt) - Date.now()) / 1000));
      var text = clock(left);
      if (el.textContent !== text) el.textContent = text;
      if (el.classList.contains("countdown")) el.classList.toggle("urgent", left <= 10);
    });
  }

  // Show the invitation link as a full address (the server only knows the path).
  function absoluteInviteLinks() {
    document.querySelectorAll("a.invite-link").forEach(function (a) {
      if (a.textContent !== a.href) a.textContent = a.href;
    });
  }

  // A fragment older than what the page shows (an htmx answer overtaken by the socket) is dropped.
  function shownVersion() {
    var status = document.getElementById("table-status");
    return status ? Number(status.dataset.version) : -1;
  }

  function versionIn(html) {
    var match = /id="table-status"[^>]*data-version="(\d+)"/.exec(html || "");
    return match ? Number(match[1]) : null;
  }

  // A socket frame of the version the page already shows is dropped too: it would only swap the
  // same table in again, and with it the forms, wiping a cut half-chosen (the socket sends the
  // whole table when it connects, often right after the page itself was loaded).
  document.addEventListener("htmx:wsBeforeMessage", function (event) {
    var version = versionIn(event.detail.message);
    if (version !== null && version <= shownVersion()) event.preventDefault();
  });

  document.addEventListener("htmx:beforeSwap", function (event) {
    var xhr = event.detail.xhr;
    var version = xhr ? versionIn(xhr.responseText) : null;
    if (version !== null && version < shownVersion()) event.detail.shouldSwap = false;
  });

  // A form may be replaced while its answer is on the way (the socket's frame of the same move
  // often comes first). htmx then announces the answer on the detached form, where no listener on
  // the document hears it, and looks for the answer's parts inside it: none is found
  // (htmx:oobErrorNoTarget, once per part). The form itself still hears it: the parts go into
  // the page, unless they are no newer than what it shows.
  function swapIntoPageIfDetached(event) {
    var detail = event.detail;
    if (!detail.shouldSwap || (detail.elt && detail.elt.isConnected)) return;
    detail.shouldSwap = false;
    var version = detail.xhr ? versionIn(detail.xhr.responseText) : null;
    if ((version === null || version > shownVersion()) && window.htmx) {
      window.htmx.swap(document.body, detail.serverResponse, { swapStyle: "none" });
    }
  }

  var guarded = new WeakSet();
  document.addEventListener("htmx:beforeRequest", function (event) {
    var target = event.detail.target || event.detail.elt;
    if (target && !guarded.has(target)) {
      guarded.add(target);
      target.addEventListener("htmx:beforeSwap", swapIntoPageIfDetached);
    }
  });

  // The board, its notes and the players' panel are the same for every viewer of a table version
  // (so the server renders them once); the viewer's own seat is marked here.
  function markYou() {
    var status = document.getElementById("table-status");
    var you = status ? status.dataset.you : "";
    document.querySelectorAll("#table-board [data-seat], #table-players [data-seat], #table-info [data-seat]").forEach(function (el) {
      el.classList.toggle("you", you !== "" && el.dataset.seat === you);
    });
    document.querySelectorAll(".table-page").forEach(function (page) {
      page.classList.toggle("seated", you !== "");
    });
  }

  // The replay steps with the arrow keys (Home and End: first and last move).
  var REPLAY_KEYS = {
    ArrowRight: 'a[rel="next"]',
    ArrowLeft: 'a[rel="prev"]',
    Home: '[data-testid="replay-first"]',
    End: '[data-testid="replay-last"]'
  };

  document.addEventListener("keydown", function (event) {
    var selector = REPLAY_KEYS[event.key];
    if (!selector || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    if (event.target.closest && event.target.closest("input, select, textarea, [contenteditable]")) return;
    var link = document.querySelector("#replay .replay-nav " + selector);
    if (link) {
      event.preventDefault();
      // A key pressed right after a step arrived may come before htmx has boosted the new links:
      // boost them first, so the step is fetched in the background rather than as a new page.
      if (window.htmx) window.htmx.process(link.parentNode);
      link.click();
    }
  });

  // A create form shows the options of the chosen game only (without JavaScript it shows all).
  function showChosenGameOptions() {
    document.querySelectorAll("form").forEach(function (form) {
      var game = form.querySelector("select[name=game]");
      if (!game) return;
      form.querySelectorAll("fieldset.game-options").forEach(function (fieldset) {
        fieldset.hidden = fieldset.dataset.game !== game.value;
      });
    });
  }

  document.addEventListener("change", function (event) {
    if (event.target.matches && event.target.matches("select[name=game]")) showChosenGameOptions();
  });

  function refresh() {
    tick();
    absoluteInviteLinks();
    markYou();
    showChosenGameOptions();
  }

  document.addEventListener("DOMContentLoaded", refresh);
  document.addEventListener("htmx:afterSettle", refresh);
  document.addEventListener("htmx:wsAfterMessage", refresh);
  setInterval(tick, 1000);
})();
