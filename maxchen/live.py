"""The live table: what changed -> public parts once, private parts per seat.

A room page has three swappable areas. Two are public (`players`, `table`):
what anyone at the table may see, rendered once per change and language and
sent to the room's public channel, which watchers without a seat may join.
One is private (`controls`): what this player may do, with their own dice,
rendered per player and sent only when it changed. Every part carries the
version it shows; the page drops a part older than the one it holds.
"""

import hashlib
import threading
import time
from fractions import Fraction

from babel.support import NullTranslations
from flask import current_app, has_app_context
from flask_babel import force_locale, get_locale, get_translations
from markupsafe import Markup

from . import fastjson as json
from . import stats
from .bus import LocalBus
from .errors import IllegalMove
from .presence import held_key
from .rules import two_dice
from .rulesets import DEFAULT, N_, REGISTRY, RULESETS, SHARED_PHONE, TITLES
from .table import LOADINGS

PUBLIC_AREAS = ("players", "table")
BOARD_AREA = "stats"  # a watcher's page (the board) only
PRIVATE_AREA = "controls"
# A loading's six, in words (table.LOADINGS in order).
SHARES = dict(zip(LOADINGS, (N_("1 time in 4"), N_("1 time in 3"), N_("1 time in 2")), strict=True))
# Per rule set: the default of its game's length (`Game.LENGTH`) and the templates whose `length` words it
# (standing.html), for the statistics of games of any rule set and length.
LENGTHS = {
    name: {"default": rule_set.game.OPTIONS[rule_set.game.LENGTH].default, "templates": rule_set.templates}
    for name, rule_set in REGISTRY.items()
}


_CATALOGS: dict = {}
_LABELS: dict = {}  # (app, rule set, language) -> its values' labels
_PLAIN: dict = {}  # (app, language) -> {text: its translation, as gettext without params gives it}


def _catalog(lang: str):
    """The translations of a language (loaded once per app)."""
    if not has_app_context():
        return NullTranslations()
    key = (current_app.name, lang)
    if key not in _CATALOGS:
        with force_locale(lang):
            _CATALOGS[key] = get_translations()
    return _CATALOGS[key]


def _i18n(lang: str) -> dict:
    """gettext and ngettext for templates, bound to one language.

    The same as Flask-Babel's (newstyle: params are %-formatted and, in HTML,
    escaped), without looking the language up again for every string.
    """
    catalog = _catalog(lang)
    # A text without params (most are) is translated once per language.
    plain = _PLAIN.setdefault((current_app.name, lang), {}) if has_app_context() else {}

    # Markup: the catalogue's own text is trusted (as in Jinja's i18n); the params are escaped.
    def gettext(text, **params):
        if params:
            return Markup(catalog.ugettext(text)) % params  # noqa: S704
        if text not in plain:
            plain[text] = Markup(catalog.ugettext(text)) % {}  # noqa: S704
        return plain[text]

    def ngettext(singular, plural, num, **params):
        params.setdefault("num", num)
        return Markup(catalog.ungettext(singular, plural, num)) % params  # noqa: S704

    def odds(strength):
        """Evidence against fair dice as a class reads it: "25 to 1" in this language."""
        better, worse = stats.odds_parts(strength, lang)
        return gettext("%(better)s to %(worse)s", better=better, worse=worse)

    return {"gettext": gettext, "_": gettext, "ngettext": ngettext, "odds": odds}


def odds(strength: float) -> str:
    """Evidence against fair dice in the request's language ("25 to 1"): a template global."""
    return _i18n(_lang(None))["odds"](strength)


def _lang(lang: str | None) -> str:
    return lang or str(get_locale())


def value_label(value: int, rules_name: str = DEFAULT, lang: str | None = None) -> str:
    """A value as players say it: in the page's language (or `lang`) and the rule set's words."""
    name = REGISTRY[rules_name].names.get(value)
    return _catalog(_lang(lang)).ugettext(name) if name else str(value)


def _value_labels(rules_name: str, lang: str):
    """`value_label` of a rule set in one language, its words looked up once per app."""
    key = (current_app.name, rules_name, lang)
    if key not in _LABELS:
        _LABELS[key] = {value: value_label(value, rules_name, lang) for value in REGISTRY[rules_name].names}
    labels = _LABELS[key]
    return lambda value: labels[value] if value in labels else str(value)


def channel(code: str, lang: str) -> str:
    """The Socket.IO room of a room's public parts in one language."""
    return f"{code}:{lang}"


def _context(code: str, rules_name: str, names: dict, lang: str) -> dict:
    """What every area's template needs besides its view, in one language."""
    rule_set = REGISTRY[rules_name]
    _ = _catalog(lang).ugettext
    return {
        **_i18n(lang),
        "code": code,
        "act_url": f"/r/{code}/act",
        "names": names,
        "value_label": _value_labels(rules_name, lang),
        "min_players": rule_set.game.MIN_PLAYERS,
        "summary": _(rule_set.summary) if rule_set.summary else "",
        "templates": rule_set.templates,
        "claim": rule_set.game.CLAIM,
        "option_specs": {name: option.describe() for name, option in rule_set.game.OPTIONS.items()},
        "option_labels": {key: _(label) for key, label in rule_set.labels.items()},
        "length_option": rule_set.game.LENGTH,  # the option the rule set's `length` macro words (standing.html)
        "lengths": LENGTHS,
        "rulesets": list(RULESETS),
        "shared_rulesets": SHARED_PHONE,
        "strategy_labels": {key: _(label) for key, label in STRATEGY_LABELS.items()},
        # The teaching hint: a fresh roll's odds of reaching `value`, and of a true announcement after it.
        "chances": rule_set.hint,
        "titles": TITLES,
        "shares": SHARES,
    }


STRATEGY_LABELS = {
    "honest": N_("honest"),
    "bluffer": N_("bluffer"),
    "statistician": N_("statistician"),
}


def _render(name: str, context: dict) -> str:
    """A partial rendered straight by Jinja: no request needed, no context processors."""
    return current_app.jinja_env.get_template(name).render(context)


def _wrap(area: str, inner: str, version: int, seq: int | None = None) -> str:
    """An area as the page holds it: its id and the version it shows."""
    tag, cls = ("section", "controls") if area == PRIVATE_AREA else ("div", "area")
    seq_attr = f' data-seq="{seq}"' if seq is not None else ""
    return f'<{tag} id="{area}" class="{cls}" data-version="{version}"{seq_attr}>{inner}</{tag}>'


def standings(view: dict) -> list[dict]:
    """Who played the game, best first, each with their place (the game's ranking; a seat taken after it is
    not in it)."""
    seats = {p["id"]: p for p in view["players"]}
    places = view.get("places") or range(1, len(view.get("ranking") or ()) + 1)  # a game ended early: ties
    ranking = zip(view.get("ranking") or (), places, strict=False)
    return [{**seats[player], "place": place} for player, place in ranking if player in seats]


def render_public(view: dict, lang: str | None = None, areas=PUBLIC_AREAS) -> dict[str, str]:
    """The public areas' inner HTML for a public view, in the page's language (or `lang`)."""
    names = {p["id"]: p["name"] for p in view["players"]}
    context = {**_context(view["room"], view["rules"], names, _lang(lang)), "view": view}
    if view["phase"] == "over":
        context["standings"] = standings(view)
    return {area: _render(f"partials/{area}.html", context) for area in areas}


def render_private(room, player: str, lang: str | None = None) -> str:
    """A player's private area, wrapped, in the page's language (or `lang`)."""
    mine = room.private_for(player)
    since = room.private_since(player)
    context = {**_context(room.code, room.rules, mine["names"], _lang(lang)), "view": {**mine, "version": since}}
    return _wrap(PRIVATE_AREA, _render(f"partials/{PRIVATE_AREA}.html", context), since)


def page_parts(room, player: str | None, connected: dict, seq: int, lang: str | None = None) -> dict[str, Markup]:
    """Every area of one page, wrapped: the public ones, then a seat's own, or a board's statistics."""
    lang = _lang(lang)
    public = render_public(room.public_view(connected), lang)
    # All are templates rendered with autoescape: user text in them is escaped already.
    parts = {area: Markup(_wrap(area, html, room.version, seq)) for area, html in public.items()}  # noqa: S704
    if player is not None:
        parts[PRIVATE_AREA] = Markup(render_private(room, player, lang))  # noqa: S704
    else:
        parts[BOARD_AREA] = Markup(render_board(room, lang))  # noqa: S704
    return parts


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def _board_key(room) -> str:
    """What the board's statistics show, as a key: never the unseen rolls."""
    return _digest(json.dumps(stats.shown(room.counts, power=False)))  # power follows from the counts


def stats_key(room) -> str:
    """A short key of what the statistics show: the statistics page asks whether it moved."""
    return _board_key(room)


def render_stats(room, lang: str | None = None, full: bool = False) -> Markup:
    """The statistics area's inner HTML: the room's counts as the table may see them (`full`: with tables)."""
    lang = _lang(lang)
    context = {
        **_context(room.code, room.rules, {}, lang),
        "counts": stats.shown(room.counts, power=full),  # a board shows no power: no simulation for it
        "value_name": str,  # a chart names values by their number: short under a bar
        "full": full,
    }
    return Markup(_render("partials/stats.html", context))  # noqa: S704 - a template rendered with autoescape


def render_board(room, lang: str | None = None) -> str:
    """The board's statistics area, wrapped."""
    return _wrap(BOARD_AREA, render_stats(room, lang), room.version)


WATCHERS_PER_CLASS = 20  # pages of a class that are not its teacher's or students' (the boards)


def class_parts(overview: dict, classrooms, lang: str | None = None) -> dict[str, str]:
    """The class board's areas (inner HTML): who joined, every table at a glance (its public parts), the
    pooled statistics."""
    lang = _lang(lang)
    tables = []
    for room in overview["tables"]:
        number = overview["numbers"][room.code]
        view = room.public_view(classrooms.rooms.connected(room.code))
        parts = render_public(view, lang)
        if view["reveal"] and view["phase"] == "playing":  # its last check, in its own game's words
            names = {p["id"]: p["name"] for p in view["players"]}
            own = {**_context(room.code, view["rules"], names, lang), "view": view, "in_cover": True}
            parts["reveal"] = _render(f"{REGISTRY[view['rules']].templates}/reveal.html", own)
        tables.append({"number": number, "code": room.code, "view": view, "parts": parts})
    context = {**_context(overview["code"], overview["rules"], {}, lang), "overview": overview, "tables": tables}
    pooled = classrooms.pooled(overview["every_table"], power=False)  # once for the statistics and the claims
    return {
        "joined": _render("partials/class_joined.html", context),
        "tables": _render("partials/class_tables.html", context),
        BOARD_AREA: class_stats(overview, classrooms, lang, pooled=pooled),
        "hunt": class_hunt(overview, lang),
        "trend": class_trend(overview, classrooms, lang),
        **({"claims": class_claims(tables, overview, pooled, lang)} if overview["rules"] in CLAIMS else {}),
    }


CLAIMS = ("maexchen",)  # the rule sets whose claims `stats.claim_true` weighs (its ladder and its lies)


def class_claims(tables: list[dict], overview: dict, pooled: dict, lang: str) -> Markup:
    """Is the claim true? (inner HTML): each table's last check in its game, weighed by Bayes for a
    player who lies only when they must (`stats.claim_true`), beside a fresh roll's chance to reach it and
    how this class's checks of that value came out (a checked-only sample)."""
    checked = {row["value"]: row for row in pooled["ladder"]}
    claims = []
    for table in tables:
        view, reveal = table["view"], table["view"]["reveal"]
        # Weighed: a Mäxchen check (a table still plays the game it had when the class changed to Mäxchen),
        # of a claim above the one before (a check saved before the reveal said what it beat is not weighed).
        if view["rules"] not in CLAIMS or not reveal or reveal.get("kind") != "check" or "before" not in reveal:
            continue
        if not two_dice.is_higher(reveal["value"], reveal["before"]):
            continue
        row = checked.get(reveal["value"], {"checks": 0, "lies": 0})
        true = stats.claim_true(reveal["value"], reveal["before"])
        claims.append(
            {
                "number": table["number"],
                "reveal": reveal,
                "true": true,
                "reach": stats.at_least(reveal["value"]),
                "checks": row["checks"],
                "held": row["checks"] - row["lies"],
            }
        )
    context = {**_context(overview["code"], overview["rules"], {}, lang), "claims": claims}
    return Markup(_render("partials/class_claims.html", context))  # noqa: S704 - autoescaped


def class_trend(overview: dict, classrooms, lang: str | None = None) -> Markup:
    """The class's dice over time (inner HTML): the share of sixes and the p-value as the dice came in."""
    faces, looks = classrooms.faces_in_order(overview["every_table"])
    run = stats.running(faces, looks=looks)
    context = {**_context(overview["code"], overview["rules"], {}, _lang(lang)), "run": run}
    return Markup(_render("partials/trend.html", context))  # noqa: S704 - autoescaped


def class_hunt(overview: dict, lang: str | None = None, teacher: bool = False) -> Markup:
    """The loaded-dice hunt (inner HTML): each table's dice by face; the loaded table once revealed (or to
    the `teacher`)."""
    loaded = overview.get("loaded")
    found = None
    if loaded and (loaded["revealed"] or teacher):
        found = overview["numbers"].get(loaded["table"])
    context = {
        **_context(overview["code"], overview["rules"], {}, _lang(lang)),
        "hunt": class_hunt_figures(overview),
        "share_words": SHARES[loaded["six"]] if loaded else None,
        "found": found,
        "revealed": bool(loaded and loaded["revealed"]),
    }
    return Markup(_render("partials/hunt.html", context))  # noqa: S704 - autoescaped


def class_hunt_figures(overview: dict) -> dict:
    """The hunt's figures of a class (`stats.hunt`): while a hunt runs, each table's dice of the games begun
    since it started; without one, each table's dice of every game over."""
    loaded = overview.get("loaded")
    count = stats.hunt_faces if loaded else stats.faces_of
    tables = [(overview["numbers"][room.code], count(room.counts)) for room in overview["every_table"]]
    return stats.hunt(tables, Fraction(loaded["six"]) if loaded else None)


def class_stats(overview: dict, classrooms, lang: str | None = None, full: bool = False, pooled=None) -> Markup:
    """The statistics of a whole class (inner HTML): every table pooled, as the tables may see them (`pooled`:
    already counted)."""
    context = _context(overview["code"], overview["rules"], {}, _lang(lang))
    counts = classrooms.pooled(overview["every_table"], power=full) if pooled is None else pooled
    shown = {**context, "counts": counts, "value_name": str, "whole_class": True}
    return Markup(_render("partials/stats.html", {**shown, "full": full}))  # noqa: S704 - autoescaped


def wrap_class_parts(parts: dict[str, str]) -> str:
    """A class board's areas as the page holds them; no one version spans a class's rooms: the time of drawing."""
    version = time.time_ns() // 1_000_000
    return "".join(_wrap(area, html, version) for area, html in parts.items())


def _area_keys(public: dict) -> dict[str, str]:
    """What each public area shows, as a key: an area is rendered again only when its key moves."""
    # Whose turn it is shows in the table area (the page marks that seat itself, and with it
    # whether the game waits for someone offline).
    players = [public["players"], public["phase"], public["host"], "shared" in public]
    table = {key: value for key, value in public.items() if key not in ("version", "you", "players")}
    table["names"] = [(p["id"], p["name"]) for p in public["players"]]
    # Its turn line says when the player it waits for is offline (table.html).
    turn = public.get("turn")
    table["offline"] = bool(turn) and any(p["id"] == turn["player"] and not p["connected"] for p in public["players"])
    return {"players": _digest(json.dumps(players)), "table": _digest(json.dumps(table))}


class Live:
    """Pushes a room's changes to its open sockets (called under the room's lock).

    `emit(event, data, to, skip=None)` is the transport's; `presence` says who listens
    (in any process), in which language, and what each page was last sent
    (`held`), so an unchanged public area goes nowhere and an unchanged private
    part is not rendered, whichever process pushed the last one.
    """

    def __init__(self, app, emit, presence):
        self.app = app
        self.emit = emit
        self.presence = presence

    def push(self, room, gone=(), areas=None, welcomed=None) -> None:
        """Send what changed to every socket of the room; `removed` to the gone."""
        with self.app.app_context():
            self._push(room, gone, areas or PUBLIC_AREAS, welcomed)

    def _push(self, room, gone, areas, welcomed):
        code = room.code
        sockets, connected, seq, held = self.presence.snapshot(code)
        if not sockets:
            return
        sent = {}
        pages = [s for s in sockets if s.kind == "html"]
        players = room.players_view(connected)
        if pages:
            public = room.public_view(connected, players)
            keys = _area_keys(public)
            changed = tuple(area for area in areas if held.get(area) != keys[area])
            sent.update({area: keys[area] for area in changed})
            for lang in sorted({s.lang for s in pages}) if changed else ():
                fresh = render_public(public, lang, changed)
                html = "".join(_wrap(area, fresh[area], room.version, seq) for area in changed)
                self.emit("parts", {"html": html}, channel(code, lang), welcomed)
        boards = [s for s in pages if s.player is None]
        if boards and held.get(BOARD_AREA) != (key := _board_key(room)):
            sent[BOARD_AREA] = key
            for lang in sorted({s.lang for s in boards}):
                html = render_board(room, lang)
                for socket in boards:
                    if socket.lang == lang:
                        self._to(socket.sid, "parts", {"html": html})
        views, rendered = {}, {}
        for socket in sockets:
            player = socket.player
            if player is None or socket.sid == welcomed:
                continue
            if player in gone:
                self._to(socket.sid, "removed", {"room": code})
            elif socket.kind == "json":
                if player not in views:
                    views[player] = room.view_for(player, connected, players)
                self._to(socket.sid, "view", views[player])
            else:
                key = _private_key(room, socket)
                if held.get(held_key(socket.sid)) == key:
                    continue
                if (player, socket.lang) not in rendered:
                    rendered[player, socket.lang] = render_private(room, player, socket.lang)
                sent[held_key(socket.sid)] = key
                self._to(socket.sid, "parts", {"html": rendered[player, socket.lang]})
        self.presence.hold(code, sent)

    def react(self, code, player, emoji) -> None:
        """A player's emoji to every socket of the room: pages, watchers and bots."""
        for socket in self.presence.sockets(code):
            self._to(socket.sid, "reaction", {"player": player, "emoji": emoji})

    def _to(self, sid, event, data) -> None:
        """To one socket: straight to it when it is this process's, else through the message queue."""
        self.emit(event, data, sid, local=self.presence.get(sid) is not None)

    def welcome(self, socket, room) -> None:
        """A new socket gets the whole room at once: every part, or its JSON view."""
        if socket.kind == "json":
            self.emit("view", room.view_for(socket.player, self.presence.connected(room.code)), socket.sid, local=True)
            return
        with self.app.app_context():
            connected = self.presence.connected(room.code)
            parts = page_parts(room, socket.player, connected, self.presence.seq(room.code), socket.lang)
        if socket.player is not None:
            self.presence.hold(room.code, {held_key(socket.sid): _private_key(room, socket)})
        else:  # the board holds the statistics as they are now
            self.presence.hold(room.code, {BOARD_AREA: _board_key(room)})
        self.emit("parts", {"html": "".join(parts.values()), "reset": True}, socket.sid, local=True)


def _private_key(room, socket) -> str:
    """What a page's private part shows: the version it was made at, in its language."""
    return json.dumps([room.private_since(socket.player), socket.lang])


class ClassLive:
    """Pushes a class's changes: a `class` event to its pages, and the class board's parts.

    The board is drawn at most once per `DELAY` seconds per class (six tables
    playing at once change many times a second), and never more often than
    leaves it `SHARE` of the time it takes to draw (a class of many tables
    waits longer), only in the languages of the boards watching it. The page
    of a board (`parts`) takes what was drawn last when nothing changed since.

    Several processes: each draws for its own boards and desks (`local`
    emits), and hears of the others' changes on the `bus`.
    """

    DELAY = 0.3
    SHARE = 0.2

    def __init__(self, app, emit, classrooms, spawn, sleep, bus=None):
        self.app = app
        self.emit = emit
        self.classrooms = classrooms
        self.spawn = spawn
        self.sleep = sleep
        self.bus = bus if bus is not None else LocalBus()
        self._lock = threading.Lock()
        self._sockets: dict[str, dict[str, str | None]] = {}  # class code -> sid -> a board's language
        self._strangers: dict[str, set[str]] = {}  # class code -> sids of pages not the class's own
        self._desks: dict[str, set[str]] = {}  # class code -> sids of the teacher's desks
        self._pending: set[str] = set()
        self._sent: dict[tuple[str, str], dict[str, str]] = {}  # (class, language) -> the areas last drawn
        self._cost: dict[str, float] = {}  # class code -> processor seconds its last drawing took
        self._changes: dict[str, int] = {}  # class code -> how many changes it has seen
        self._drawn: dict[tuple[str, str], int] = {}  # (class, language) -> the changes its last drawing saw

    @staticmethod
    def channel(code: str, lang: str | None = None) -> str:
        """The Socket.IO room of a class's pages (with a language: of its boards)."""
        return f"class:{code}" if lang is None else f"class:{code}:{lang}"

    @staticmethod
    def desk(code: str) -> str:
        """The Socket.IO room of a class's teacher's desks: told `tables` when a table changed."""
        return f"class:{code}/desk"

    def join(self, sid: str, code: str, lang: str, watch: bool, member: bool, teacher: bool = False) -> None:
        """A page of the class connected: a board gets its parts, every page who sits at a table already
        (a waiting page may have missed its `class` event). The teacher's and the students' pages are
        never refused; other pages (boards) take at most `WATCHERS_PER_CLASS` places."""
        with self._lock:
            sockets = self._sockets.setdefault(code, {})
            strangers = self._strangers.setdefault(code, set())
            if not member:
                if len(strangers) >= WATCHERS_PER_CLASS:
                    raise IllegalMove("watchers_full", limit=WATCHERS_PER_CLASS)
                strangers.add(sid)
            sockets[sid] = lang if watch else None
            if teacher:
                self._desks.setdefault(code, set()).add(sid)
        try:
            with self._lock:
                seen = self._changes.get(code, 0)
            overview = self.classrooms.overview(code)
            if watch:
                with self.app.app_context():
                    parts = class_parts(overview, self.classrooms, lang)
                with self._lock:
                    self._sent[code, lang] = parts
                    self._drawn[code, lang] = seen
                self.emit("parts", {"html": wrap_class_parts(parts), "reset": True}, sid, local=True)
            self.emit("class", {"seated": [s["id"] for s in overview["roster"] if s["table"]]}, sid, local=True)
        except Exception:
            self.forget(sid)  # a connect that failed keeps no place
            raise

    def forget(self, sid: str) -> None:
        """A class socket closed."""
        with self._lock:
            for code, sockets in list(self._sockets.items()):
                self._strangers.get(code, set()).discard(sid)
                self._desks.get(code, set()).discard(sid)
                if sockets.pop(sid, 0) != 0 and not sockets:
                    del self._sockets[code]
                    self._strangers.pop(code, None)
                    self._desks.pop(code, None)
                    for key in [key for key in self._sent if key[0] == code]:
                        del self._sent[key]
                        self._drawn.pop(key, None)
                    self._cost.pop(code, None)
                    self._changes.pop(code, None)

    def class_changed(self, code: str, seated: list[str]) -> None:
        """The class changed (joins, seats, moves): its pages hear it, its boards are drawn again."""
        self.emit("class", {"seated": seated}, self.channel(code))  # every process's pages, through the queue
        self.heard({"class": code})
        self.bus.publish({"class": code})

    def table_changed(self, room) -> None:
        """A table of a class changed (called under its lock: only plans the drawing)."""
        if room.classroom is not None:
            self.heard({"class": room.classroom})
            self.bus.publish({"class": room.classroom})

    def heard(self, message: dict) -> None:
        """A class changed (in this process or another): its boards here are drawn again."""
        if isinstance(message.get("class"), str):
            self._schedule(message["class"])

    def parts(self, overview: dict, lang: str) -> dict[str, str]:
        """The class board's areas for a page: the last drawing when nothing changed since, else drawn now."""
        key = (overview["code"], lang)
        with self._lock:
            if key in self._drawn and self._drawn[key] == self._changes.get(key[0], 0):
                return self._sent[key]
        return class_parts(overview, self.classrooms, lang)

    def _schedule(self, code: str) -> None:
        with self._lock:
            if code in self._sockets:  # what it drew before is old now (no socket: nothing was kept)
                self._changes[code] = self._changes.get(code, 0) + 1
            boards = any(self._sockets.get(code, {}).values())
            if not (boards or self._desks.get(code)) or code in self._pending:
                return
            self._pending.add(code)
        self.spawn(self._draw, code)

    def _draw(self, code: str) -> None:
        self.sleep(max(self.DELAY, self._cost.get(code, 0.0) / self.SHARE))
        started = time.thread_time()  # the processor's time: a busy machine does not make it look dearer
        with self._lock:
            self._pending.discard(code)
            langs = sorted({lang for lang in self._sockets.get(code, {}).values() if lang})
            desks = bool(self._desks.get(code))
            seen = self._changes.get(code, 0)  # a change while this drawing is made: it is not the newest
        if desks:  # the desk asks for its roster again (where who sits, which table plays)
            self.emit("tables", {}, self.desk(code), local=True)
        try:
            overview = self.classrooms.overview(code)
        except IllegalMove:
            return  # the class is gone
        with self.app.app_context():
            for lang in langs:
                parts = class_parts(overview, self.classrooms, lang)
                with self._lock:
                    sent = self._sent.get((code, lang), {})
                    self._sent[code, lang] = parts
                    self._drawn[code, lang] = seen
                changed = {area: html for area, html in parts.items() if sent.get(area) != html}
                if changed:  # only what moved: the statistics change far less often than the tables
                    self.emit("parts", {"html": wrap_class_parts(changed)}, self.channel(code, lang), local=True)
        self._cost[code] = time.thread_time() - started
