"""A room and its seats as data with explicit actions. No Flask, no I/O.

A `Room` is plain data plus the room-level actions (start, configure, seat,
remove, leave, uncover); turn actions go to the rule set's `Game`. Its views:
`public_view` (what anyone at the table may see, watchers included) and
`view_for` (one seat's, with its private part).
"""

import hashlib
import math
import secrets
from dataclasses import dataclass
from fractions import Fraction

from . import fair, stats
from . import fastjson as json
from .dice import LoadedDice, Placed
from .errors import IllegalMove
from .names import clean_name, looks_like
from .rules.bots import STRATEGIES
from .rulesets import REGISTRY, RULESETS

# No 0/O and no 1/I/L: codes are read aloud and typed from a projector.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 5
MAX_SEATS = 10
ROOM_TTL = 6 * 3600
# Computer players take these names (mathematicians of chance), the first one free.
# At a class's table these are the teacher's (from the desk), not the student host's.
CLASS_DECIDES = frozenset(("start", "configure", "seat", "remove", "add_bot"))
RESULTS_KEPT = 100  # games whose result a room keeps
COUNTDOWN = (5, 90 * 60)  # the seconds a class's countdown may run: its lowest and highest
LOADINGS = ("1/4", "1/3", "1/2")  # how often a loaded table's dice may show a six (a lesson's hunt)
BOT_NAMES = ("Ada", "Blaise", "Carl", "Emmy", "Pierre", "Grace", "Kurt", "Sofia", "Alan", "Hypatia")


def new_code(length: int = CODE_LENGTH) -> str:
    """A fresh random code (a room's, or with `length` a class's): letters and digits nobody misreads."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(length))


def normalize_code(text) -> str:
    """A room code as stored (upper case), or IllegalMove `room_not_found`."""
    code = text.strip().upper() if isinstance(text, str) else ""
    if len(code) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in code):
        raise IllegalMove("room_not_found")
    return code


def ruleset_name(rules) -> str:
    """The name of a known rule set, or IllegalMove `bad_value`."""
    if not isinstance(rules, str) or rules not in RULESETS:
        raise IllegalMove("unknown_rules", rules=str(rules)[:20], choices=", ".join(RULESETS))
    return rules


def configured(payload: dict, rules_now: str, options_now: dict) -> tuple[str, dict]:
    """A configure action's rule set and options over the current ones; IllegalMove for any that is not so.

    An option's name outside `options` is refused: a script that sent {"out_at": 3} would see nothing change.
    """
    options = payload.get("options", {})
    if not isinstance(options, dict):
        raise IllegalMove("options_object")
    misplaced = [key for key in payload if any(key in game.OPTIONS for game in RULESETS.values())]
    if misplaced:
        raise IllegalMove("option_outside", key=str(misplaced[0])[:40])
    options = dict(options)
    rules = ruleset_name(options.pop("rules", payload.get("rules", rules_now)))
    return rules, RULESETS[rules].merged_options(options_now if rules == rules_now else None, options)


def hash_token(token: str) -> str:
    """Tokens are kept only as hashes, so a leaked store leaks no seat."""
    return hashlib.sha256(token.encode()).hexdigest()


def dice_of(loaded: dict | None, dice, game: int, room: str):
    """The dice room `room`'s game number `game` rolls with: `dice`, or from a loading's first game on loaded
    ones; each cup's record names the room and the game (maxchen/fair.py)."""
    if loaded is not None and game >= loaded["game"]:
        dice = LoadedDice(Fraction(loaded["six"]), dice)
    return Placed(dice, room, game)


@dataclass
class Seat:
    """One person in a room."""

    id: str
    name: str
    token_hash: str | None
    waiting: bool = False
    left: bool = False
    bot: str | None = None  # a computer player's strategy (it has no token: the server plays it)


def of_type(value, *types) -> bool:
    """`value` is of one of `types` (a bool counts as a number only where bool is named)."""
    return isinstance(value, types) and not (isinstance(value, bool) and bool not in types)


def readable(data: dict) -> bool:
    """A saved room's own fields have the types a room gives them (its game's are its rule set's to check)."""
    seats = data.get("seats")
    return (
        of_type(data.get("code"), str)
        and of_type(data.get("options"), dict)
        and of_type(data.get("version"), int)
        and of_type(data.get("touched"), int, float)
        and (data.get("host") is None or of_type(data["host"], str))
        and (data.get("game") is None or of_type(data["game"], dict))
        and of_type(data.get("games", 0), int)
        and (data.get("hunt_from") is None or of_type(data["hunt_from"], int))
        and data.get("closing") in (None, "hunt")
        and all(of_type(data.get(key) or [], list) for key in ("places", "results"))
        and of_type(data.get("counts") or {}, dict)
        and _counted((data.get("counts") or {}).get("hunt") or {})
        and (
            data.get("loaded") is None
            or of_type(data["loaded"], dict)
            and of_type(data["loaded"].get("revealed"), bool)
        )
        and of_type(data.get("hunting", False), bool)
        and of_type(seats, list)
        and all(
            of_type(seat, dict)
            and of_type(seat.get("id"), str)
            and of_type(seat.get("name"), str)
            and all(of_type(seat.get(flag, False), bool) for flag in ("waiting", "left"))
            and (seat.get("bot") is None or of_type(seat["bot"], str))
            for seat in seats
        )
    )


def _counted(faces) -> bool:
    """A hunt's count as saved: faces "1".."6" to whole numbers, none below 0."""
    return of_type(faces, dict) and all(
        k in "123456" and len(k) == 1 and of_type(n, int) and n >= 0 for k, n in faces.items()
    )


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
        since=None,
        counts=None,
        classroom=None,
        games=0,
        paused=False,
        ends_at=None,
        ended=None,
        results=None,
        places=None,
        loaded=None,
        hunting=False,
        hunt_from=None,
        closing=None,
    ):
        self.code = code
        # A class's table whose dice its teacher loaded: {"six": "1/4", "game": the first game rolled so,
        # "revealed": told to the table}. Only a revealed loading is in the views.
        self.loaded = loaded
        # Another table of a class whose teacher loaded one in secret: its reveals hold their server seeds
        # back as the loaded one's do, so that no table's reveals tell which is loaded (maxchen/fair.py).
        self.hunting = hunting
        # The first game whose dice a class's hunt counts here (stats.hunt_faces): the next one to begin when
        # the hunt started, at every table alike; None: no hunt yet.
        self.hunt_from = hunt_from
        # Why the game in play ends with its round ("hunt": the class's hunt begins with fresh games), or None.
        self.closing = closing
        self.paused = paused  # a class's table its teacher paused: nobody acts until the teacher resumes
        self.ends_at = ends_at  # a class's countdown (epoch seconds): after it, the game ends with its round
        self.ended = ended  # why the last game ended early: "teacher" (stopped) or "time" (the countdown)
        self.results: list[dict] = results or []  # each game's result, oldest first (the last `RESULTS_KEPT`)
        self.places = places  # the ranking's places when the last game ended early (equal standings tie)
        self.classroom = classroom  # the code of the class this room is a table of (maxchen.classroom)
        self.counts = counts or stats.new_counts()  # the rolls and checks of every game here (stats.shown)
        self.games = games  # games started here: the number of the current (or last) one
        # player -> [key of their private part, the version since when it is so]
        self.since: dict[str, list] = since or {}
        self._game_views: tuple[int, dict] | None = None  # (version, player -> the game's view): mark_private
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

    def people(self) -> list[Seat]:
        """The members who are not bots: without one, the room is over (bots play for people)."""
        return [s for s in self.members() if s.bot is None]

    def admit(self, name) -> str:
        """The name a newcomer would sit down with; IllegalMove when the table is full or has it already."""
        name = clean_name(name)
        members = self.members()
        if len(members) >= MAX_SEATS:
            raise IllegalMove("room_full", limit=MAX_SEATS)
        twin = next((s for s in members if looks_like(name, s.name)), None)
        if twin is not None:
            raise IllegalMove("name_taken", name=twin.name)
        return name

    def add(self, name: str, token_hash: str | None = None, bot: bool = False) -> tuple[Seat, str | None]:
        """Seat a newcomer with a new token; during a game they wait for the next one.

        With `token_hash` the newcomer holds a token already (a student's, of their class): no new one.
        """
        if self.shared:
            # The device's own seat acts and sees for whoever holds the phone.
            raise IllegalMove("one_phone")
        if self.classroom and token_hash is None and not bot:
            raise IllegalMove("class_table")  # a class's table seats its students, through the class
        name = self.admit(name)
        token = None if token_hash else secrets.token_urlsafe(24)
        seat = Seat(
            id=secrets.token_urlsafe(6),
            name=name,
            token_hash=token_hash or hash_token(token),
            waiting=self.phase == "playing",
        )
        self.seats.append(seat)
        return seat, token

    # --- actions ----------------------------------------------------------

    def apply(self, player: str, payload, connected: set, dice, teacher: bool = False, now=None) -> None:
        """One action by `player` (for a class's table: by its `teacher` through its host) at time `now`
        (for a class's countdown); IllegalMove leaves the room as it was."""
        try:
            if self.classroom and not teacher and isinstance(payload, dict):
                self._class_decides(payload, connected)
            lesson = payload.get("action") if isinstance(payload, dict) else None
            if isinstance(lesson, str) and lesson in self._LESSON_MOVES:
                if not (self.classroom and teacher):
                    raise IllegalMove("not_teacher")
                self._LESSON_MOVES[lesson](self, payload)
                return
            if self.paused and not teacher:
                raise IllegalMove("paused")
            round_before = self.game.round if self.phase == "playing" else None
            self._apply(player, payload, connected, dice)
            time_up = self.ends_at is not None and now is not None and now >= self.ends_at
            if (time_up or self.closing) and self.phase == "playing" and self.game.round != round_before:
                # docs/rules.md §7: at zero (or when a hunt begins) a table plays its round to the end, then stops
                self._end("time" if time_up else self.closing)
        except IllegalMove as error:
            raise self.named(error) from None

    def _class_decides(self, payload: dict, connected) -> None:
        """At a class's table the teacher starts, sets the game, seats, moves and adds bots; a student
        host may only remove a classmate whose phone went offline mid-game (it must not stop the game)."""
        action = payload.get("action")
        offline = action == "remove" and self.phase == "playing" and payload.get("player") not in connected
        if isinstance(action, str) and action in CLASS_DECIDES and not offline:
            raise IllegalMove("class_decides")

    # --- a class's teacher's moves, for every table at once (maxchen.classroom) --------

    def _pause(self, payload):
        self._pausing(True)

    def _resume(self, payload):
        self._pausing(False)

    def _pausing(self, paused: bool) -> None:
        if self.paused == paused:
            raise IllegalMove("already_paused" if paused else "not_paused")
        self.paused = paused

    def _stop(self, payload):
        """The game ends now, ranked as it stands (docs/rules.md §7)."""
        if self.phase != "playing":
            raise IllegalMove("no_game")
        self._end("teacher")

    def _countdown(self, payload):
        """The countdown's end (`ends_at`, epoch seconds), or none."""
        ends_at = payload.get("ends_at")
        if ends_at is not None and (type(ends_at) not in (int, float) or not math.isfinite(ends_at)):
            raise IllegalMove("countdown_seconds", low=COUNTDOWN[0], high=COUNTDOWN[1])
        self.ends_at = ends_at

    def _last_round(self, payload):
        """A class's hunt begins: the game in play ends with its round, so that the hunt's games begin soon."""
        if self.phase != "playing":
            raise IllegalMove("no_game")
        self.closing = "hunt"

    def _end(self, why: str) -> None:
        still_in = set(self.game.active())
        self.game.end_now()
        self.ended = why
        self._over(still_in)
        self.holder = None

    def _over(self, still_in=frozenset()) -> None:
        """The game has its result: the table keeps it, with the names (a class's summary shows them).

        A game ended early ranks the players `still_in` with equal standings in one place: a tie.
        """
        self.phase = "over"
        self.closing = None
        ranking = self.game.view_for(None).get("ranking") or []
        places = list(range(1, len(ranking) + 1))
        key = self.game.standing_key
        for i in range(1, len(ranking)):
            equal = {ranking[i], ranking[i - 1]} <= still_in and key(ranking[i]) == key(ranking[i - 1])
            if equal or self.game.tied(ranking[i], ranking[i - 1]):
                places[i] = places[i - 1]
        self.places = places if self.ended or places != list(range(1, len(ranking) + 1)) else None
        names = {s.id: s.name for s in self.seats}
        result = {"game": self.games, "ranking": [names.get(p) for p in ranking], "rounds": self.game.rounds_played()}
        self.results.append({**result, "places": places, "ended": self.ended})
        del self.results[:-RESULTS_KEPT]
        stats.count_game(self.counts, self.rules, self.game.options[self.game.LENGTH])

    @property
    def held(self) -> bool:
        """Whether the table's reveals hold their server seeds back (a lesson's hunt, until its reveal)."""
        return self.hunting or bool(self.loaded and not self.loaded["revealed"])

    def hunt(self, on: bool) -> None:
        """A class's other table: its reveals hold back their seeds while the class's loading is secret (`on`);
        from its next game on, the hunt counts its dice."""
        if not self.classroom:
            raise IllegalMove("not_teacher")
        self.hunting = on
        if self.hunt_from is None:  # a table opened after the hunt's reveal counts from its next game too
            self.hunt_from = self.games + 1

    @property
    def told_loading(self) -> dict | None:
        """The table's loading once its teacher revealed it (before that, nothing outside the store knows)."""
        return self.loaded if self.loaded and self.loaded["revealed"] else None

    def load_dice(self, six) -> None:
        """A class's table: its dice are loaded from its next game on, a six `six` of the time (one of
        `LOADINGS`). No view shows it until `reveal` (Rooms.load_dice saves it without a new version)."""
        if not self.classroom:
            raise IllegalMove("not_teacher")
        if six not in LOADINGS:
            raise IllegalMove("loading", choices=", ".join(LOADINGS))
        if self.loaded is not None:
            raise IllegalMove("already_loaded")
        self.loaded = {"six": six, "game": self.games + 1, "revealed": False}
        self.hunt_from = self.games + 1

    def _reveal(self, payload):
        """The table is told that its dice are loaded (they stay so)."""
        if self.loaded is None:
            raise IllegalMove("nothing_loaded")
        if self.loaded["revealed"]:
            raise IllegalMove("already_revealed")
        self.loaded["revealed"] = True

    _LESSON_MOVES = {
        "pause": _pause,
        "resume": _resume,
        "stop": _stop,
        "countdown": _countdown,
        "reveal": _reveal,
        "last_round": _last_round,
    }

    def named(self, error: IllegalMove) -> IllegalMove:
        """The refusal with a player id in its `name` param put as the player's name."""
        seat = next((s for s in self.seats if s.id == error.params.get("name")), None)
        if seat is not None:
            error.params["name"] = seat.name
        return error

    def _apply(self, player: str, payload, connected: set, dice) -> None:
        if not isinstance(payload, dict):
            raise IllegalMove("action_object")
        action = payload.get("action")
        if self.seat(player) is None:
            raise IllegalMove("not_member")
        if isinstance(action, str) and action in self._ROOM_MOVES:
            self._ROOM_MOVES[action](self, player, payload, connected, dice)
        elif isinstance(action, str) and action in self.ruleset.ACTIONS:
            if self.phase != "playing":
                raise IllegalMove("no_game")
            if self.shared:
                if self.holder is None:
                    raise IllegalMove("pass_first")
                player = self.holder
            if player not in self.game.players:
                raise IllegalMove("next_game")
            round_before = self.game.round
            self.game.apply(player, action, payload)
            if self.game.over:
                self._over()
            if self.holder not in self.game.waiting_for() or self.game.round != round_before:
                # The cover goes up: pass the phone on, or show the table the reveal.
                self.holder = None
        else:
            raise IllegalMove("unknown_action", action=str(action)[:20])

    def _require_host(self, player):
        if player != self.host:
            raise IllegalMove("not_host")

    def _require_no_game(self):
        if self.phase == "playing":
            raise IllegalMove("game_running")

    def _start(self, player, payload, connected, dice):
        self._require_host(player)
        self._require_no_game()
        members = self.members()
        if len(members) < self.ruleset.MIN_PLAYERS:
            raise IllegalMove("too_few", game=self.ruleset.TITLE, low=self.ruleset.MIN_PLAYERS)
        self.games += 1
        self.game = self.ruleset(
            [s.id for s in members], self.options, dice_of(self.loaded, dice, self.games, self.code)
        )
        self.ended = self.places = self.closing = None
        self.seats = members
        for seat in members:
            seat.waiting = False
        self.phase = "playing"

    def _add_bot(self, player, payload, connected, dice):
        """The host seats a computer player with a strategy (`honest`, `bluffer`, `statistician`)."""
        self._require_host(player)
        self._require_no_game()
        strategy = payload.get("strategy", "honest")
        if strategy not in STRATEGIES:
            raise IllegalMove("no_such_strategy", strategy=str(strategy)[:40], choices=", ".join(STRATEGIES))
        taken = [s.name for s in self.members()]
        name = next((n for n in BOT_NAMES if not any(looks_like(n, t) for t in taken)), None)
        if name is None:
            raise IllegalMove("room_full", limit=MAX_SEATS)
        seat, _ = self.add(name, bot=True)
        seat.token_hash = None  # nobody acts for it over the network
        seat.bot = strategy

    def _configure(self, player, payload, connected, dice):
        self._require_host(player)
        self._require_no_game()
        rules, options = configured(payload, self.rules, self.options)
        if self.shared and not RULESETS[rules].SHARED_PHONE:
            raise IllegalMove("needs_phones", game=RULESETS[rules].TITLE)
        self.options = options
        if rules != self.rules and self.game is not None:
            # The finished game belongs to the old rule set: a clean lobby for the new one.
            self.game = None
            self.phase = "lobby"
            self.seats = self.members()
            for seat in self.seats:
                seat.waiting = False
        self.rules = rules

    def _seat(self, player, payload, connected, dice):
        """The host moves a player to another seat (0 is first)."""
        self._require_host(player)
        self._require_no_game()
        target = payload.get("player")
        seat = self.seat(target) if isinstance(target, str) else None
        if seat is None:
            raise IllegalMove("no_such_player")
        index = payload.get("seat")
        if type(index) is not int or not 0 <= index < len(self.seats):
            raise IllegalMove("bad_seat", high=len(self.seats) - 1)
        self.seats.remove(seat)
        self.seats.insert(index, seat)

    def _remove(self, player, payload, connected, dice):
        self._require_host(player)
        target = payload.get("player")
        seat = self.seat(target) if isinstance(target, str) else None
        if seat is None:
            raise IllegalMove("no_such_player")
        if target == player:
            raise IllegalMove("leave_instead")
        if self.phase == "playing" and target in connected:
            raise IllegalMove("still_connected", name=seat.name)
        self._drop(seat, connected)

    def _uncover(self, player, payload, connected, dice):
        """Pass and play: the player the game waits for takes the phone."""
        if not self.shared:
            raise IllegalMove("not_shared")
        target = payload.get("player")
        if self.phase != "playing" or target not in self.game.waiting_for():
            raise IllegalMove("not_their_turn")
        self.holder = target

    def _leave(self, player, payload, connected, dice):
        self._drop(self.seat(player), connected)

    _ROOM_MOVES = {
        "start": _start,
        "configure": _configure,
        "seat": _seat,
        "remove": _remove,
        "leave": _leave,
        "uncover": _uncover,
        "add_bot": _add_bot,
    }

    def _drop(self, seat: Seat, connected: set):
        """docs/rules.md §5: out for good, token revoked, host handed on."""
        in_game = self.game is not None and seat.id in self.game.players
        if in_game:
            self.game.remove(seat.id)
            if self.game.over and self.phase == "playing":
                self._over()
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
        members = [p for p in after if self.seat(p) and self.seat(p).bot is None]  # a bot hosts nothing
        return next((p for p in members if p in connected), members[0] if members else None)

    # --- views ------------------------------------------------------------

    def view_for(self, player: str | None, connected: dict, players: list | None = None) -> dict:
        """Everything `player` may see of the room, nothing more.

        `connected` maps each connected player to what they are doing with
        their phone right now ("shaking", "peeking" or None). On a one-phone
        table the device sees what the uncovered player sees, or, while the
        cover is up, only what the whole table sees. `players`, the public
        list of `players_view`, may be passed in when many views are made.
        """
        view = self._view(self.holder if self.shared else player, connected, players)
        if self._may_start(player):
            view["allowed"] = ["start"]
        if self.shared:
            view["shared"] = self._shared()
        return view

    def _may_start(self, player) -> bool:
        enough = len(self.members()) >= self.ruleset.MIN_PLAYERS
        return self.phase != "playing" and player == self.host and not self.classroom and enough

    def _shared(self) -> dict:
        game = self.game
        waiting = game.waiting_for() if game is not None and self.phase == "playing" else []
        return {"holder": self.holder, "next": None if self.holder else (waiting or [None])[0]}

    def log_rolls(self, rolls) -> tuple[list[dict], int | None]:
        """Settled rolls of the game as the roll log keeps them (game number, names), counted.

        With them the number of the game whose unseen rolls the table may know
        now (it is over), or None: at the end of a game they count too.
        """
        names = {seat.id: seat.name for seat in self.seats}
        entries = [
            {
                **roll,
                "game": self.games,
                "name": names.get(roll["player"]),
                "answerer_name": names.get(roll.get("answerer")),
            }
            for roll in rolls
        ]
        stats.count_rolls(self.counts, entries, REGISTRY[self.rules].dice)
        unseen = any(not entry["public"] for entry in entries)
        hunted = self.hunt_from is not None and self.games >= self.hunt_from
        settled = self.phase == "over" and (stats.settle(self.counts, hunt=hunted) or unseen)
        return entries, (self.games if settled else None)

    def public_view(self, connected: dict, players: list | None = None) -> dict:
        """What everyone at the table may see: a seatless watcher's view."""
        view = self._view(None, connected, players)
        if self.shared:
            view["shared"] = self._shared()  # who holds the phone is no secret at the table
        return view

    def private_for(self, player: str) -> dict:
        """The part of `player`'s view that only they see, and all their moves answer.

        It changes only when what this player may do, or what their moves
        answer, changes: others connecting, peeking or shaking leave it alone
        (once my cup is shaken in a round that waits for every cup, it names
        whose cups it still waits for: a shake made changes that).
        """
        you = self.holder if self.shared else player
        game = self.game
        mine = self._game_view(you) if game is not None else {}
        seat = next((s for s in self.seats if s.id == you), None)
        turn = mine.get("turn")
        host = player == self.host
        decides = host and not self.classroom  # at a class's table the teacher does (from the desk)
        answers = game.answers(you) if game is not None and you else None
        standing = game.player_fields(you) if game is not None and you in game.players else {}
        shared = self._shared() if self.shared else None
        reveal = mine.get("reveal") if shared and not self.holder and self._just_revealed() else None
        # Only the names this part shows: a newcomer's name leaves everyone's controls alone.
        shown = {self.host, (answers or {}).get("player"), ((answers or {}).get("bid") or {}).get("player")}
        shown.add((shared or {}).get("next"))
        if reveal:
            shown.update(s.id for s in self.seats)  # the cover shows the last reveal
        # Every cup shaken at once (liar's dice): mine is, the bidding waits for these.
        shaking = [p for p in game.waiting_for() if p != you] if mine.get("dice") and turn is None else []
        shown.update(shaking)
        return {
            "you": you,
            "host": host,
            "decides": decides,
            "classroom": self.classroom is not None,
            "hosted_by": self.host,
            "phase": self.phase,
            "rules": self.rules,
            "options": dict(self.options) if decides and self.phase != "playing" else None,
            "allowed": [] if self.paused else ["start"] if self._may_start(player) else mine.get("allowed", []),
            "choices": [] if self.paused else mine.get("choices", []),
            "paused": self.paused,
            "dice": mine.get("dice"),
            "cup_size": game.cup_size(you) if game is not None else self.ruleset.first_cup(self.options),
            "step": turn["step"] if turn and turn["player"] == you else None,
            "answers": answers,
            "waiting": seat.waiting if seat else False,
            "out": standing.get("out", False),
            "safe": standing.get("safe", False),
            "shared": shared,
            "reveal": reveal,
            "shaking": shaking,
            "names": {s.id: s.name for s in self.seats if s.id in shown},
        }

    def _just_revealed(self) -> bool:
        """The last reveal is news: it ended the round before this one, and nobody has moved since (a one-phone
        table's cover shows it once, to the player who called it and the table; the next covers only pass on)."""
        reveal = self.game.reveal if self.game is not None and self.phase == "playing" else None
        return reveal is not None and reveal["round"] == self.game.round - 1 and not self.game.moved()

    def _game_view(self, player: str | None) -> dict:
        """The game's view for `player`; once per seat after a change (`mark_private`), which asks it for
        every seat and the pushes again for each."""
        views = self._game_views
        if views is None or views[0] != self.version:
            return self._told(self.game.view_for(player))
        if player not in views[1]:
            views[1][player] = self._told(self.game.view_for(player))
        return views[1][player]

    def _told(self, view: dict) -> dict:
        """A game's view as the table may see it: a reveal's seeds held back during a hunt."""
        reveal = view.get("reveal")
        if self.held and reveal and reveal.get("fair"):
            view["reveal"] = {**reveal, "fair": fair.held(reveal["fair"])}
        return view

    def mark_private(self) -> None:
        """Note, for each seat, the version since which its private part is unchanged (called after a change
        is made: from here to the room's saving and pushes, the game's views are made once)."""
        self._game_views = (self.version, {})
        for seat in self.members():
            key = hashlib.sha256(json.dumps(self.private_for(seat.id), sort_keys=True).encode()).hexdigest()[:16]
            if self.since.get(seat.id, [None])[0] != key:
                self.since[seat.id] = [key, self.version]
        for player in set(self.since) - {s.id for s in self.members()}:
            del self.since[player]

    def private_since(self, player: str) -> int:
        """The version since which `player`'s private part is what it is."""
        return self.since.get(player, [None, 0])[1]

    def _view(self, player: str | None, connected: dict, players: list | None = None) -> dict:
        game = self.game
        view = {
            "room": self.code,
            "rules": self.rules,
            "version": self.version,
            "phase": self.phase,
            "you": player,
            "host": self.host,
            "players": self.players_view(connected) if players is None else players,
            "options": dict(self.options),
            "turn": None,
            "allowed": [],
            "announcement": None,
            "dice": None,
            "reveal": None,
            "winner": None,
            "class_table": self.classroom is not None,
            "paused": self.paused,
            "ends_at": self.ends_at,
            "ended": self.ended,
            "closing": self.closing,
            "places": self.places,
            "loaded": self.told_loading["six"] if self.told_loading else None,
        }
        if game is not None:
            view.update(self._game_view(player))
        if self.paused:
            view["allowed"] = []
        return view

    def players_view(self, connected: dict) -> list[dict]:
        """Every seat as all may see it: name, presence, standing."""
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
                    "connected": seat.id in connected or seat.bot is not None,
                    "activity": connected.get(seat.id) if seat.id in connected else None,
                    "waiting": seat.waiting,
                    "left": seat.left,
                    "bot": seat.bot,
                    **fields,
                }
            )
        return players

    # --- storage ----------------------------------------------------------

    def to_dict(self) -> dict:
        """The room as plain data for a store."""
        return {
            "code": self.code,
            "rules": self.rules,
            "options": dict(self.options),
            "seats": [dict(vars(s)) for s in self.seats],
            "host": self.host,
            "version": self.version,
            "phase": self.phase,
            "game": self.game.to_dict(copy_state=False) if self.game else None,
            "touched": self.touched,
            "shared": self.shared,
            "holder": self.holder,
            "since": self.since,
            "counts": self.counts,
            "classroom": self.classroom,
            "paused": self.paused,
            "ends_at": self.ends_at,
            "ended": self.ended,
            "results": self.results,
            "places": self.places,
            "games": self.games,
            "loaded": self.loaded,
            "hunting": self.hunting,
            "hunt_from": self.hunt_from,
            "closing": self.closing,
        }

    @classmethod
    def from_dict(cls, data: dict, dice) -> "Room":
        """A room restored from `to_dict` output."""
        games = data.get("games", 1 if data["game"] else 0)  # saved before games were numbered
        loaded = data.get("loaded")
        dice = dice_of(loaded, dice, games, data["code"])
        game = RULESETS[data["rules"]].from_dict(data["game"], dice, copy_state=False) if data["game"] else None
        return cls(
            code=data["code"],
            rules=data["rules"],
            options=RULESETS[data["rules"]].with_defaults(data["options"]),  # saved before an option: its default
            seats=[Seat(**s) for s in data["seats"]],
            host=data["host"],
            version=data["version"],
            phase=data["phase"],
            game=game,
            touched=data["touched"],
            shared=data.get("shared", False),
            holder=data.get("holder"),
            since=data.get("since"),
            counts=data.get("counts"),
            classroom=data.get("classroom"),
            games=games,
            loaded=loaded,
            hunting=data.get("hunting", False),
            hunt_from=data.get("hunt_from"),
            closing=data.get("closing"),
            paused=data.get("paused", False),
            ends_at=data.get("ends_at"),
            ended=data.get("ended"),
            results=data.get("results"),
            places=data.get("places"),
        )


ROOM_ACTIONS = tuple(Room._ROOM_MOVES)  # what the room itself does (the game's moves are its rule set's)
