"""Every refusal and every HTTP error as its asker reads it: JSON for the API, a toast for htmx, else a page."""

from flask import Blueprint, current_app, jsonify, make_response, render_template, request
from flask_babel import lazy_gettext as _l
from werkzeug.exceptions import HTTPException

from .. import messages
from ..errors import IllegalMove
from .api import json_error

bp = Blueprint("errors", __name__)

ERROR_TEXTS = {
    404: _l("There is no such page."),
    405: _l("This page is opened through its form, not by its address."),
    413: _l("That was too much at once."),
}
# Pages that poll with htmx alone (no live.js to show a toast): a refused poll keeps what they show.
POLLING = {"boards.stats_page", "pages.room"}  # the room: a full table's waiting page


@bp.app_errorhandler(HTTPException)
def http_error(error: HTTPException):
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


def toast(message: str) -> str:
    """A refusal as the room page shows it for a moment (static/live.js), whichever way its form went."""
    return render_template("partials/toast.html", message=message)


@bp.app_errorhandler(IllegalMove)
def refusal(error: IllegalMove):
    """A refusal as its asker reads it: JSON for the API, a toast for htmx, else a page."""
    if request.path.startswith("/api/"):
        response = jsonify(messages.answer(error))
    elif request.headers.get("HX-Request") and request.endpoint in POLLING:
        # It asks again at its next poll; a toast swapped in would end the polling for good.
        return make_response("", 204)
    elif request.headers.get("HX-Request"):
        response = make_response(toast(messages.text(error)))
        # The page shows it (static/live.js): the form that sent it may be gone by now.
        response.headers["X-Maxchen-Toast"] = "1"
        return response
    else:
        response = make_response(render_template("error.html", message=messages.text(error)))
    response.status_code = error.status
    if error.reason in ("rate_limited", "simulator_busy"):
        response.headers["Retry-After"] = str(error.params["seconds"])
    return response
