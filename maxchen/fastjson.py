"""JSON on the hot paths (Socket.IO packets, the store): orjson behind the stdlib's shape.

`dumps` and `loads` take the stdlib's keyword arguments and ignore them
(orjson's output is always compact), so Flask-SocketIO and python-engineio
can use this module as their `json`.
"""

import orjson
from flask.json.provider import DefaultJSONProvider

MAX_DEPTH = 32  # no message of ours nests deeper; deeper ones are refused before any code walks them


def dumps(obj, *, sort_keys=False, **_stdlib_options) -> str:
    """The object as compact JSON text."""
    return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS if sort_keys else 0).decode()


def loads(text, **_stdlib_options):
    """The object of a JSON text (str or bytes); ValueError if it nests deeper than MAX_DEPTH."""
    value = orjson.loads(text)
    opening = ("[", "{") if isinstance(text, str) else (b"[", b"{")
    if text.count(opening[0]) + text.count(opening[1]) > MAX_DEPTH:  # else it cannot be deeper
        _check_depth(value)
    return value


def _check_depth(value):
    level = [value]
    for _ in range(MAX_DEPTH):
        level = [
            inner
            for outer in level
            if isinstance(outer, (list, dict))
            for inner in (outer.values() if isinstance(outer, dict) else outer)
        ]
        if not level:
            return
    if any(isinstance(inner, (list, dict)) for inner in level):
        raise ValueError(f"JSON nested deeper than {MAX_DEPTH} levels")


class JSONProvider(DefaultJSONProvider):
    """Flask's JSON, reading requests with the same depth limit."""

    def loads(self, s, **kwargs):
        return loads(s)
