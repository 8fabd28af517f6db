"""Pages of a class: the teacher's desk, a student's way to their table, the class board.

A browser's classes live in its session cookie as [class code, token] pairs,
like its seats; the token is the teacher's or a student's (`Classrooms.role`).
"""

from flask import Blueprint, abort, current_app, redirect, render_template, request, session, url_for
from flask_babel import get_locale
from flask_babel import lazy_gettext as _l
from markupsafe import Markup

from .. import messages
from ..budgets import CLASS_JOINS, DOWNLOADS, PAGES, ROOMS, limited
from ..classroom import DEFAULT_SIZE, TABLE_SIZES, normalize_class_code
from ..errors import IllegalMove
from ..live import SHARES, class_hunt, class_stats, class_trend, standings, wrap_class_parts
from ..names import shown_name
from ..rulesets import DEFAULT, REGISTRY, RULESETS
from . import forms
from .boards import log_csv, running_game
from .errors import refusal
from .pages import home
from .seats import browser_classes, remember, remember_class
from .share import share

bp = Blueprint("classes", __name__)


def classrooms():
    """The app's class registry."""
    return current_app.extensions["maxchen.classes"]


def _class_or_404(code: str) -> str:
    try:
        code = normalize_class_code(code)
        classrooms().load(code)
    except IllegalMove as error:
        if error.reason == "class_broken":
            raise  # its own page says so
        abort(404)
    return code


def _role(code: str) -> tuple[str | None, dict | None]:
    """("teacher", None), ("student", the student) or (None, None) for this browser."""
    token = browser_classes().get(code)
    try:
        return classrooms().role(code, token) if token else (None, None)
    except IllegalMove:
        return None, None


def _teacher(code: str) -> str:
    """The teacher's token, or 403."""
    token = browser_classes().get(code)
    if _role(code)[0] != "teacher":
        abort(403)
    return token


@bp.post("/classes")
@limited(ROOMS, open=True)
def create():
    """A teacher makes a class (its game and its tables' size) and gets its desk."""
    size = request.form.get("size", str(DEFAULT_SIZE))
    try:
        made = classrooms().create(request.form.get("rules") or DEFAULT, forms.number(size))
    except IllegalMove as error:
        return home(error, "class")
    remember_class(made["code"], made["token"])
    return redirect(url_for("classes.desk", code=made["code"]), 303)


@bp.get("/c/<code>")
@limited()
def desk(code):
    """The class: the teacher's desk, a student's way to their table (or the wait for it), else a name form."""
    code = _class_or_404(code)
    role, student = _role(code)
    if role == "teacher":
        return render_template("class.html", role=role, **_desk(code), **share("c/" + code))
    if role == "student":
        table = classrooms().table_of(student)
        if table is not None:
            remember(table, browser_classes()[code], student["name"])
            return redirect(url_for("pages.room", code=table), 303)
        return render_template("class.html", role=role, student=student, code=code, **share("c/" + code))
    notice = GONE.get(request.args.get("gone", ""))  # why a phone is back at the class's name form
    closed = classrooms().load(code)["closed"]
    return render_template(
        "class.html",
        role=None,
        code=code,
        name=session.get("name", ""),
        notice=notice,
        closed=closed,
        **share("c/" + code),
    )


GONE = {
    "removed": _l("You are no longer in this class. Ask your teacher, then join again."),
    "seat": _l("This browser no longer has a place in this class."),
}


@bp.post("/c/<code>/join")
@limited(CLASS_JOINS)
def join(code):
    """A student joins with a name."""
    code = _class_or_404(code)
    name = request.form.get("name", "")
    if _role(code)[0] is not None:
        return redirect(url_for("classes.desk", code=code), 303)
    try:
        made = classrooms().join(code, name)
    except IllegalMove as error:
        closed = error.reason == "class_closed"
        page = render_template(
            "class.html", role=None, code=code, name=shown_name(name), error=messages.text(error), closed=closed
        )
        return page, error.status
    remember_class(code, made["token"])
    session["name"] = name.strip()
    return redirect(url_for("classes.desk", code=code), 303)


@bp.post("/c/<code>/act")
@limited()
def act(code):
    """The teacher's action from a form (htmx): answers the roster, or the error as a toast."""
    code = _class_or_404(code)
    token = _teacher(code)
    try:
        classrooms().act(code, token, forms.class_action())
    except IllegalMove as error:
        return refusal(error)
    if not request.headers.get("HX-Request"):  # a form sent before the desk's scripts ran
        return redirect(url_for("classes.desk", code=code), 303)
    return render_template("partials/roster.html", **_desk(code))


@bp.get("/c/<code>/roster")
@limited()
def roster(code):
    """The teacher's roster (the desk asks again when the class changed)."""
    code = _class_or_404(code)
    _teacher(code)
    return render_template("partials/roster.html", **_desk(code))


@bp.get("/c/<code>/board")
@limited(PAGES)
def board(code):
    """Every table of the class at a glance, and the statistics pooled over the class (no seat, no hidden die)."""
    code = _class_or_404(code)
    overview = classrooms().overview(code)
    drawn = current_app.extensions["maxchen.class_live"].parts(overview, str(get_locale()))
    # Rendered with autoescape: user text in them is escaped already.
    parts = {area: Markup(wrap_class_parts({area: html})) for area, html in drawn.items()}  # noqa: S704
    show = request.args.get("show")
    show = show if show in BOARD_SHOWS and (show in parts or show == "join") else "all"  # claims: Mäxchen's
    return render_template(
        "class_board.html", code=code, overview=overview, parts=parts, show=show, **share("c/" + code)
    )


BOARD_SHOWS = ("join", "tables", "stats", "trend", "hunt", "claims")  # the class board shows one, big, or everything


@bp.get("/c/<code>/summary")
@limited(DOWNLOADS)  # a long lesson's summary costs a download's time to draw
def summary(code):
    """The lesson's summary: each table's games and results, the statistics pooled; made to print."""
    code = _class_or_404(code)
    overview = classrooms().overview(code)
    lang = str(get_locale())
    stats_html = class_stats(overview, classrooms(), lang, full=True)
    hunt_html = class_hunt(overview, lang, teacher=_role(code)[0] == "teacher")
    trend_html = class_trend(overview, classrooms(), lang)
    return render_template(
        "class_summary.html",
        code=code,
        overview=overview,
        stats_html=stats_html,
        hunt_html=hunt_html,
        trend_html=trend_html,
    )


@bp.get("/c/<code>/stats.csv")
@limited(DOWNLOADS)
def stats_csv(code):
    """The rolls of every table of the class that the tables may know; names only for the teacher (`names=1`)."""
    code = _class_or_404(code)
    names = request.args.get("names") == "1"
    if names and _role(code)[0] != "teacher":
        raise IllegalMove("not_teacher")
    store = classrooms().store
    overview = classrooms().overview(code)
    rooms = {room.code: room for room in overview["every_table"]}
    logs = [
        (
            number,
            lambda table=table: store.room_log(table),
            running_game(rooms[table]) if table in rooms else None,
            rooms[table].told_loading if table in rooms else None,
            rooms[table].held if table in rooms else False,
        )
        for number, table in enumerate(classrooms().load(code)["tables"], 1)
    ]
    return log_csv(logs, code, names, tables=True)


COUNTDOWNS = (60, 120, 180, 300, 600, 900, 1200, 1800)  # the desk's choices, in seconds


def _progress(table) -> dict:
    """How a table is doing, for the desk: its public view, each seat by name, whom the game waits for."""
    view = table.public_view(classrooms().rooms.connected(table.code))
    waiting = table.game.waiting_for() if table.phase == "playing" else []
    return {
        "view": view,
        "seats": {p["name"]: p for p in view["players"]},
        "waiting": ", ".join(messages.isolate(p["name"]) for p in view["players"] if p["id"] in waiting),
        "templates": REGISTRY[table.rules].templates,
        "standings": standings(view) if table.phase == "over" else [],
    }


def _desk(code: str) -> dict:
    """What the teacher's desk shows: the class, its tables, who waits, the game's settings."""
    overview = classrooms().overview(code)
    specs, labels, _ = forms.option_fields(overview["rules"], hint=True)
    return {
        "code": code,
        "overview": overview,
        "progress": {table.code: _progress(table) for table in overview["tables"]},
        "countdowns": COUNTDOWNS,
        "shares": SHARES,
        "sizes": TABLE_SIZES,
        "rulesets": list(RULESETS),
        "option_specs": specs,
        "option_labels": labels,
    }
