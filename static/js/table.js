// Small helpers for the live pages (no build step). The pages work without them.
(function () {
  "use strict";

  // Countdown of the turn timer: counts down from the seconds the server gave (not from the
  // deadline itself, so a wrong clock on this computer does not matter).
  function startCountdowns() {
    document.querySelectorAll("time.countdown[data-seconds-left]").forEach(function (el) {
      if (!el.dataset.endsAt) {
        el.dataset.endsAt = String(Date.now() + Number(el.dataset.secondsLeft) * 1000);
      }
    });
  }

  function tick() {
    startCountdowns();
    document.querySelectorAll("time.countdown[data-ends-at]").forEach(function (el) {
      var left = Math.max(0, Math.round((Number(el.dataset.endsAt) - Date.now()) / 1000));
      var text = Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0");
      if (el.textContent !== text) el.textContent = text;
      el.classList.toggle("urgent", left <= 10);
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

  document.addEventListener("htmx:wsBeforeMessage", function (event) {
    var version = versionIn(event.detail.message);
    if (version !== null && version < shownVersion()) event.preventDefault();
  });

  document.addEventListener("htmx:beforeSwap", function (event) {
    var xhr = event.detail.xhr;
    var version = xhr ? versionIn(xhr.responseText) : null;
    if (version !== null && version < shownVersion()) event.detail.shouldSwap = false;
  });

  function refresh() {
    tick();
    absoluteInviteLinks();
  }

  document.addEventListener("DOMContentLoaded", refresh);
  document.addEventListener("htmx:afterSettle", refresh);
  document.addEventListener("htmx:wsAfterMessage", refresh);
  setInterval(tick, 1000);
})();
