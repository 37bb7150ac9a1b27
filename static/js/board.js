// Playing on the board (no build step). Every control on a board is a label holding a real
// input, so moves work by keyboard and without this file; it adds previews of the move being
// chosen, announcements for screen readers, focus kept across live updates, and the automatic
// moves played back one after another.
(function () {
  "use strict";

  var SLICES = 13;

  function $(selector, root) { return (root || document).querySelector(selector); }
  function $$(selector, root) { return Array.prototype.slice.call((root || document).querySelectorAll(selector)); }

  function checkedValues(name) {
    return $$('input[name="' + name + '"]:checked').map(function (input) { return input.value; });
  }

  function sliceAt(position) {
    return $('#table-board .pizza .slice[data-position="' + position + '"]');
  }

  function labelOf(position) {
    var slice = sliceAt(position);
    return slice ? slice.dataset.label : String(position);
  }

  function say(preview, text) {
    if (preview && preview.textContent !== text) preview.textContent = text;
  }

  // --- La Part du Chef: the cut ------------------------------------------------------------
  // The portions the ticked cut marks would make, drawn on the pizza and said in words.
  function previewCut() {
    var form = $("#cut-form");
    if (!form) return;
    var wanted = Number(form.dataset.portions);
    var starts = checkedValues("cut").map(Number).sort(function (a, b) { return a - b; });
    $$("#table-board .pizza .slice").forEach(function (slice) {
      slice.className.baseVal = slice.className.baseVal.replace(/\s*preview-\S+/g, "");
    });
    var preview = $(".board-preview", form);
    var lines = [];
    if (starts.length === wanted) {
      starts.forEach(function (start, j) {
        var end = starts[(j + 1) % starts.length];
        var length = ((end - start) % SLICES + SLICES) % SLICES || SLICES;
        var names = [];
        for (var step = 0; step < length; step++) {
          var position = (start + step) % SLICES;
          var slice = sliceAt(position);
          if (slice) slice.classList.add("preview-" + j);
          names.push(labelOf(position));
        }
        lines.push(form.dataset.portionWord.replace("{index}", j) + " " + names.join(", "));
      });
      say(preview, lines.join(" · "));
    } else {
      say(preview, starts.length ? form.dataset.chosenWord.replace("{chosen}", starts.length).replace("{wanted}", wanted) : "");
    }
  }

  // --- La Part du Chef: taking a portion ----------------------------------------------------
  function previewTake() {
    var form = $("#take-form");
    if (!form) return;
    var take = checkedValues("take")[0];
    var eaten = checkedValues("eat").filter(function (value) { return value.split(":")[0] === take; })
      .map(function (value) { return value.split(":")[1]; });
    $$("#table-board .pizza .slice").forEach(function (slice) {
      slice.classList.toggle("chosen", take !== undefined && slice.dataset.portion === take);
      slice.classList.toggle("to-eat", eaten.indexOf(slice.dataset.sliceId) >= 0);
    });
    var preview = $(".board-preview", form);
    if (take === undefined) return say(preview, "");
    var label = $('#table-targets .portion-mark[data-portion="' + take + '"] .sr-only');
    var text = label ? label.textContent : "";
    if (eaten.length) {
      var names = eaten.map(function (id) {
        var slice = $('#table-board .pizza .slice[data-slice-id="' + id + '"]');
        return slice ? slice.dataset.label : id;
      });
      text += ". " + form.dataset.eatWord + " " + names.join(", ");
    }
    say(preview, text);
  }

  // A click on a slice of a free portion chooses that portion (the portion's number does too).
  document.addEventListener("click", function (event) {
    var slice = event.target.closest && event.target.closest("#table-board .pizza .slice.in-portion");
    if (!slice) return;
    var radio = $('#table-targets input[name="take"][value="' + slice.dataset.portion + '"]');
    if (radio && !radio.checked) {
      radio.checked = true;
      radio.dispatchEvent(new Event("change", { bubbles: true }));
      radio.focus({ preventScroll: true });
    }
  });

  // --- La Marianne: two slices to give, two to get -----------------------------------------
  function limitPicks() {
    $$("fieldset.slice-picks[data-pick]").forEach(function (fieldset) {
      var boxes = $$("input[type=checkbox]", fieldset);
      var full = boxes.filter(function (box) { return box.checked; }).length >= Number(fieldset.dataset.pick);
      boxes.forEach(function (box) { box.disabled = full && !box.checked; });
    });
    // The players a kept finisher may take a slice from can be clicked in the kept lists.
    var take = checkedValues("take")[0];
    $$("#table-players .kept-lists li[data-seat]").forEach(function (row) {
      var radio = take === undefined ? null : $('#take-form .steal[data-portion="' + take + '"] input[type=radio][value="' + row.dataset.seat + '"]');
      row.classList.toggle("steal-target", Boolean(radio));
      row.classList.toggle("stolen-from", Boolean(radio) && radio.checked);
    });
    // The kept slices listed under the table show what La Marianne's holder has ticked.
    $$("#table-players .kept-slice").forEach(function (slice) {
      var box = document.getElementById("marianne-" + slice.dataset.sliceId);
      slice.classList.toggle("pickable", Boolean(box) && !box.disabled);
      slice.classList.toggle("picked", Boolean(box) && box.checked);
    });
  }

  // A finisher's steal target may also be chosen by clicking that player's kept slices.
  document.addEventListener("click", function (event) {
    var row = event.target.closest && event.target.closest("#table-players .kept-lists li[data-seat]");
    if (!row || (event.target.closest(".kept-slice.pickable"))) return;
    var take = checkedValues("take")[0];
    if (take === undefined) return;
    var radio = $('#take-form .steal[data-portion="' + take + '"] input[type=radio][value="' + row.dataset.seat + '"]');
    if (radio && !radio.checked) {
      radio.checked = true;
      radio.dispatchEvent(new Event("change", { bubbles: true }));
    }
  });

  // La Marianne's holder may also tick a slice by clicking it in the kept slices' lists.
  document.addEventListener("click", function (event) {
    var slice = event.target.closest && event.target.closest("#table-players .kept-slice");
    var box = slice && document.getElementById("marianne-" + slice.dataset.sliceId);
    if (!box || box.disabled) return;
    box.checked = !box.checked;
    box.dispatchEvent(new Event("change", { bubbles: true }));
  });

  function refreshPreviews() {
    previewCut();
    previewTake();
    limitPicks();
  }

  document.addEventListener("change", function (event) {
    var name = event.target.name || "";
    if (/^(cut|take|eat|give|get|chilli_\d+|steal_.*)$/.test(name)) {
      dirty = true;
      refreshPreviews();
    }
  });

  // --- focus and half-chosen moves across live updates -------------------------------------
  // A live update replaces the board and the forms. The element that had the focus gets it back
  // (same input name and value), and a move being chosen in a step that is still open (another
  // seat's choice arrived meanwhile) keeps its ticks.
  var dirty = false;
  var kept = null;

  function remember() {
    var active = document.activeElement;
    var status = $("#table-status");
    kept = {
      phase: status ? status.dataset.phase : "",
      focus: active && active.name ? { name: active.name, value: active.value } : null,
      checked: dirty ? $$("#table-targets input:checked, #table-moves input:checked").map(function (input) {
        return { name: input.name, value: input.value };
      }) : null
    };
  }

  function restore() {
    if (!kept) return;
    var status = $("#table-status");
    var samePhase = status && status.dataset.phase === kept.phase;
    if (samePhase && kept.checked && $$("#table-moves form").length) {
      kept.checked.forEach(function (entry) {
        var input = $('input[name="' + entry.name + '"][value="' + entry.value + '"]');
        if (input) input.checked = true;
      });
    } else {
      dirty = false;
    }
    if (kept.focus && document.activeElement === document.body) {
      var again = $('input[name="' + kept.focus.name + '"][value="' + kept.focus.value + '"], button[name="' + kept.focus.name + '"][value="' + kept.focus.value + '"]');
      if (again) again.focus({ preventScroll: true });
    }
    kept = null;
  }

  // --- what just happened: automatic moves played back one after another -------------------
  // A live update after bots, chance or a timeout moved carries the boards in between (each with
  // the sentence of its move). They are shown over the board one after another, then the board
  // as it is. A click on them skips to the end. Steps already shown are never shown again.
  var PAUSE = 900;
  var shownMove = null;
  var queue = [];
  var timer = null;

  function collectPlayback() {
    var board = $("#table-board");
    if (!board || board.dataset.lastMove === undefined) return;
    var last = Number(board.dataset.lastMove);
    if (shownMove === null) { shownMove = last; return; }
    $$(".playback-step", board).forEach(function (step) {
      if (Number(step.dataset.move) > shownMove) queue.push({ text: step.dataset.text, board: step.dataset.board });
    });
    if (last > shownMove) shownMove = last;
    if (queue.length && !timer) playNext();
  }

  function playNext() {
    var overlay = $(".board-stack .playback");
    var page = $(".table-page");
    var step = queue.shift();
    if (!overlay || !step) {
      if (overlay) { overlay.hidden = true; overlay.textContent = ""; }
      if (page) page.classList.remove("playing-back");
      timer = null;
      return;
    }
    overlay.innerHTML = step.board;
    $$("[id]", overlay).forEach(function (el) { el.removeAttribute("id"); });
    $$("[aria-labelledby]", overlay).forEach(function (el) { el.removeAttribute("aria-labelledby"); });
    var caption = document.createElement("p");
    caption.className = "playback-caption";
    caption.textContent = step.text;
    overlay.insertBefore(caption, overlay.firstChild);
    overlay.hidden = false;
    if (page) page.classList.add("playing-back");
    timer = setTimeout(playNext, PAUSE);
  }

  document.addEventListener("click", function (event) {
    if (!event.target.closest || !event.target.closest(".board-stack .playback")) return;
    queue = [];
    clearTimeout(timer);
    playNext();
  });

  document.addEventListener("htmx:wsBeforeMessage", function (event) {
    if (!event.defaultPrevented) remember();
  });
  document.addEventListener("submit", function () { dirty = false; });
  document.addEventListener("htmx:wsAfterMessage", function () { restore(); refreshPreviews(); collectPlayback(); });
  document.addEventListener("htmx:afterSettle", function () { refreshPreviews(); collectPlayback(); });
  document.addEventListener("DOMContentLoaded", function () { refreshPreviews(); collectPlayback(); });
})();
