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
  socket.on("parts", (message) => M.applyParts(message.html, message.reset));
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
  document.body.addEventListener("htmx:beforeSwap", (event) => {
    const xhr = event.detail.xhr;
    if (xhr.getResponseHeader("X-Maxchen-Toast")) {
      event.detail.shouldSwap = false;
      M.toast(xhr.responseText);
    }
  });
})();
