// /fair: roll a revealed cup again in the browser, from its seeds (maxchen/fair.py `faces`, `commit_of`).
(() => {
  "use strict";

  const form = document.getElementById("fair-check");
  if (!form) return;
  const out = document.getElementById("fair-result");

  function roll(f, count) {
    const weights = (f.weights || "1 1 1 1 1 1").trim().split(/\s+/).map(Number);
    const total = weights.reduce((a, b) => a + b, 0);
    const limit = 256 - (256 % total);
    const message = [f.client_seed, f.room, f.game, f.round, f.seat].join(":");
    const dice = [];
    for (let counter = 0; dice.length < count && counter < 64; counter++) {
      for (const byte of sha256.hmac.array(f.server_seed, message + ":" + counter)) {
        if (byte >= limit || dice.length === count) continue;
        let rest = byte % total, face = 0;
        while (rest >= weights[face]) rest -= weights[face++];
        dice.push(face + 1);
      }
    }
    return dice;
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const f = Object.fromEntries([...new FormData(form)].map(([k, v]) => [k, String(v).trim()]));
    // As the table wrote them: seeds in lower case, the room's code in capitals (typed either way).
    for (const k of ["server_seed", "commit", "client_seed"]) f[k] = f[k].toLowerCase();
    f.room = f.room.toUpperCase();
    const dice = f.dice.split(/[\s,-]+/).filter(Boolean).map(Number);
    const weights = (f.weights || "1 1 1 1 1 1").split(/\s+/).map(Number);
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
    const rolled = sorted(roll(f, dice.length));
    let state = "ok";
    if (sha256(f.server_seed) !== f.commit) state = "commit";
    else if (rolled.join() !== sorted(dice).join()) state = "dice";
    out.dataset.state = state;
    out.textContent = out.dataset[state].replace("{dice}", rolled.join(" "));
  });
})();
