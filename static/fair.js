// Fair dice (/fair): a closed cup's seal is sha256("6,5:" + salt); a reveal brings the salt.
// The page hashes the dice it shows (js-sha256: plain http has no crypto.subtle) and holds
// each reveal to the seals it saw before the reveal showed.
(() => {
  "use strict";

  const M = window.maxchen;
  if (!M.room) return;

  const seals = new Map(); // "round/cup" -> the seal the table showed
  let sealRound = 0;
  let warned = "";

  function note(meta) {
    const round = meta ? +meta.dataset.round || 0 : 0;
    if (round < sealRound) seals.clear(); // a new game counts its rounds from 1 again
    sealRound = round;
    for (const el of document.querySelectorAll("#table .seal [data-commitment]")) {
      seals.set(el.closest("[data-round]").dataset.round + "/" + el.dataset.cup, el.dataset.commitment);
    }
  }

  function faces(cup) {
    return [...cup.querySelectorAll(".die")].map((d) => {
      const f = d.className.match(/\bface-\d\b/g) || [];
      return f.length === 1 ? +f[0].slice(5) : 0;
    });
  }

  // js-sha256 comes with the first reveal on screen, not with the page: a lighter first load.
  let hashing = null;
  function withSha256(then) {
    if (window.sha256) return then();
    if (!hashing) {
      hashing = document.createElement("script");
      hashing.src = document.body.dataset.sha256;
      document.head.appendChild(hashing);
    }
    hashing.addEventListener("load", then, { once: true });
  }

  // Judged once, against seals seen before it showed (a die of two faces hashes as 0).
  const judged = new Map();
  const salted = (r) => [...r.querySelectorAll("[data-salt]")];
  const keyOf = (r) => r.dataset.round + salted(r).map((c) => [c.dataset.cup, c.dataset.salt, c.dataset.commitment, faces(c)]).join();

  function check() {
    const reveals = [...document.querySelectorAll(".reveal[data-round]")].filter((r) => salted(r).length);
    for (const r of reveals) {
      const k = keyOf(r);
      if (!judged.has(k)) judged.set(k, { seen: salted(r).map((c) => seals.get(r.dataset.round + "/" + c.dataset.cup)) });
    }
    if (reveals.length) withSha256(() => reveals.forEach(markReveal));
  }

  function markReveal(reveal) {
    const j = judged.get(keyOf(reveal));
    const cups = salted(reveal);
    const sealed = (c, i) => sha256(faces(c).join(",") + ":" + c.dataset.salt) === c.dataset.commitment && [undefined, c.dataset.commitment].includes(j.seen[i]);
    j.bad = j.bad || cups.map((c, i) => !sealed(c, i));
    const state = j.bad.includes(true) ? "bad" : j.seen.includes(undefined) ? "unchecked" : "ok";
    cups.forEach((c, i) => c.classList.toggle("unsealed", j.bad[i]));
    const mark = reveal.querySelector(".fair-mark");
    if (mark) mark.dataset.state = state;
    if (state === "bad" && warned !== reveal.dataset.round) {
      warned = reveal.dataset.round;
      M.$("live").textContent = (M.$("live").textContent + " " + M.T.unsealed).trim();
    }
  }

  // A reveal is checked before the seals of the same push are noted (they are not "seen before").
  M.fair = { check, note };
})();
