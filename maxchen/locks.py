"""One lock per room or class in this process, the sweep that drops what was left idle, and what does not load."""

import logging
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from pathlib import Path

from .errors import IllegalMove

log = logging.getLogger(__name__)


class Locks:
    """A lock per code, made on first use and dropped with what it guards."""

    def __init__(self):
        self.guard = threading.Lock()  # held while a code is chosen or a lock is made or dropped
        self._locks: dict[str, threading.Lock] = {}

    def __contains__(self, code: str) -> bool:
        return code in self._locks

    def __len__(self) -> int:
        return len(self._locks)

    def of(self, code: str, exists: Callable[[], object] | None = None) -> threading.Lock:
        """The lock of `code`; before one is made, `exists()` may refuse (a guessed code costs no memory)."""
        with self.guard:
            lock = self._locks.get(code)
            if lock is None:
                if exists is not None:
                    exists()
                lock = self._locks.setdefault(code, threading.Lock())
            return lock

    def made(self, code: str) -> None:
        """A new code's lock; the caller holds `guard` while it chose the code."""
        self._locks[code] = threading.Lock()

    def drop(self, code: str) -> None:
        """Forget the lock of a code that is gone (its holders find nothing there)."""
        with self.guard:
            self._locks.pop(code, None)


def sweep(codes: Iterable[str], drop_if_idle: Callable[[str], bool], what: str) -> list[str]:
    """The codes `drop_if_idle` dropped; one that fails is logged in a line and the sweep goes on."""
    dropped = []
    for code in codes:
        try:
            if drop_if_idle(code):
                dropped.append(code)
        except Exception as error:  # one broken row must not keep every other one forever
            log.warning("sweep: %s %s left as it is: %s", what, code, error)
    return dropped


class Unreadable:
    """Rooms (or classes) whose saved state does not load: each is logged once, then refused with `reason`."""

    def __init__(self, what: str, reason: str):
        self.what, self.reason = what, reason
        self._seen: set[str] = set()

    def refuse(self, code: str, why: str | None = None) -> IllegalMove:
        """The refusal to raise for `code`; the first time logs why in one line (`why`, or the exception
        being handled)."""
        if code not in self._seen:
            self._seen.add(code)
            if why is None:  # where it failed too: a bug of ours reads the same way as a broken row
                _, error, trace = sys.exc_info()
                last = traceback.extract_tb(trace)[-1] if trace else None
                why = repr(error) + (f" at {Path(last.filename).name}:{last.lineno}" if last else "")
            log.error("%s %s does not load (%s); its players are told so", self.what, code, why)
        return IllegalMove(self.reason)


class SweepClock:
    """The wall clock as a sweep may trust it: a jump of the wall clock (an NTP step, a VM resumed) never
    makes a room look idle sooner. A jump is the wall clock moving otherwise than this process's monotonic
    one; until `settle` seconds after the last jump, `now` is the earlier of the wall clock and the wall
    clock without the jumps (a room touched on either side of one is judged by the later reading).
    A jump before this process started cannot be seen: for its first `settle` seconds `now` is None,
    and no sweep is made (a room idle that long by this process's own clock is idle for real)."""

    TOLERANCE = 5.0  # seconds the two clocks may drift apart between two readings

    def __init__(self, settle: float, wall=time.time, steady=time.monotonic):
        self.settle, self._wall, self._steady = settle, wall, steady
        self._last = (wall(), steady())
        self._started = self._last[1]
        self._jumped = 0.0  # the sum of the jumps since the clocks last settled
        self._since = None  # the monotonic time of the last jump

    def now(self) -> float | None:
        wall, steady = self._wall(), self._steady()
        jump = (wall - self._last[0]) - (steady - self._last[1])
        self._last = (wall, steady)
        if abs(jump) > self.TOLERANCE:
            self._jumped += jump
            self._since = steady
            log.warning("the wall clock jumped %+.0f s: rooms are judged by the time without it", jump)
        elif self._since is not None and steady - self._since > self.settle:
            self._jumped, self._since = 0.0, None  # whatever was touched before the jump is judged by now
        if steady - self._started < self.settle:
            return None
        return min(wall, wall - self._jumped)
