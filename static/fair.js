// Fair dice (/fair): commits, this phone's seeds; fair-check.js checks each reveal.
(() => {
  "use strict";

  const M = window.maxchen;
  if (!M.room) return;

  const seals = new Map(); // "round/cup" -> what the table showed of it
  let sealRound = 0;
  const KEPT = "maxchen-seeds-" + M.room.code;
  const sent = new Map(JSON.parse(sessionStorage.getItem(KEPT) || "[]"));

  function note(meta) {
    const round = meta ? +meta.dataset.round || 0 : 0;
    if (round < sealRound) seals.clear();
    sealRound = round;
    for (const el of document.querySelectorAll("#table .seal [data-commitment]")) {
      const key = el.closest("[data-round]").dataset.round + "/" + el.dataset.cup, d = { ...el.dataset }, old = seals.get(key);
      if (d.client && old && !old.client && old.commitment !== d.commitment) old.swapped = 1;
      else seals.set(key, d);
      if (d.client && (!old || (old.late && old.commitment === d.commitment))) d.late = 1;
    }
  }

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


  // js-sha256 (no crypto.subtle on http), seeds.js and the checker come with the first reveal.
  let loading = null;
  function withChecker(then) {
    if (M.fair.markAll) return then();
    if (!loading) {
      loading = [document.body.dataset.sha256, document.body.dataset.seeds, document.body.dataset.check].map((src) => {
        const script = document.createElement("script");
        script.src = src;
        script.async = false;
        document.head.appendChild(script);
        return script;
      });
    }
    loading[2].addEventListener("load", then, { once: true });
  }

  const judged = new Map();
  const opened = (r) => [...r.querySelectorAll("[data-salt], [data-server-seed], [data-held]")];
  const keyOf = (r) => r.dataset.round + opened(r).map((c) => JSON.stringify(c.dataset) + c.innerHTML).join();

  function check() {
    const reveals = [...document.querySelectorAll(".reveal[data-round]")].filter((r) => opened(r).length);
    for (const r of reveals) {
      const k = keyOf(r);
      if (!judged.has(k)) judged.set(k, { seen: opened(r).map((c) => seals.get(r.dataset.round + "/" + c.dataset.cup)) });
    }
    if (reveals.length) withChecker(() => M.fair.markAll());
  }

  // check() before note(): a push's own commits are not "seen before"
  M.fair = { check, note, seed, sent, judged, keyOf, opened };
})();
