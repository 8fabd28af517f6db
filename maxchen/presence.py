"""Presence: who is connected to which room and what they do with their phone.

One owner of connections, keyed by socket id. A socket is added only by a
real connect and removed by its disconnect, so a player counts as connected
exactly while one of their sockets is open. Watchers are sockets without a
seat. Activity ("shaking", "peeking") ends with any change of the room.
It also keeps what each room's pages were last sent (`held`, for `Live`).

`Presence` keeps it in this process; `RedisPresence` in Redis, for several
processes on one Redis: each process says it is alive every `HEARTBEAT`
seconds, and the sockets of a process silent for `EXPIRY` seconds stop
counting (see `RedisPresence.beat`).
"""

import json
import secrets
import threading
import time
from dataclasses import dataclass

ACTIVITIES = ("shaking", "peeking")
REACTIONS = ("👍", "😂", "😮", "🙈", "🎉")  # what a player may send the table: no free text, nothing to moderate
SOCKETS_PER_SEAT = 4  # a phone, another tab, a reconnect in flight; a newer one closes the oldest
# Seatless watchers of one room (a projector, a board, a few onlookers): every change of the
# room goes to each of them, so thousands would let one room's moves load the whole server.
WATCHERS_PER_ROOM = 20


def held_key(sid: str) -> str:
    """The key of a socket's private part in `held` (public areas are held under their names)."""
    return "s:" + sid


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
        self._held: dict[str, dict[str, str]] = {}  # code -> what its pages were last sent (see `held`)

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
                self._held.get(socket.code, {}).pop(held_key(old.sid), None)
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
            self._held.get(socket.code, {}).pop(held_key(sid), None)
            if not room:
                self._rooms.pop(socket.code, None)
                self._held.pop(socket.code, None)
            if socket.player and not self._has(socket.code, socket.player):
                self._activity.get(socket.code, {}).pop(socket.player, None)
                self._last_seen.setdefault(socket.code, {})[socket.player] = self.clock()
            self._bump(socket.code)
            return socket

    def own(self) -> list[Socket]:
        """The sockets connected to this process."""
        with self._lock:
            return list(self._sockets.values())

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

    def snapshot(self, code: str) -> tuple[list[Socket], dict[str, str | None], int, dict[str, str]]:
        """What a push needs at once: sockets, connected players, seq and what the pages hold."""
        return self.sockets(code), self.connected(code), self.seq(code), self.held(code)

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
                self._held.get(code, {}).pop(held_key(socket.sid), None)
            if not self._rooms.get(code, True):
                self._rooms.pop(code, None)
                self._held.pop(code, None)
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
            self._held.pop(code, None)

    def held(self, code: str) -> dict[str, str]:
        """What the room's pages were last sent: a key per public area, per socket (`held_key`) its private part."""
        return dict(self._held.get(code, {}))

    def hold(self, code: str, sent: dict[str, str]) -> None:
        """Remember what was sent (kept while the room has sockets)."""
        with self._lock:
            if code in self._rooms:
                self._held.setdefault(code, {}).update(sent)

    def beat(self) -> list[str]:
        """One process owns every socket: nothing to do (see RedisPresence)."""
        return []

    def _has(self, code, player) -> bool:
        return any(s.player == player for s in self._rooms.get(code, {}).values())

    def _bump(self, code):
        self._seq[code] = self._seq.get(code, 0) + 1


HEARTBEAT = 1.0  # seconds between a process's "alive" in Redis
EXPIRY = 5.0  # seconds after its last "alive" a process counts as gone, and its sockets with it


class RedisPresence:
    """Presence shared by every process on one Redis (keys under `prefix`).

    Per room: `p:CODE:sockets` (sid -> [player, lang, kind, process, order]),
    `p:CODE:activity`, `p:CODE:seen` (player -> time it was last there, the
    wall clock every process shares), `p:CODE:seq` and `p:CODE:held`. Per
    process: `proc:ID` (alive, expires after `EXPIRY`) and `proc:ID:rooms`
    (where it has sockets); `procs` names every process.

    A socket's events come to the process it is connected to, so `get` looks
    in this process's own sockets. Changes of one room are made under the
    room's lock (see Rooms) or are single commands; a read of a room is one
    round trip.
    """

    def __init__(self, client, prefix="maxchen:", per_seat: int = SOCKETS_PER_SEAT, clock=time.time):
        self.redis = client
        self.prefix = prefix
        self.per_seat = per_seat
        self.clock = clock
        self.process = secrets.token_hex(8)
        self._started = clock()
        self._lock = threading.Lock()
        self._own: dict[str, Socket] = {}  # sid -> this process's sockets
        self._alive()

    def _key(self, *parts: str) -> str:
        return self.prefix + ":".join(parts)

    def _room_key(self, code: str, part: str) -> str:
        return self._key("p", code, part)

    def _read(self, code: str, more=()) -> tuple:
        """The room's sockets and activity (and the values of `more` keys' commands), in one round trip."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.hgetall(self._room_key(code, "sockets"))
        pipe.hgetall(self._room_key(code, "activity"))
        for command, part in more:
            getattr(pipe, command)(self._room_key(code, part))
        raw, activity, *rest = pipe.execute()
        sockets = {sid.decode(): json.loads(value) for sid, value in raw.items()}
        return sockets, {player.decode(): value.decode() for player, value in activity.items()}, *rest

    def snapshot(self, code: str) -> tuple[list[Socket], dict[str, str | None], int, dict[str, str]]:
        """What a push needs, in one round trip: sockets, connected players, seq and what the pages hold."""
        sockets, activity, seq, held = self._read(code, (("get", "seq"), ("hgetall", "held")))
        return (
            [self._socket(code, sid, fields) for sid, fields in sockets.items()],
            self._connected(sockets, activity),
            int(seq or 0),
            {k.decode(): v.decode() for k, v in held.items()},
        )

    def _count(self, pipe, socket: Socket) -> None:
        """Queue the socket into its room's hash (`order` says which of a seat's sockets is oldest)."""
        order = self.redis.incr(self._key("p", "order"))
        entry = json.dumps([socket.player, socket.lang, socket.kind, self.process, order])
        pipe.hset(self._room_key(socket.code, "sockets"), socket.sid, entry)
        pipe.incr(self._room_key(socket.code, "seq"))

    @staticmethod
    def _connected(sockets: dict, activity: dict) -> dict[str, str | None]:
        return {f[0]: activity.get(f[0]) for f in sockets.values() if f[0]}

    @staticmethod
    def _socket(code: str, sid: str, fields: list) -> Socket:
        player, lang, kind = fields[:3]
        return Socket(sid, code, player, lang, kind)

    def add(self, socket: Socket) -> list[Socket] | None:
        """Count a new connection (see Presence.add): the seat's oldest sockets, in any process, make way."""
        with self._lock:  # with its room in `proc:ID:rooms` before `beat` may trim that
            if socket.sid in self._own:
                return None
            self._own[socket.sid] = socket
            self.redis.sadd(self._key("proc", self.process, "rooms"), socket.code)
        code = socket.code
        sockets, _ = self._read(code)
        seat = sorted((f[4], sid) for sid, f in sockets.items() if socket.player and f[0] == socket.player)
        replaced = [self._socket(code, sid, sockets[sid]) for _, sid in seat[: max(0, len(seat) + 1 - self.per_seat)]]
        pipe = self.redis.pipeline()
        if replaced:
            pipe.hdel(self._room_key(code, "sockets"), *(old.sid for old in replaced))
            pipe.hdel(self._room_key(code, "held"), *(held_key(old.sid) for old in replaced))
        self._count(pipe, socket)
        pipe.execute()
        with self._lock:
            for old in replaced:
                self._own.pop(old.sid, None)
        return replaced

    def remove(self, sid: str) -> Socket | None:
        """Forget a closed connection of this process; the socket it was, or None (replaced or reaped already)."""
        with self._lock:
            socket = self._own.pop(sid, None)
        if socket is None:
            return None
        code = socket.code
        if not self.redis.hdel(self._room_key(code, "sockets"), sid):
            return None  # a newer socket of its seat took its place, or its process counted as gone
        self._after_leaving(code, {socket.player} - {None}, [sid])
        return socket

    def _after_leaving(self, code: str, players: set, sids: list) -> None:
        """Sockets left the room: players with none left are offline from now on."""
        sockets, _ = self._read(code)
        still = {fields[0] for fields in sockets.values()}
        pipe = self.redis.pipeline()
        pipe.hdel(self._room_key(code, "held"), *(held_key(sid) for sid in sids))
        for player in players - still:
            pipe.hdel(self._room_key(code, "activity"), player)
            pipe.hset(self._room_key(code, "seen"), player, self.clock())
        if not sockets:
            pipe.delete(self._room_key(code, "held"))
        pipe.incr(self._room_key(code, "seq"))
        pipe.execute()

    def own(self) -> list[Socket]:
        """The sockets connected to this process."""
        with self._lock:
            return list(self._own.values())

    def get(self, sid: str) -> Socket | None:
        """This process's socket with that id, if it is open."""
        return self._own.get(sid)

    def sockets(self, code: str) -> list[Socket]:
        """Every open socket of a room, in every process, watchers included."""
        return [self._socket(code, sid, fields) for sid, fields in self._read(code)[0].items()]

    def connected(self, code: str) -> dict[str, str | None]:
        """Seated players with an open connection in any process, with what they are doing."""
        return self._connected(*self._read(code))

    def seen(self, code: str, player: str) -> None:
        """The player acted: present now."""
        self.redis.hset(self._room_key(code, "seen"), player, self.clock())

    def offline_for(self, code: str, player: str) -> float | None:
        """Seconds since the player was last connected or acting; None while connected."""
        if player in self.connected(code):
            return None
        seen = self.redis.hget(self._room_key(code, "seen"), player)
        return self.clock() - (float(seen) if seen is not None else self._started)

    def seq(self, code: str) -> int:
        """A number that grows with every change of the room's presence."""
        return int(self.redis.get(self._room_key(code, "seq")) or 0)

    def set_activity(self, code: str, player: str, activity: str | None) -> bool:
        """Start or stop an activity; True if it changed."""
        key = self._room_key(code, "activity")
        current = self.redis.hget(key, player)
        if (current.decode() if current is not None else None) == activity:
            return False
        pipe = self.redis.pipeline()
        if activity is None:
            pipe.hdel(key, player)
        else:
            pipe.hset(key, player, activity)
        pipe.incr(self._room_key(code, "seq"))
        pipe.execute()
        return True

    def end_activity(self, code: str) -> None:
        """Every change of the room ends a shake or a peek."""
        if self.redis.delete(self._room_key(code, "activity")):
            self.redis.incr(self._room_key(code, "seq"))

    def drop_player(self, code: str, player: str) -> list[Socket]:
        """A player left the room: their sockets, in every process, stop counting; returns them."""
        gone = [s for s in self.sockets(code) if s.player == player]
        pipe = self.redis.pipeline()
        if gone:
            pipe.hdel(self._room_key(code, "sockets"), *(s.sid for s in gone))
            pipe.hdel(self._room_key(code, "held"), *(held_key(s.sid) for s in gone))
            pipe.incr(self._room_key(code, "seq"))
        pipe.hdel(self._room_key(code, "activity"), player)
        pipe.hdel(self._room_key(code, "seen"), player)
        pipe.hlen(self._room_key(code, "sockets"))
        if not pipe.execute()[-1]:
            self.redis.delete(self._room_key(code, "held"))
        with self._lock:
            for socket in gone:
                self._own.pop(socket.sid, None)
        return gone

    def forget(self, code: str) -> None:
        """The room is gone."""
        self.redis.delete(*(self._room_key(code, part) for part in ("sockets", "activity", "seen", "seq", "held")))
        with self._lock:
            for sid in [sid for sid, s in self._own.items() if s.code == code]:
                del self._own[sid]

    def held(self, code: str) -> dict[str, str]:
        """What the room's pages were last sent, by any process (see Presence.held)."""
        return {k.decode(): v.decode() for k, v in self.redis.hgetall(self._room_key(code, "held")).items()}

    def hold(self, code: str, sent: dict[str, str]) -> None:
        """Remember what was sent."""
        if sent:
            self.redis.hset(self._room_key(code, "held"), mapping=sent)

    # --- processes ------------------------------------------------------------

    def _alive(self) -> bool:
        """Say this process is alive; True if it had counted as gone (or never said so)."""
        pipe = self.redis.pipeline()
        pipe.set(self._key("proc", self.process), 1, px=int(EXPIRY * 1000))
        pipe.sadd(self._key("procs"), self.process)
        return bool(pipe.execute()[1])

    def beat(self) -> list[str]:
        """Every `HEARTBEAT` seconds: say this process is alive, and take the sockets of a gone one out.

        Returns the rooms whose presence changed (their players areas are pushed again). A process
        that counted as gone (it stalled) but lives puts its own sockets back.
        """
        changed = set()
        if self._alive():
            with self._lock:
                own = list(self._own.values())
            pipe = self.redis.pipeline()
            for socket in own:
                self._count(pipe, socket)
                pipe.sadd(self._key("proc", self.process, "rooms"), socket.code)
                changed.add(socket.code)
            pipe.execute()
        self._trim()
        others = [p.decode() for p in self.redis.smembers(self._key("procs")) if p.decode() != self.process]
        if others:
            pipe = self.redis.pipeline(transaction=False)
            for other in others:
                pipe.exists(self._key("proc", other))
            for other, alive in zip(others, pipe.execute(), strict=True):
                if not alive and self.redis.srem(self._key("procs"), other):  # one process takes each gone one
                    changed.update(self._reap(other))
        return sorted(changed)

    def _trim(self) -> None:
        """Rooms where this process has no socket left leave `proc:ID:rooms`."""
        key = self._key("proc", self.process, "rooms")
        listed = {code.decode() for code in self.redis.smembers(key)}
        with self._lock:
            stale = listed - {s.code for s in self._own.values()}
            if stale:
                self.redis.srem(key, *stale)

    def _reap(self, process: str) -> list[str]:
        """Take a gone process's sockets out of every room it had; the rooms."""
        rooms_key = self._key("proc", process, "rooms")
        codes = [code.decode() for code in self.redis.smembers(rooms_key)]
        for code in codes:
            sockets, _ = self._read(code)
            theirs = [sid for sid, fields in sockets.items() if fields[3] == process]
            if theirs:
                self.redis.hdel(self._room_key(code, "sockets"), *theirs)
                players = {sockets[sid][0] for sid in theirs} - {None}
                self._after_leaving(code, players, theirs)
        self.redis.delete(rooms_key)
        return codes

    def stop(self) -> None:
        """This process ends: it no longer counts as alive (its sockets are reaped by the others)."""
        self.redis.delete(self._key("proc", self.process))
