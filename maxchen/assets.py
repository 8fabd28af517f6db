"""Static files and page weight: compressed answers, versioned static URLs cached for a year.

A static URL carries its file's content hash (`?v=...`): a phone keeps the
file until the file changes, and a changed file has a new URL. A URL without
the current hash is answered but must be checked again (`no-cache`).

A script, stylesheet or SVG is sent as it was made once per process and kept
(`_sent`): our own scripts and stylesheets minified (their comments and spaces
are for their readers, not for the phones; the files in static/ stay as
written), then compressed at the best level. That costs about 0.1 s a file
once, where Flask-Compress at its quick levels would cost little each time
but send a third more (bench/README.md, "The room page's first load").
"""

import gzip
import hashlib
import mimetypes
from functools import lru_cache
from pathlib import Path

import brotli
import rcssmin
import rjsmin
from flask import request
from flask_compress import Compress
from werkzeug.security import safe_join

try:
    from compression import zstd
except ImportError:  # before Python 3.14: the backport that Flask-Compress takes too (requirements.txt)
    from backports import zstd

YEAR = 365 * 24 * 3600

# Our own files minified; a vendored *.min.js is sent as its makers minified it.
MINIFY = {".js": rjsmin.jsmin, ".css": rcssmin.cssmin}
TEXT = (".js", ".css", ".svg")

# Best first: Brotli 11 came out smallest for every file of ours, then zstd 19, then gzip 9.
COMPRESS = {
    "br": lambda data: brotli.compress(data, quality=11),
    "zstd": lambda data: zstd.compress(data, 19),
    "gzip": lambda data: gzip.compress(data, 9, mtime=0),
}


@lru_cache(maxsize=64)
def _minified(path: str, _version: str) -> bytes:
    """The file as a phone needs it: our scripts and stylesheets without comments and spaces."""
    minify = None if path.endswith(".min.js") else MINIFY.get(Path(path).suffix)
    data = Path(path).read_bytes()
    return minify(data.decode("utf-8")).encode() if minify else data


@lru_cache(maxsize=256)
def _sent(path: str, version: str, encoding: str | None) -> bytes:
    """The file minified and compressed with `encoding` (None: not compressed), made once per version."""
    data = _minified(path, version)
    return COMPRESS[encoding](data) if encoding else data


def _encoding() -> str | None:
    """The encoding the browser takes: its most wanted of ours, the best of ours on a tie."""
    accepted = request.accept_encodings
    best = max(COMPRESS, key=lambda name: accepted.quality(name))
    return best if accepted.quality(best) > 0 else None


def init_app(app):
    """Compression (Flask-Compress for pages: zstd, Brotli or gzip, as the browser takes) and the static URLs."""
    app.config.setdefault("COMPRESS_MIN_SIZE", 500)
    Compress(app)
    folder = Path(app.static_folder)

    @lru_cache(maxsize=256)
    def version(filename: str) -> str:
        path = folder / filename
        return hashlib.sha256(path.read_bytes()).hexdigest()[:12] if path.is_file() else ""

    serve_static = app.view_functions["static"]

    def static(filename):
        """A script, stylesheet or SVG minified and compressed once (`_sent`); any other file as it is."""
        path = safe_join(str(folder), filename)
        if not filename.endswith(TEXT) or path is None or not Path(path).is_file():
            return serve_static(filename=filename)
        current, encoding = version(filename), _encoding()
        response = app.response_class(_sent(path, current, encoding), mimetype=mimetypes.guess_type(filename)[0])
        if encoding:
            response.headers["Content-Encoding"] = encoding  # Flask-Compress leaves it as it is
        response.vary.add("Accept-Encoding")
        response.set_etag(f"{current}-{encoding or 'identity'}")
        return response.make_conditional(request)

    app.view_functions["static"] = static

    @app.url_defaults
    def _versioned(endpoint, values):
        if endpoint == "static" and "filename" in values:
            values.setdefault("v", version(values["filename"]))

    @app.after_request
    def _cached(response):
        if request.endpoint == "static" and response.status_code in (200, 304):
            current = version((request.view_args or {}).get("filename", ""))
            if current and request.args.get("v") == current:
                response.cache_control.public = True
                response.cache_control.max_age = YEAR
                response.cache_control.immutable = True
                response.cache_control.no_cache = None
            else:
                response.cache_control.no_cache = True
                response.cache_control.max_age = 0
        return response
