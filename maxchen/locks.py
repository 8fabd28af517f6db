"""One lock per room or class in this process, the sweep that drops what was left idle, and what does not load."""

import logging
import threading
from collections.abc import Callable, Iterable

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

    def refuse(self, code: str) -> IllegalMove:
        """The refusal to raise for `code` (called inside its `except`: the first time logs the cause)."""
        if code not in self._seen:
            self._seen.add(code)
            log.exception("%s %s does not load; its players are told so", self.what, code)
        return IllegalMove(self.reason)
