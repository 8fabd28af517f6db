"""What anyone with a room's code may watch: the board for a projector, the statistics page, the CSV of the rolls.

None of them holds a seat, so none shows a hidden die (`page_parts` for no player).
"""

import csv
import io
import time

from flask import Blueprint, abort, current_app, make_response, render_template, request

from .. import fair, messages, stats
from ..budgets import DOWNLOADS, PAGES, limited
from ..errors import IllegalMove
from ..live import page_parts, render_stats, stats_key
from .seats import me, room_or_404, rooms
from .share import share

bp = Blueprint("boards", __name__)

STATS_POLL = 5  # seconds between two looks of the statistics page (an unchanged answer is a bodiless 204)
CSV_CHUNK = 500  # rows the server writes before it lets the others have their turn


def parts_for(room, player) -> dict:
    """The page's areas for `player` (None: a watcher): public ones as the table sees them, then their own."""
    registry = rooms()
    return page_parts(room, player, registry.connected(room.code), registry.presence.seq(room.code))


def _watched(code: str):
    """The room a seatless page shows; 404 when there is none, and a one-phone table's refusal page (409)."""
    room = rooms().load(room_or_404(code))
    if room.shared:  # it takes no second device
        refused = messages.text(IllegalMove("one_phone"))
        abort(make_response(render_template("join.html", code=room.code, error=refused, closed=True), 409))
    return room


@bp.get("/r/<code>/board")
@limited(PAGES)
def board(code):
    """The room on a big screen (a projector): what the whole table sees, with no seat and no hidden die."""
    room = _watched(code)
    parts = parts_for(room, None)
    show = request.args.get("show")
    show = show if show in BOARD_SHOWS else "all"
    page = render_template(
        "room.html", code=room.code, room=room, parts=parts, board=True, show=show, **share("r/" + room.code)
    )
    return page


BOARD_SHOWS = ("table", "stats")  # a room's board shows one of them, big, or everything


@bp.get("/r/<code>/stats")
@limited(PAGES)
def stats_page(code):
    """The room's statistics for anyone with the code: what the board shows, larger; htmx asks again every few seconds.

    The poll (`HX-Request`) carries the key of what the page shows: unchanged, the answer is 204.
    """
    room = _watched(code)
    key = stats_key(room)
    polled = request.headers.get("HX-Request")
    if polled and request.args.get("key") == key:
        return "", 204
    area = render_stats(room, full=True)
    if polled:
        return render_template("partials/polled.html", code=room.code, key=key, every=STATS_POLL, area=area)
    host = me(room.code) == room.host and not room.classroom  # a class's names are the teacher's
    return render_template("stats.html", code=room.code, room=room, key=key, every=STATS_POLL, area=area, host=host)


@bp.get("/r/<code>/stats.csv")
@limited(DOWNLOADS)
def stats_csv(code):
    """The room's rolls the table may know, one row per roll; names only for the host who asks (`names=1`)."""
    room = _watched(code)
    names = request.args.get("names") == "1"
    if names and room.classroom:  # a class's names are the teacher's: the class's CSV
        raise IllegalMove("not_teacher")
    if names and me(room.code) != room.host:
        raise IllegalMove("not_host")
    store = rooms().store
    # A class's table: with its loading once told, as in its class's CSV (its number there, not here).
    number = "" if room.classroom else None
    logs = [(number, lambda: store.room_log(room.code), running_game(room), room.told_loading, room.held)]
    return log_csv(logs, room.code, names, tables=room.classroom is not None)


def running_game(room) -> int | None:
    """The number of the game still running at a room, or None."""
    return room.games if room.phase == "playing" else None


def log_csv(logs, name: str, names: bool, tables: bool = False):
    """Roll logs as one CSV download, streamed: `logs` are (table number or None, a function reading
    that table's log, the number of its game still running or None, its revealed loading or None, whether
    a hunt holds its seeds back); a long log never holds the server for long."""

    def chunks():
        out = io.StringIO()
        writer = csv.writer(out)

        def taken() -> str:
            text = out.getvalue()
            out.seek(0)
            out.truncate()
            return text

        out.write("\ufeff")  # UTF-8's byte-order mark: a spreadsheet reads names in any script right
        header = (*stats.log_csv_header(tables), "unchecked")  # why a row has no server seed (fair.unchecked)
        commit = header.index("commit")
        writer.writerow(header)
        yield taken()  # the download starts at once
        for number, read, running, loaded, held in logs:
            for count, row in enumerate(stats.log_csv_rows(read(), names, number, running, loaded, held), 1):
                writer.writerow([*row, fair.unchecked(row[commit], held)])
                if count % CSV_CHUNK == 0:
                    yield taken()
                    time.sleep(0)  # the others' turn (eventlet): a download is no pause for the tables
        yield taken()

    response = current_app.response_class(chunks(), mimetype="text/csv")
    filename = f"maxchen-{name}{'-names' if names else ''}.csv"
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    response.cache_control.no_store = True
    return response
