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
import logging  # noqa: E402
import os  # noqa: E402
import secrets  # noqa: E402
from pathlib import Path  # noqa: E402

from flask import Flask  # noqa: E402
from flask_babel import Babel  # noqa: E402
from flask_socketio import SocketIO  # noqa: E402

from maxchen import assets, fastjson, presence, security, serve, stats, throttle, web  # noqa: E402
from maxchen.botplay import BotPlay  # noqa: E402
from maxchen.bus import RedisBus, socketio_queue  # noqa: E402
from maxchen.classroom import Classrooms  # noqa: E402
from maxchen.errors import IllegalMove  # noqa: E402
from maxchen.live import ClassLive, Live  # noqa: E402
from maxchen.locks import SweepClock  # noqa: E402
from maxchen.names import skeleton  # noqa: E402
from maxchen.presence import RedisPresence  # noqa: E402
from maxchen.rooms import Outlets, Rooms  # noqa: E402
from maxchen.store import MemoryStore, RedisStore, SqliteStore  # noqa: E402
from maxchen.web import events, locale, seats, templating  # noqa: E402
from maxchen.web.errors import refusal  # noqa: E402

MAX_MESSAGE = 16 * 1024
SWEEP_EVERY = 300

socketio = SocketIO()


def create_app(test_config=None) -> Flask:
    """The Flask app with the API, the pages and the Socket.IO events."""
    app = Flask(__name__)
    app.jinja_environment = templating.Environment
    app.json = fastjson.JSONProvider(app)
    app.config.from_mapping(
        SECRET_KEY=os.environ.get("MAXCHEN_SECRET_KEY") or secrets.token_hex(32),
        MAX_CONTENT_LENGTH=MAX_MESSAGE,
        ASYNC_MODE="threading",
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
        PERMANENT_SESSION_LIFETIME=30 * 24 * 3600,
        JSON_SORT_KEYS=False,
        OFFLINE_GRACE=float(os.environ.get("MAXCHEN_OFFLINE_GRACE") or 15),  # seconds before the host may remove
        BOT_DELAY=_seconds_range(os.environ.get("MAXCHEN_BOT_DELAY") or "1-3"),  # a bot's pause before it moves
    )
    if test_config:
        app.config.from_mapping(test_config)
    rooms = app.config.get("ROOMS") or Rooms(dice=app.config.get("DICE"))
    app.extensions["maxchen.rooms"] = rooms
    rooms.offline_grace = app.config["OFFLINE_GRACE"]
    app.extensions["maxchen.classes"] = Classrooms(rooms)
    Babel(app, locale_selector=locale.select_locale)
    app.jinja_env.globals["percent_text"] = stats.percent_text
    app.jinja_env.globals["reactions"] = presence.REACTIONS
    app.before_request(security.same_origin_posts)  # before the throttle counts what it refuses
    for blueprint in web.BLUEPRINTS:
        app.register_blueprint(blueprint)
    assets.init_app(app)
    app.extensions["maxchen.throttle"] = throttle.Throttle(app, seats.holds)  # after the views it limits
    # Same-origin check stays on: cors_allowed_origins is left at its default.
    # With Redis (opt-in) Socket.IO's messages travel through its queue, so several processes reach
    # each other's sockets; python-socketio >= 5.14 sends them as JSON (not pickle: CVE-2025-61765).
    # Scaled out, clients use WebSocket only: a connection stays with one process from start to end,
    # so the proxy needs no sticky sessions (long-polling's requests could land on another process).
    app.config["WEBSOCKET_ONLY"] = bool(app.config.get("MESSAGE_QUEUE"))
    # After Redis was away, each socket of this process gets its room afresh (what was pushed meanwhile is lost).
    queue = (
        {
            "client_manager": socketio_queue(app.config["MESSAGE_QUEUE"], "maxchen", rooms.refresh),
            "transports": ["websocket"],
        }
        if app.config["WEBSOCKET_ONLY"]
        else {}
    )
    socketio.init_app(
        app,
        **queue,
        async_mode=app.config["ASYNC_MODE"],
        max_http_buffer_size=MAX_MESSAGE,
        json=fastjson,
        serializer=events.TextPacket,
    )
    # The live pipeline. An action comes in by a transport (an HTTP route in web/api, a Socket.IO
    # handler in events) -> rooms.act locks the room -> the rule set's game applies it -> the room is
    # saved -> the views are drawn once per change -> pushed to each page (live); then the bots and
    # the class board hear of it. A class's change goes to its desk, pages and board (class_live).
    transport = events.Transport(socketio)
    live = Live(app, transport.emit, rooms.presence)
    spawn, sleep = socketio.start_background_task, socketio.sleep
    class_live = ClassLive(app, transport.emit, app.extensions["maxchen.classes"], spawn, sleep, app.config.get("BUS"))
    bots = BotPlay(rooms, spawn, sleep, app.config["BOT_DELAY"])

    def changed(room):
        bots.changed(room)
        class_live.table_changed(room)

    rooms.outlets = Outlets(
        push=live.push,
        welcome=live.welcome,
        close=transport.close,
        release=transport.release,
        changed=changed,
        react=live.react,
    )
    app.extensions["maxchen.classes"].changed = class_live.class_changed
    app.extensions["maxchen.class_live"] = class_live
    events.init_app(app, socketio, rooms, live, class_live)
    if isinstance(rooms.store, RedisStore):
        import redis

        # Redis away (restarting, the network between): a refusal that says so, never a change half made.
        down = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)
    else:
        import sqlite3

        # The disk full, or failing: the change is rolled back whole, and said so.
        down = (sqlite3.OperationalError,)
    for error in down:
        app.register_error_handler(error, lambda _error: refusal(IllegalMove("store_down")))
    events.refuse_on(socketio, down)
    security.init_app(app, app.config.get("MAXCHEN_HOSTS"))  # after Socket.IO: its requests are checked too
    if app.config.get("PROXIES"):  # outermost: the client's address and scheme as the proxies saw them
        addresses = app.config.get("PROXY_ADDRESSES") or security.LOOPBACK
        app.wsgi_app = security.Proxied(app.wsgi_app, app.config["PROXIES"], addresses)
    return app


def _count(text: str) -> int:
    """A number of proxies (from the command line or MAXCHEN_PROXIES): 0 or more, said clearly when not."""
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of proxies (0, 1, 2, …)")
    return int(text)


def _seconds_range(text: str) -> tuple[float, float]:
    """ "1-3" (from 1 to 3 seconds) or "0.1" (always 0.1)."""
    low, _, high = text.partition("-")
    return float(low), float(high or low)


def _sweeper(app):
    rooms = app.extensions["maxchen.rooms"]
    clock = SweepClock(settle=max(rooms.ttl, app.extensions["maxchen.classes"].ttl))
    while True:
        socketio.sleep(SWEEP_EVERY)
        try:
            now = clock.now()
            if rooms.store.claim("sweep", SWEEP_EVERY * 0.9):  # once across processes
                rooms.sweep(now)
                app.extensions["maxchen.classes"].sweep(now)
        except Exception as error:  # the store away for a moment: the next pass tries again
            logging.getLogger(__name__).warning("sweep skipped: %s", error)


def _heartbeat(rooms):
    """Several processes on Redis: say this one lives, take a gone one's sockets out."""
    failing = False
    while True:
        socketio.sleep(presence.HEARTBEAT)
        try:
            rooms.heartbeat()
        except Exception as error:  # Redis away for a moment: said once, and the next beat tries again
            if not failing:
                logging.getLogger(__name__).warning("presence heartbeat failed (Redis away?): %s", error)
            failing = True
        else:
            if failing:
                logging.getLogger(__name__).warning("presence heartbeat works again")
            failing = False


def _store(redis_url, database):
    """The store the command line asks for: Redis when given a URL, else SQLite (or memory)."""
    if redis_url:
        return RedisStore(redis_url)
    return MemoryStore() if database == "memory" else SqliteStore(database)


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
    parser.add_argument(
        "--redis",
        default=os.environ.get("MAXCHEN_REDIS_URL"),
        metavar="URL",
        help="opt-in: keep rooms in Redis instead of SQLite, e.g. redis://:password@host:6379/0",
    )
    parser.add_argument(
        "--proxies",
        type=_count,
        default=os.environ.get("MAXCHEN_PROXIES") or "0",
        metavar="N",
        help="behind N proxies (nginx: 1): trust their X-Forwarded-For and -Proto (default 0: trust none)",
    )
    parser.add_argument(
        "--proxy-address",
        action="append",
        default=os.environ.get("MAXCHEN_PROXY_ADDRESSES", "").split(),
        metavar="ADDR",
        help="where the proxy connects from, if not this machine (default 127.0.0.1 and ::1); repeatable",
    )
    parser.add_argument("--cert", help="your own certificate (PEM), e.g. from mkcert")
    parser.add_argument("--key", help="the key of --cert (PEM)")
    parser.add_argument("--no-tls", action="store_true", help="serve plain HTTP everywhere")
    parser.add_argument(
        "--public-host",
        action="append",
        default=os.environ.get("MAXCHEN_PUBLIC_HOST", "").split(),
        metavar="NAME",
        help="a host name people use to reach this server (e.g. behind a proxy); repeatable",
    )
    args = parser.parse_args(argv)
    if bool(args.cert) != bool(args.key):
        parser.error("--cert and --key go together")
    instance = Path(args.instance).resolve()
    database = args.db or str(instance / "maxchen.db")
    try:
        store = _store(args.redis, database)
    except RuntimeError as error:  # a Redis that does not answer, a database file from a newer version
        print(f"maxchen: {error}", file=sys.stderr)
        sys.exit(1)
    try:
        spots = serve.listeners(args, instance)
        config = {
            "ASYNC_MODE": args.async_mode,
            "ROOMS": Rooms(store=store, presence=RedisPresence(store.client, store.prefix) if args.redis else None),
            "BUS": RedisBus(store.client, store.prefix, socketio.sleep) if args.redis else None,
            "MESSAGE_QUEUE": args.redis,
            "SECRET_KEY": serve.secret_key(instance),
            "MAXCHEN_HOSTS": serve.trusted_hosts(spots, args.public_host),
            "PROXIES": args.proxies,
            "PROXY_ADDRESSES": args.proxy_address or list(security.LOOPBACK),
        }
        app = create_app(config)
        # The proxy's connections carry every phone: the proxy limits them per address, not we.
        proxies = config["PROXY_ADDRESSES"] if args.proxies else ()
        serve_forever = serve.bind(app, spots, args.async_mode, unlimited=proxies)
    except OSError as error:
        print(f"maxchen: cannot listen on port {args.port}: {error.strerror or error}", file=sys.stderr)
        sys.exit(1)
    socketio.start_background_task(_sweeper, app)
    if args.redis:  # several processes: presence's heartbeat, and the class boards hear the others' changes
        socketio.start_background_task(_heartbeat, app.extensions["maxchen.rooms"])
        socketio.start_background_task(config["BUS"].listen, app.extensions["maxchen.class_live"].heard)
    socketio.start_background_task(app.extensions["maxchen.rooms"].wake)  # bots in games a restart interrupted
    socketio.start_background_task(app.extensions["maxchen.throttle"].sweep_forever, socketio.sleep)
    skeleton("")  # loads the look-alike table now, not at the first join (0.3 s)
    serve.banner(spots, args.async_mode)
    serve.tune_gc()
    serve_forever()


if __name__ == "__main__":
    main()
