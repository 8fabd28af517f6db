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
  document.body.addEventListener("htmx:beforeSwap", (event) => {
    const xhr = event.detail.xhr;
    if (xhr.getResponseHeader("X-Maxchen-Toast")) {
      event.detail.shouldSwap = false;
      M.toast(xhr.responseText);
    }
  });
})();
