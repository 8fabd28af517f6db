// The live pages' common part: the socket, the versioned swap of server-rendered areas, the toast.
// The server renders every area; these scripts only swap what is newer and drive the cup.
// User text reaches the DOM as text. Each script adds its piece to window.maxchen:
// live.js (this), sound.js, fair.js, cup.js, then table.js (the room page) or class.js; lesson.js in a class.
(() => {
  "use strict";

  const M = (window.maxchen = {});
  const $ = (M.$ = (id) => document.getElementById(id));
  const i18n = $("i18n");
  M.T = i18n ? JSON.parse(i18n.textContent) : {};
  M.reducedMotion = matchMedia("(prefers-reduced-motion: reduce)").matches;
  // WebSocket first, long-polling when a network in between refuses it; WebSocket only when
  // the server runs as several processes (no sticky sessions needed behind the proxy).
  const only = document.querySelector('meta[name="maxchen-transports"]');
  const TRANSPORTS = only ? only.content.split(" ") : ["websocket", "polling"];

  // The page says its language: a socket's handshake may come without the browser's Accept-Language.
  M.connect = (auth) => io({
    auth: { ...auth, lang: document.documentElement.lang }, transports: TRANSPORTS, tryAllTransports: TRANSPORTS.length > 1, reconnectionDelay: 500, reconnectionDelayMax: 3000,
  });

  // A refusal shows for a few seconds (or until tapped), never over the next turn.
  let toastTimer = null;
  M.toast = (html, info) => {
    $("toast").innerHTML = html;
    $("toast").classList.toggle("info", !!info);
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { $("toast").textContent = ""; }, 4000);
  };

  // A name cut by its box keeps its start and its end ("Alexa…der K." beside "Alexa…der M."): two names
  // that begin alike stay apart. The whole name stays in the page for screen readers (style.css).
  const graphemes = (text) => "Segmenter" in Intl
    ? Array.from(new Intl.Segmenter().segment(text), (s) => s.segment) : Array.from(text);
  const ruler = document.createElement("canvas").getContext("2d");
  M.shorten = () => {
    const names = [...document.querySelectorAll(".name")].filter((el) => el.firstElementChild?.tagName === "BDI");
    for (const el of names) delete el.dataset.short;
    for (const el of names) {
      const style = getComputedStyle(el);
      // In fractions of a pixel, as laid out (not as a card scaling in draws it)
      const px = (side) => parseFloat(style[`padding${side}`]) + parseFloat(style[`border${side}Width`]);
      const room = (parseFloat(style.width) || el.getBoundingClientRect().width) - px("Left") - px("Right");
      ruler.font = style.font;
      ruler.letterSpacing = style.letterSpacing;
      const full = el.firstElementChild.textContent.trim();
      if (!room || (el.scrollWidth <= el.clientWidth && ruler.measureText(full).width <= room + 0.25)) continue;
      const g = graphemes(full);
      const cut = (kept) => {
        let tail = kept <= 4 ? Math.ceil(kept / 2) : Math.floor(kept * 0.4); // "A…K." tells "Anna K." from "Anna M."
        while (tail < kept - 1 && !/[\p{L}\p{N}]/u.test(g.slice(g.length - tail).join(""))) tail++; // not just "."
        return g.slice(0, kept - tail).join("").trimEnd() + "…" + g.slice(g.length - tail).join("").trimStart();
      };
      const fits = (kept) => ruler.measureText(cut(kept)).width + 1 <= room;
      let lo = 2; // a letter of each end (else the style cuts it: a box too narrow, which tests/look.js reports)
      let hi = g.length - 1;
      while (lo < hi) { // the most that fits
        const mid = (lo + hi + 1) >> 1;
        if (fits(mid)) lo = mid; else hi = mid - 1;
      }
      if (fits(lo)) el.dataset.short = cut(lo); // else no room for both ends: the start, cut by the style
    }
  };
  addEventListener("resize", () => M.afterSwap || M.shorten()); // a room page's fit (table.js) shortens after it lays out
  document.addEventListener("htmx:afterSettle", () => M.shorten());
  document.addEventListener("DOMContentLoaded", () => M.shorten());

  // Each area carries the version it shows (public areas also a presence count); an older or
  // equal one is dropped, so a part the player is using (a picked value, a half-built bid)
  // stays unless its content changed.
  const mark = (el) => [+el.dataset.version || 0, +el.dataset.seq || 0];

  const applyParts = (M.applyParts = (html, reset, swapped) => {
    const holder = document.createElement("template");
    holder.innerHTML = html;
    let any = false;
    for (const fresh of Array.from(holder.content.children)) {
      const old = fresh.id && document.getElementById(fresh.id);
      if (!old) continue;
      const [a, b] = [mark(fresh), mark(old)];
      const newer = a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]);
      const other = a[0] !== b[0] || a[1] !== b[1];
      if (!(newer || (reset && other))) continue;
      // A folded part the player opened (the host's settings) stays open.
      for (const folded of old.querySelectorAll("details[id]")) {
        const twin = fresh.querySelector("#" + folded.id);
        if (twin) twin.open = folded.open;
      }
      old.replaceWith(fresh);
      htmx.process(fresh);
      any = true;
    }
    if (any && M.tick) M.tick();
    if (any && swapped) swapped();
    if (any && !M.afterSwap) M.shorten(); // a room page: its fit (table.js) shortens after it lays out
  });

  // --- the room page's connection: pushed parts, a form's answer, my actions ---
  const ROOM = document.body.dataset.room;
  if (!ROOM) return;
  const SHARED = document.body.dataset.shared === "1"; // one phone for the table: no socket, every answer by its form
  const BOARD = document.body.dataset.board === "1"; // a big screen: watches the table, holds no seat
  const ACT_URL = "/r/" + ROOM + "/act";
  // table.js: my seat, the turn, the reveal. A push may come while the later scripts still load:
  // its parts are in place, and table.js reads them when it starts.
  const swapped = () => M.afterSwap && M.afterSwap();
  const room = (M.room = { code: ROOM, shared: SHARED, view: null, socket: null, leaving: false });

  room.act = (action, extra) => {
    if (!room.view) return;
    htmx.ajax("POST", ACT_URL, { source: document.body, swap: "none", values: { action, version: room.view.version, ...extra } });
  };
  room.react = (emoji) => new Promise((resolve) => {
    if (room.socket && room.socket.connected) room.socket.emit("react", { emoji }, resolve);
    else resolve({ error: { message: M.T.reconnecting } });
  });
  room.signal = (activity) => {
    if (room.socket && room.socket.connected) room.socket.emit("signal", { activity });
  };

  if (!SHARED) {
    const socket = (room.socket = M.connect(BOARD ? { room: ROOM, watch: true } : { room: ROOM }));
    const offline = (down) => {
      $("banner").hidden = !down;
      document.body.classList.toggle("offline", down);
    };
    socket.on("connect", () => {
      offline(false);
      $("banner").textContent = M.T.reconnecting;
      document.body.classList.remove("replaced");
    });
    socket.on("disconnect", () => offline(true));
    socket.on("connect_error", (error) => {
      offline(true);
      if (error && error.data && error.data.code === "bad_token") location.assign("/r/" + ROOM + "?gone=seat");
    });
    // Gone from the room: by my own "leave" (its answer redirects too), or the host removed me.
    socket.on("removed", () => location.assign("/r/" + ROOM + "?gone=" + (room.leaving ? "left" : "removed")));
    socket.on("replaced", () => {
      // This seat opened on another screen: stay quiet until this one is looked at again.
      $("banner").textContent = M.T.replaced;
      document.body.classList.add("replaced");
    });
    socket.on("parts", (message) => applyParts(message.html, message.reset, swapped));
    socket.on("reaction", (message) => M.reaction && M.reaction(message));
    document.addEventListener("visibilitychange", () => {
      // A phone waking from sleep: make sure the socket is back.
      if (document.visibilityState === "visible" && !socket.connected) socket.connect();
    });
    // The network is back: reconnect now, not at the next back-off step.
    window.addEventListener("online", () => { if (!socket.connected) socket.connect(); });
  }

  // A room's form goes over the open socket (pushes bring the change, a refusal is a toast); without one
  // (one phone, offline) htmx posts it, and "leave" always (its answer sends the page away).
  const FORM_WAIT = 8000; // ms
  const said = (text) => Object.assign(document.createElement("p"), { className: "toast-message", textContent: text }).outerHTML;
  document.body.addEventListener("htmx:configRequest", (event) => {
    const socket = room.socket;
    const fields = Object.fromEntries(event.detail.formData || []);
    if (event.detail.path !== ACT_URL || !socket || !socket.connected || fields.action === "leave") return;
    event.preventDefault();
    $("toast").textContent = "";
    socket.timeout(FORM_WAIT).emit("form", fields, (late, answer) => {
      if (answer && answer.gone) location.assign(answer.gone);
      else if (answer && answer.toast) M.toast(answer.toast);
      else if (late || answer.error) M.toast(said(late ? M.T.unanswered : answer.error.message));
    });
  });
  // A form posted offline never left the phone: say so.
  document.body.addEventListener("htmx:sendError", (event) => {
    if (event.detail.requestConfig && event.detail.requestConfig.path === ACT_URL) M.toast(said(M.T.unsent));
  });

  // Every form's answer holds the areas that changed; a refusal comes as a toast.
  document.body.addEventListener("htmx:beforeRequest", (event) => {
    $("toast").textContent = "";
    const form = event.detail.elt && event.detail.elt.closest && event.detail.elt.closest("form");
    if (form && form.querySelector("input[name=action][value=leave]")) room.leaving = true;
    const xhr = event.detail.xhr;
    // Listen on the request itself: its form may be swapped out before the answer.
    xhr.addEventListener("load", () => {
      if (xhr.status !== 200) return;
      // A refusal is a toast (server-rendered, user text escaped there).
      if (xhr.getResponseHeader("X-Maxchen-Toast")) M.toast(xhr.responseText);
      else applyParts(xhr.responseText, false, swapped);
    });
  });
  document.body.addEventListener("click", (event) => {
    if (event.target.closest("#toast")) $("toast").textContent = "";
  });
})();
