// A class: the teacher's desk, a student waiting for a table, the class board.
// The board gets its parts pushed; the desk asks for its roster again when the class
// changed (not while the teacher holds a choice open); a waiting student whose table
// is ready goes there.
(() => {
  "use strict";

  const data = document.body.dataset;
  if (!data.class) return;
  const M = window.maxchen;
  const $ = M.$;

  const socket = M.connect({ class: data.class, watch: data.watch === "1" });
  const banner = $("banner");
  socket.on("connect", () => { if (banner) banner.hidden = true; });
  socket.on("disconnect", () => { if (banner) banner.hidden = false; });
  socket.on("parts", (message) => M.applyParts(message.html, message.reset, () => arrange(false)));
  let stale = false;
  const roster = () => {
    const open = document.activeElement && document.activeElement.closest && document.activeElement.closest("#roster select");
    stale = !!open;
    if (!open && $("roster")) htmx.ajax("GET", "/c/" + data.class + "/roster", { target: "#roster", swap: "outerHTML" });
  };
  document.addEventListener("focusout", () => { if (stale) setTimeout(roster, 0); });
  socket.on("class", (message) => {
    if (data.student && message.seated.includes(data.student)) location.reload();
    else if (data.teacher) roster();
  });
  socket.on("tables", roster); // a table changed: who sits where, which table plays
  // A choice made on the desk and not yet sent (a form sent by its button: the hunt's table, the
  // countdown's minutes) outlives the roster drawn anew under it; sending the form forgets it.
  const chosen = new Map();
  const key = (select) => select.form.className + "|" + select.name;
  document.addEventListener("change", (event) => {
    const select = event.target;
    if (select.matches("#roster form:not([hx-trigger]) select")) chosen.set(key(select), select.value);
  });
  document.body.addEventListener("htmx:beforeRequest", (event) => {
    const form = event.detail.elt.closest && event.detail.elt.closest("form");
    if (form) for (const select of form.querySelectorAll("select")) chosen.delete(key(select));
  });
  document.body.addEventListener("htmx:afterSwap", () => {
    for (const select of document.querySelectorAll("#roster form:not([hx-trigger]) select")) {
      const value = chosen.get(key(select));
      if (value !== undefined && [...select.options].some((o) => o.value === value)) select.value = value;
    }
  });
  // The class board's tables on a projector: every card whole. The roomiest way that cuts no card: every
  // table with its whole last check, then compact, then pages of six (compact), three (whole, then compact) or
  // one (turning by themselves,
  // or at a tap on the pager). A change may make it denser at once; roomier only when the page turns.
  const LAYOUTS = [[Infinity, false], [Infinity, true], [6, true], [3, false], [3, true], [1, true]];
  const wide = matchMedia("(min-width: 1200px)");
  const pager = $("tables-page");
  let layout = 0;
  let page = 0;
  const grid = () => document.querySelector("body.class-board[data-show=tables] .class-tables");
  const show = (tables, at, which) => {
    const [size, compact] = LAYOUTS[at];
    const cards = Array.from(tables.children);
    const per = Math.min(size, cards.length);
    const pages = Math.max(1, Math.ceil(cards.length / per));
    which %= pages;
    cards.forEach((card, i) => { card.hidden = Math.floor(i / per) !== which; });
    const shown = Math.min(per, cards.length - which * per);
    tables.dataset.count = shown;
    tables.dataset.rows = Math.ceil(shown / 3);
    tables.toggleAttribute("data-compact", compact);
    return { pages, which, first: which * per + 1, last: which * per + shown, count: cards.length };
  };
  const cut = (tables) => Array.from(tables.children).some((c) => !c.hidden && c.scrollHeight > c.clientHeight + 1);
  const fits = (tables, at) => {
    for (let which = 0, pages = 1; which < pages; which++) {
      pages = show(tables, at, which).pages;
      if (cut(tables)) return false;
    }
    return true;
  };
  const arrange = (roomier) => {
    const tables = grid();
    if (!tables || !wide.matches || !tables.children.length) return;
    let at = roomier ? 0 : layout;
    while (at < LAYOUTS.length - 1 && !fits(tables, at)) at++;
    layout = at;
    const shown = show(tables, layout, page);
    page = shown.which;
    if (pager) {
      pager.hidden = shown.pages < 2;
      pager.textContent = pager.dataset.format.replace(/\{(\w+)\}/g, (_, name) => shown[name]);
    }
  };
  const turn = () => { page += 1; arrange(true); };
  if (grid()) {
    arrange(true);
    wide.addEventListener("change", () => arrange(true));
    window.addEventListener("resize", () => arrange(true));
    setInterval(turn, 15000);
    if (pager) pager.addEventListener("click", turn);
  }
  document.body.addEventListener("htmx:beforeSwap", (event) => {
    const xhr = event.detail.xhr;
    if (xhr.getResponseHeader("X-Maxchen-Toast")) {
      event.detail.shouldSwap = false;
      M.toast(xhr.responseText);
    }
  });
})();
