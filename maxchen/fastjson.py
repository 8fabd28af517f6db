"""JSON on the hot paths (Socket.IO packets, the store): orjson behind the stdlib's shape.

`dumps` and `loads` take the stdlib's keyword arguments and ignore them
(orjson's output is always compact), so Flask-SocketIO and python-engineio
can use this module as their `json`.
"""

import orjson


def dumps(obj, *, sort_keys=False, **_stdlib_options) -> str:
    """The object as compact JSON text."""
    return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS if sort_keys else 0).decode()


def loads(text, **_stdlib_options):
    """The object of a JSON text (str or bytes)."""
    return orjson.loads(text)
