"""Rooms: the registry every transport calls. No Flask.

It loads a room from the store under the room's lock, applies one change,
saves it, then hands the changed room to `push` (see `maxchen.live`).
Presence (who is connected, who shakes or peeks) has one owner: `Presence`.
"""

import logging
import math
import secrets
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass

from . import stats
from .dice import SystemDice
from .errors import IllegalMove
from .locks import Locks, Unreadable, sweep
from .presence import ACTIVITIES, REACTIONS, WATCHERS_PER_ROOM, Presence, Socket
from .rulesets import DEFAULT, RULESETS, SHARED_DEFAULT
from .store import BrokenRow, MemoryStore
from .table import (
    CODE_ALPHABET,
    MAX_SEATS,
    ROOM_TTL,
    Room,
    hash_token,
    new_code,
    normalize_code,
    readable,
    ruleset_name,
)

log = logging.getLogger(__name__)

# What a saved state of other types raises where it is read (a hand-edited row, an old bug).
UNREADABLE = (KeyError, TypeError, ValueError, AttributeError, IndexError)
CLAIM_SECONDS = 60  # a new code is kept from other processes this long, until its room is saved

__all__ = ["CODE_ALPHABET", "Rooms", "clean_name", "hash_token", "normalize_code"]
from .names import clean_name  # noqa: E402 - for the transports and tests


def _nothing(*_args) -> None:
    return None


@dataclass
class Outlets:
    """Where a room's change goes once it is saved, all under the room's lock (which keeps them in order).

    `create_app` wires them; without, a change goes nowhere (tests, scripts).
    """

    # push(room, gone, areas, welcomed): the views to the pages, after every change (and every change
    # of presence): the room as it now is, the ids of players who are no longer members, the public
    # areas that may have changed, and a socket that was just sent everything.
    push: Callable = _nothing
    welcome: Callable = _nothing  # welcome(socket, room): a new socket gets the whole room
    close: Callable = _nothing  # close(socket): the transport closes a replaced socket
    release: Callable = _nothing  # release(socket): the transport lets go of a gone seat's socket
    changed: Callable = _nothing  # changed(room): after every change (the bots move, the class board redraws)
    react: Callable = _nothing  # react(code, player, emoji): a player's emoji to every screen of the room


class Rooms:
    """The registry every transport calls; thread-safe, one lock per room; a change goes out by `outlets`."""

    def __init__(self, store=None, dice=None, clock=time.time, ttl=ROOM_TTL, presence=None, outlets=None):
        self.store = store if store is not None else MemoryStore()
        self.dice = dice if dice is not None else SystemDice()
        self.clock = clock
        self.ttl = ttl
        self.outlets = outlets if outlets is not None else Outlets()
        self.presence = presence if presence is not None else Presence()
        self.offline_grace = 0.0  # seconds a player must be offline before the host may remove them mid-game
        self._locks = Locks()
        self._broken = Unreadable("room", "room_broken")
        self._sound: set[str] = set()  # rooms whose views this process drew once from their saved state

    @contextmanager
    def _locked(self, code):
        lock = self._locks.of(code, exists=lambda: self._data(code))
        with lock, self.store.lock(code):  # this process's threads, then the other processes (Redis)
            room = self._room(code)
            try:
                yield room
            except UNREADABLE:  # a saved game whose insides have other types: read only when a move needs them
                raise self._broken.refuse(code) from None

    def _room(self, code: str) -> Room:
        """The stored room; one that does not load is logged once and refused, never a crash. The first time
        this process reads a room, every seat's view is drawn from it too (what pages and boards read)."""
        data = self._data(code)
        try:
            room = Room.from_dict(data, self.dice)
            if code not in self._sound:
                for player in [None, *(seat.id for seat in room.seats)]:
                    room.view_for(player, {})
                stats.shown(room.counts, power=False)  # the counts read; power is theirs alone
                self._sound.add(code)
        except UNREADABLE:
            raise self._broken.refuse(code) from None
        return room

    def _data(self, code: str) -> dict:
        """The stored room, or IllegalMove `room_not_found` (`room_broken`: its saved text is no JSON object)."""
        try:
            data = self.store.load(code)
        except BrokenRow:
            raise self._broken.refuse(code) from None
        if data is None:
            raise IllegalMove("room_not_found")
        if data.get("rules") not in RULESETS or data.get("phase") not in ("lobby", "playing", "over"):
            raise self._broken.refuse(code, "no rule set or phase of ours")
        if not readable(data):
            raise self._broken.refuse(code, "a field of another type")
        if data["code"] != code:  # saved under another code: a change would be saved over that room
            raise self._broken.refuse(code, f"saved as {data['code']!r}")
        return data

    def exists(self, code: str) -> bool:
        """A room is stored under `code` (one that does not load too: its code is taken)."""
        try:
            return self.store.load(code) is not None
        except BrokenRow:
            return True

    def _commit(self, room: Room, before: set[str]):
        """Save a changed room, then tell everyone connected. A room nobody is left in is dropped, but for
        a class's table: the class keeps its games and rolls (the sweep takes it with the class)."""
        room.version += 1
        room.touched = self.clock()
        room.mark_private()
        self.presence.end_activity(room.code)  # every change ends a shake or a peek
        if not room.people() and room.classroom is None:  # nobody left but bots: they do not play on alone
            self.store.delete(room.code)
            self._sound.discard(room.code)
            self._locks.drop(room.code)  # nothing of the room stays behind (its lock's holders find no room)
            self.presence.forget(room.code)
        else:
            rolls, settled = room.log_rolls(room.game.drain_rolls() if room.game else ())
            self.store.save(room.code, room.to_dict(), rolls, settled)
        gone = [p for p in before if room.seat(p) is None]
        self._notify(room, gone=gone)
        self.outlets.changed(room)
        for player in gone:
            for socket in self.presence.drop_player(room.code, player):
                self.outlets.release(socket)  # told `removed` above; now it hears nothing more of the room

    def _notify(self, room: Room, gone=(), areas=None, welcomed=None):
        self.outlets.push(room, list(gone), areas, welcomed)

    def connected(self, code: str) -> dict[str, str | None]:
        """Players with an open connection to the room, with their activity."""
        return self.presence.connected(code)

    def load(self, code) -> Room:
        """The room as it is now (read only: changes go through `act`)."""
        return self._room(normalize_code(code))

    # --- what the transports call ------------------------------------------

    def _store_new(self, room: Room):
        """Give a new room a free code (unless it has one) and save it."""
        if room.code is None:
            self._claim_code(room)
        room.mark_private()
        self.store.save(room.code, room.to_dict())

    def _claim_code(self, room: Room) -> None:
        """A free code for a new room, claimed across processes."""
        with self._locks.guard:
            while True:
                room.code = new_code()
                # A code whose log is kept (of a room that is gone) stays unused: its log is not the new room's.
                free = not self.exists(room.code) and not self.store.room_log(room.code)
                if free and self.store.claim("room:" + room.code, CLAIM_SECONDS):  # once across processes
                    break
            self._locks.made(room.code)

    def create(self, name, rules=DEFAULT, token_hash=None, classroom=None, options=None) -> dict:
        """A new room with its creator as host (a class's table: the student's token and the class)."""
        rules = ruleset_name(DEFAULT if rules is None else rules)
        options = {**RULESETS[rules].default_options(), **(options or {})}
        room = Room(None, rules, options, [], None, touched=self.clock(), classroom=classroom)
        seat, token = room.add(name, token_hash)
        room.host = seat.id
        self._store_new(room)
        return {"code": room.code, "player": seat.id, "token": token}

    def create_shared(self, names, rules=SHARED_DEFAULT, options=None) -> dict:
        """A one-phone table: every name seated, the game started (with `options`), the cover up."""
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise IllegalMove("names_list")
        rules = ruleset_name(rules or SHARED_DEFAULT)
        ruleset = RULESETS[rules]
        if not ruleset.SHARED_PHONE:
            raise IllegalMove("needs_phones", game=ruleset.TITLE)
        if not ruleset.MIN_PLAYERS <= len(names) <= MAX_SEATS:
            raise IllegalMove("names_count", low=ruleset.MIN_PLAYERS, high=MAX_SEATS)
        options = ruleset.merged_options(None, options or {})
        room = Room(None, rules, options, [], None, touched=self.clock())
        device, token = room.add(names[0])
        for name in names[1:]:
            seat, _ = room.add(name)
            seat.token_hash = None  # only the device holds a token
        room.shared = True  # from now on nobody joins: see Room.add
        room.host = device.id
        self._claim_code(room)  # before the start: the game's commits name the room
        room.apply(device.id, {"action": "start"}, {}, self.dice)
        self._store_new(room)
        return {"code": room.code, "player": device.id, "token": token}

    def join(self, code, name, token_hash=None) -> dict:
        """Seat `name` in the room (waiting when a game runs); `token_hash` of a token they hold already."""
        with self._locked(normalize_code(code)) as room:
            before = {s.id for s in room.members()}
            seat, token = room.add(name, token_hash)
            self._commit(room, before)
        return {"player": seat.id, "token": token}

    def authenticate(self, code, token) -> str:
        """The player id a token stands for in that room.

        A missing room gets the same answer as a wrong token: it tells nobody
        which codes exist.
        """
        return self._seat_data(code, token)[1]["id"]

    def summary(self, code, token) -> dict:
        """What the home page lists of a room the token holds a seat in: code, rules, phase, names."""
        data, _ = self._seat_data(code, token)
        names = [seat["name"] for seat in data["seats"] if not seat["left"]]
        return {"code": data["code"], "rules": data["rules"], "phase": data["phase"], "names": names}

    def _seat_data(self, code, token) -> tuple[dict, dict]:
        """The room's stored data and the seat of `token` in it, or IllegalMove `bad_token`."""
        try:
            data = self._data(normalize_code(code))
        except IllegalMove as error:
            if error.reason == "room_broken":  # said to anyone with the code (its page says it too): its seats
                raise  # hear that their room is broken, not that their token is wrong
            raise IllegalMove("bad_token") from None
        if isinstance(token, str) and token:
            digest = hash_token(token)
            for seat in data["seats"]:
                if seat["token_hash"] is not None and secrets.compare_digest(seat["token_hash"], digest):
                    return data, seat
        raise IllegalMove("bad_token")

    def locate(self, token) -> tuple[str, str]:
        """(room code, player id) for a token alone."""
        if not isinstance(token, str) or not token:
            raise IllegalMove("token_needed")
        code = self.store.find_token(hash_token(token))
        if code is None:
            raise IllegalMove("bad_token")
        return code, self.authenticate(code, token)

    def view(self, code, player) -> dict:
        """The current view of one member."""
        room = self.load(code)
        if room.seat(player) is None:
            raise IllegalMove("not_member")
        return room.view_for(player, self.connected(room.code))

    def load_dice(self, code, six) -> None:
        """A class's table's dice are loaded (the lesson's hunt), in secret: no new version, nobody told."""
        with self._locked(normalize_code(code)) as room:
            room.load_dice(six)
            self.store.save(room.code, room.to_dict())

    def hunt(self, code, on: bool) -> None:
        """A class's other table, while its teacher's loading of one is secret (`on`) and after: its reveals
        hold back their seeds as the loaded table's do. No new version, nobody told."""
        with self._locked(normalize_code(code)) as room:
            room.hunt(on)
            self.store.save(room.code, room.to_dict())

    def act(self, code, player, payload, teacher=False, view=True) -> dict | bool | None:
        """Apply one action and return the actor's new view (None: they left); `view=False`: True instead of
        the view (a page, which its pushes bring up to date).

        A `version` that is behind refuses the action only when what the
        actor's moves answer has changed since (their private part): a second
        check of a checked announcement, a doubt of a doubted bid. Independent
        moves (simultaneous Lügen shakes) go through.
        """
        with self._locked(normalize_code(code)) as room:
            version = payload.get("version") if isinstance(payload, dict) else None
            if version is not None:
                if type(version) is not int:
                    raise IllegalMove("whole_number", field="version")
                if not room.private_since(player) <= version <= room.version:
                    action = payload.get("action")
                    better = room.game.stale(action) if room.game and isinstance(action, str) else None
                    raise room.named(better or IllegalMove("stale"))
            before = {s.id for s in room.members()}
            self.presence.seen(room.code, player)  # even if refused: the player's device is there
            removal = isinstance(payload, dict) and payload.get("action") == "remove" and room.phase == "playing"
            # Only for a removal the room would allow: nobody else learns how long a seat has been away.
            if removal and (teacher or player == room.host) and payload.get("player") != player:
                self._after_grace(room, payload.get("player"))
            connected = self.connected(room.code)
            room.apply(player, payload, connected, self.dice, teacher, now=self.clock())
            self._commit(room, before)  # which ends every shake and peek
            if not room.seat(player):
                return None
            return room.view_for(player, dict.fromkeys(connected)) if view else True

    def _after_grace(self, room: Room, target) -> None:
        """Mid-game a player may be removed only after `offline_grace` seconds away (a reload is no reason)."""
        seat = room.seat(target) if isinstance(target, str) else None
        waited = self.presence.offline_for(room.code, target) if seat and seat.bot is None else None
        if waited is not None and waited < self.offline_grace:
            raise IllegalMove("offline_grace", name=seat.name, seconds=math.ceil(self.offline_grace - waited))

    def wake(self) -> None:
        """After a start: bots whose move it is in a stored game move again (nothing else would ask them)."""
        for code in self.store.untouched_since(float("inf")):
            try:
                with self._locked(code) as room:
                    if room.phase == "playing" and any(s.bot for s in room.members()):
                        self.outlets.changed(room)
            except IllegalMove:
                continue  # gone meanwhile, or refused (a room that does not load is logged once)
            except Exception as error:  # one room must not keep every other room's bots still
                log.warning("wake: room %s left as it is: %r", code, error)

    def connect(self, socket: Socket, capped: bool = True) -> Room:
        """A connection opened (a seat's, or a watcher's with player None); the room as it is.

        `capped`: a watcher counts against the room's places for watchers (not: a seated player's own board).
        """
        with self._locked(socket.code) as room:
            if socket.player is not None and room.seat(socket.player) is None:
                raise IllegalMove("not_member")
            # Counted under the lock: every process's watchers.
            watchers = sum(s.player is None for s in self.presence.sockets(room.code))
            if socket.player is None and capped and watchers >= WATCHERS_PER_ROOM:
                raise IllegalMove("watchers_full", limit=WATCHERS_PER_ROOM)
            was_connected = socket.player in self.presence.connected(room.code)
            replaced = self.presence.add(socket)
            if replaced is None:
                return room
            for old in replaced:
                self.outlets.close(old)
            self.outlets.welcome(socket, room)
            if socket.player is not None and not was_connected:  # once per seat, not per socket
                self._notify(room, areas=("players",), welcomed=socket.sid)
            self.outlets.changed(room)  # after a restart the bots wait until someone looks again
            return room

    def disconnect(self, sid: str):
        """A connection closed."""
        socket = self.presence.remove(sid)  # first: whatever happens next, it no longer counts
        if socket is None or socket.player is None or socket.player in self.presence.connected(socket.code):
            return  # a watcher, or the seat still has another socket open
        try:
            with self._locked(socket.code) as room:
                self._notify(room, areas=("players",))
                self.outlets.changed(room)  # a class's desk and board show who went offline
        except IllegalMove:
            pass  # the room is gone

    def signal(self, code, player, activity):
        """A player starts or stops shaking or peeking; others see it, nothing more."""
        if activity is not None and activity not in ACTIVITIES:
            raise IllegalMove("bad_activity")
        with self._locked(normalize_code(code)) as room:
            if player not in self.connected(room.code):
                raise IllegalMove("connect_first")
            view = room.view_for(player, {})
            if activity == "shaking" and "shake" not in view["allowed"]:
                raise IllegalMove("not_your_shake")
            if activity == "peeking" and view["dice"] is None:
                raise IllegalMove("empty_cup")
            if self.presence.set_activity(room.code, player, activity):
                self._notify(room, areas=("players",))

    def react(self, code, player, emoji, budget=None):
        """A player sends the table an emoji: every screen of the room shows it a moment; nothing is kept.
        `budget(code, player)` is spent once the emoji is known good (it refuses a seat that sent too many)."""
        if not isinstance(emoji, str) or emoji not in REACTIONS:
            raise IllegalMove("bad_reaction")
        code = normalize_code(code)
        # Presence alone says who may: no lock, no load of the room (a flood of emoji costs the room nothing).
        if player not in self.connected(code):
            raise IllegalMove("connect_first")
        if budget:
            budget(code, player)
        self.outlets.react(code, player, emoji)

    def refresh(self) -> None:
        """Every socket of this process gets its room afresh (the queue between processes lost what came
        meanwhile: a Redis restarted). A room that fails is left for the next change."""
        by_room: dict[str, list[Socket]] = {}
        for socket in self.presence.own():
            by_room.setdefault(socket.code, []).append(socket)
        for code, sockets in by_room.items():
            try:
                with self._locked(code) as room:
                    for socket in sockets:
                        self.outlets.welcome(socket, room)
            except Exception as error:  # gone meanwhile, or Redis away again: the next resubscribe tries
                log.warning("refresh: room %s left as it is: %r", code, error)

    def heartbeat(self) -> None:
        """Presence's beat (several processes): rooms whose sockets a gone process took along hear it."""
        for code in self.presence.beat():
            try:
                with self._locked(code) as room:
                    self._notify(room, areas=("players",))
            except IllegalMove:  # the room is gone (a Redis that came back empty): so is its presence
                self.presence.forget(code)

    def sweep(self, now: float | None = None) -> list[str]:
        """Drop rooms untouched for `ttl` seconds and with nobody connected."""
        cutoff = (self.clock() if now is None else now) - self.ttl  # `now`: a sweep's clock (locks.SweepClock)
        return sweep(self.store.untouched_since(cutoff), lambda code: self._drop_idle(code, cutoff), "room")

    def _drop_idle(self, code: str, cutoff: float) -> bool:
        with self._locks.of(code), self.store.lock(code):
            try:
                data = self._data(code)  # a room that does not load is left as it is (the sweep logs it)
            except IllegalMove as error:
                if error.reason == "room_not_found":
                    return False
                raise
            if data["touched"] >= cutoff or self.presence.sockets(code):
                return False
            self.store.delete(code)
            self._sound.discard(code)
        self._locks.drop(code)
        self.presence.forget(code)
        return True
