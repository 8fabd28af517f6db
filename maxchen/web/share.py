"""A page's link on this server and its QR code: what a table or a class passes round."""

from functools import lru_cache
from urllib.parse import urlsplit

import segno
from flask import current_app, request

from ..tls import is_loopback


@lru_cache(maxsize=256)
def _qr(link: str) -> str:
    # A viewBox, no size: the page sizes it (a phone: 190 px; the board: a quarter of the screen).
    return segno.make(link, error="m").svg_inline(scale=5, dark="#111", light="#fff", border=2, omitsize=True)


def link(path: str) -> str:
    """A page's address on this server ("r/CODE", "c/CODE"). Asked on the server's own computer (127.0.0.1),
    the address phones reach it by: a link or QR code made there is for them."""
    base = request.host_url
    if current_app.config.get("SHARE_URL") and is_loopback(urlsplit(base).hostname or ""):
        base = current_app.config["SHARE_URL"]
    return base + path


def share(path: str) -> dict:
    """A page's link and its QR code (drawn once per link): what a table or a class passes round."""
    address = link(path)
    return {"link": address, "qr": _qr(address)}
