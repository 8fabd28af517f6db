"""The command line: `maxchen run [options]`, `maxchen --version`.

The same entry point for `maxchen` (installed), `python -m maxchen`, `python
app.py` and `make run`. It imports only the standard library until the async
mode is known: eventlet and gevent must patch before Flask is imported.
"""

import argparse
import os

from . import __version__, paths

ASYNC_MODES = ("eventlet", "gevent", "threading")


def _count(text: str) -> int:
    """A number of proxies (from the command line or MAXCHEN_PROXIES): 0 or more, said clearly when not."""
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of proxies (0, 1, 2, …)")
    return int(text)


def _repeatable(variable: str) -> dict:
    """An option given again and again, or once as a space-separated environment variable."""
    return {"action": "append", "default": os.environ.get(variable, "").split()}


def parser(instance=None) -> argparse.ArgumentParser:
    """`maxchen` and its one command, `run` (`instance`: the default folder, if not the user's data folder)."""
    top = argparse.ArgumentParser(prog="maxchen", description="maxchen: a party dice server for phones")
    top.add_argument("--version", action="version", version=f"maxchen {__version__}")
    commands = top.add_subparsers(dest="command", metavar="COMMAND")
    run = commands.add_parser("run", help="start the server", description="Start the maxchen server.")
    run.add_argument("--host", default="0.0.0.0", help="address to listen on (default 0.0.0.0: all)")
    run.add_argument("--port", type=int, default=5000, help="port (default 5000)")
    run.add_argument("--async-mode", choices=ASYNC_MODES, default="eventlet")
    folder = paths.instance(instance)
    run.add_argument(
        "--instance", default=folder, help=f"folder for the database, certificate and session key (default {folder})"
    )
    run.add_argument(
        "--db",
        default=os.environ.get("MAXCHEN_DB"),
        help="SQLite file (default INSTANCE/maxchen.db); 'memory' keeps rooms in memory only",
    )
    run.add_argument(
        "--redis",
        default=os.environ.get("MAXCHEN_REDIS_URL"),
        metavar="URL",
        help="opt-in: keep rooms in Redis instead of SQLite, e.g. redis://:password@host:6379/0",
    )
    run.add_argument(
        "--proxies",
        type=_count,
        default=os.environ.get("MAXCHEN_PROXIES") or "0",
        metavar="N",
        help="behind N proxies (nginx: 1): trust their X-Forwarded-For and -Proto (default 0: trust none)",
    )
    run.add_argument(
        "--proxy-address",
        **_repeatable("MAXCHEN_PROXY_ADDRESSES"),
        metavar="ADDR",
        help="where the proxy connects from, if not this machine (default 127.0.0.1 and ::1); repeatable",
    )
    run.add_argument("--cert", help="your own certificate (PEM), e.g. from mkcert")
    run.add_argument("--key", help="the key of --cert (PEM)")
    run.add_argument("--no-tls", action="store_true", help="serve plain HTTP everywhere")
    run.add_argument(
        "--public-host",
        **_repeatable("MAXCHEN_PUBLIC_HOST"),
        metavar="NAME",
        help="a host name people use to reach this server (e.g. behind a proxy); repeatable",
    )
    return top


def _patch(mode: str):
    """Monkey-patch for eventlet or gevent, before anything imports the standard library's sockets."""
    if mode == "eventlet":
        import warnings

        # eventlet is in bugfix-only mode; it stays our default by choice (README).
        warnings.filterwarnings("ignore", message="\nEventlet is deprecated")
        import eventlet

        eventlet.monkey_patch()
    elif mode == "gevent":
        from gevent import monkey

        monkey.patch_all()


def main(argv=None, instance=None) -> int:
    """Parse the command line and do what it says (`instance`: the default folder, as for `parser`)."""
    top = parser(instance)
    args = top.parse_args(argv)
    if args.command != "run":
        top.print_help()
        return 2
    if bool(args.cert) != bool(args.key):
        top.error("--cert and --key go together")
    try:
        _patch(args.async_mode)
        from . import server

        server.run(args)
    except KeyboardInterrupt:  # Ctrl+C: what the banner says stops it
        print("maxchen stopped.", flush=True)
    return 0
