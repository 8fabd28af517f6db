"""Rooms: codes, seats, host, tokens, versions; one lock per room. No Flask.

A `Room` is plain data plus the room-level actions (start, configure, remove,
leave); turn actions go to the rule set's `Game`. `Rooms` is the registry the
transports call: it loads a room from the store under the room's lock,
applies one change, saves it, then pushes fresh views to connected members.
"""

import hashlib
import secrets
import threading
import time
import unicodedata
from collections import defaultdict
from contextlib import contextmanager
from dataclasses import asdict, dataclass

from .dice import SystemDice
from .errors import IllegalMove
from .rulesets import DEFAULT, RULESETS
from .store import MemoryStore

# No 0/O and no 1/I/L: codes are read aloud and typed from a projector.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 5
MAX_SEATS = 10
NAME_LENGTH = 20
ROOM_TTL = 6 * 3600
ROOM_ACTIONS = ("start", "configure", "seat", "remove", "leave", "uncover")
ACTIVITIES = ("shaking", "peeking")


def normalize_code(text) -> str:
    """A room code as stored (upper case), or IllegalMove `room_not_found`."""
    code = text.strip().upper() if isinstance(text, str) else ""
    if len(code) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in code):
        raise IllegalMove("room_not_found", "There is no room with that code.")
    return code


def clean_name(text) -> str:
    """A player name: 1–20 code points after trimming, no control characters."""
    if not isinstance(text, str):
        raise IllegalMove("bad_value", "Enter your name.")
    name = unicodedata.normalize("NFC", text).strip()
    if not name:
        raise IllegalMove("bad_value", "Enter your name.")
    if len(name) > NAME_LENGTH:
        raise IllegalMove("bad_value", f"A name has at most {NAME_LENGTH} characters.")
    if any(unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp") for ch in name):
        raise IllegalMove("bad_value", "A name cannot contain control characters.")
    return name


def _ruleset(rules) -> str:
    """The name of a known rule set, or IllegalMove `bad_value`."""
    if not isinstance(rules, str) or rules not in RULESETS:
        raise IllegalMove("bad_value", f"Unknown rule set {rules!r}; choose one of {', '.join(RULESETS)}.")
    return rules


def hash_token(token: str) -> str:
    """Tokens are kept only as hashes, so a leaked store leaks no seat."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass
class Seat:
    """One person in a room."""

    id: str
    name: str
    token_hash: str | None
    waiting: bool = False
    left: bool = False


class Room:
    """A room: seats, host, options, phase and the current game."""

    def __init__(
        self,
        code,
        rules,
        options,
        seats,
        host,
        version=0,
        phase="lobby",
        game=None,
        touched=0.0,
        shared=False,
        holder=None,
    ):
        self.code = code
        # Pass and play: one device (the host's seat) plays for everyone; the
        # phone is uncovered for one player at a time, the `holder`.
        self.shared = shared
        self.holder = holder
        self.rules = rules
        self.options = options
        self.seats: list[Seat] = seats
        self.host = host
        self.version = version
        self.phase = phase
        self.game = game
        self.touched = touched

    @property
    def ruleset(self):
        """The Game class of the room's rule set."""
        return RULESETS[self.rules]

    def seat(self, player: str) -> Seat | None:
        """The member's seat (None for strangers and those who left)."""
        return next((s for s in self.seats if s.id == player and not s.left), None)

    def members(self) -> list[Seat]:
        """Everyone present, in seating order."""
        return [s for s in self.seats if not s.left]

    def add(self, name: str) -> tuple[Seat, str]:
        """Seat a newcomer; during a game they wait for the next one."""
        if self.shared:
            # The device's own seat acts and sees for whoever holds the phone.
            raise IllegalMove("one_phone", "This table plays on one phone.")
        name = clean_name(name)
        members = self.members()
        if len(members) >= MAX_SEATS:
            raise IllegalMove("room_full", f"The room is full ({MAX_SEATS} players).")
        if any(s.name.casefold() == name.casefold() for s in members):
            raise IllegalMove("name_taken", f"Someone here is already called {name}.")
        token = secrets.token_urlsafe(24)
        seat = Seat(
            id=secrets.token_urlsafe(6),
            name=name,
            token_hash=hash_token(token),
            waiting=self.phase == "playing",
        )
        self.seats.append(seat)
        return seat, token

    # --- actions ----------------------------------------------------------

    def apply(self, player: str, payload, connected: set, dice) -> None:
        """One action by `player`; IllegalMove leaves the room as it was."""
        try:
            self._apply(player, payload, connected, dice)
        except IllegalMove as error:
            error.message = self.with_names(error.message)
            raise

    def with_names(self, message: str) -> str:
        """Put names where a message says {player id}."""
        for seat in self.seats:
            message = message.replace(f"{{{seat.id}}}", seat.name)
        return message

    def _apply(self, player: str, payload, connected: set, dice) -> None:
        if not isinstance(payload, dict):
            raise IllegalMove("bad_request", "An action is a JSON object.")
        action = payload.get("action")
        if self.seat(player) is None:
            raise IllegalMove("bad_token", "You are not in this room.")
        if action in ROOM_ACTIONS:
            getattr(self, "_" + action)(player, payload, connected, dice)
        elif isinstance(action, str) and action in self.ruleset.ACTIONS:
            if self.phase != "playing":
                raise IllegalMove("not_allowed", "No game is running.")
            if self.shared:
                if self.holder is None:
                    raise IllegalMove("not_allowed", "Pass the phone on first.")
                player = self.holder
            if player not in self.game.players:
                raise IllegalMove("not_allowed", "You play from the next game on.")
            round_before = self.game.round
            self.game.apply(player, action, payload)
            if self.game.over:
                self.phase = "over"
            if self.holder not in self.game.waiting_for() or self.game.round != round_before:
                # The cover goes up: pass the phone on, or show the table the reveal.
                self.holder = None
        else:
            raise IllegalMove("bad_request", f"Unknown action {action!r}.")

    def _require_host(self, player):
        if player != self.host:
            raise IllegalMove("not_host", "Only the host can do that.")

    def _require_no_game(self):
        if self.phase == "playing":
            raise IllegalMove("game_running", "Not while a game is running.")

    def _start(self, player, payload, connected, dice):
        self._require_host(player)
        self._require_no_game()
        members = self.members()
        if len(members) < self.ruleset.MIN_PLAYERS:
            raise IllegalMove("not_allowed", f"{self.rules} needs at least {self.ruleset.MIN_PLAYERS} players.")
        self.game = self.ruleset([s.id for s in members], self.options, dice)
        self.seats = members
        for seat in members:
            seat.waiting = False
        self.phase = "playing"

    def _configure(self, player, payload, connected, dice):
        self._require_host(player)
        self._require_no_game()
        options = payload.get("options", {})
        if not isinstance(options, dict):
            raise IllegalMove("bad_request", "Options must be an object.")
        options = dict(options)
        rules = _ruleset(options.pop("rules", payload.get("rules", self.rules)))
        ruleset = RULESETS[rules]
        base = self.options if rules == self.rules else ruleset.default_options()
        self.options = {**base, **ruleset.check_options(options)}
        self.rules = rules

    def _seat(self, player, payload, connected, dice):
        """The host moves a player to another seat (0 is first)."""
        self._require_host(player)
        self._require_no_game()
        target = payload.get("player")
        seat = self.seat(target) if isinstance(target, str) else None
        if seat is None:
            raise IllegalMove("bad_value", "There is no such player in this room.")
        index = payload.get("seat")
        if type(index) is not int or not 0 <= index < len(self.seats):
            raise IllegalMove("bad_value", f"seat must be a whole number from 0 to {len(self.seats) - 1}.")
        self.seats.remove(seat)
        self.seats.insert(index, seat)

    def _remove(self, player, payload, connected, dice):
        self._require_host(player)
        target = payload.get("player")
        seat = self.seat(target) if isinstance(target, str) else None
        if seat is None:
            raise IllegalMove("bad_value", "There is no such player in this room.")
        if target == player:
            raise IllegalMove("not_allowed", "To go yourself, leave the room.")
        if self.phase == "playing" and target in connected:
            raise IllegalMove("not_allowed", f"{seat.name} is still connected.")
        self._drop(seat, connected)

    def _uncover(self, player, payload, connected, dice):
        """Pass and play: the player the game waits for takes the phone."""
        if not self.shared:
            raise IllegalMove("bad_request", "Only a one-phone table passes the phone.")
        target = payload.get("player")
        if self.phase != "playing" or target not in self.game.waiting_for():
            raise IllegalMove("not_allowed", "It is not that player's turn.")
        self.holder = target

    def _leave(self, player, payload, connected, dice):
        self._drop(self.seat(player), connected)

    def _drop(self, seat: Seat, connected: set):
        """RULES.md §5: out for good, token revoked, host handed on."""
        in_game = self.game is not None and seat.id in self.game.players
        if in_game:
            self.game.remove(seat.id)
            if self.game.over:
                self.phase = "over"
            seat.left = True
            seat.token_hash = None
        else:
            self.seats.remove(seat)
        if self.host == seat.id:
            self.host = self._next_host(seat.id, connected)

    def _next_host(self, old: str, connected: set) -> str | None:
        order = [s.id for s in self.seats]
        start = order.index(old) if old in order else -1
        after = order[start + 1 :] + order[: start + 1]
        members = [p for p in after if self.seat(p)]
        return next((p for p in members if p in connected), members[0] if members else None)

    # --- views ------------------------------------------------------------

    def view_for(self, player: str | None, connected: dict) -> dict:
        """Everything `player` may see of the room, nothing more.

        `connected` maps each connected player to what they are doing with
        their phone right now ("shaking", "peeking" or None). On a one-phone
        table the device sees what the uncovered player sees, or, while the
        cover is up, only what the whole table sees.
        """
        device = player
        if self.shared:
            player = self.holder
        game = self.game
        players = []
        for seat in self.seats:
            if game is not None and seat.id in game.players:
                fields = game.player_fields(seat.id)
            else:
                fields = {"out": False, **self.ruleset.lobby_fields(self.options)}
            players.append(
                {
                    "id": seat.id,
                    "name": seat.name,
                    "connected": seat.id in connected,
                    "activity": connected.get(seat.id) if seat.id in connected else None,
                    "waiting": seat.waiting,
                    "left": seat.left,
                    **fields,
                }
            )
        view = {
            "room": self.code,
            "rules": self.rules,
            "version": self.version,
            "phase": self.phase,
            "you": player,
            "host": self.host,
            "players": players,
            "options": dict(self.options),
            "turn": None,
            "allowed": [],
            "announcement": None,
            "dice": None,
            "reveal": None,
            "winner": None,
        }
        if game is not None:
            view.update(game.view_for(player))
        if self.phase != "playing" and device == self.host and len(self.members()) >= self.ruleset.MIN_PLAYERS:
            view["allowed"] = ["start"]
        if self.shared:
            waiting = game.waiting_for() if game is not None and self.phase == "playing" else []
            view["shared"] = {"holder": self.holder, "next": None if self.holder else (waiting or [None])[0]}
        return view

    # --- storage ----------------------------------------------------------

    def to_dict(self) -> dict:
        """The room as plain data for a store."""
        return {
            "code": self.code,
            "rules": self.rules,
            "options": dict(self.options),
            "seats": [asdict(s) for s in self.seats],
            "host": self.host,
            "version": self.version,
            "phase": self.phase,
            "game": self.game.to_dict() if self.game else None,
            "touched": self.touched,
            "shared": self.shared,
            "holder": self.holder,
        }

    @classmethod
    def from_dict(cls, data: dict, dice) -> "Room":
        """A room restored from `to_dict` output."""
        game = RULESETS[data["rules"]].from_dict(data["game"], dice) if data["game"] else None
        return cls(
            code=data["code"],
            rules=data["rules"],
            options=dict(data["options"]),
            seats=[Seat(**s) for s in data["seats"]],
            host=data["host"],
            version=data["version"],
            phase=data["phase"],
            game=game,
            touched=data["touched"],
            shared=data.get("shared", False),
            holder=data.get("holder"),
        )


class Rooms:
    """The registry every transport calls; thread-safe, one lock per room.

    `push(code, views, gone)` is called under the room's lock after every
    change, with a fresh view for each connected member and the ids of
    players who are no longer members; the lock keeps pushes in order.
    """

    def __init__(self, store=None, dice=None, clock=time.time, ttl=ROOM_TTL, push=None):
        self.store = store if store is not None else MemoryStore()
        self.dice = dice if dice is not None else SystemDice()
        self.clock = clock
        self.ttl = ttl
        self.push = push
        self._guard = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}
        self._connections: dict[str, dict[str, int]] = defaultdict(dict)
        self._activity: dict[str, dict[str, str]] = defaultdict(dict)

    @contextmanager
    def _locked(self, code):
        with self._guard:
            lock = self._locks.get(code)
            if lock is None:
                # No lock for a code nobody created: guessing codes costs no memory.
                if self.store.load(code) is None:
                    raise IllegalMove("room_not_found", "There is no room with that code.")
                lock = self._locks.setdefault(code, threading.Lock())
        with lock:
            data = self.store.load(code)
            if data is None:
                raise IllegalMove("room_not_found", "There is no room with that code.")
            yield Room.from_dict(data, self.dice)

    def _commit(self, room: Room, before: set[str]):
        """Save a changed room, then tell everyone connected."""
        room.version += 1
        room.touched = self.clock()
        self._activity.pop(room.code, None)  # every change ends a shake or a peek
        if not room.members():
            self.store.delete(room.code)
        else:
            self.store.save(room.code, room.to_dict(), room.game.drain_rolls() if room.game else ())
        self._notify(room, gone=[p for p in before if room.seat(p) is None])

    def _notify(self, room: Room, gone=()):
        for player in gone:
            self._connections[room.code].pop(player, None)
        connected = self.connected(room.code)
        if self.push is not None:
            views = {p: room.view_for(p, connected) for p in connected if room.seat(p)}
            self.push(room.code, views, list(gone))

    def connected(self, code: str) -> dict[str, str | None]:
        """Players with an open connection to the room, with their activity."""
        activity = self._activity.get(code, {})
        return {p: activity.get(p) for p, n in self._connections.get(code, {}).items() if n > 0}

    # --- what the transports call ------------------------------------------

    def _store_new(self, room: Room):
        """Give a new room a free code and save it."""
        with self._guard:
            while True:
                room.code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
                if self.store.load(room.code) is None:
                    break
            self._locks[room.code] = threading.Lock()
            self.store.save(room.code, room.to_dict())

    def create(self, name, rules=DEFAULT) -> dict:
        """A new room with its creator as host."""
        rules = _ruleset(DEFAULT if rules is None else rules)
        room = Room(None, rules, RULESETS[rules].default_options(), [], None, touched=self.clock())
        seat, token = room.add(name)
        room.host = seat.id
        self._store_new(room)
        return {"code": room.code, "player": seat.id, "token": token}

    def create_shared(self, names, rules="poschen") -> dict:
        """A one-phone table: every name seated, the game started, the cover up."""
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise IllegalMove("bad_request", "names must be a list of names.")
        rules = _ruleset(rules or "poschen")
        ruleset = RULESETS[rules]
        if not ruleset.SHARED_PHONE:
            raise IllegalMove("bad_value", f"{ruleset.TITLE} needs a phone for each player.")
        if not ruleset.MIN_PLAYERS <= len(names) <= MAX_SEATS:
            raise IllegalMove("bad_value", f"Enter {ruleset.MIN_PLAYERS} to {MAX_SEATS} names.")
        room = Room(None, rules, ruleset.default_options(), [], None, touched=self.clock())
        device, token = room.add(names[0])
        for name in names[1:]:
            seat, _ = room.add(name)
            seat.token_hash = None  # only the device holds a token
        room.shared = True  # from now on nobody joins: see Room.add
        room.host = device.id
        room.apply(device.id, {"action": "start"}, {}, self.dice)
        self._store_new(room)
        return {"code": room.code, "player": device.id, "token": token}

    def join(self, code, name) -> dict:
        """Seat `name` in the room (waiting when a game runs)."""
        with self._locked(normalize_code(code)) as room:
            before = {s.id for s in room.members()}
            seat, token = room.add(name)
            self._commit(room, before)
        return {"player": seat.id, "token": token}

    def authenticate(self, code, token) -> str:
        """The player id a token stands for in that room."""
        code = normalize_code(code)
        data = self.store.load(code)
        if data is None:
            raise IllegalMove("room_not_found", "There is no room with that code.")
        if isinstance(token, str) and token:
            digest = hash_token(token)
            for seat in data["seats"]:
                if seat["token_hash"] is not None and secrets.compare_digest(seat["token_hash"], digest):
                    return seat["id"]
        raise IllegalMove("bad_token", "That seat is not yours (unknown or revoked token).")

    def locate(self, token) -> tuple[str, str]:
        """(room code, player id) for a token alone."""
        if not isinstance(token, str) or not token:
            raise IllegalMove("bad_token", "A token is needed.")
        code = self.store.find_token(hash_token(token))
        if code is None:
            raise IllegalMove("bad_token", "That seat is not yours (unknown or revoked token).")
        return code, self.authenticate(code, token)

    def view(self, code, player) -> dict:
        """The current view of one member."""
        code = normalize_code(code)
        data = self.store.load(code)
        if data is None:
            raise IllegalMove("room_not_found", "There is no room with that code.")
        room = Room.from_dict(data, self.dice)
        if room.seat(player) is None:
            raise IllegalMove("bad_token", "You are not in this room.")
        return room.view_for(player, self.connected(code))

    def act(self, code, player, payload) -> dict:
        """Apply one action and return the actor's new view."""
        with self._locked(normalize_code(code)) as room:
            version = payload.get("version") if isinstance(payload, dict) else None
            if version is not None:
                if type(version) is not int:
                    raise IllegalMove("bad_request", "version must be a whole number.")
                if version != room.version:
                    action = payload.get("action")
                    better = room.game.stale_message(action) if room.game and isinstance(action, str) else None
                    raise IllegalMove("stale", room.with_names(better or "The table has moved on; look again."))
            before = {s.id for s in room.members()}
            connected = self.connected(room.code)
            room.apply(player, payload, connected, self.dice)
            self._commit(room, before)
            return room.view_for(player, self.connected(room.code)) if room.seat(player) else None

    def connect(self, code, player):
        """A connection of `player` opened: push views with the same version."""
        with self._locked(code) as room:
            if room.seat(player) is None:
                raise IllegalMove("bad_token", "You are not in this room.")
            counts = self._connections[code]
            counts[player] = counts.get(player, 0) + 1
            self._notify(room)

    def disconnect(self, code, player):
        """A connection of `player` closed."""
        try:
            with self._locked(code) as room:
                counts = self._connections[code]
                if counts.get(player, 0) > 0:
                    counts[player] -= 1
                    if counts[player] == 0:
                        del counts[player]
                        self._activity[code].pop(player, None)
                        self._notify(room)
        except IllegalMove:
            pass  # the room is gone

    def signal(self, code, player, activity):
        """A player starts or stops shaking or peeking; others see it, nothing more."""
        if activity is not None and activity not in ACTIVITIES:
            raise IllegalMove("bad_request", f"activity is one of {', '.join(ACTIVITIES)} or null.")
        with self._locked(normalize_code(code)) as room:
            if player not in self.connected(room.code):
                raise IllegalMove("bad_token", "Connect first.")
            view = room.view_for(player, {})
            if activity == "shaking" and "shake" not in view["allowed"]:
                raise IllegalMove("not_allowed", "It is not your turn to shake.")
            if activity == "peeking" and view["dice"] is None:
                raise IllegalMove("not_allowed", "There is nothing under your cup.")
            if self._activity[room.code].get(player) != activity:
                if activity is None:
                    self._activity[room.code].pop(player, None)
                else:
                    self._activity[room.code][player] = activity
                self._notify(room)

    def sweep(self) -> list[str]:
        """Drop rooms untouched for `ttl` seconds and with nobody connected."""
        cutoff = self.clock() - self.ttl
        dropped = []
        for code in self.store.untouched_since(cutoff):
            with self._guard:
                lock = self._locks.setdefault(code, threading.Lock())
            with lock:
                data = self.store.load(code)
                if data is None or data["touched"] >= cutoff or self.connected(code):
                    continue
                self.store.delete(code)
            with self._guard:
                self._locks.pop(code, None)
                self._connections.pop(code, None)
            dropped.append(code)
        return dropped
