"""The page's language: chosen on the page (a cookie for a year), else the browser's."""

import re
from urllib.parse import parse_qsl, urlencode, urlsplit

from flask import Blueprint, current_app, has_request_context, redirect, request
from werkzeug.exceptions import HTTPException

from ..budgets import PAGES, limited

bp = Blueprint("locale", __name__)

LANGUAGES = {"en": "English", "de": "Deutsch", "ru": "Русский"}
LANG_COOKIE = "lang"
# A path of this site: printable ASCII, no "//" or "/\" start (browsers drop tabs and
# newlines from URLs and read a backslash as a slash, so "/\t/evil.example" leaves).
LOCAL_PATH = re.compile(r"/(?![/\\])[!-\[\]-~]*")


def select_locale() -> str:
    """The language: the one chosen on the page, else the browser's (English outside a request)."""
    if not has_request_context():
        return "en"
    for chosen in (request.args.get("lang"), request.cookies.get(LANG_COOKIE)):
        if chosen in LANGUAGES:
            return chosen
    return request.accept_languages.best_match(list(LANGUAGES)) or "en"


@bp.post("/lang")
@limited(PAGES, open=True)
def language():
    """Switch the language; remembered in a cookie for a year."""
    lang = request.form.get("lang")
    back = _page(request.form.get("next") or "/")
    response = redirect(back, 303)
    if lang in LANGUAGES:
        response.set_cookie(
            LANG_COOKIE, lang, max_age=365 * 24 * 3600, samesite="Lax", httponly=True, secure=request.is_secure
        )
    return response


def _page(back: str) -> str:
    """The page to go back to, with its query but no `lang` (it would outvote the switch); home when
    `back` is no page of this site a GET opens (a refused form's address, such as /table, is not)."""
    if not LOCAL_PATH.fullmatch(back):
        return "/"
    parts = urlsplit(back)
    try:
        current_app.url_map.bind("localhost").match(parts.path, method="GET")
    except HTTPException:  # no such page, a form's address, or a redirect
        return "/"
    query = urlencode([(key, value) for key, value in parse_qsl(parts.query) if key != "lang"])
    return parts.path + ("?" + query if query else "")
