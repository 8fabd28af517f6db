"""The server: create_app(), the Socket.IO object, and run() for the command line (maxchen/cli.py).

The async mode is chosen on the command line; cli.py monkey-patches before it
imports this module, so that nothing here is imported unpatched.
"""

import errno
import logging
import os
import secrets
import sys
from pathlib import Path

from flask import Flask
from flask_babel import Babel
from flask_socketio import SocketIO

from maxchen import assets, fastjson, paths, presence, security, serve, stats, throttle, web
from maxchen.botplay import BotPlay
from maxchen.bus import RedisBus, socketio_queue
from maxchen.classroom import Classrooms
from maxchen.errors import IllegalMove
from maxchen.live import ClassLive, Live
from maxchen.live import odds as live_odds
from maxchen.locks import SweepClock
from maxchen.names import skeleton
from maxchen.presence import RedisPresence
from maxchen.rooms import Outlets, Rooms
from maxchen.store import MemoryStore, RedisStore, SqliteStore
from maxchen.web import events, locale, seats, templating
from maxchen.web.errors import refusal

MAX_MESSAGE = 16 * 1024
BUSY = (errno.EADDRINUSE, getattr(errno, "WSAEADDRINUSE", errno.EADDRINUSE))  # the port: POSIX, Windows
SWEEP_EVERY = 300

socketio = SocketIO()


def create_app(test_config=None) -> Flask:
    """The Flask app with the API, the pages and the Socket.IO events."""
    app = Flask(__name__, root_path=str(paths.ROOT))  # templates/, static/, translations/
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
    app.jinja_env.globals["odds"] = live_odds
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
            now = clock.now()  # None: this process is too young to trust the wall clock
            if now is not None and rooms.store.claim("sweep", SWEEP_EVERY * 0.9):  # once across processes
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


def _stop(why) -> None:
    """The server cannot start: one line that says why, and exit 1."""
    print(f"maxchen: {why}", file=sys.stderr)
    sys.exit(1)


def run(args):
    """Start the server the command line asks for (maxchen/cli.py parsed `args`); returns when it stops."""
    instance = Path(args.instance).resolve()
    try:  # the instance folder first, ours alone: the session key, then the certificate, go there
        if instance.is_dir():  # else made by what keeps a file there (none may: Redis, MAXCHEN_SECRET_KEY, --no-tls)
            paths.private_folder(instance)
        secret = serve.secret_key(instance)
        spots = serve.listeners(args, instance)
    except (OSError, ValueError) as error:  # a file, a read-only disk, a key that is no text
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        _stop(f"cannot keep its files in {instance}: {reason} (elsewhere: --instance DIR)")
    database = args.db or str(instance / "maxchen.db")
    try:
        store = _store(args.redis, database)
    except RuntimeError as error:  # a Redis that does not answer, a database file from a newer version
        _stop(error)
    try:
        config = {
            "ASYNC_MODE": args.async_mode,
            "ROOMS": Rooms(store=store, presence=RedisPresence(store.client, store.prefix) if args.redis else None),
            "BUS": RedisBus(store.client, store.prefix, socketio.sleep) if args.redis else None,
            "MESSAGE_QUEUE": args.redis,
            "SECRET_KEY": secret,
            "MAXCHEN_HOSTS": serve.trusted_hosts(spots, args.public_host),
            "SHARE_URL": serve.share_url(spots),
            "PROXIES": args.proxies,
            "PROXY_ADDRESSES": args.proxy_address or list(security.LOOPBACK),
        }
        app = create_app(config)
        # The proxy's connections carry every phone: the proxy limits them per address, not we.
        proxies = config["PROXY_ADDRESSES"] if args.proxies else ()
        serve_forever = serve.bind(app, spots, args.async_mode, unlimited=proxies)
    except OSError as error:
        busy = " (another program uses it: start with --port 5001)" if error.errno in BUSY else ""
        _stop(f"cannot listen on port {args.port}: {error.strerror or error}{busy}")
    socketio.start_background_task(_sweeper, app)
    if args.redis:  # several processes: presence's heartbeat, and the class boards hear the others' changes
        socketio.start_background_task(_heartbeat, app.extensions["maxchen.rooms"])
        socketio.start_background_task(config["BUS"].listen, app.extensions["maxchen.class_live"].heard)
    socketio.start_background_task(app.extensions["maxchen.rooms"].wake)  # bots in games a restart interrupted
    socketio.start_background_task(app.extensions["maxchen.throttle"].sweep_forever, socketio.sleep)
    skeleton("")  # loads the look-alike table now, not at the first join (0.3 s)
    serve.banner(args, spots, instance)
    serve.tune_gc()
    serve_forever()
