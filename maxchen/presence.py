"""Presence: who is connected to which room and what they do with their phone.

One owner of connections, keyed by socket id. A socket is added only by a
real connect and removed by its disconnect, so a player counts as connected
exactly while one of their sockets is open. Watchers are sockets without a
seat. Activity ("shaking", "peeking") ends with any change of the room.
"""

import threading
import time
from dataclasses import dataclass

ACTIVITIES = ("shaking", "peeking")
SOCKETS_PER_SEAT = 4  # a phone, another tab, a reconnect in flight; a newer one closes the oldest
# Seatless watchers of one room (a projector, a board, a few onlookers): every change of the
# room goes to each of them, so thousands would let one room's moves load the whole server.
WATCHERS_PER_ROOM = 20


@dataclass(frozen=True)
class Socket:
    """One open connection: its room, its seat (None for a watcher), how it reads."""

    sid: str
    code: str
    player: str | None
    lang: str = "en"
    kind: str = "html"  # "html": the room page (rendered parts); "json": bots (views)


class Presence:
    """Connections and activity of every room; thread-safe."""

    def __init__(self, per_seat: int = SOCKETS_PER_SEAT, clock=time.monotonic):
        self.per_seat = per_seat
        self.clock = clock
        self._started = clock()
        self._lock = threading.Lock()
        self._last_seen: dict[str, dict[str, float]] = {}  # code -> player -> when last connected or acting
        self._sockets: dict[str, Socket] = {}
        self._rooms: dict[str, dict[str, Socket]] = {}  # code -> sid -> socket
        self._activity: dict[str, dict[str, str]] = {}  # code -> player -> activity
        self._seq: dict[str, int] = {}  # code -> how many times presence changed

    def add(self, socket: Socket) -> list[Socket] | None:
        """Count a new connection; None if the socket id is already counted.

        Returns the seat's oldest sockets it replaces (no longer counted): a
        seat has at most `SOCKETS_PER_SEAT` open.
        """
        with self._lock:
            if socket.sid in self._sockets:
                return None
            room = self._rooms.setdefault(socket.code, {})
            seat = [s for s in room.values() if socket.player and s.player == socket.player]
            replaced = seat[: max(0, len(seat) + 1 - self.per_seat)]
            for old in replaced:
                del self._sockets[old.sid], room[old.sid]
            self._sockets[socket.sid] = socket
            room[socket.sid] = socket
            self._bump(socket.code)
            return replaced

    def remove(self, sid: str) -> Socket | None:
        """Forget a closed connection; the socket it was, or None."""
        with self._lock:
            socket = self._sockets.pop(sid, None)
            if socket is None:
                return None
            room = self._rooms.get(socket.code, {})
            room.pop(sid, None)
            if not room:
                self._rooms.pop(socket.code, None)
            if socket.player and not self._has(socket.code, socket.player):
                self._activity.get(socket.code, {}).pop(socket.player, None)
                self._last_seen.setdefault(socket.code, {})[socket.player] = self.clock()
            self._bump(socket.code)
            return socket

    def get(self, sid: str) -> Socket | None:
        """The socket with that id, if it is open."""
        return self._sockets.get(sid)

    def sockets(self, code: str) -> list[Socket]:
        """Every open socket of a room, watchers included."""
        return list(self._rooms.get(code, {}).values())

    def connected(self, code: str) -> dict[str, str | None]:
        """Seated players with an open connection, with what they are doing."""
        activity = self._activity.get(code, {})
        return {s.player: activity.get(s.player) for s in self.sockets(code) if s.player}

    def seen(self, code: str, player: str) -> None:
        """The player acted (over HTTP, say): present now, whether connected or not."""
        self._last_seen.setdefault(code, {})[player] = self.clock()

    def offline_for(self, code: str, player: str) -> float | None:
        """Seconds since the player was last connected or acting (at most since the start); None while connected."""
        if self._has(code, player):
            return None
        return self.clock() - self._last_seen.get(code, {}).get(player, self._started)

    def seq(self, code: str) -> int:
        """A number that grows with every change of the room's presence."""
        return self._seq.get(code, 0)

    def set_activity(self, code: str, player: str, activity: str | None) -> bool:
        """Start or stop an activity; True if it changed."""
        with self._lock:
            room = self._activity.setdefault(code, {})
            if room.get(player) == activity:
                return False
            if activity is None:
                room.pop(player, None)
            else:
                room[player] = activity
            self._bump(code)
            return True

    def end_activity(self, code: str) -> None:
        """Every change of the room ends a shake or a peek."""
        with self._lock:
            if self._activity.pop(code, None):
                self._bump(code)

    def drop_player(self, code: str, player: str) -> list[Socket]:
        """A player left the room: their sockets stop counting; returns them."""
        with self._lock:
            gone = [s for s in self._rooms.get(code, {}).values() if s.player == player]
            for socket in gone:
                self._sockets.pop(socket.sid, None)
                self._rooms[code].pop(socket.sid, None)
            self._activity.get(code, {}).pop(player, None)
            self._last_seen.get(code, {}).pop(player, None)
            if gone:
                self._bump(code)
            return gone

    def forget(self, code: str) -> None:
        """The room is gone."""
        with self._lock:
            for sid in self._rooms.pop(code, {}):
                self._sockets.pop(sid, None)
            self._activity.pop(code, None)
            self._seq.pop(code, None)
            self._last_seen.pop(code, None)

    def _has(self, code, player) -> bool:
        return any(s.player == player for s in self._rooms.get(code, {}).values())

    def _bump(self, code):
        self._seq[code] = self._seq.get(code, 0) + 1
