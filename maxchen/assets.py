"""Static files and page weight: compressed answers, versioned static URLs cached for a year.

A static URL carries its file's content hash (`?v=...`): a phone keeps the
file until the file changes, and a changed file has a new URL. A URL without
the current hash is answered but must be checked again (`no-cache`).
"""

import hashlib
import re
from functools import lru_cache
from pathlib import Path

from flask import request
from flask_compress import Compress

# A stylesheet's comments are for its readers, not for the phones: a fifth of style.css, compressed.
CSS_COMMENT = re.compile(r"/\*.*?\*/\s*", re.S)

YEAR = 365 * 24 * 3600


def init_app(app):
    """Compression (Flask-Compress: zstd, Brotli or gzip, as the browser takes) and the static URLs."""
    app.config.setdefault("COMPRESS_MIN_SIZE", 500)
    Compress(app)
    folder = Path(app.static_folder)

    @lru_cache(maxsize=256)
    def version(filename: str) -> str:
        path = folder / filename
        return hashlib.sha256(path.read_bytes()).hexdigest()[:12] if path.is_file() else ""

    @lru_cache(maxsize=32)
    def stripped(filename: str, _version: str) -> bytes:
        return CSS_COMMENT.sub("", (folder / filename).read_text(encoding="utf-8")).encode()

    serve_static = app.view_functions["static"]

    def static(filename):
        """A static file as it is, a stylesheet without its comments."""
        if not filename.endswith(".css") or not (folder / filename).is_file():
            return serve_static(filename=filename)
        response = app.response_class(stripped(filename, version(filename)), mimetype="text/css")
        response.set_etag(version(filename))
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
