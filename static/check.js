// /fair: roll a revealed cup again in the browser, from its seeds (seeds.js: maxchen/fair.py `faces`, `commit_of`).
(() => {
  "use strict";

  const form = document.getElementById("fair-check");
  if (!form) return;
  const out = document.getElementById("fair-result");

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const f = Object.fromEntries([...new FormData(form)].map(([k, v]) => [k, String(v).trim()]));
    // As the table wrote them: seeds in lower case, the room's code in capitals (typed either way).
    for (const k of ["server_seed", "commit", "client_seed"]) f[k] = f[k].toLowerCase();
    f.room = f.room.toUpperCase();
    const dice = f.dice.split(/[\s,-]+/).filter(Boolean).map(Number);
    const weights = (f.weights || "1 1 1 1 1 1").split(/[\s,]+/).filter(Boolean).map(Number);
    const ok =
      /^[0-9a-f]{64}$/.test(f.server_seed) && /^[0-9a-f]{64}$/.test(f.commit) && /^[0-9a-f]{32,64}$/.test(f.client_seed) &&
      /^\d+$/.test(f.game) && /^\d+$/.test(f.round) && /^[1-9]\d?$/.test(f.seat) && /^[0-9A-Z]+$/.test(f.room) &&
      dice.length > 0 && dice.length <= 30 &&
      dice.every((d) => Number.isInteger(d) && d >= 1 && d <= 6) && weights.length === 6 && weights.every((w) => Number.isInteger(w) && w > 0);
    out.dataset.state = ok ? "" : "bad";
    if (!ok) {
      out.textContent = out.dataset.bad;
      return;
    }
    const sorted = (list) => [...list].sort().reverse();
    const message = [f.client_seed, f.room, f.game, f.round, f.seat].join(":");
    const rolled = sorted(window.fairSeeds.roll(f.server_seed, message, weights, dice.length));
    let state = "ok";
    if (window.fairSeeds.commit(f.server_seed, weights) !== f.commit) state = "commit"; // a loaded cup's covers its weights
    else if (rolled.join() !== sorted(dice).join()) state = "dice";
    out.dataset.state = state;
    out.textContent = out.dataset[state].replace("{dice}", rolled.join(" "));
  });
})();
