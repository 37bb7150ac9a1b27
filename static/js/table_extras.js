// The table's extras (issue 12): "your turn" in the tab title, an optional sound when the turn
// comes (off unless the player switched it on; the choice is remembered in this browser), the
// resign confirmation and the chat form. The page works without this file.
(function () {
  "use strict";

  var SOUND_KEY = "pdc.turnSound";
  var baseTitle = document.title;
  var wasYourTurn = null;
  var audio = null;

  function page() {
    return document.querySelector(".table-page");
  }

  function isYourTurn() {
    var status = document.getElementById("table-status");
    if (!status || status.dataset.status !== "playing" || status.dataset.you === "") return false;
    return status.dataset.toMove.split(",").indexOf(status.dataset.you) !== -1;
  }

  function soundOn() {
    try {
      return window.localStorage.getItem(SOUND_KEY) === "on";
    } catch (e) {
      return false;
    }
  }

  // A short two-note chime, made here (no sound file to fetch). Browsers let a page play sound
  // only after a click on it: the toggle's click (or any later one) wakes the audio up.
  function chime() {
    document.dispatchEvent(new CustomEvent("pdc:turn-sound"));
    var AudioContext = window.AudioContext || window.webkitAudioContext;
    if (!AudioContext) return;
    audio = audio || new AudioContext();
    if (audio.state === "suspended") audio.resume();
    [660, 880].forEach(function (frequency, index) {
      var start = audio.currentTime + index * 0.15;
      var tone = audio.createOscillator();
      var volume = audio.createGain();
      tone.frequency.value = frequency;
      volume.gain.setValueAtTime(0.15, start);
      volume.gain.exponentialRampToValueAtTime(0.001, start + 0.3);
      tone.connect(volume).connect(audio.destination);
      tone.start(start);
      tone.stop(start + 0.3);
    });
  }

  function showTurn() {
    var article = page();
    if (!article) return;
    var yours = isYourTurn();
    var mark = article.dataset.yourTurnTitle || "Your turn";
    document.title = yours ? "● " + mark + " · " + baseTitle : baseTitle;
    if (yours && wasYourTurn === false && soundOn()) chime();
    wasYourTurn = yours;
  }

  function showSoundToggle() {
    var toggle = document.getElementById("turn-sound");
    if (!toggle) return;
    // Once the match is over there is no turn to wait for (the page may have been loaded before).
    var status = document.getElementById("table-status");
    var over = status && (status.dataset.status === "finished" || status.dataset.status === "aborted");
    toggle.hidden = Boolean(over);
    toggle.setAttribute("aria-pressed", soundOn() ? "true" : "false");
  }

  document.addEventListener("click", function (event) {
    var toggle = event.target.closest && event.target.closest("#turn-sound");
    if (!toggle) return;
    var on = !soundOn();
    try {
      window.localStorage.setItem(SOUND_KEY, on ? "on" : "off");
    } catch (e) {
      /* private mode: the choice lasts as long as the page */
    }
    toggle.setAttribute("aria-pressed", on ? "true" : "false");
    if (on && (window.AudioContext || window.webkitAudioContext)) {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      audio.resume();
    }
  });

  // Running clocks count down to the server's deadline (their datetime), set against this
  // computer's clock by the difference measured when the page came (data-server-now): a fragment
  // rendered a while before it arrives (or shared by every viewer) still shows the right time.
  // live.js counts the same elements down, from the end this sets.
  var clockSkew = null;

  function measureSkew() {
    var article = page();
    var serverNow = article ? Number(article.dataset.serverNow) : NaN;
    if (clockSkew === null && serverNow > 0) clockSkew = serverNow - Date.now();
  }

  function clockText(left) {
    var hours = Math.floor(left / 3600);
    var minutes = Math.floor((left % 3600) / 60);
    var seconds = String(left % 60).padStart(2, "0");
    return hours ? hours + ":" + String(minutes).padStart(2, "0") + ":" + seconds : minutes + ":" + seconds;
  }

  function clocksToDeadlines() {
    if (clockSkew === null) return;
    document.querySelectorAll("time.countdown[datetime]").forEach(function (el) {
      var deadline = Date.parse(el.getAttribute("datetime"));
      if (isNaN(deadline) || el.dataset.fromDeadline) return;
      el.dataset.endsAt = String(deadline - clockSkew);
      el.dataset.fromDeadline = "1";
      var left = Math.max(0, Math.round((deadline - clockSkew - Date.now()) / 1000));
      el.textContent = clockText(left);
    });
  }

  function refresh() {
    measureSkew();
    clocksToDeadlines();
    showTurn();
    showSoundToggle();
  }

  document.addEventListener("DOMContentLoaded", refresh);
  document.addEventListener("htmx:afterSettle", refresh);
  document.addEventListener("htmx:wsAfterMessage", refresh);
})();

// A chat line the server took: empty the input for the next one (a refused line stays, to fix).
document.addEventListener("chat-sent", function (event) {
  var form = event.target.closest ? event.target.closest("form") : null;
  if (form && form.id === "chat-form") {
    form.reset();
    var input = form.querySelector("input[name=text]");
    if (input) input.focus();
  }
});
