// The room page's check of a reveal (static/fair.js loads it with js-sha256 and seeds.js at the first reveal):
// the commit and the dice again from the seeds (seeds.js), or an old cup's seal from its salt.
(() => {
  "use strict";

  const M = window.maxchen;
  let warned = "";

  const weightsOf = (cup) => (cup.dataset.weights ? cup.dataset.weights.split(" ").map(Number) : null);
  const roll = (cup, count) => window.fairSeeds.roll(cup.dataset.serverSeed, cup.dataset.message, weightsOf(cup), count);
  const sorted = (dice) => [...dice].sort().join();

  const LOADED = { "1/4": "3 3 3 3 3 5", "1/3": "2 2 2 2 2 5", "1/2": "1 1 1 1 1 5" };

  // Whether a revealed cup opens as the table showed it before (`seen`: its commit, where it is rolled and,
  // once shaken, whose seed): the server cannot change a field of the message after the shake to pick dice.
  const faces = (cup) =>
    [...cup.querySelectorAll(".die")].map((d) => {
      const f = d.className.match(/\bface-\d\b/g) || [];
      return f.length === 1 ? +f[0].slice(5) : 0; // a die drawn with two faces counts as none
    });

  function opens(cup, seen) {
    const shown = faces(cup);
    // An old seal opens by its salt, never a cup this page saw committed with seeds.
    if (cup.dataset.salt) return !(seen && seen.context) && sha256(shown.join(",") + ":" + cup.dataset.salt) === cup.dataset.commitment;
    if (cup.dataset.held) return !!document.body.dataset.lesson; // a hunt's: only at a class's table
    const [client, ...where] = cup.dataset.message.split(":");
    if (seen && (seen.context !== where.join(":") || (seen.client && seen.client !== client))) return false;
    const mine = M.fair.sent.get(cup.dataset.commitment); // the seed this phone sent for this cup, if it shook it
    if (mine && client !== mine) return false;
    const told = document.querySelector("#table .notice.loaded"); // weights only as the table was told
    if (cup.dataset.weights && cup.dataset.weights !== (told && LOADED[told.dataset.six])) return false;
    if (window.fairSeeds.commit(cup.dataset.serverSeed, weightsOf(cup)) !== cup.dataset.commitment) return false;
    return sorted(roll(cup, shown.length)) === sorted(shown);
  }

  function mark(reveal, j, cups) {
    const held = cups.some((c) => c.dataset.held);
    // Against what this page saw: a commit swapped at the shake is a warning; a cup it never saw committed
    // before its shake (opened later, or asleep through a believe) cannot be vouched for.
    const verdict = (c, i) => {
      const s = j.seen[i];
      if ((s && s.swapped) || !opens(c, s)) return "bad";
      if (!s) return "unchecked";
      if (s.commitment !== c.dataset.commitment) return s.client ? "bad" : "unchecked";
      return s.late || c.dataset.salt ? "unchecked" : "ok"; // an old seal's dice its server might have chosen
    };
    j.states = j.states || cups.map(verdict);
    const state = j.states.includes("bad") ? "bad" : held ? "held" : j.states.includes("unchecked") ? "unchecked" : "ok";
    cups.forEach((c, i) => c.classList.toggle("unsealed", j.states[i] === "bad"));
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
