"""Pages for people (the browser game)."""

from flask import Blueprint, render_template

bp = Blueprint("web", __name__)


@bp.get("/")
def index():
    """The home page."""
    return render_template("index.html")
