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

  function refresh() {
    tick();
    absoluteInviteLinks();
  }

  document.addEventListener("DOMContentLoaded", refresh);
  document.addEventListener("htmx:afterSettle", refresh);
  document.addEventListener("htmx:wsAfterMessage", refresh);
  setInterval(tick, 1000);
})();
