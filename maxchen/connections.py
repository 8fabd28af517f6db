"""Connection limits of the eventlet server: what hangs is cut, what works is not.

A connection is *waiting* from the moment it may send a request until that
request's headers are in: a new connection, a keep-alive one between two
requests, or a slowloris that never finishes its headers. Eventlet alone
waits forever for headers that trickle in, one byte at a time, and keeps
8 and 16 KiB of buffers per connection.

- A request's line and headers must be complete within `HEAD_TIMEOUT`
  seconds of the connection starting to wait (an idle keep-alive connection
  is closed after `KEEPALIVE_IDLE` seconds already).
- One address may have at most `WAITING_PER_ADDRESS` waiting connections; a
  new one closes its oldest if that one has waited `GRACE` seconds (a busy
  server may take a moment to read what arrived). Connections past their
  headers (an open page's WebSocket, a request being answered) never count,
  so a class behind one school router or the load benchmark's 2,000 players
  from one address are not touched.
"""

import collections
import time

KEEPALIVE_IDLE = 5  # seconds an idle keep-alive connection stays open
HEAD_TIMEOUT = 10  # seconds for a request's line and headers, from the start of waiting
WAITING_PER_ADDRESS = 128  # waiting connections per client address; a new one closes the oldest
GRACE = 2  # seconds a connection may wait before a newer one from its address may close it
CONNECTION_BUFFER = 2048  # bytes each connection reads and writes through (eventlet: 8 and 16 KiB)


class HeadTimeout(Exception):
    """A request's head did not arrive in time, or a newer connection took its place."""


def eventlet_protocol(head_timeout=HEAD_TIMEOUT, per_address=WAITING_PER_ADDRESS, grace=GRACE):
    """eventlet.wsgi's HttpProtocol with the limits above (eventlet imported only here)."""
    import eventlet
    import eventlet.wsgi
    import greenlet

    # address -> {protocol: (its greenlet, when it started waiting)}, oldest first
    waiting: dict[str, dict] = collections.defaultdict(dict)
    hub = eventlet.hubs.get_hub()

    def _cut(protocol, thread):
        if protocol._head_timer.pending:  # still waiting for its head when the hub gets here
            thread.throw(HeadTimeout)

    class Protocol(eventlet.wsgi.HttpProtocol):
        rbufsize = wbufsize = CONNECTION_BUFFER

        def handle_one_request(self):
            address = self.client_address[0] if isinstance(self.client_address, tuple) else str(self.client_address)
            self._address = address
            queue = waiting[address]
            now = time.monotonic()
            queue[self] = (greenlet.getcurrent(), now)
            while len(queue) > per_address:
                oldest = next(iter(queue))
                thread, since = queue[oldest]
                if now - since < grace:
                    break
                del queue[oldest]
                hub.schedule_call_global(0, _cut, oldest, thread)
            self._head_timer = eventlet.Timeout(head_timeout, HeadTimeout)
            try:
                super().handle_one_request()
            except HeadTimeout:
                self.close_connection = 1
            finally:
                self._head_done()

        def parse_request(self):
            try:
                return super().parse_request()
            finally:
                self._head_done()  # the answer (or a WebSocket) has all the time it needs

        def _head_done(self):
            self._head_timer.cancel()
            queue = waiting.get(self._address)
            if queue is not None and queue.pop(self, None) is not None and not queue:
                del waiting[self._address]

    return Protocol
