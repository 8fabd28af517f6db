"""A page's link on this server and its QR code: what a table or a class passes round."""

from functools import lru_cache

import segno
from flask import request


@lru_cache(maxsize=256)
def _qr(link: str) -> str:
    # A viewBox, no size: the page sizes it (a phone: 190 px; the board: a quarter of the screen).
    return segno.make(link, error="m").svg_inline(scale=5, dark="#111", light="#fff", border=2, omitsize=True)


def share(path: str) -> dict:
    """A page's link on this server (a room's "r/CODE", a class's "c/CODE") and its QR code (drawn once per link)."""
    link = request.host_url + path
    return {"link": link, "qr": _qr(link)}
