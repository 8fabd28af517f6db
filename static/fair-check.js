// The room page's check of a reveal (static/fair.js loads it with js-sha256 at the first reveal): the
// dice again from the seeds, as maxchen/fair.py `faces` reads them, or an old cup's seal from its salt.
(() => {
  "use strict";

  const M = window.maxchen;
  let warned = "";

  function roll(cup, count) {
    const weights = (cup.dataset.weights || "1 1 1 1 1 1").split(" ").map(Number);
    const total = weights.reduce((a, b) => a + b, 0);
    const limit = 256 - (256 % total);
    const dice = [];
    for (let counter = 0; dice.length < count && counter < 64; counter++) {
      for (const byte of sha256.hmac.array(cup.dataset.serverSeed, cup.dataset.message + ":" + counter)) {
        if (byte >= limit || dice.length === count) continue;
        let rest = byte % total, face = 0;
        while (rest >= weights[face]) rest -= weights[face++];
        dice.push(face + 1);
      }
    }
    return dice;
  }
  const sorted = (dice) => [...dice].sort().join();

  function opens(cup) {
    const shown = M.fair.faces(cup);
    if (cup.dataset.salt) return sha256(shown.join(",") + ":" + cup.dataset.salt) === cup.dataset.commitment;
    if (sha256(cup.dataset.serverSeed) !== cup.dataset.commitment) return false;
    const mine = M.fair.sent.get(cup.dataset.commitment); // the seed this phone sent for this cup, if it shook it
    if (mine && cup.dataset.by === "player" && cup.dataset.message.split(":")[0] !== mine) return false;
    return sorted(roll(cup, shown.length)) === sorted(shown);
  }

  function mark(reveal, j, cups) {
    const held = cups.some((c) => c.dataset.held);
    const fits = (c, i) => [undefined, c.dataset.commitment].includes(j.seen[i]) && (!!c.dataset.held || opens(c));
    j.bad = j.bad || cups.map((c, i) => !fits(c, i));
    const state = j.bad.includes(true) ? "bad" : held ? "held" : j.seen.includes(undefined) ? "unchecked" : "ok";
    cups.forEach((c, i) => c.classList.toggle("unsealed", j.bad[i]));
    const pill = reveal.querySelector(".fair-mark");
    if (pill) pill.dataset.state = state;
    if (state === "bad" && warned !== reveal.dataset.round) {
      warned = reveal.dataset.round;
      M.$("live").textContent = (M.$("live").textContent + " " + M.T.unsealed).trim();
    }
  }

  // Every copy on screen now, the overlay's too (made while this script loaded).
  M.fair.markAll = () => {
    for (const r of document.querySelectorAll(".reveal[data-round]")) {
      const j = M.fair.judged.get(M.fair.keyOf(r));
      if (j) mark(r, j, M.fair.opened(r));
    }
  };
})();
