"""Connection limits of the eventlet server: what hangs is cut, what works is not.

A connection is *waiting* from the moment it opens until its first request's
headers are in: a slowloris never gets further. A keep-alive connection
between two requests has shown it is a client: it is closed after
`KEEPALIVE_IDLE` idle seconds, but never counted as waiting (a phone's
browser keeps a few, a class behind one router many). Eventlet alone
waits forever for headers that trickle in, one byte at a time, and keeps
8 and 16 KiB of buffers per connection.

- A request's line and headers must be complete within `HEAD_TIMEOUT`
  seconds of the connection starting to wait (an idle keep-alive connection
  is closed after `KEEPALIVE_IDLE` seconds already).
- A request's body must be read within `BODY_TIMEOUT` seconds of its headers
  (a body sent a byte at a time is cut, and the connection closed). So must
  what the app left unread (a body sent to a 404, a 429, a GET): it is read
  away within that deadline, at most `DISCARD` bytes of it, or the
  connection closes (eventlet alone would wait for all of it, for ever).
- One address may have at most `WAITING_PER_ADDRESS` waiting connections; a
  new one closes its oldest if that one has waited `GRACE` seconds (a busy
  server may take a moment to read what arrived). Connections past their
  headers (an open page's WebSocket, a request being answered) never count,
  so a class behind one school router or the load benchmark's 2,000 players
  from one address are not touched.
- One address may keep at most `IDLE_PER_ADDRESS` connections idle between
  requests: past it, a connection closes once its answer is sent (thousands
  of keep-alive loops from one address left everyone else seconds behind).
  The load benchmark, thousands of players on one address, lifts it.
- One address may hold at most `CONNECTIONS_PER_ADDRESS` open connections
  of any kind (keep-alive loops, WebSockets that never join a room): a new
  one past it is closed unread, so one client cannot fill the server's
  open-file limit however it keeps its connections busy.
- A WebSocket is offered no compression: a browser asks for
  permessage-deflate, and zlib's window and tables cost about 300 KB of the
  server's memory per socket for as long as it is open (three times all the
  rest of a phone), and CPU for every push of a few KB.
"""

import collections
import contextlib
import logging
import os
import ssl
import time

log = logging.getLogger(__name__)

KEEPALIVE_IDLE = 5  # seconds an idle keep-alive connection stays open
HEAD_TIMEOUT = 10  # seconds for a request's line and headers, from the start of waiting
BODY_TIMEOUT = 10  # seconds for a request's body, from the end of its headers (ours are at most 16 KB)
WAITING_PER_ADDRESS = 128  # waiting connections per client address; a new one closes the oldest
CONNECTIONS_PER_ADDRESS = 4096  # open connections per client address, whatever they do
IDLE_PER_ADDRESS = 256  # keep-alive connections per client address idle between requests
GRACE = 2  # seconds a connection may wait before a newer one from its address may close it
YIELD_EVERY = 8  # requests in a row on one connection before the others get a turn
CONNECTION_BUFFER = 2048  # bytes each connection reads and writes through (eventlet: 8 and 16 KiB)
DISCARD = 64 * 1024  # bytes of a body the app did not read that are read away to keep its connection


def setting(name: str) -> float:
    """A limit above, or the environment's MAXCHEN_<NAME> in its place."""
    value = os.environ.get(f"MAXCHEN_{name}")
    return float(value) if value else globals()[name]


class TooSlow(Exception):
    """A request's head or body did not arrive in time, or a newer connection took its place."""


def unanswered(environ) -> bool:
    """True when the request's body did not come (in time, or at all)."""
    return getattr(environ.get("wsgi.input"), "unanswered", False)


class _SlowBody:
    """A request body that must arrive by a deadline; past it the request is refused and its connection closed."""

    def __init__(self, body, protocol, seconds):
        self._body = body
        self._protocol = protocol
        self._until = time.monotonic() + seconds
        self.unanswered = False  # the body never came: the failure budget counts such a request

    def _read(self, method, *args):
        import eventlet
        from werkzeug.exceptions import ClientDisconnected

        left = self._until - time.monotonic()
        try:
            if left <= 0:
                raise TooSlow
            with eventlet.Timeout(left, TooSlow):
                data = getattr(self._body, method)(*args)
        except TooSlow:
            self._protocol.close_connection = 1  # never wait for the rest of it
            self.unanswered = True
            raise ClientDisconnected("The request body came too slowly.") from None
        except OSError:
            self.unanswered = True
            raise
        if not data and (not args or args[0]):  # asked for more and got nothing: the body stopped short
            self.unanswered = True
        return data

    def read(self, *args):
        return self._read("read", *args)

    def discard(self, buffer_size=16 << 10):
        """What the app left unread, read away by the body's deadline (a little of it): else the connection closes."""
        from werkzeug.exceptions import ClientDisconnected

        left = DISCARD
        with contextlib.suppress(ClientDisconnected, OSError):
            while left > 0:
                data = self._read("read", min(buffer_size, left))
                if not data:
                    return
                left -= len(data)
        self._protocol.close_connection = 1

    def readline(self, *args):
        return self._read("readline", *args)

    def readlines(self, *args):
        return self._read("readlines", *args)

    def __iter__(self):
        return iter(self.readline, b"")

    def __getattr__(self, name):
        return getattr(self._body, name)


PHRASES = {400: "Bad Request", 413: "Payload Too Large", 414: "URI Too Long", 431: "Request Header Fields Too Large"}
WHY = {
    400: "The request could not be read.",
    414: "The request's address is too long.",
    431: "A header of the request is too long.",
}


def refusal(status: int, headers: dict) -> bytes:
    """A whole answer for a request refused before the app saw it: the API's JSON error, the pages' headers."""
    import json

    body = json.dumps({"error": {"code": "bad_request", "reason": "bad_request", "params": {}, "message": WHY[status]}})
    lines = [
        f"HTTP/1.1 {status} {PHRASES[status]}",
        "Connection: close",
        "Content-Type: application/json",
        f"Content-Length: {len(body)}",
        "Cache-Control: no-store",
        *(f"{k}: {v}" for k, v in headers.items()),
    ]
    return ("\r\n".join(lines) + "\r\n\r\n" + body).encode()


class _Refusals:
    """A connection's output: eventlet's own bare refusals (a header line too long, a bad Content-Length, an
    address too long) go out as `refusal`s instead; all else as it is."""

    def __init__(self, wfile, headers):
        self._wfile, self._headers = wfile, headers

    def write(self, data):
        if data[:10] == b"HTTP/1.0 4":  # eventlet writes its refusals as HTTP/1.0; the app's answers are 1.1
            status = int(data[9:12])
            too_long = status == 414 or b"Too Long" in data or b"Too Large" in data
            data = refusal(414 if status == 414 else 431 if too_long else 400, self._headers)
        return self._wfile.write(data)

    def __getattr__(self, name):
        return getattr(self._wfile, name)


def eventlet_protocol(unlimited=()):
    """eventlet.wsgi's HttpProtocol with the limits above (eventlet imported only here); connections
    from the `unlimited` addresses (a proxy in front, which limits its own clients) are not counted."""
    unlimited = frozenset(unlimited)
    head_timeout, body_timeout, grace = setting("HEAD_TIMEOUT"), setting("BODY_TIMEOUT"), setting("GRACE")
    per_address = int(setting("WAITING_PER_ADDRESS"))
    open_per_address = int(setting("CONNECTIONS_PER_ADDRESS"))
    idle_per_address = int(setting("IDLE_PER_ADDRESS"))
    import eventlet
    import eventlet.wsgi
    import greenlet

    # address -> {protocol: (its greenlet, when it started waiting)}, oldest first
    waiting: dict[str, dict] = collections.defaultdict(dict)
    holding: collections.Counter = collections.Counter()  # address -> open connections
    idle: collections.Counter = collections.Counter()  # address -> connections between two requests
    logged_at: dict[tuple, float] = {}  # (address, kind) -> when its last refusal was logged
    hub = eventlet.hubs.get_hub()

    def _once_a_minute(address, kind) -> bool:
        """Whether a refusal of this kind from this address is logged now: one line a minute at most."""
        now = time.monotonic()
        if now - logged_at.get((address, kind), -60) < 60:
            return False
        if len(logged_at) > 10_000:
            logged_at.clear()
        logged_at[address, kind] = now
        return True

    def _tls_refused(address, error):
        """A line, not eventlet's traceback for each connection."""
        plain = getattr(error, "reason", None) == "HTTP_REQUEST"
        if not _once_a_minute(address, "http" if plain else "tls"):
            return
        if plain:
            log.warning("%s asked for http:// at an https:// address (the address begins with https://)", address)
        else:
            log.warning("%s did not take this server's certificate (%s): its browser asks once", address, error.reason)

    def _cut(protocol, thread):
        if protocol._head_timer.pending:  # still waiting for its head when the hub gets here
            thread.throw(TooSlow)

    from .security import HEADERS

    class Protocol(eventlet.wsgi.HttpProtocol):
        rbufsize = wbufsize = CONNECTION_BUFFER

        def setup(self):
            super().setup()
            self.wfile = _Refusals(self.wfile, HEADERS)

        def send_error(self, code, message=None, explain=None):
            """A request line that is no request: refused whole, the line never echoed."""
            self.close_connection = 1
            self.wfile.write(refusal(code if code in WHY else 400, HEADERS))

        requests = 0  # requests this connection sent
        served = False  # a request of this connection got through its head: it is a client, not a slowloris
        idling = False  # answered, kept alive, its next request not yet in

        def handle(self):
            address = self.client_address[0] if isinstance(self.client_address, tuple) else str(self.client_address)
            self._address = address
            if address in unlimited:
                self.served = True  # the proxy sent it: no per-address line to wait in
                return super().handle()
            if holding[address] >= open_per_address:
                self.close_connection = 1
                if _once_a_minute(address, "open"):
                    log.warning("refused connections from %s: %d open already", address, holding[address])
                return
            holding[address] += 1
            try:
                super().handle()
            finally:
                self._busy()
                holding[address] -= 1
                if not holding[address]:
                    del holding[address]

        def handle_one_request(self):
            address = self._address
            # Requests sent back to back on one connection (pipelined) are read from its buffer
            # without ever waiting: without a turn for the others now and then, they would wait
            # for all of them. Not before each request: under load every yield is a wait.
            self.requests += 1
            if self.requests % YIELD_EVERY == 0:
                eventlet.sleep(0)
            self._head_timer = eventlet.Timeout(head_timeout, TooSlow)
            if not self.served:
                self._wait_in_line(waiting[address])
            try:
                super().handle_one_request()
            except TooSlow:
                self.close_connection = 1
            except ssl.SSLError as error:  # a phone that does not (yet) take our certificate, or plain http
                self.close_connection = 1
                _tls_refused(address, error)
            finally:
                self._head_done()
                if not self.close_connection and address not in unlimited and not self.idling:
                    idle[address] += 1
                    self.idling = True
                # An idle keep-alive connection need not hold its last request (environ, Flask's request, headers).
                self.environ = self.headers = None

        def _wait_in_line(self, queue):
            now = time.monotonic()
            queue[self] = (greenlet.getcurrent(), now)
            while len(queue) > per_address:
                oldest = next(iter(queue))
                thread, since = queue[oldest]
                if now - since < grace:
                    break
                del queue[oldest]
                hub.schedule_call_global(0, _cut, oldest, thread)

        def _busy(self):
            """Its next request came in (or it closed): no longer idle."""
            if self.idling:
                self.idling = False
                idle[self._address] -= 1
                if not idle[self._address]:
                    del idle[self._address]

        def parse_request(self):
            self._busy()
            try:
                ready = super().parse_request()
                if ready and len(set(self.headers.get_all("Content-Length") or ())) > 1:
                    self.send_error(400)  # two lengths: a proxy that reads the other one is smuggled past
                    return False
                if ready and self._address not in unlimited and idle[self._address] >= idle_per_address:
                    self.close_connection = (
                        1  # its address keeps enough idle ones: said in the answer (Connection: close)
                    )
                self.served = self.served or ready
                return ready
            finally:
                self._head_done()  # the answer (or a WebSocket) has all the time it needs

        def get_environ(self):
            environ = super().get_environ()
            # Only the app's input: a WebSocket reads `eventlet.input` as long as it lives.
            body = environ["wsgi.input"] = _SlowBody(environ["wsgi.input"], self, body_timeout)
            environ["eventlet.input"].discard = body.discard  # eventlet's own, after the answer: by the deadline too
            environ.pop("HTTP_SEC_WEBSOCKET_EXTENSIONS", None)  # no permessage-deflate (see above)
            return environ

        def _head_done(self):
            self._head_timer.cancel()
            queue = waiting.get(self._address)
            if queue is not None and queue.pop(self, None) is not None and not queue:
                del waiting[self._address]

    return Protocol
