"""maxchen: create_app(), the Socket.IO object and the command line.

Run `python app.py --host H --port P [--async-mode eventlet|gevent|threading]`.
The async mode is chosen in one place, here; monkey-patching happens only when
this file runs as the server, before anything else is imported.
"""

import sys

ASYNC_MODES = ("eventlet", "gevent", "threading")


def _async_mode(argv) -> str:
    """The --async-mode the command line asks for (default eventlet)."""
    for index, arg in enumerate(argv):
        if arg == "--async-mode" and index + 1 < len(argv):
            return argv[index + 1]
        if arg.startswith("--async-mode="):
            return arg.split("=", 1)[1]
    return "eventlet"


if __name__ == "__main__":
    _mode = _async_mode(sys.argv[1:])
    if _mode == "eventlet":
        import warnings

        # eventlet is in bugfix-only mode; it stays our default by choice (README).
        warnings.filterwarnings("ignore", message="\nEventlet is deprecated")
        import eventlet

        eventlet.monkey_patch()
    elif _mode == "gevent":
        from gevent import monkey

        monkey.patch_all()

import argparse  # noqa: E402
import os  # noqa: E402
import secrets  # noqa: E402

from flask import Flask  # noqa: E402
from flask_babel import Babel  # noqa: E402
from flask_socketio import SocketIO  # noqa: E402

from maxchen import api, events, web  # noqa: E402
from maxchen.rooms import Rooms  # noqa: E402

MAX_MESSAGE = 16 * 1024
SWEEP_EVERY = 300

socketio = SocketIO()


def create_app(test_config=None) -> Flask:
    """The Flask app with the API, the pages and the Socket.IO events."""
    app = Flask(__name__)
    app.config.from_mapping(
        SECRET_KEY=os.environ.get("MAXCHEN_SECRET_KEY") or secrets.token_hex(32),
        MAX_CONTENT_LENGTH=MAX_MESSAGE,
        ASYNC_MODE="threading",
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
        PERMANENT_SESSION_LIFETIME=30 * 24 * 3600,
        JSON_SORT_KEYS=False,
    )
    if test_config:
        app.config.from_mapping(test_config)
    rooms = app.config.get("ROOMS") or Rooms(dice=app.config.get("DICE"))
    app.extensions["maxchen.rooms"] = rooms
    Babel(app, locale_selector=web.select_locale)
    app.register_blueprint(web.bp)
    app.register_blueprint(api.bp)
    # Same-origin check stays on: cors_allowed_origins is left at its default.
    socketio.init_app(
        app,
        async_mode=app.config["ASYNC_MODE"],
        max_http_buffer_size=MAX_MESSAGE,
        json=None,
    )
    events.init_app(socketio, rooms)
    return app


def _lan_urls(host: str, port: int) -> list[str]:
    """The URLs at which phones on the same network reach the server."""
    import ipaddress

    import ifaddr

    if host not in ("0.0.0.0", "::", ""):
        return [f"http://{host}:{port}/"]
    urls = [f"http://localhost:{port}/"]
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if ip.is_IPv4 and not ipaddress.ip_address(ip.ip).is_loopback:
                urls.append(f"http://{ip.ip}:{port}/")
    return urls


def _sweeper(rooms: Rooms):
    while True:
        socketio.sleep(SWEEP_EVERY)
        rooms.sweep()


def _bind(app, host, port, mode):
    """Listen on host:port (failing loudly when busy); returns serve_forever."""
    if mode == "eventlet":
        import eventlet
        import eventlet.wsgi

        family = eventlet.green.socket.getaddrinfo(host, port)[0][0]
        # eventlet.listen turns SO_REUSEPORT on by default; a second server on
        # a busy port must fail instead of sharing it.
        listener = eventlet.listen((host, port), family, reuse_port=False)
        return lambda: eventlet.wsgi.server(listener, app, log_output=False)
    if mode == "gevent":
        from gevent import pywsgi

        server = pywsgi.WSGIServer((host, port), app, log=None)
        server.init_socket()
        return server.serve_forever
    from werkzeug.serving import make_server

    return make_server(host, port, app, threaded=True).serve_forever


def main(argv=None):
    """The command line: start the server."""
    parser = argparse.ArgumentParser(description="maxchen party dice server")
    parser.add_argument("--host", default="0.0.0.0", help="address to listen on (default 0.0.0.0)")
    parser.add_argument("--port", type=int, default=5000, help="port (default 5000)")
    parser.add_argument("--async-mode", choices=ASYNC_MODES, default="eventlet")
    args = parser.parse_args(argv)
    app = create_app({"ASYNC_MODE": args.async_mode})
    socketio.start_background_task(_sweeper, app.extensions["maxchen.rooms"])
    try:
        serve_forever = _bind(app, args.host, args.port, args.async_mode)
    except OSError as error:
        print(f"maxchen: cannot listen on {args.host}:{args.port}: {error.strerror or error}", file=sys.stderr)
        sys.exit(1)
    print(f"maxchen ({args.async_mode}) is up. Open on a phone on this network:", flush=True)
    for url in _lan_urls(args.host, args.port):
        print("  " + url, flush=True)
    serve_forever()


if __name__ == "__main__":
    main()
