"""Pages for people: home, join, the room (full page and htmx partials), rules.

A browser's seats live in its signed session cookie as [room code, token] pairs;
every page and partial is rendered for that one player from `view_for`.
"""

import contextlib
import csv
import functools
import io
import json
import re
import secrets
import threading
import time
from functools import lru_cache
from urllib.parse import urlsplit

import segno
from flask import (
    Blueprint,
    abort,
    current_app,
    has_request_context,
    jsonify,
    make_response,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import get_locale, gettext
from flask_babel import lazy_gettext as _l
from werkzeug.exceptions import HTTPException

from . import fair, messages, stats
from .api import act_as, json_error
from .budgets import DOWNLOADS, PAGES, ROOMS, SIMULATIONS, limited
from .classroom import CLASS_CODE_LENGTH, DEFAULT_SIZE, TABLE_SIZES, normalize_class_code
from .errors import IllegalMove
from .live import STRATEGY_LABELS, page_parts, render_stats, stats_key, value_label
from .names import shown_name
from .rooms import normalize_code
from .rules import two_dice
from .rulesets import DEFAULT, REGISTRY, RULESETS, SHARED_PHONE, TITLES
from .table import ruleset_name

bp = Blueprint("web", __name__)

LANGUAGES = {"en": "English", "de": "Deutsch", "ru": "Русский"}
# Form fields that are whole numbers: the room's, then each rule set's own.
NUMBER_FIELDS = tuple(dict.fromkeys(("version", "seat", *(f for r in REGISTRY.values() for f in r.fields))))
WHOLE = re.compile(r"-?[0-9]{1,9}")  # ASCII digits only: "²".isdigit() is true, int("²") fails
LANG_COOKIE = "lang"
# A path of this site: printable ASCII, no "//" or "/\" start (browsers drop tabs and
# newlines from URLs and read a backslash as a slash, so "/\t/evil.example" leaves).
LOCAL_PATH = re.compile(r"/(?![/\\])[!-\[\]-~]*")
ERROR_TEXTS = {
    404: _l("There is no such page."),
    405: _l("This page is opened through its form, not by its address."),
    413: _l("That was too much at once."),
}
SEATS_KEPT = 20  # the newest seats a browser keeps in its cookie: the cookie stays far below 4 KB


def select_locale() -> str:
    """The language: the one chosen on the page, else the browser's (English outside a request)."""
    if not has_request_context():
        return "en"
    for chosen in (request.args.get("lang"), request.cookies.get(LANG_COOKIE)):
        if chosen in LANGUAGES:
            return chosen
    return request.accept_languages.best_match(list(LANGUAGES)) or "en"


def _rooms():
    return current_app.extensions["maxchen.rooms"]


bp.app_template_global("isolate")(messages.isolate)


@bp.app_context_processor
def _helpers():
    return {"value_label": value_label, "languages": LANGUAGES, "locale": str(get_locale()), "titles": TITLES}


@bp.before_app_request
def _same_origin_posts():
    """Refuse state-changing requests that a page of another site sends."""
    if request.method in ("GET", "HEAD", "OPTIONS") or request.path.startswith(("/api/", "/socket.io")):
        return None
    origin = request.headers.get("Origin")
    if origin:
        mine = urlsplit(request.host_url)
        theirs = urlsplit(origin)
        if (theirs.scheme, theirs.netloc) != (mine.scheme, mine.netloc):
            # Behind a proxy, the usual cause: it does not pass the Host with its port, or the scheme.
            current_app.logger.warning("refused a POST from %s to %s: another origin", origin, request.host_url)
            abort(403)
    elif request.headers.get("Sec-Fetch-Site") == "cross-site":
        abort(403)
    return None


def _held(key: str) -> dict[str, str]:
    """The {code: token} pairs the session cookie keeps under `key`, oldest first.

    Kept as [code, token] pairs: the cookie's JSON sorts a dict's keys and
    would lose which are the newest.
    """
    pairs = session.get(key)
    if isinstance(pairs, dict):  # cookies written before the pairs
        return dict(pairs)
    if isinstance(pairs, list):
        return {pair[0]: pair[1] for pair in pairs if isinstance(pair, list) and len(pair) == 2}
    return {}


def keep_held(key: str, held: dict[str, str], kept: int) -> None:
    """Keep the newest `kept` pairs of `held` in the session cookie under `key`."""
    session[key] = [[code, token] for code, token in list(held.items())[-kept:]]


def browser_seats() -> dict[str, str]:
    """This browser's seats, {room code: token}, oldest first."""
    return _held("seats")


def browser_classes() -> dict[str, str]:
    """This browser's classes, {class code: token} (the teacher's or a student's), oldest first."""
    return _held("classes")


def _keep(seats: dict[str, str]):
    keep_held("seats", seats, SEATS_KEPT)


def _remember(code: str, token: str, name: str):
    """Keep a seat in the cookie, newest last; seats of rooms that are gone are dropped."""
    store = _rooms().store
    seats = {old: held for old, held in browser_seats().items() if old != code and store.load(old) is not None}
    seats[code] = token
    _keep(seats)
    session["name"] = name
    session.permanent = True


def _me(code: str) -> str | None:
    """The player this browser is in room `code`, or None."""
    token = browser_seats().get(code)
    if not token:
        return None
    try:
        return _rooms().authenticate(code, token)
    except IllegalMove:
        seats = browser_seats()
        seats.pop(code, None)
        _keep(seats)
        return None


def _code_or_404(code: str) -> str:
    try:
        return normalize_code(code)
    except IllegalMove:
        abort(404)


def _room_or_404(code: str) -> str:
    code = _code_or_404(code)
    if _rooms().store.load(code) is None:
        abort(404)
    return code


@bp.app_errorhandler(HTTPException)
def _http_error(error: HTTPException):
    """Every 4xx and 5xx: JSON under /api, a toast for htmx, else a page with a way back."""
    if error.code == 429:
        return refusal(IllegalMove("rate_limited", seconds=current_app.extensions["maxchen.throttle"].retry_after()))
    if request.path.startswith("/api/"):
        return json_error(error)
    if error.code == 404 and request.path.startswith("/r/"):
        return render_template("missing.html"), 404
    if error.code >= 500:
        current_app.logger.error("%s %s answered %s", request.method, request.path, error.code)
    return render_template("error.html", status=error.code, message=ERROR_TEXTS.get(error.code)), error.code


@bp.app_errorhandler(IllegalMove)
def refusal(error: IllegalMove):
    """A refusal as its asker reads it: JSON for the API, a toast for htmx, else a page."""
    if request.path.startswith("/api/"):
        response = jsonify(messages.answer(error))
    elif request.headers.get("HX-Request") and request.endpoint == "web.stats_page":
        # The statistics page's poll (htmx alone, no app.js to show a toast): what it shows stays, and
        # it asks again at its next poll; a toast swapped in would end the polling for good.
        return make_response("", 204)
    elif request.headers.get("HX-Request"):
        response = make_response(render_template("partials/toast.html", message=_message(error)))
        # The page shows it (static/app.js): the form that sent it may be gone by now.
        response.headers["X-Maxchen-Toast"] = "1"
        return response
    else:
        response = make_response(render_template("error.html", message=_message(error)))
    response.status_code = error.status
    if error.reason == "rate_limited":
        response.headers["Retry-After"] = str(error.params["seconds"])
    return response


@bp.get("/")
@limited(PAGES, open=True)
def index():
    """Create a room or join one."""
    return _home()


def _home(error: IllegalMove | None = None, **form):
    """The home page, with what was typed and the error when a form was refused."""
    context = {
        "my_rooms": _my_rooms(),
        "name": session.get("name", ""),
        "rulesets": list(RULESETS),
        "shared_rulesets": SHARED_PHONE,
        "shared_options": {rules: _option_fields(rules) for rules in SHARED_PHONE},
        "default": DEFAULT,
        "class_sizes": TABLE_SIZES,
        "class_size": DEFAULT_SIZE,
        **form,
    }
    page = render_template("index.html", error=error and _message(error), **context)
    return (page, error.status) if error else page


def _option_fields(rules: str, hint: bool = False) -> tuple[dict, dict, dict]:
    """A rule set's options for a form: their specs, labels and defaults."""
    game = RULESETS[rules]
    labels = {key: gettext(label) for key, label in REGISTRY[rules].labels.items()}
    # The teaching hint is set in the room (or the class): on the home page's form each
    # rule set would send a field of that name.
    specs = {name: option.describe() for name, option in game.OPTIONS.items() if hint or name != "hint"}
    return specs, labels, game.default_options()


def _my_rooms() -> list[dict]:
    """The rooms this browser holds a seat in, newest first: the way back to a table."""
    rooms, found = _rooms(), []
    for code, token in reversed(browser_seats().items()):
        with contextlib.suppress(IllegalMove):  # gone, left or removed: nothing to go back to
            found.append(rooms.summary(code, token))
    return found


AGAINST_BOTS = ("statistician", "bluffer")  # Lügen needs three players: with you, two bots will do


@bp.post("/rooms")
@limited(ROOMS, open=True)
def create():
    """Create a room from the home page; the creator is host."""
    name = request.form.get("name", "")
    try:
        seat = _rooms().create(name, request.form.get("rules") or DEFAULT)
    except IllegalMove as error:
        return _home(error, name=shown_name(name))
    if request.form.get("bots"):  # "Play against bots": two computer players sit down with you
        for strategy in AGAINST_BOTS:
            _rooms().act(seat["code"], seat["player"], {"action": "add_bot", "strategy": strategy})
    _remember(seat["code"], seat["token"], name.strip())
    return redirect(url_for("web.room", code=seat["code"]), 303)


@bp.post("/table")
@limited(ROOMS, open=True)
def create_table():
    """One phone for the whole table: names, one per line, then play."""
    text = request.form.get("names", "")
    names = [line.strip() for line in text.splitlines() if line.strip()]
    try:
        rules = request.form.get("rules") or "poschen"
        seat = _rooms().create_shared(names, rules, _form_options(rules))
    except IllegalMove as error:
        return _home(error, names=text)
    _remember(seat["code"], seat["token"], session.get("name", ""))
    return redirect(url_for("web.room", code=seat["code"]), 303)


@bp.post("/join")
@limited()
def join_by_code():
    """Join a room by its code from the home page."""
    name = request.form.get("name", "")
    typed = request.form.get("code", "")
    try:
        if len("".join(typed.split())) == CLASS_CODE_LENGTH:  # a class's code: join the class
            code = normalize_class_code(typed)
            return redirect(url_for("classes.join", code=code), 307)
        code = normalize_code(typed)
        return _join(code, name)
    except IllegalMove as error:
        return _home(error, name=shown_name(name), code=typed)


def _join(code, name):
    if _me(code):
        return redirect(url_for("web.room", code=code), 303)
    seat = _rooms().join(code, name)
    _remember(code, seat["token"], name.strip())
    return redirect(url_for("web.room", code=code), 303)


@bp.get("/r/<code>")
@limited()
def room(code):
    """The room: the table for a seated player, else a name form."""
    code = _room_or_404(code)
    player = _me(code)
    room = _rooms().load(code)
    if player is None:
        if room.classroom:  # a class's table: its students sit down through the class (a moved one: there too)
            return redirect(url_for("classes.desk", code=room.classroom, gone=request.args.get("gone")), 303)
        if room.shared:
            message = _message(IllegalMove("one_phone"))
            return render_template("join.html", code=code, error=message, closed=True), 409
        return _join_page(room, name=session.get("name", ""), notice=GONE.get(request.args.get("gone", "")))
    return render_template("room.html", code=code, room=room, parts=_parts(room, player), **share("r/" + code))


def _watched(code: str):
    """The room a seatless page shows (the board, the statistics); 404 when there is none.

    A one-phone table takes no second device: its answer is the refusal page (409), for the caller to return.
    """
    code = _room_or_404(code)
    room = _rooms().load(code)
    if room.shared:
        return room, (
            render_template("join.html", code=code, error=_message(IllegalMove("one_phone")), closed=True),
            409,
        )
    return room, None


@bp.get("/r/<code>/board")
@limited(PAGES)
def board(code):
    """The room on a big screen (a projector): what the whole table sees, with no seat and no hidden die."""
    room, refused = _watched(code)
    if refused:
        return refused
    code = room.code
    return render_template(
        "room.html", code=code, room=room, parts=_parts(room, None), board=True, **share("r/" + code)
    )


STATS_POLL = 5  # seconds between two looks of the statistics page (an unchanged answer is a bodiless 204)


@bp.get("/r/<code>/stats")
@limited(PAGES)
def stats_page(code):
    """The room's statistics for anyone with the code: what the board shows, larger; htmx asks again every few seconds.

    The poll (`HX-Request`) carries the key of what the page shows: unchanged, the answer is 204.
    """
    room, refused = _watched(code)
    if refused:
        return refused
    key = stats_key(room)
    if request.headers.get("HX-Request"):
        if request.args.get("key") == key:
            return "", 204
        return render_template("partials/polled.html", code=room.code, key=key, every=STATS_POLL, area=_stats(room))
    host = _me(room.code) == room.host and not room.classroom  # a class's names are the teacher's
    return render_template(
        "stats.html", code=room.code, room=room, key=key, every=STATS_POLL, area=_stats(room), host=host
    )


def _stats(room):
    return render_stats(room, full=True)


@bp.get("/r/<code>/stats.csv")
@limited(DOWNLOADS)
def stats_csv(code):
    """The room's rolls the table may know, one row per roll; names only for the host who asks (`names=1`)."""
    room, refused = _watched(code)
    if refused:
        return refused
    names = request.args.get("names") == "1"
    if names and room.classroom:  # a class's names are the teacher's: the class's CSV
        raise IllegalMove("not_teacher")
    if names and _me(room.code) != room.host:
        raise IllegalMove("not_host")
    store = _rooms().store
    return log_csv([(None, lambda: store.room_log(room.code), running_game(room))], room.code, names)


def running_game(room) -> int | None:
    """The number of the game still running at a room, or None."""
    return room.games if room.phase == "playing" else None


CSV_CHUNK = 500  # rows the server writes before it lets the others have their turn


def log_csv(logs, name: str, names: bool, tables: bool = False):
    """Roll logs as one CSV download, streamed: `logs` are (table number or None, a function reading
    that table's log, the number of its game still running or None); a long log never holds the
    server for long."""

    def chunks():
        out = io.StringIO()
        writer = csv.writer(out)

        def taken() -> str:
            text = out.getvalue()
            out.seek(0)
            out.truncate()
            return text

        out.write("\ufeff")  # UTF-8's byte-order mark: a spreadsheet reads names in any script right
        writer.writerow(stats.log_csv_header(tables))
        yield taken()  # the download starts at once
        for number, read, running in logs:
            for count, row in enumerate(stats.log_csv_rows(read(), names, number, running), 1):
                writer.writerow(row)
                if count % CSV_CHUNK == 0:
                    yield taken()
                    time.sleep(0)  # the others' turn (eventlet): a download is no pause for the tables
        yield taken()

    response = current_app.response_class(chunks(), mimetype="text/csv")
    filename = f"maxchen-{name}{'-names' if names else ''}.csv"
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    response.cache_control.no_store = True
    return response


@bp.post("/r/<code>/join")
@limited()
def join(code):
    """Take a seat in this room with a name."""
    code = _room_or_404(code)
    name = request.form.get("name", "")
    try:
        return _join(code, name)
    except IllegalMove as error:
        return _join_page(_rooms().load(code), name=shown_name(name), error=_message(error)), error.status


# Why a browser is back at a room's name form (`?gone=`): said on the form.
GONE = {
    "left": _l("You left the room."),
    "removed": _l("The host removed you from the room."),
    "seat": _l("This browser no longer has a seat in this room."),
}


def _join_page(room, **context):
    """A room's name form, with what a newcomer may know: the game, who sits there, whether a game runs."""
    members = room.members()
    host = next((s.name for s in members if s.id == room.host), "")
    return render_template(
        "join.html",
        code=room.code,
        rules=room.rules,
        host=host,
        names=[s.name for s in members],
        running=room.phase == "playing",
        **context,
    )


def _seated(code: str) -> tuple[str, str]:
    """The room's code and this browser's player; a lost seat goes back to the name form."""
    code = _code_or_404(code)
    player = _me(code)  # a seat says the room is there; without one, is it?
    if player is None:
        abort(_gone(_room_or_404(code), "seat"))
    return code, player


@bp.get("/r/<code>/parts")
@limited()
def parts(code):
    """Every area of this player's page (a resync); the page swaps what is newer."""
    code, player = _seated(code)
    return "".join(_parts(_rooms().load(code), player).values())


@bp.post("/r/<code>/act")
@limited()
def act(code):
    """An action from a form (htmx); answers the changed areas, or the error as a toast."""
    code, player = _seated(code)
    try:
        seated = act_as(code, player, _form_action())
    except IllegalMove as error:
        return refusal(error)
    if seated is None:  # left the room
        return _gone(code, "left")
    if _listening(code, player):
        return "", 204  # the page's socket brings what changed, as to everyone else
    return "".join(_parts(_rooms().load(code), player).values())


def _listening(code: str, player: str) -> bool:
    """This player has a room page connected (its pushes carry every change)."""
    return any(s.player == player and s.kind == "html" for s in _rooms().presence.sockets(code))


def _parts(room, player) -> dict:
    """The page's areas for this player: public ones as the table sees them, then their own."""
    rooms = _rooms()
    return page_parts(room, player, rooms.connected(room.code), rooms.presence.seq(room.code))


@lru_cache(maxsize=256)
def _qr(link: str) -> str:
    # A viewBox, no size: the page sizes it (a phone: 190 px; the board: a quarter of the screen).
    return segno.make(link, error="m").svg_inline(scale=5, dark="#111", light="#fff", border=2, omitsize=True)


def share(path: str) -> dict:
    """A page's link on this server (a room's "r/CODE", a class's "c/CODE") and its QR code (drawn once per link)."""
    link = request.host_url + path
    return {"link": link, "qr": _qr(link)}


def _gone(code, why: str):
    response = make_response("", 204)
    response.headers["HX-Redirect"] = url_for("web.room", code=code, gone=why)
    return response


def _form_action() -> dict:
    """The action payload from form fields (all strings) as the API takes it."""
    form = request.form
    payload = {"action": form.get("action")}
    for field in NUMBER_FIELDS:
        if form.get(field, "") != "":
            if not WHOLE.fullmatch(form[field]):
                raise IllegalMove("whole_number", field=field)
            payload[field] = int(form[field])
    if "value" in form:
        payload["value"] = form["value"]
    if "player" in form:
        payload["player"] = form["player"]
    if "strategy" in form:
        payload["strategy"] = form["strategy"]
    if "rules" in form:
        payload["options"] = {"rules": form["rules"], **_form_options(form["rules"])}
    return payload


def _form_options(rules: str) -> dict:
    """The form's options (option.NAME) of rule set `rules`, whole numbers as numbers.

    Fields of another rule set's options (after a switch) are left out.
    """
    game = RULESETS.get(rules)
    options = {}
    for key, value in request.form.items():
        name = key.removeprefix("option.")
        if key.startswith("option.") and game and name in game.OPTIONS:
            options[name] = int(value) if WHOLE.fullmatch(value) else value
    return options


def _message(error: IllegalMove) -> str:
    """The refusal in the page's language."""
    return messages.text(error)


@bp.post("/lang")
@limited(PAGES, open=True)
def language():
    """Switch the language; remembered in a cookie for a year."""
    lang = request.form.get("lang")
    back = request.form.get("next") or "/"
    if not LOCAL_PATH.fullmatch(back):
        back = "/"
    response = redirect(back, 303)
    if lang in LANGUAGES:
        response.set_cookie(
            LANG_COOKIE, lang, max_age=365 * 24 * 3600, samesite="Lax", httponly=True, secure=request.is_secure
        )
    return response


@bp.get("/rules")
@limited(PAGES, open=True)
def rules_page():
    """The rules in player language, with the value ladder."""
    ladder = [(value, value_label(value), two_dice.probability(value)) for value in two_dice.VALUES]
    return render_template(f"rules/{select_locale()}.html", ladder=ladder)


@bp.get("/fair")
@limited(PAGES, open=True)
def fair_page():
    """Why the server cannot change the dice after a check, in plain words, with a fresh example seal."""
    dice = [6, 5]
    sealed = fair.seal(dice)
    return render_template("fair.html", text=fair.text(dice, sealed["salt"]), **sealed)


SEATS_ON_FORM = 6


def _percent(chance) -> str:
    return f"{float(chance) * 100:.1f} %"


@bp.get("/learn")
@limited(PAGES, SIMULATIONS, open=True)
def learn():
    """The ladder's odds, and a simulator: N games of bots with chosen strategies, against theory."""
    from . import simulate  # numpy loads only for the page that uses it

    ladder = [
        {
            "value": value,
            "label": value_label(value),
            "exactly": f"{int(two_dice.probability(value) * 36)}/36",
            "at_least": _percent(stats.at_least(value)),
            "beaten": _percent(stats.beats(value)),
        }
        for value in two_dice.VALUES
    ]
    seats = [s for s in request.args.getlist("seat") if s]
    rules = request.args.get("rules") or DEFAULT
    shown = rules if rules in REGISTRY else DEFAULT  # the form's choice (an unknown one is refused below)
    form = {
        "games": request.args.get("games", "10000" if REGISTRY[shown].batch else "200"),
        "seats": (seats or ["statistician", "honest", "bluffer"]),
        "rules": shown,
    }
    form["seats"] = (form["seats"] + [""] * SEATS_ON_FORM)[:SEATS_ON_FORM]
    context = {
        "ladder": ladder,
        "form": form,
        "max_games": simulate.MAX_GAMES,
        "strategy_labels": _strategy_labels(),
        "rulesets": list(RULESETS),
        "titles": TITLES,
    }
    if "games" not in request.args:
        return render_template("learn.html", **context)
    try:
        result = _simulated(rules, seats, request.args["games"], request.args.get("seed", ""))
    except IllegalMove as error:
        response = make_response(render_template("learn.html", error=_message(error), **context), error.status)
        if error.reason == "rate_limited":  # busy with another's simulation
            response.headers["Retry-After"] = str(error.params["seconds"])
        return response
    if request.args.get("format") == "csv":
        out = io.StringIO()
        simulate.write_csv(result, out)
        return current_app.response_class(out.getvalue(), mimetype="text/csv")
    test = stats.test(result.rolls, REGISTRY[rules].dice)
    # The same games again as CSV: the same seed (and only the form's own fields).
    csv_url = url_for("web.learn", rules=rules, games=result.games, seat=seats, seed=result.seed, format="csv")
    return render_template(
        "learn.html",
        result=result,
        most=simulate.max_games(rules),
        seconds=int(simulate.ENGINE_SECONDS),
        test=test,
        csv_url=csv_url,
        value_name=str,  # the chart names values by their number: short under a bar
        **context,
    )


_SIMULATING = threading.BoundedSemaphore(1)  # one simulation at a time, whoever asks: a core stays for the tables


def _simulated(rules: str, seats: list[str], games: str, seed: str):
    """The simulation the form asks for, run off the server's loop; IllegalMove for a bad form or a busy server."""
    from . import simulate

    game = RULESETS[ruleset_name(rules)]
    if not WHOLE.fullmatch(games) or not 1 <= int(games) <= simulate.MAX_GAMES:
        raise IllegalMove("option_range", option=gettext("Games"), low=1, high=simulate.MAX_GAMES)
    asked = int(games)
    games = min(asked, simulate.max_games(rules))  # a game without a batch engine: its own cap, said on the page
    if not game.MIN_PLAYERS <= len(seats) <= SEATS_ON_FORM:
        raise IllegalMove("player_count", code="bad_value", game=game.TITLE, low=game.MIN_PLAYERS, high=SEATS_ON_FORM)
    if any(seat not in _strategy_labels() for seat in seats):
        raise IllegalMove(
            "no_such_strategy",
            strategy=next(s for s in seats if s not in _strategy_labels())[:40],
            choices=", ".join(_strategy_labels()),
        )
    if seed and not (WHOLE.fullmatch(seed) and int(seed) >= 0):
        raise IllegalMove("whole_number", field="seed")
    run = functools.partial(
        simulate.simulate, seats, games, int(seed) if seed else secrets.randbelow(10**9), rules_name=rules
    )
    if not _SIMULATING.acquire(blocking=False):
        raise IllegalMove("rate_limited", seconds=5)
    try:
        if current_app.config["ASYNC_MODE"] == "eventlet":
            from eventlet import tpool  # numpy works in a thread of its own: the tables go on meanwhile

            result = tpool.execute(run)
        else:
            result = run()
        result.asked = asked if result.games < asked else None
        return result
    finally:
        _SIMULATING.release()


def _strategy_labels() -> dict:
    return {key: gettext(label) for key, label in STRATEGY_LABELS.items()}


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
