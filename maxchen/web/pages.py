"""Pages for people: home, join, the room (full page and htmx partials), the rules, the fair-dice page.

Every page and partial of a room is rendered for this browser's one player
from `view_for` (its seat: `seats.py`).
"""

import contextlib
import json
import time

from flask import Blueprint, current_app, make_response, redirect, render_template, request, session, url_for
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from .. import fair, messages
from ..budgets import PAGES, ROOMS, limited
from ..classroom import CLASS_CODE_LENGTH, DEFAULT_SIZE, TABLE_SIZES, normalize_class_code
from ..errors import IllegalMove
from ..live import value_label
from ..names import shown_name
from ..rooms import normalize_code
from ..rules import two_dice
from ..rulesets import DEFAULT, RULESETS, SHARED_DEFAULT, SHARED_PHONE, TITLES
from ..table import MAX_SEATS
from . import forms
from .api import act_as
from .boards import parts_for
from .errors import refusal
from .locale import LANGUAGES, select_locale
from .seats import browser_seats, code_or_404, gone, me, remember, room_or_404, rooms, seated
from .share import share

bp = Blueprint("pages", __name__)

AGAINST_BOTS = ("statistician", "bluffer")  # Lügen needs three players: with you, two bots will do
# Why a browser is back at a room's name form (`?gone=`): said on the form.
GONE = {
    "left": _l("You left the room."),
    "removed": _l("The host removed you from the room."),
    "seat": _l("This browser no longer has a seat in this room."),
}

bp.app_template_global("isolate")(messages.isolate)
bp.app_template_global("cups")(fair.cups)


@bp.app_context_processor
def _helpers():
    return {
        "value_label": value_label,
        "languages": LANGUAGES,
        "locale": str(get_locale()),
        "titles": TITLES,
        "server_time": lambda: round(time.time(), 3),  # a lesson's countdown sets the page's clock by it
    }


@bp.get("/")
@limited(PAGES, open=True)
def index():
    """Create a room or join one."""
    return home()


def home(error: IllegalMove | None = None, at: str | None = None, **form):
    """The home page; a refused form (`at`: create, join, table or class) keeps what was typed and chosen,
    with its error in its own card."""
    chosen = request.form.get("rules") if at == "table" else None
    chosen = chosen if chosen in SHARED_PHONE else SHARED_DEFAULT
    shared = {rules: forms.option_fields(rules) for rules in SHARED_PHONE}
    if at == "table":  # the options as they were sent (a value no field offers is simply not selected)
        specs, labels, values = shared[chosen]
        shared[chosen] = specs, labels, {**values, **forms.options(chosen, refuse=False)}
    sent = request.form.get("rules") if request.method == "POST" else None
    context = {
        "my_rooms": _my_rooms(),
        "name": session.get("name", ""),
        "rulesets": list(RULESETS),
        "shared_default": chosen,
        "shared_options": shared,
        "default": DEFAULT,
        "sent_rules": {at: sent} if sent in RULESETS else {},
        "class_sizes": TABLE_SIZES,
        "class_size": DEFAULT_SIZE,
        **form,
    }
    page = render_template("index.html", error=error and messages.text(error), error_at=at, **context)
    return (page, error.status) if error else page


def _my_rooms() -> list[dict]:
    """The rooms this browser holds a seat in, newest first: the way back to a table."""
    registry, found = rooms(), []
    for code, token in reversed(browser_seats().items()):
        with contextlib.suppress(IllegalMove):  # gone, left or removed: nothing to go back to
            found.append(registry.summary(code, token))
    return found


@bp.post("/rooms")
@limited(ROOMS, open=True)
def create():
    """Create a room from the home page; the creator is host."""
    name = request.form.get("name", "")
    try:
        seat = rooms().create(name, request.form.get("rules") or DEFAULT)
    except IllegalMove as error:
        return home(error, "create", name=shown_name(name))
    if request.form.get("bots"):  # "Play against bots": two computer players sit down with you
        for strategy in AGAINST_BOTS:
            rooms().act(seat["code"], seat["player"], {"action": "add_bot", "strategy": strategy})
    remember(seat["code"], seat["token"], name.strip())
    return redirect(url_for("pages.room", code=seat["code"]), 303)


@bp.post("/table")
@limited(ROOMS, open=True)
def create_table():
    """One phone for the whole table: names, one per line, then play."""
    text = request.form.get("names", "")
    names = [line.strip() for line in text.splitlines() if line.strip()]
    try:
        rules = request.form.get("rules") or SHARED_DEFAULT
        seat = rooms().create_shared(names, rules, forms.options(rules))
    except IllegalMove as error:
        return home(error, "table", names=text)
    remember(seat["code"], seat["token"], session.get("name", ""))
    return redirect(url_for("pages.room", code=seat["code"]), 303)


@bp.post("/join")
@limited()
def join_by_code():
    """Join a room by its code from the home page (a class's code leads to the class)."""
    name = request.form.get("name", "")
    typed = request.form.get("code", "")
    try:
        if len("".join(typed.split())) == CLASS_CODE_LENGTH:
            return redirect(url_for("classes.join", code=normalize_class_code(typed)), 307)
        return _join(normalize_code(typed), name)
    except IllegalMove as error:
        return home(error, "join", name=shown_name(name), code=typed)


def _join(code, name):
    """Sit down in room `code`; a browser with a seat there already just goes back to it."""
    if not me(code):
        seat = rooms().join(code, name)
        remember(code, seat["token"], name.strip())
    return redirect(url_for("pages.room", code=code), 303)


@bp.get("/r/<code>")
@limited()
def room(code):
    """The room: the table for a seated player, else a name form."""
    if request.args.get("offer") and request.headers.get("HX-Request"):
        # A full table's waiting page asks: the room gone, or a seat taken in another tab, it goes to see.
        seatless = code_or_404(code)
        if not rooms().exists(seatless) or me(seatless) is not None:
            response = make_response("", 200)
            response.headers["HX-Redirect"] = url_for("pages.room", code=seatless)
            return response
    code = room_or_404(code)
    player = me(code)
    room = rooms().load(code)
    if player is None:
        if room.classroom:  # a class's table: its students sit down through the class (a moved one: there too)
            return redirect(url_for("classes.desk", code=room.classroom, gone=request.args.get("gone")), 303)
        if room.shared:
            message = messages.text(IllegalMove("one_phone"))
            return render_template("join.html", code=code, error=message, closed=True), 409
        notice = GONE.get(request.args.get("gone", ""))
        if request.args.get("offer") and len(room.members()) < MAX_SEATS:
            notice = _("A seat is free: take it.")  # asked by the page of one who found the table full
        return _join_page(room, name=session.get("name", ""), notice=notice)
    return render_template("room.html", code=code, room=room, parts=parts_for(room, player), **share("r/" + code))


@bp.post("/r/<code>/join")
@limited()
def join(code):
    """Take a seat in this room with a name."""
    code = room_or_404(code)
    name = request.form.get("name", "")
    try:
        return _join(code, name)
    except IllegalMove as error:
        page = _join_page(rooms().load(code), name=shown_name(name), error=messages.text(error))
        return page, error.status


def _join_page(room, **context):
    """A room's name form, with what a newcomer may know: the game, who sits there, whether a game runs."""
    members = room.members()
    host = next((s.name for s in members if s.id == room.host), "")
    names = [s.name for s in members]
    running = room.phase == "playing"
    full = len(members) >= MAX_SEATS  # the page waits for a seat and offers the first free one (join.html)
    return render_template(
        "join.html", code=room.code, rules=room.rules, host=host, names=names, running=running, full=full, **context
    )


@bp.get("/r/<code>/parts")
@limited()
def parts(code):
    """Every area of this player's page (a resync); the page swaps what is newer."""
    code, player = seated(code)
    return "".join(parts_for(rooms().load(code), player).values())


@bp.post("/r/<code>/act")
@limited()
def act(code):
    """An action from a form (htmx); answers the changed areas, or the error as a toast.

    A form sent before htmx ran (a tap while the page loads) is a plain POST: it goes back to the page.
    """
    code, player = seated(code)
    try:
        still_seated = act_as(code, player, forms.room_action(), view=False)
    except IllegalMove as error:
        return refusal(error)
    if still_seated is None:  # left the room
        return gone(code, "left")
    if not request.headers.get("HX-Request"):
        return redirect(url_for("pages.room", code=code), 303)
    if _listening(code, player):
        return "", 204  # the page's socket brings what changed, as to everyone else
    return "".join(parts_for(rooms().load(code), player).values())


def _listening(code: str, player: str) -> bool:
    """This player has a room page connected (its pushes carry every change)."""
    return any(s.player == player and s.kind == "html" for s in rooms().presence.sockets(code))


@bp.get("/rules")
@limited(PAGES, open=True)
def rules_page():
    """The rules in player language, with the value ladder."""
    ladder = [(value, value_label(value), two_dice.probability(value)) for value in two_dice.VALUES]
    return render_template(f"rules/{select_locale()}.html", ladder=ladder)


@bp.get("/fair")
@limited(PAGES, open=True)
def fair_page():
    """Why nobody can choose the dice, in plain words, with a form that rolls a revealed cup again."""
    example = {**fair.EXAMPLE, "commit": fair.commit_of(fair.EXAMPLE["server_seed"])}
    return render_template("fair.html", example={**example, "dice": "1 1"})


@bp.get("/manifest.webmanifest")
@limited(PAGES, open=True)
def manifest():
    """The web app manifest: the game on the home screen, opened full screen."""
    icons = [
        {"src": url_for("static", filename="icon.svg"), "sizes": "any", "type": "image/svg+xml"},
        *(
            {"src": url_for("static", filename=f"icon-{size}.png"), "sizes": f"{size}x{size}", "type": "image/png"}
            for size in (192, 512)
        ),
    ]
    body = {
        "name": "Mäxchen",
        "short_name": "Mäxchen",
        "description": str(_l("The dice game of bluffing, on your phones.")),
        "lang": select_locale(),
        "start_url": "/",
        "scope": "/",
        "display": "fullscreen",
        "display_override": ["fullscreen", "standalone"],
        "orientation": "portrait",
        "background_color": "#0d1014",
        "theme_color": "#0d1014",
        "icons": icons,
    }
    response = current_app.response_class(json.dumps(body, ensure_ascii=False), mimetype="application/manifest+json")
    response.cache_control.no_cache = True
    return response


@bp.get("/healthz")
@limited(open=True)  # a monitor asks every few seconds: no page budget to spend
def health():
    """For systemd, nginx or a monitor: 200 while the store answers, 503 when it does not. No secrets: the
    store's kind, and how many sockets this process holds."""
    registry = rooms()
    body = {"status": "ok", "store": registry.store.KIND, "sockets": len(registry.presence.own())}
    try:
        registry.store.ping()
    except Exception as error:  # the store away: said in the answer (and the log), not raised
        current_app.logger.warning("health check: the store does not answer: %s", error)
        body["status"] = "store_down"
    response = current_app.json.response(body)
    response.status_code = 200 if body["status"] == "ok" else 503
    response.headers["Cache-Control"] = "no-store"
    return response
