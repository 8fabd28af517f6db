"""Starting the server: the instance folder's key, listeners, TLS, the banner.

Plain HTTP on loopback, HTTPS on the LAN addresses (phones need a secure
context for motion sensors). No pool ceiling of our own: what one process
holds is set by its file descriptors, memory and CPU.
"""

import errno
import logging
import os
import secrets
import ssl
from pathlib import Path

from . import connections, paths, tls

log = logging.getLogger(__name__)

WILDCARDS = ("0.0.0.0", "::", "")  # a --host that means every address of this machine
BACKLOG = 1024  # connections waiting to be accepted: a whole class joins in the same second
YOUNG_GC = 10_000  # allocations between young collections (CPython: 700)


def secret_key(folder: Path) -> str:
    """MAXCHEN_SECRET_KEY, else a key made once and kept in the instance folder."""
    if os.environ.get("MAXCHEN_SECRET_KEY"):
        return os.environ["MAXCHEN_SECRET_KEY"]
    path = paths.private_folder(folder) / "secret_key"
    if not paths.private_file(path).read_bytes().strip():  # none yet, or left empty by a write cut short
        paths.write_private(path, secrets.token_hex(32).encode())
    try:
        return path.read_bytes().decode("ascii").strip()
    except UnicodeDecodeError:
        raise ValueError(f"{path.name} holds no text: delete it (everyone signs in again)") from None


def listeners(args, instance: Path) -> list[tuple[str, int, tuple | None]]:
    """(host, port, (cert, key) or None) to listen on.

    Plain HTTP on loopback; HTTPS on the LAN addresses, so that phones get
    motion sensors. --no-tls, or a loopback --host, serves plain HTTP only.
    """
    if args.no_tls:
        return [(args.host, args.port, None)]
    if tls.is_loopback(args.host):
        return [(args.host, args.port, None)]
    wildcard = args.host in WILDCARDS
    lan = tls.lan_addresses() if wildcard else [args.host]
    pair = (Path(args.cert), Path(args.key)) if args.cert and args.key else tls.ensure_certificate(instance, lan)
    found = [("127.0.0.1", args.port, None)] if wildcard else []
    return found + [(address, args.port, pair) for address in lan]


def trusted_hosts(spots, public=()) -> list[str]:
    """The host names this server answers to: its addresses, this machine's names, and `public`."""
    import socket

    name = socket.gethostname()
    hosts = ["localhost", "127.0.0.1", name, f"{name}.local", *(host for host, _, _ in spots), *public]
    return [host for host in dict.fromkeys(hosts) if host not in WILDCARDS]


def share_url(spots) -> str | None:
    """The address phones reach this server by (its first LAN listener), for links made on the computer."""
    return next((url(*spot) for spot in spots if spot[2]), None)


def url(host, port, pair) -> str:
    """The address people type for one listener."""
    shown = f"[{host}]" if ":" in host else host
    return f"{'https' if pair else 'http'}://{shown}:{port}/"


def open_files() -> int | None:
    """Raise this process's open-file limit to the hard limit; the limit now (None where there is none)."""
    try:
        import resource
    except ImportError:  # Windows: no such limit to raise
        log.warning("no open-file limit to raise on this system (no 'resource' module): skipped")
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        target = 65536 if hard == resource.RLIM_INFINITY else hard
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    return soft


# A connection gone before it was taken (reset by a phone leaving the Wi-Fi, a port scan): eventlet's
# accept loop reads these errors as its listener broken, and stops serving that port for good.
GONE = frozenset((errno.ENOTCONN, errno.ECONNRESET, errno.ECONNABORTED, errno.EPIPE, errno.ESHUTDOWN))


class Steady:
    """A listening socket whose accept passes over a connection that is gone before it is taken."""

    def __init__(self, sock):
        self._sock = sock

    def accept(self):
        while True:
            try:
                return self._sock.accept()
            except OSError as error:  # ssl.SSLError too
                if error.errno not in GONE and not isinstance(error, ssl.SSLError):
                    raise

    def __getattr__(self, name):
        return getattr(self._sock, name)


def bind(app, spots, mode, unlimited=()):
    """Listen on every spot (failing loudly when busy); returns serve_forever. Connections from the
    `unlimited` addresses (a proxy's) are not limited per address."""
    if mode == "eventlet":
        import eventlet
        import eventlet.wsgi

        servers = []
        for host, port, pair in spots:
            family = eventlet.green.socket.getaddrinfo(host, port)[0][0]
            # eventlet.listen turns SO_REUSEPORT on by default; a second server on
            # a busy port must fail instead of sharing it.
            sock = eventlet.listen((host, port), family, backlog=BACKLOG, reuse_port=False)
            if pair:
                sock = eventlet.wrap_ssl(sock, certfile=str(pair[0]), keyfile=str(pair[1]), server_side=True)
            servers.append(Steady(sock))

        # eventlet's default pool is 1,024 connections: ours is the open-file limit.
        limit = open_files()
        capacity = limit - 64 if limit else eventlet.wsgi.DEFAULT_MAX_SIMULTANEOUS_REQUESTS

        protocol = connections.eventlet_protocol(unlimited)

        def serve():
            pool = eventlet.GreenPool()
            for sock in servers:
                pool.spawn(
                    eventlet.wsgi.server,
                    sock,
                    app,
                    log_output=False,
                    max_size=capacity,
                    keepalive=connections.setting("KEEPALIVE_IDLE"),
                    protocol=protocol,
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


def banner(args, spots, instance: Path):
    """What the terminal shows once the server is up: addresses, a QR code, where its files are, how to stop;
    and when it would serve phones on the network, but this computer is on none."""
    import segno

    local = [url(*spot) for spot in spots if not spot[2]]
    lan = [url(*spot) for spot in spots if spot[2]]
    lonely = not args.no_tls and args.host in WILDCARDS and not lan
    mode = args.async_mode
    print(f"maxchen ({mode}) is up. Press Ctrl+C to stop it.", flush=True)
    for address in local:
        print(f"  On this computer:       {address}", flush=True)
    for address in lan:
        print(f"  Phones on this network: {address}", flush=True)
    if lonely:
        print("  No network found: join the phones' Wi-Fi, then start maxchen again for their address.", flush=True)
    print(f"  Its files (rooms, certificate, session key): {instance}", flush=True)
    if lan:
        try:
            segno.make(lan[0], error="l").terminal(compact=True)
        except UnicodeEncodeError:  # output to a file or a console in a code page without block characters
            print("  (no QR code: this output cannot draw one)", flush=True)
        print(
            "  Each phone warns once about the certificate (it is made by this server):\n"
            "  tap Advanced > Proceed (Android) or Show Details > visit this website (iPhone).",
            flush=True,
        )


def tune_gc():
    """Fewer, cheaper garbage collections: thousands of open sockets make a full one slow."""
    import gc

    gc.collect()
    gc.freeze()  # what start-up made lives as long as the process: never scan it again
    # An object that outlives two young collections reaches the old generation;
    # with CPython's 700 a queued message or a parked request gets there, and
    # each 25 % of such newcomers costs a full scan of every socket's objects
    # (0.2 s with 2,000 sockets, every 3 s). Rarer young collections let them
    # die young: `bench/README.md` has the figures.
    gc.set_threshold(YOUNG_GC, 20, 10)
