// Fair dice (/fair): commits before the shakes, this phone's seeds, and each reveal checked (fair-check.js).
(() => {
  "use strict";

  const M = window.maxchen;
  if (!M.room) return;

  const seals = new Map(); // "round/cup" -> the commit the table showed
  let sealRound = 0;
  const KEPT = "maxchen-seeds-" + M.room.code;
  const sent = new Map(JSON.parse(sessionStorage.getItem(KEPT) || "[]")); // commit -> seed

  function note(meta) {
    const round = meta ? +meta.dataset.round || 0 : 0;
    if (round < sealRound) seals.clear(); // a new game
    sealRound = round;
    for (const el of document.querySelectorAll("#table .seal [data-commitment]")) {
      seals.set(el.closest("[data-round]").dataset.round + "/" + el.dataset.cup, el.dataset.commitment);
    }
  }

  // This phone's seed for its shake, kept against the cup's commit.
  function seed() {
    const mine = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
    const me = M.room.view && M.room.view.you;
    const cup = document.querySelector(`#table .seal [data-cup=""], #table .seal [data-cup="${me}"]`);
    if (cup) {
      sent.set(cup.dataset.commitment, mine);
      sessionStorage.setItem(KEPT, JSON.stringify([...sent].slice(-60)));
    }
    return mine;
  }

  const faces = (cup) =>
    [...cup.querySelectorAll(".die")].map((d) => {
      const f = d.className.match(/\bface-\d\b/g) || [];
      return f.length === 1 ? +f[0].slice(5) : 0;
    });

  // js-sha256 (no crypto.subtle on plain http) and the checker come with the first reveal on screen.
  let loading = null;
  function withChecker(then) {
    if (M.fair.markAll) return then();
    if (!loading) {
      loading = [document.body.dataset.sha256, document.body.dataset.check].map((src) => {
        const script = document.createElement("script");
        script.src = src;
        script.async = false; // in order
        document.head.appendChild(script);
        return script;
      });
    }
    loading[1].addEventListener("load", then, { once: true });
  }

  // Judged once, against commits seen before it showed.
  const judged = new Map();
  const opened = (r) => [...r.querySelectorAll("[data-salt], [data-server-seed], [data-held]")];
  const keyOf = (r) => r.dataset.round + opened(r).map((c) => [c.dataset.cup, c.dataset.salt, c.dataset.serverSeed, c.dataset.commitment, faces(c)]).join();

  function check() {
    const reveals = [...document.querySelectorAll(".reveal[data-round]")].filter((r) => opened(r).length);
    for (const r of reveals) {
      const k = keyOf(r);
      if (!judged.has(k)) judged.set(k, { seen: opened(r).map((c) => seals.get(r.dataset.round + "/" + c.dataset.cup)) });
    }
    if (reveals.length) withChecker(() => M.fair.markAll());
  }

  // check() before note(): a push's own commits are not "seen before".
  M.fair = { check, note, seed, faces, sent, judged, keyOf, opened };
})();
