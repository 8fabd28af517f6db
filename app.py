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
from pathlib import Path  # noqa: E402

from flask import Flask  # noqa: E402
from flask_babel import Babel  # noqa: E402
from flask_socketio import SocketIO  # noqa: E402

from maxchen import api, events, fastjson, tls, web  # noqa: E402
from maxchen.rooms import Rooms  # noqa: E402
from maxchen.store import MemoryStore, SqliteStore  # noqa: E402

MAX_MESSAGE = 16 * 1024
SWEEP_EVERY = 300
# An idle HTTP connection is closed after this many seconds (as Apache does): each
# one holds about 40 KB, and a phone opens a new one in a moment when it acts.
KEEPALIVE_IDLE = 5
GC_THRESHOLDS = (int(os.environ.get("MAXCHEN_GC_THRESHOLD", "50000")), 20, 100)

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
        json=fastjson,
        serializer=events.TextPacket,
    )
    events.init_app(app, socketio, rooms, web.select_locale, web.LANGUAGES)
    return app


def secret_key(folder: Path) -> str:
    """MAXCHEN_SECRET_KEY, else a key made once and kept in the instance folder."""
    if os.environ.get("MAXCHEN_SECRET_KEY"):
        return os.environ["MAXCHEN_SECRET_KEY"]
    path = folder / "secret_key"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        tls.write_private(path, secrets.token_hex(32).encode())
    return path.read_text().strip()


def listeners(args, instance: Path) -> list[tuple[str, int, tuple | None]]:
    """(host, port, (cert, key) or None) to listen on.

    Plain HTTP on loopback; HTTPS on the LAN addresses, so that phones get
    motion sensors. --no-tls, or a loopback --host, serves plain HTTP only.
    """
    if args.no_tls:
        return [(args.host, args.port, None)]
    if tls.is_loopback(args.host):
        return [(args.host, args.port, None)]
    wildcard = args.host in ("0.0.0.0", "::", "")
    lan = tls.lan_addresses() if wildcard else [args.host]
    pair = (Path(args.cert), Path(args.key)) if args.cert and args.key else tls.ensure_certificate(instance, lan)
    found = [("127.0.0.1", args.port, None)] if wildcard else []
    return found + [(address, args.port, pair) for address in lan]


def _url(host, port, pair) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"{'https' if pair else 'http'}://{shown}:{port}/"


def _open_files() -> int:
    """Raise this process's open-file limit to the hard limit; the limit now."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        target = 65536 if hard == resource.RLIM_INFINITY else hard
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    return soft


def _bind(app, spots, mode):
    """Listen on every spot (failing loudly when busy); returns serve_forever."""
    if mode == "eventlet":
        import eventlet
        import eventlet.wsgi

        servers = []
        for host, port, pair in spots:
            family = eventlet.green.socket.getaddrinfo(host, port)[0][0]
            # eventlet.listen turns SO_REUSEPORT on by default; a second server on
            # a busy port must fail instead of sharing it.
            sock = eventlet.listen((host, port), family, reuse_port=False)
            if pair:
                sock = eventlet.wrap_ssl(sock, certfile=str(pair[0]), keyfile=str(pair[1]), server_side=True)
            servers.append(sock)

        # No pool ceiling of our own (eventlet's default is 1,024): what one
        # process holds is set by its file descriptors, memory and CPU.
        capacity = _open_files() - 64

        def serve():
            pool = eventlet.GreenPool()
            for sock in servers:
                pool.spawn(
                    eventlet.wsgi.server, sock, app, log_output=False, max_size=capacity, keepalive=KEEPALIVE_IDLE
                )
            pool.waitall()

        return serve
    if mode == "gevent":
        import gevent
        from gevent import pywsgi

        servers = []
        for host, port, pair in spots:
            ssl = {"certfile": str(pair[0]), "keyfile": str(pair[1])} if pair else {}
            server = pywsgi.WSGIServer((host, port), app, log=None, **ssl)
            server.init_socket()
            servers.append(server)

        def serve():
            for server in servers:
                server.start()
            gevent.wait()

        return serve
    import threading

    from werkzeug.serving import make_server

    servers = [
        make_server(host, port, app, threaded=True, ssl_context=(str(pair[0]), str(pair[1])) if pair else None)
        for host, port, pair in spots
    ]

    def serve():
        threads = [threading.Thread(target=server.serve_forever, daemon=True) for server in servers]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    return serve


def _banner(spots, mode):
    import segno

    local = [_url(*spot) for spot in spots if not spot[2]]
    lan = [_url(*spot) for spot in spots if spot[2]]
    print(f"maxchen ({mode}) is up.", flush=True)
    for url in local:
        print(f"  On this computer:       {url}", flush=True)
    for url in lan:
        print(f"  Phones on this network: {url}", flush=True)
    if lan:
        segno.make(lan[0], error="l").terminal(compact=True)
        print(
            "  Each phone warns once about the certificate (it is made by this server):\n"
            "  tap Advanced > Proceed (Android) or Show Details > visit this website (iPhone).",
            flush=True,
        )


def _tune_gc():
    """Fewer, cheaper garbage collections: thousands of open sockets make a full one slow."""
    import gc

    gc.collect()
    gc.freeze()  # what start-up made lives as long as the process: never scan it again
    gc.set_threshold(*GC_THRESHOLDS)


def _sweeper(rooms: Rooms):
    while True:
        socketio.sleep(SWEEP_EVERY)
        rooms.sweep()


def main(argv=None):
    """The command line: start the server."""
    parser = argparse.ArgumentParser(description="maxchen party dice server")
    parser.add_argument("--host", default="0.0.0.0", help="address to listen on (default 0.0.0.0: all)")
    parser.add_argument("--port", type=int, default=5000, help="port (default 5000)")
    parser.add_argument("--async-mode", choices=ASYNC_MODES, default="eventlet")
    parser.add_argument(
        "--instance",
        default=os.environ.get("MAXCHEN_INSTANCE", "instance"),
        help="folder for the database, certificate and session key (default ./instance)",
    )
    parser.add_argument(
        "--db",
        default=os.environ.get("MAXCHEN_DB"),
        help="SQLite file (default INSTANCE/maxchen.db); 'memory' keeps rooms in memory only",
    )
    parser.add_argument("--cert", help="your own certificate (PEM), e.g. from mkcert")
    parser.add_argument("--key", help="the key of --cert (PEM)")
    parser.add_argument("--no-tls", action="store_true", help="serve plain HTTP everywhere")
    args = parser.parse_args(argv)
    if bool(args.cert) != bool(args.key):
        parser.error("--cert and --key go together")
    instance = Path(args.instance).resolve()
    database = args.db or str(instance / "maxchen.db")
    store = MemoryStore() if database == "memory" else SqliteStore(database)
    config = {"ASYNC_MODE": args.async_mode, "ROOMS": Rooms(store=store), "SECRET_KEY": secret_key(instance)}
    app = create_app(config)
    socketio.start_background_task(_sweeper, app.extensions["maxchen.rooms"])
    try:
        spots = listeners(args, instance)
        serve_forever = _bind(app, spots, args.async_mode)
    except OSError as error:
        print(f"maxchen: cannot listen on port {args.port}: {error.strerror or error}", file=sys.stderr)
        sys.exit(1)
    _banner(spots, args.async_mode)
    _tune_gc()
    serve_forever()


if __name__ == "__main__":
    main()
