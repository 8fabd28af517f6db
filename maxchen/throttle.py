"""Flood control: strict on what fails, generous on what works; every limit set in the config.

HTTP goes through Flask-Limiter, Socket.IO events through the `limits`
library it is built on (the same sliding windows, kept in memory). Limits are
strings like "60 per minute; 600 per hour" under these config keys (or
environment variables of the same names; their defaults in `maxchen/budgets.py`).
Each route names its own budgets where it is declared (`budgets.limited`): the
app does not start with a route that names none.

- MAXCHEN_LIMIT_FAILURES, per address: answers that find no room or no seat
  (401, 403, 404) and refused socket connections: what guessing codes and
  tokens produces. Over it, the address waits for everything but the open
  pages and the rooms it holds a seat in (cookie or token). A request under
  way counts as a failure until it ends otherwise: a hundred guesses sent at
  once (each waiting on its body) must not all pass before the first miss.
- MAXCHEN_LIMIT_PAGES, per address: the open pages (home, rules, language,
  manifest) and a room's seatless ones (board, statistics, its CSV): cheap
  each, but a flood of them from one address must not take the server from
  the tables.
- MAXCHEN_LIMIT_SIMULATIONS, per address: runs of the simulator on /learn
  (100,000 games take a few seconds of a core).
- MAXCHEN_LIMIT_CLASS_JOINS, per address: students joining classes (one
  address filling a class of 60 with made-up names in a second must not
  keep the real students out; the teacher can also close the class).
- MAXCHEN_LIMIT_DOWNLOADS, per address: the CSVs of rooms and classes (a
  long log costs a fraction of a second to write, streamed in chunks), and
  a class's lesson summary (every game of up to 60 tables).
- MAXCHEN_LIMIT_ROOMS, per address: new rooms (the load benchmark's 2,000
  players open 334 in a few seconds).
- MAXCHEN_LIMIT_EVENTS, per seat: actions and signals over its sockets (a person makes one or two a
  second, a bot as fast as it likes up to the limit).
- MAXCHEN_LIMIT_REACTIONS, per seat: the emoji it sends the table (a few in a burst, then one every few
  seconds: no player drowns the table in them).
- MAXCHEN_LIMIT_ADDRESS_REACTIONS, per address and room: the same over every seat it held there (leaving
  and sitting down again starts no new budget; a table of phones behind one router still has room).
- MAXCHEN_LIMIT_PACKETS, per connection: every Socket.IO packet it sends, whatever it is (an event
  nobody handles, a watcher's, one before connecting). A connection that sends more is closed:
  one client's flood must not fill the server with work (a token bucket: the rate, and as much
  again as a burst).
- MAXCHEN_LIMIT_ADDRESS_PACKETS, per address: the same over all its connections (hundreds of
  sockets, each under its own budget); the benchmark's 2,000 players from one address send a
  few hundred a second.
"""

import contextlib
import functools
import math
import os
import threading
import time

from flask import current_app, g, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from limits import parse_many
from limits.storage import MemoryStorage
from limits.strategies import SlidingWindowCounterRateLimiter

from .budgets import CLASS_JOINS, DOWNLOADS, LIMITS, PAGES, ROOMS, SIMULATIONS
from .connections import unanswered
from .errors import IllegalMove

FAILED = frozenset((401, 403, 404))


def _exempt() -> bool:
    """What never counts against the failure limit: the open pages, making a room, and a player's own room.

    One guesser behind a school router or a venue's NAT must not stop the
    tables of everyone else there: what it guesses (other codes, other
    tokens) stays blocked. Making a room finds nothing to guess (it has its
    own limit).
    """
    throttle = current_app.extensions["maxchen.throttle"]
    if request.endpoint in throttle.open:
        return True
    # The code in the address, else the one a form names (the home page's join form).
    code = (request.view_args or {}).get("code") or (request.form.get("code") if request.method == "POST" else None)
    code = "".join(str(code or "").split()).upper()
    return bool(code) and throttle.holds(code)


class SweptMemoryStorage(MemoryStorage):
    """limits' memory storage, sweeping out expired windows once a second.

    The library sweeps every key 10 ms after any hit: with 2,000 seats that
    sweep took a tenth of the server's time. An expired window is dropped
    when it is read either way, so the sweep only frees memory.

    The server sweeps from a task of its own (`Throttle.sweep_forever`):
    starting the library's timer waits for the new thread, and under
    eventlet that wait let other requests run between a failure budget's
    test and its hit (4,000 guesses held open on their bodies all passed
    the test before the first miss was counted).
    """

    STORAGE_SCHEME = ["maxchen-memory"]
    SWEEP_SECONDS = 1.0
    swept_elsewhere = False

    def _MemoryStorage__schedule_expiry(self) -> None:  # the library's private hook (limits pinned)
        if not self.swept_elsewhere and not self.timer.is_alive():
            self.timer = threading.Timer(self.SWEEP_SECONDS, self._MemoryStorage__expire_events)
            self.timer.start()

    def sweep(self) -> None:
        self._MemoryStorage__expire_events()


@functools.lru_cache(maxsize=32)
def _parsed(limits: str) -> tuple:
    return tuple(parse_many(limits))


class Throttle:
    """One app's limits: Flask-Limiter for HTTP, moving windows for sockets."""

    def __init__(self, app, holds=lambda code: False):
        """`holds(code)`: whether this request holds a seat or a class of that code (its token, or its cookie)."""
        self.holds = holds
        for key, value in LIMITS.items():
            app.config.setdefault(key, os.environ.get(key, value))
        self.config = app.config
        self.limiter = Limiter(
            get_remote_address, app=app, strategy="sliding-window-counter", storage_uri="maxchen-memory://"
        )
        # Each route's budgets, as the route declared them (`limited`); static files are open and cached.
        shared = {
            key: self.limiter.shared_limit(lambda key=key: current_app.config[key], scope=key)
            for key in (PAGES, ROOMS, CLASS_JOINS, DOWNLOADS)
        }
        shared[SIMULATIONS] = self.limiter.limit(
            lambda: current_app.config[SIMULATIONS],
            exempt_when=lambda: "games" not in request.args and "dice" not in request.args,
            deduct_when=lambda response: response.status_code == 200,  # a mistyped form costs nothing
        )
        self.open = {"static"}
        for endpoint, view in list(app.view_functions.items()):
            if endpoint == "static":
                continue
            declared = getattr(view, "maxchen_limits", None)
            if declared is None:
                raise RuntimeError(f"the route {endpoint} declares no limits (maxchen.throttle.limited)")
            budgets, is_open = declared
            for budget in budgets:
                view = shared[budget](view)
            app.view_functions[endpoint] = view
            if is_open:
                self.open.add(endpoint)
        # A sliding window of two counters: O(1) per event, where a moving window keeps every hit.
        self.windows = SlidingWindowCounterRateLimiter(SweptMemoryStorage())
        self.packets = PacketBudget(self.config["MAXCHEN_LIMIT_PACKETS"])
        self.address_packets = PacketBudget(self.config["MAXCHEN_LIMIT_ADDRESS_PACKETS"])
        self._pending: dict[str, int] = {}  # per address: its attempts under way, each a failure until it ends
        app.before_request(self._before_request)
        app.after_request(self._after_request)
        app.teardown_request(self._teardown_request)

    def _before_request(self) -> None:
        if not _exempt():
            self.begin(get_remote_address())
            g.maxchen_attempt = get_remote_address()

    @staticmethod
    def _after_request(response):
        if response.status_code in FAILED or unanswered(request.environ):
            g.maxchen_failed = True
        return response

    def _teardown_request(self, error) -> None:
        # A request that ended without an answer (its body never came, the client went) counts as
        # a failure: else holding guesses open would block the address for free.
        if (address := g.pop("maxchen_attempt", None)) is not None:
            self.end(address, failed=g.pop("maxchen_failed", False) or error is not None)

    def sweep_forever(self, sleep) -> None:
        """The server's sweep of expired windows, once a second (never inside a request)."""
        storages = (self.limiter.storage, self.windows.storage)
        for storage in storages:
            storage.swept_elsewhere = True
        while True:
            sleep(SweptMemoryStorage.SWEEP_SECONDS)
            for storage in storages:
                storage.sweep()

    def packet(self, sid: str, address: str) -> bool:
        """One packet of a connection: False when the connection or its address floods."""
        return self.packets.take(sid) and self.address_packets.take(address)

    def retry_after(self) -> int:
        """Seconds until the limit this request broke lets it through again."""
        limit = self.limiter.current_limit
        return max(1, math.ceil(limit.reset_at - time.time())) if limit else 60

    def _check(self, key: str, who: str, hit: bool = True, cost: int = 1):
        """Hit (or only test, at `cost`) `who`'s windows of limit `key`; IllegalMove `rate_limited` when full."""
        for item in _parsed(self.config[key]):
            allowed = self.windows.hit(item, key, who) if hit else self.windows.test(item, key, who, cost=cost)
            if not allowed:
                reset = self.windows.get_window_stats(item, key, who).reset_time
                raise IllegalMove("rate_limited", seconds=max(1, math.ceil(reset - time.time())))

    @contextlib.contextmanager
    def attempt(self, address: str):
        """`begin` and `end` around a block; an IllegalMove out of it is a failure."""
        self.begin(address)
        failed = False
        try:
            yield
        except IllegalMove:
            failed = True
            raise
        finally:
            self.end(address, failed)

    def event(self, code: str, player: str):
        """One Socket.IO action or signal of a seat (all its sockets: a new one starts no new budget)."""
        self._check("MAXCHEN_LIMIT_EVENTS", f"{code}/{player}")

    def reaction(self, code: str, player: str, address: str = ""):
        """One emoji of a seat to its table; and of its address to that table (a seat left and taken
        again starts no new budget)."""
        self._check("MAXCHEN_LIMIT_REACTIONS", f"{code}/{player}")
        self._check("MAXCHEN_LIMIT_ADDRESS_REACTIONS", f"{code}@{address}")

    def watcher(self, address: str):
        """A watcher's socket (a board, a class board) opens: it costs what an open page costs."""
        self._check("MAXCHEN_LIMIT_PAGES", address)

    def begin(self, address: str) -> None:
        """An attempt that may fail (a guess) begins: IllegalMove `rate_limited` when the address may not try.

        Until its `end` it counts as a failure: between the test and the
        count the server may serve others (it waits on a request's body),
        and they see it.
        """
        pending = self._pending.get(address, 0)
        self._check("MAXCHEN_LIMIT_FAILURES", address, hit=False, cost=pending + 1)
        self._pending[address] = pending + 1

    def end(self, address: str, failed: bool) -> None:
        """The attempt ended; a failure (no such room or seat) is counted."""
        if pending := self._pending.pop(address, 1) - 1:
            self._pending[address] = pending
        if failed:
            with contextlib.suppress(IllegalMove):  # refused already; the next try is refused up front
                self._check("MAXCHEN_LIMIT_FAILURES", address)


class PacketBudget:
    """A token bucket per key (a connection, an address): `rate` packets a second, bursts of twice that."""

    def __init__(self, limit: str):
        item = _parsed(limit)[0]
        self.rate = item.amount / item.get_expiry()
        self.burst = 2 * self.rate
        self._buckets: dict[str, list[float]] = {}
        self._pruned = time.monotonic()

    def take(self, key: str) -> bool:
        """One packet from `key`: False when its bucket is empty (it floods)."""
        now = time.monotonic()
        if len(self._buckets) > 10_000 and now - self._pruned > 1:  # at most once a second: it reads them all
            self.prune()
        bucket = self._buckets.setdefault(key, [self.burst, now])
        bucket[0] = min(self.burst, bucket[0] + (now - bucket[1]) * self.rate) - 1
        bucket[1] = now
        return bucket[0] >= 0

    def forget(self, key: str) -> None:
        self._buckets.pop(key, None)

    def prune(self) -> None:
        """Forget the buckets that have filled up again (addresses never say goodbye)."""
        now = self._pruned = time.monotonic()
        for key, (tokens, last) in list(self._buckets.items()):
            if tokens + (now - last) * self.rate >= self.burst:
                del self._buckets[key]
