"""The server's computer players: after every change of a room, each bot seat whose move it is acts.

A bot sees its own seat's view and nothing more (`Room.view_for`), chooses
with its strategy (`bots.act`) and acts through `Rooms.act` like any player,
after a human-like pause. A move that lost a race (a faster doubt, a change
of the room) is refused like anyone's; the next change asks again.
"""

import random
import threading

from . import bots
from .errors import IllegalMove

DELAY = (1.0, 3.0)  # seconds a bot thinks before it moves (tests set it shorter)


class BotPlay:
    """Plays every room's bot seats."""

    def __init__(self, rooms, spawn, sleep, delay=DELAY, rng=None):
        self.rooms = rooms
        self.spawn = spawn  # spawn(fn, *args): a background task of the server's kind
        self.sleep = sleep
        self.delay = delay
        self.rng = rng or random.Random()
        self._lock = threading.Lock()
        self._planned: set[tuple[str, str]] = set()  # (room, bot) with a move on its way

    def changed(self, room) -> None:
        """Called with a room as it now is (under its lock): plan each bot's next move."""
        for seat in room.members():
            if seat.bot is None:
                continue
            action = bots.act(seat.bot, room.view_for(seat.id, {}), self.rng)
            if action is None:
                continue
            key = (room.code, seat.id)
            with self._lock:
                if key in self._planned:
                    continue
                self._planned.add(key)
            self.spawn(self._move, key, seat.bot)

    def _move(self, key, strategy) -> None:
        code, player = key
        self.sleep(self.rng.uniform(*self.delay))
        with self._lock:
            self._planned.discard(key)
        try:
            # Thought over, it looks again: the room may have moved on meanwhile.
            view = self.rooms.view(code, player)
            action = bots.act(strategy, view, self.rng)
            if action is not None:
                self.rooms.act(code, player, {**action, "version": view["version"]})
        except IllegalMove:
            pass  # gone, removed, or beaten to it: the next change asks again
