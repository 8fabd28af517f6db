"""What reaches a browser or a script, one module per job.

pages (home, join, the room), boards (board, statistics, CSV), learn,
classes, seats (the session cookie's seats), locale, errors, share (a link
and its QR code), forms (form fields as actions); api.py (JSON) and
events.py (Socket.IO handlers). Routes and handlers only parse, call the
rooms or the classes, and answer.
"""

from . import api, boards, classes, errors, learn, locale, pages

BLUEPRINTS = (errors.bp, locale.bp, pages.bp, boards.bp, learn.bp, classes.bp, api.bp)
