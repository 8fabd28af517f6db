// The room page: what follows each swap (my seat, the turn, the pickers, the reveal staged
// over the table), newcomers, the host's grace before removing, and a screen that stays awake.
(() => {
  "use strict";

  const M = window.maxchen;
  if (!M.room) return;
  const { $, room } = M;
  let lastSay = "";
  let lastReveal = null;
  let lastPhase = null;

  // A phone at the table never dims or locks: hold a screen wake lock while the
  // room is open, and take it again when the page is looked at again (the
  // browser lets it go whenever the page is hidden). Only on HTTPS or localhost.
  let wakeLock = null;
  async function keepAwake() {
    if (!("wakeLock" in navigator) || document.visibilityState !== "visible" || wakeLock) return;
    try {
      wakeLock = await navigator.wakeLock.request("screen");
      document.body.dataset.awake = "1";
      wakeLock.addEventListener("release", () => {
        wakeLock = null;
        delete document.body.dataset.awake;
      });
    } catch (_) {
      wakeLock = null; // refused (battery saver, no user gesture yet): try again on the next tap
    }
  }
  keepAwake();
  document.addEventListener("visibilitychange", keepAwake);
  document.addEventListener("pointerdown", keepAwake);

  // The cup reads this player's own part of the view from the controls area.
  function readView() {
    const script = $("cup-view");
    if (!script) return;
    room.view = JSON.parse(script.textContent);
    M.cup.update(room.view);
  }

  // --- the announce picker: the button names the chosen value --------------------

  document.body.addEventListener("change", (event) => {
    const radio = event.target.closest("form.announce input[name=value]");
    if (!radio) return;
    const button = radio.form.querySelector("button[type=submit]");
    button.textContent = button.dataset.label + ": " + radio.closest("label").dataset.name;
  });

  // A pick left out: the button says so and the picker nudges (not the browser's bubble, in its own language).
  document.body.addEventListener("invalid", (event) => {
    const button = event.target.form && event.target.form.querySelector("button[data-pick]");
    if (!button) return;
    event.preventDefault();
    button.textContent = button.dataset.pick;
    const picker = event.target.closest(".ladder");
    picker.classList.remove("nudge");
    void picker.offsetWidth; // restart the animation
    picker.classList.add("nudge");
  }, true);
  document.body.addEventListener("change", (event) => {
    const button = event.target.form && event.target.form.querySelector("button[data-pick]");
    if (button && button.textContent === button.dataset.pick) button.textContent = button.dataset.label;
  });

  // The bid picker offers only legal raises: faces that do not beat the bid at this count go grey.
  function legalFaces() {
    const form = document.querySelector("form.bid");
    if (!form || !room.view) return;
    const count = +(form.querySelector("input[name=count]:checked") || {}).value;
    for (const input of form.querySelectorAll("input[name=face]")) {
      const legal = room.view.choices.some((c) => c.count === count && c.face === +input.value);
      input.disabled = !legal;
      if (!legal) input.checked = false;
    }
  }
  document.body.addEventListener("change", (event) => {
    if (event.target.closest("form.bid input[name=count]")) legalFaces();
  });

  const afterSwap = (M.afterSwap = () => {
    readView();
    legalFaces();
    const me = room.view ? room.view.you : null;
    const meta = document.querySelector("#table [data-meta]");

    document.body.classList.toggle("host", !!(room.view && room.view.host));
    document.body.classList.toggle("decides", !!(room.view && room.view.decides)); // not a class's student host
    const turn = meta ? meta.dataset.turn : "";
    const mine = !!me && turn === me;
    if (mine && !document.body.classList.contains("my-turn") && lastReveal !== null) turnAlert();
    document.body.classList.toggle("my-turn", mine);
    document.title = (mine ? "● " : "") + TITLE;
    for (const li of document.querySelectorAll("#players .player")) {
      li.classList.toggle("me", li.dataset.player === me);
      li.classList.toggle("active", !!turn && li.dataset.player === turn);
    }
    // My own cup at a reveal: its dice as large as my hand's (style.css .cups li.mine).
    for (const li of document.querySelectorAll(".cups li[data-player]")) li.classList.toggle("mine", li.dataset.player === me);
    for (const el of document.querySelectorAll("[data-not-for]")) el.hidden = el.dataset.notFor === me;
    watching(turn);
    graceRemoval();
    newcomers(meta);
    if (meta) Object.assign(document.body.dataset, { phase: meta.dataset.phase, rules: meta.dataset.rules, claim: meta.dataset.claim });
    const say = document.querySelector("#table [data-say]");
    if (say && say.textContent.trim() && say.textContent !== lastSay) {
      lastSay = say.textContent;
      $("live").textContent = lastSay.trim();
    }
    M.fair.check(); // before the seals of this push are noted
    M.fair.note(meta);
    const round = (meta && meta.dataset.revealRound) || "";
    const phase = meta ? meta.dataset.phase : "";
    if (phase !== "over" && lastPhase === "over") { // a new game (or the lobby): no old reveal over it
      winnerNext = false;
      hideReveal();
    }
    const ended = phase === "over" && lastPhase === "playing"; // seen ending here, not opened ended
    lastPhase = phase;
    // One phone: its cover shows a check to the next holder; the game's last one (no cover after it) shows here.
    const revealed = lastReveal !== null && round && round !== lastReveal && (!room.shared || ended);
    if (revealed) showReveal(ended);
    lastReveal = round;
    if (ended && !revealed) showWinner();
    fit();
    if (!$("reveal-overlay").hidden) place($("reveal-overlay")); // the controls may have moved under it
  });

  // Every row of the table and every button of my move in sight: while either would scroll, the page takes the next
  // denser layout (style.css, body[data-fit]), before the browser paints, so nothing jumps in view.
  // The round's bids (liar's dice) are taken at one line of chips (the fourth step takes that too); then, in the layout
  // that fits, they take what room is left: as many lines as leave everything else in sight, newest first.
  const FITS = 7;
  const BID_LINES = 4;
  function fit() {
    const stage = $("stage");
    const body = document.body;
    if (stage && body.classList.contains("board")) fitBoardBids();
    if (stage && !body.classList.contains("board")) {
      delete body.dataset.fit;
      const over = (el) => !!el && el.scrollHeight > el.clientHeight + 1;
      const wide = () => [...stage.querySelectorAll(".table-list .player")].some((row) => row.scrollWidth > row.clientWidth + 1);
      const cut = () => over(stage) || over($("controls")) || wide(); // a row, its standing, or a button of my move, out of sight
      const bids = [...document.querySelectorAll("#controls .bid-history, #table .bid-history")];
      const lines = (n) => bids.forEach((list) => list.style.setProperty("--lines", n));
      lines(1);
      let steps = ""; // every step taken, "1 2 3": the styles of a step hold in each denser one (data-fit~="2")
      for (let level = 1; level <= FITS && body.dataset.phase === "playing" && cut(); level++) {
        steps = `${steps} ${level}`.trim();
        body.dataset.fit = steps;
      }
      if (bids.some((list) => list.checkVisibility()) && !cut()) {
        for (let n = 2; n <= BID_LINES; n++) {
          lines(n);
          if (cut()) {
            lines(n - 1);
            break;
          }
        }
      }
    }
    M.shorten();
  }

  // The board's earlier bids: board.css wraps those the round's column has no room for into a column out of sight;
  // here they leave the page, so nothing on the screen is a chip cut in half.
  function fitBoardBids() {
    const list = document.querySelector("#table .bid-history");
    if (!list) return;
    const chips = [...list.children];
    chips.forEach((li) => li.classList.remove("unseen"));
    const box = list.getBoundingClientRect();
    const shown = chips.filter((li) => li.getClientRects().length).map((li) => [li, li.getBoundingClientRect()]);
    for (const [li, r] of shown) li.classList.toggle("unseen", r.left > shown[0][1].left + 1 || r.bottom > box.bottom + 1);
  }

  addEventListener("resize", fit);
  // The screen turned, the controls or the cup changed their size: fit again (it settles: the same
  // page fits the same way, so the sizes it leaves are the ones observed).
  const resized = new ResizeObserver(() => fit());
  for (const id of ["stage", "controls", "cup-area"]) if ($(id)) resized.observe($(id));

  // A waiting phone's controls say what the player whose turn it is does: shaking, peeking, or the
  // table's own words for the turn (deciding, announcing, bidding).
  function watching(turn) {
    const line = document.querySelector("#controls [data-watching]");
    if (!line) return;
    const row = turn ? [...document.querySelectorAll("#players .player")].find((li) => li.dataset.player === turn) : null;
    const gone = row && row.querySelector(".dot.off") ? "offline" : ""; // the table waits for them, not their move
    const doing = gone || (row && row.dataset.activity);
    const status = document.querySelector("#table .status .theirs") || document.querySelector("#table .status");
    const text = doing && M.T["watching_" + doing]
      ? M.T["watching_" + doing].replace("{name}", () => row.querySelector(".name").textContent)
      : status ? status.textContent.trim() : "";
    if (line.textContent !== text) line.textContent = text;
    line.classList.toggle("live", !!doing && !gone);
    // Liar's dice: the round's bids under it, a copy of the table's (which the page itself does not show).
    const bids = document.querySelector("#table .bid-history");
    const shown = line.parentElement.querySelector(":scope > .bid-history");
    if (!bids) return shown && shown.remove();
    if (shown && shown.innerHTML === bids.innerHTML) return;
    const copy = bids.cloneNode(true);
    copy.setAttribute("aria-hidden", "true"); // the page's live line reads the turn; the table keeps the list
    if (shown) shown.replaceWith(copy);
    else line.after(copy);
  }

  // The invitation in one tap: the phone's own sharing (a chat, a message), else the link copied; the QR
  // code shown larger at a tap, to be scanned across the table.
  const shareButton = $("share-button");
  if (shareButton) {
    shareButton.addEventListener("click", async () => {
      const url = shareButton.dataset.url;
      const told = (text) => {
        const p = document.createElement("p");
        p.textContent = text;
        M.toast(p.outerHTML, true);
      };
      if (navigator.share) {
        try { await navigator.share({ title: document.title, url }); } catch (error) { /* the player closed it */ }
        return;
      }
      try {
        await navigator.clipboard.writeText(url);
        told(M.T.copied);
      } catch (error) {
        const range = document.createRange();
        range.selectNodeContents($("join-link"));
        getSelection().removeAllRanges();
        getSelection().addRange(range);
        told(M.T.copy_by_hand);
      }
    });
  }
  const qr = $("qr");
  if (qr) qr.addEventListener("click", () => qr.setAttribute("aria-pressed", String(document.body.classList.toggle("qr-big"))));

  // Reactions: my emoji goes to the table (a few, then a pause: the server says when); anyone's shows a
  // moment beside their row, on every phone and board.
  const reactions = $("reactions");
  if (reactions) {
    reactions.addEventListener("click", async (event) => {
      const button = event.target.closest("button[data-emoji]");
      if (!button) return;
      $("menu").open = false;
      const answer = await room.react(button.dataset.emoji);
      if (answer && answer.error) {
        const p = document.createElement("p");
        p.textContent = answer.error.message;
        M.toast(p.outerHTML);
      }
    });
  }
  M.reaction = ({ player, emoji }) => {
    const row = [...document.querySelectorAll("#players .player")].find((li) => li.dataset.player === player);
    if (!row || typeof emoji !== "string") return;
    const bubble = document.createElement("span");
    bubble.className = "reaction-bubble";
    bubble.setAttribute("aria-hidden", "true");
    bubble.textContent = emoji;
    document.body.appendChild(bubble);
    const [right, middle, scale] = bubbleAt(row, bubble.offsetWidth, bubble.offsetHeight);
    bubble.style.left = Math.round(right) + "px"; // its right edge and its middle (style.css: translate(-100%, -50%))
    bubble.style.top = Math.round(middle) + "px";
    if (scale < 1) bubble.style.fontSize = `${2 * scale}rem`;
    setTimeout(() => bubble.remove(), 2500);
  };

  // Where a reaction shows: after the sender's name, over the free room of the row (never over a standing, a tag,
  // a dot or a button of it, nor over another row), a little higher where a tag lies under the name; else beside
  // the row, in no other; else, a narrow row with no room left, over the end of the name itself, no taller than
  // the row above its tags.
  function bubbleAt(row, w, h) {
    const rect = (el) => el.getBoundingClientRect();
    const rows = [...document.querySelectorAll("#players .player")];
    const kept = [...row.querySelectorAll(".tag, .pips, .hearts, .mats, .dot, .name, [data-grace] form")]
      .filter((el) => el.getClientRects().length)
      .concat(rows.filter((li) => li !== row))
      .map(rect);
    const box = rect(row);
    const name = rect(row.querySelector(".name") || row);
    const free = (x, y) => x >= 2 && x + w <= innerWidth - 2 && y >= 0 && y + h <= innerHeight &&
      kept.every((r) => x + w <= r.left || r.right <= x || y + h <= r.top || r.bottom <= y);
    const ys = [name.top + name.height / 2 - h / 2, name.bottom - h, box.top - h / 2];
    for (const y of ys) {
      for (let x = name.right + 4; x + w <= box.right - 2; x += 4) if (free(x, y)) return [x + w, y + h / 2, 1];
      for (const x of [box.right + 4, box.left - 4 - w]) if (free(x, y)) return [x + w, y + h / 2, 1];
    }
    const under = [...row.querySelectorAll(".tag")].map(rect).filter((r) => r.height > 4 && r.top >= name.bottom - 4);
    const bottom = Math.min(box.bottom, ...under.map((r) => r.top)) - 1;
    const scale = Math.max(0.6, Math.min(1, (bottom - box.top) / h));
    const middle = Math.min(name.top + name.height / 2, bottom - (h * scale) / 2);
    return [Math.max(name.left + w * scale, name.right), middle, scale];
  }

  // Someone sits down while a game runs: everyone hears of it (they play from the next game).
  let seated = null;
  function newcomers(meta) {
    const rows = [...document.querySelectorAll("#players .player")];
    const ids = new Set(rows.map((li) => li.dataset.player));
    if (seated && meta && meta.dataset.phase === "playing") {
      const fresh = rows.filter((li) => !seated.has(li.dataset.player));
      if (fresh.length) {
        const p = document.createElement("p");
        const names = fresh.map((li) => li.querySelector(".name").textContent).join(", ");
        p.textContent = document.body.dataset.joined.replace("{name}", () => names); // a function: no "$&" patterns
        M.toast(p.outerHTML, true);
      }
    }
    seated = ids;
  }

  // A player who went offline mid-game can be removed by the host only after a grace
  // (a locked screen or a tunnel comes back); counted from when this page first saw them gone.
  const GRACE = 1000 * (parseFloat(document.body.dataset.grace) || 15);
  const offlineSince = new Map();
  let graceTimer = null;
  // Meanwhile their row counts the grace down ("offline: the game waits 0:25").
  function graceRemoval() {
    const now = Date.now();
    const seen = new Set();
    let next = Infinity;
    let came = false; // a ✕ came after its grace: its row makes room for it, so the rows fit again
    for (const el of document.querySelectorAll("#players [data-grace]")) {
      const id = el.dataset.notFor;
      seen.add(id);
      if (!offlineSince.has(id)) offlineSince.set(id, now);
      const left = offlineSince.get(id) + GRACE - now;
      came = came || (left <= 0 && el.classList.contains("grace"));
      el.classList.toggle("grace", left > 0);
      graceClock(el.closest(".player"), left);
      if (left > 0) next = Math.min(next, left % 1000 || 1000); // the next whole second
    }
    for (const id of [...offlineSince.keys()]) if (!seen.has(id)) offlineSince.delete(id);
    clearTimeout(graceTimer);
    if (next < Infinity) graceTimer = setTimeout(graceRemoval, next + 50);
    if (came) fit();
  }

  function graceClock(row, left) {
    let bar = row && row.querySelector(".grace-bar");
    if (left <= 0) bar?.remove();
    else if (row) { // shorter each second, as the clock's words below
      if (!bar) {
        bar = document.createElement("i");
        bar.className = "grace-bar";
        row.append(bar);
      }
      bar.style.transform = `scaleX(${Math.ceil(left / 1000) / (GRACE / 1000)})`;
    }
    const tag = row && row.querySelector(".offline-wait");
    if (!tag) return;
    let clock = tag.querySelector(".grace-left");
    if (left <= 0) return clock && clock.remove();
    if (!clock) {
      clock = document.createElement("span");
      clock.className = "grace-left";
      tag.append(" ", clock);
    }
    const seconds = Math.ceil(left / 1000);
    clock.textContent = Math.floor(seconds / 60) + ":" + String(seconds % 60).padStart(2, "0");
  }

  // The turn comes to me: a short buzz where the phone allows it, and a mark in the tab's title.
  const TITLE = document.title;
  function turnAlert() {
    M.buzz([60, 40, 60]);
    M.sound.chime();
  }

  let revealTimer = null;
  let winnerNext = false; // the reveal up is the game's last: the winner's moment follows it

  function hideReveal() {
    clearTimeout(revealTimer);
    document.removeEventListener("pointerdown", hideReveal, true);
    document.removeEventListener("keydown", hideReveal, true);
    if (winnerNext) return showWinner();
    $("reveal-overlay").hidden = true;
    $("reveal-overlay").replaceChildren(); // no copy of a result or a reveal stays in the page
  }

  // The game's end: its last reveal a moment shorter, then the winner's moment: the result large, the
  // standings and the game's numbers, a fanfare and confetti (none where motion is to be reduced).
  // On its side the phone keeps its controls column clear: a reveal covers the table and the cup only (the
  // winner's moment, when nobody must act, the whole screen).
  const sideways = matchMedia("(orientation: landscape) and (max-height: 560px)");
  function place(overlay) {
    const controls = $("controls");
    const clear = sideways.matches && controls && !overlay.querySelector(".moment");
    overlay.style.right = clear ? Math.max(0, innerWidth - controls.getBoundingClientRect().left) + "px" : "";
  }

  function showWinner() {
    winnerNext = false;
    const result = document.querySelector("#table .result");
    const overlay = $("reveal-overlay");
    if (!result) {
      overlay.hidden = true;
      return;
    }
    const moment = document.createElement("div");
    moment.className = "moment";
    for (const part of [result, ...document.querySelectorAll("#table .standings, #table .tally")]) {
      const copy = part.cloneNode(true);
      copy.removeAttribute("role"); // the page's own result speaks: the copy is for the eyes
      moment.appendChild(copy);
    }
    const confetti = document.createElement("div");
    confetti.className = "confetti";
    confetti.setAttribute("aria-hidden", "true");
    for (let i = 0; i < 36; i++) {
      const bit = document.createElement("i");
      bit.style.left = Math.random() * 100 + "%";
      bit.style.animationDelay = (Math.random() * 0.9).toFixed(2) + "s";
      bit.style.setProperty("--hue", String(Math.floor(Math.random() * 360)));
      confetti.appendChild(bit);
    }
    overlay.replaceChildren(confetti, moment);
    place(overlay);
    overlay.hidden = false;
    M.shorten(); // the names of the copies, in the moment's own boxes
    document.addEventListener("pointerdown", hideReveal, true);
    document.addEventListener("keydown", hideReveal, true);
    clearTimeout(revealTimer);
    revealTimer = setTimeout(hideReveal, 7000);
    M.sound.fanfare();
  }

  function showReveal(last) {
    const card = $("reveal");
    if (!card) return last && showWinner();
    const overlay = $("reveal-overlay");
    overlay.replaceChildren(card.cloneNode(true));
    overlay.firstChild.removeAttribute("id");
    if ($("menu")) $("menu").open = false; // the reveal is what everyone looks at now, not the menu under it
    place(overlay);
    overlay.hidden = false;
    M.shorten();
    // Any touch or key puts it away and still does what it meant below (the cup, "Believe").
    document.addEventListener("pointerdown", hideReveal, true);
    document.addEventListener("keydown", hideReveal, true);
    clearTimeout(revealTimer); // a new reveal gets its whole time (the game's last a shorter one)
    winnerNext = !!last;
    revealTimer = setTimeout(hideReveal, last ? 3500 : M.reducedMotion ? 4500 : 6000);
    const verdict = overlay.querySelector(".verdict");
    const bluff = overlay.firstChild.classList.contains("bluff"); // read now: the overlay may be emptied before the sting
    if (verdict) setTimeout(() => M.sound.sting(bluff), M.reducedMotion ? 0 : 1300);
  }

  afterSwap();
})();
