"""One game as a state machine: legal actions, apply, view_for(player).

`Game` is the interface every rule set implements (each in its package under
`maxchen/rulesets/`); the room and transport layers use nothing else. The
dice source is injected: anything with `roll(count) -> list[int]`.
"""

import copy
from dataclasses import dataclass

from .. import fair
from ..errors import IllegalMove


def plain_copy(data):
    """A copy of plain data (dicts, lists and scalars, as a game's state holds): deepcopy's result, faster."""
    if type(data) is dict:
        return {key: plain_copy(value) for key, value in data.items()}
    if type(data) is list:
        return [plain_copy(value) for value in data]
    return data


@dataclass(frozen=True)
class Option:
    """A host option of a rule set: an int range or a set of choices."""

    default: int | str
    low: int | None = None
    high: int | None = None
    choices: tuple = ()

    def check(self, name: str, value):
        """The value if it is allowed, else IllegalMove `bad_value` (a choice of the same type only: not 5.0 for 5)."""
        if self.choices:
            if type(value) is type(self.default) and value in self.choices:
                return value
            raise IllegalMove("option_choice", option=name, choices=", ".join(map(str, self.choices)))
        if type(value) is int and self.low <= value <= self.high:
            return value
        raise IllegalMove("option_range", option=name, low=self.low, high=self.high)

    def describe(self) -> dict:
        """The option as the view and the docs show it."""
        if self.choices:
            return {"default": self.default, "choices": list(self.choices)}
        return {"default": self.default, "min": self.low, "max": self.high}


HINT = Option(default="off", choices=("off", "on"))  # the teaching hint beside each claim (a classroom asks)

# What became of a logged roll: its claim checked and true, or a lie; believed or accepted unseen;
# shown by a doubt of another's bid (Lügen); left on the table when a round was void (docs/rules.md §5).
OUTCOMES = ("true", "lie", "too_high", "believed", "accepted", "shown", "void")  # too_high: a Lügen bid that fell


class Game:
    """The interface of a game, whatever its rule set."""

    NAME = ""
    TITLE = ""
    DICE = 2  # dice in each cup
    SHARED_PHONE = True  # playable on one phone passed around
    ACTIONS: tuple[str, ...] = ()
    CLAIM = ""  # the action that makes a claim from the dice (its choices in the view)
    CHALLENGE = ""  # the action that opens the cups on a claim
    MIN_PLAYERS = 2
    MAX_PLAYERS = 10
    OPTIONS: dict[str, Option] = {}
    # The option that sets how long a game lasts (points to go out, lives, mats, dice each): shown wherever the
    # game is summed up, and counted by the statistics (docs/rules.md, each rule set's "A shorter game").
    LENGTH = ""

    players: list[str]
    winner: str | None

    def __init__(self, players, options=None, dice=None):
        if not self.MIN_PLAYERS <= len(players) <= self.MAX_PLAYERS:
            raise IllegalMove("player_count", game=self.TITLE, low=self.MIN_PLAYERS, high=self.MAX_PLAYERS)
        self.options = {**self.default_options(), **(options or {})}
        self.dice = dice
        self._rolls: list[dict] = []
        self.players = list(players)
        self.left: list[str] = []
        self.round = 0
        self.reveal = None
        self.tally = self.new_tally()
        self.voided = None  # {"player", "round"}: who left mid-round, and the round that started again
        self.final = None  # the ranking of a game ended early (`end_now`), best first

    @staticmethod
    def new_tally() -> dict:
        """The game's numbers for its end screen: checks (or doubts), bluffs caught, lies that got through."""
        return {"checks": 0, "caught": 0, "unseen_lies": 0, "void": 0}

    def _count_check(self, caught: bool) -> None:
        self.tally["checks"] += 1
        self.tally["caught"] += int(caught)

    @classmethod
    def default_options(cls) -> dict:
        """Every option at its default."""
        return {name: option.default for name, option in cls.OPTIONS.items()}

    @classmethod
    def check_options(cls, options: dict) -> dict:
        """Validated options; unknown names and bad values raise `bad_value`."""
        if not isinstance(options, dict):
            raise IllegalMove("options_object")
        for name, value in options.items():
            if name not in cls.OPTIONS:
                raise IllegalMove("no_such_option", game=cls.TITLE, option=str(name)[:40])
            cls.OPTIONS[name].check(name, value)
        return dict(options)

    @classmethod
    def merged_options(cls, current: dict | None, changes: dict) -> dict:
        """`changes` (validated) over `current`, or over the defaults when there are none yet."""
        return {**(cls.default_options() if current is None else current), **cls.check_options(changes)}

    @classmethod
    def lobby_fields(cls, options: dict) -> dict:
        """What a seat shows before a game: fresh points, lives or mats."""
        raise NotImplementedError

    @classmethod
    def first_cup(cls, options: dict) -> int:
        """How many dice each player shakes in the first round of a game with `options` (the lobby's cup)."""
        return cls.DICE

    @property
    def over(self) -> bool:
        """True once the game has its result."""
        raise NotImplementedError

    def active(self) -> list[str]:
        """Players still in the game, in seating order."""
        raise NotImplementedError

    def next_after(self, player: str) -> str:
        """The next player after `player` in seating order who is still in."""
        start = self.players.index(player)
        active = set(self.active())
        for step in range(1, len(self.players) + 1):
            candidate = self.players[(start + step) % len(self.players)]
            if candidate in active:
                return candidate
        raise LookupError("nobody is left")

    def _pending(self, player: str) -> dict:
        """The commit of `player`'s next cup in this round, where it is rolled with it (maxchen/fair.py):
        the room and game from the dice of a table's game (dice.Placed), the seat from 1; a loaded game's
        weights (dice.LoadedDice) go into the commit, fixed before the shake."""
        place = (getattr(self.dice, "room", ""), getattr(self.dice, "game", 0))
        seat = self.players.index(player) + 1
        return fair.pending(*place, self.round, seat, draw=self._draw(), weights=getattr(self.dice, "weights", None))

    def _cup(self, player: str, before: dict | None, seed: str | None) -> dict:
        """`player`'s cup's record, from its pending cup (one saved before the seeds: a new one now)."""
        return fair.cup(before or self._pending(player), seed, draw=self._draw())

    def _draw(self):
        """Where seeds come from: the system's generator, or a replayed test's dice (dice.ReplayDice)."""
        return getattr(self.dice, "draw", fair.new_seed)

    def cup_size(self, player: str | None) -> int:
        """How many dice `player` shakes (the cup the phone draws)."""
        return self.DICE

    def waiting_for(self) -> list[str]:
        """The players the game waits for now."""
        raise NotImplementedError

    def allowed(self, player: str) -> list[str]:
        """The turn actions `player` may take now."""
        raise NotImplementedError

    def apply(self, player: str, action: str, payload: dict) -> None:
        """Apply one action, or raise IllegalMove and change nothing."""
        raise NotImplementedError

    def _require_player(self, player: str) -> None:
        """Refuse any move once the game is over, and from outside it."""
        if self.over:
            raise IllegalMove("game_over")
        if player not in self.players:
            raise IllegalMove("not_playing")

    def remove(self, player: str) -> None:
        """`player` leaves for good (docs/rules.md §5)."""
        raise NotImplementedError

    def tied(self, a: str, b: str) -> bool:
        """Whether two players of a played-out game share a place (Lügen: safe at one moment)."""
        return False

    def end_now(self) -> None:
        """The game ends at once, ranked by the standings as they are (a class's teacher stops it, or the
        lesson's time is up). The round in play is void: its cups leave the table unseen (docs/rules.md §7)."""
        if self.over:
            return
        self._void_round()
        self._ranked(sorted(self.active(), key=self.standing_key))  # equals keep their seating order

    def _void_round(self) -> None:
        """The round's cups leave the table unseen (logged as `void`)."""
        raise NotImplementedError

    def standing_key(self, player: str):
        """A player's standing as a sort key: lower is better."""
        raise NotImplementedError

    def _ranked(self, best_first: list[str]) -> None:
        """End the game with those still in ranked best first (`final`); nobody is put out by it."""
        raise NotImplementedError

    def player_fields(self, player: str) -> dict:
        """What everyone sees of one player's standing."""
        raise NotImplementedError

    def answers(self, player: str) -> dict | None:
        """What `player`'s moves answer now: the announcement or bid they would check or raise."""
        return None

    def stale(self, action: str) -> IllegalMove | None:
        """A clearer refusal for an action that lost a race (its `name` param a player id)."""
        return None

    def drain_rolls(self) -> list[dict]:
        """Rolls whose fate was settled since the last call, for the roll log.

        Each is {"dice", "value", "announced", "found", "public", "round",
        "player", "answerer", "outcome"}, and in Lügen "bid" and "table":
        `announced` is the value announced with that roll (or None), `found`
        whether a check (a doubt) found the claim true (None when nobody
        checked it), `public` whether the whole table saw the dice, `player`
        who rolled, `answerer` who believed, checked, accepted or doubted,
        `outcome` one of `OUTCOMES`. Lügen's rows of a doubt carry the bid
        and the count of its face on the whole table; `found` is on the
        bidder's cup.
        """
        rolls, self._rolls = self._rolls, []
        return rolls

    def view_for(self, player: str | None) -> dict:
        """The game part of the view: all `player` may see, nothing more."""
        raise NotImplementedError

    def moved(self) -> bool:
        """Whether a move was made in this round (its first shake is one)."""
        raise NotImplementedError

    def voided_view(self) -> dict | None:
        """Who left mid-round, while the round that started again because of it waits for its first move."""
        voided = self.voided
        fresh = voided and voided["round"] == self.round and not self.over and not self.moved()
        return dict(voided) if fresh else None

    def _count_void(self) -> None:
        """One more round void (someone left it, or the game ended in it): not one played."""
        self.tally["void"] = self.tally.get("void", 0) + 1

    def rounds_played(self) -> int:
        """Rounds played to their end: not those left void (docs/rules.md §5, §7)."""
        if "void" not in self.tally:  # saved before void rounds were counted: only an early end's last one
            return self.round - (self.final is not None)
        return self.round - self.tally["void"]

    def tally_view(self) -> dict | None:
        """The game's numbers, once it is over (before, lies that got through would tell on their tellers)."""
        if not self.over:
            return None
        return {
            "rounds": self.rounds_played(),
            "checks": self.tally["checks"],
            "caught": self.tally["caught"],
            "unseen_lies": self.tally["unseen_lies"],
        }

    _STATE: tuple[str, ...] = ()  # the attributes that make up a game's state
    # State that games saved before it existed start fresh without (an upgrade loses no room):
    # name -> its fresh value (the tally's is `new_tally()`).
    _LATER: dict = {"tally": None, "voided": None, "final": None}

    def to_dict(self, copy_state=True) -> dict:
        """The whole state as plain data, hidden dice included.

        `copy_state=False` hands out the game's own lists and dicts: only for
        serialising at once (a store), never to keep.
        """
        state = {name: getattr(self, name) for name in self._STATE}
        return copy.deepcopy(state) if copy_state else state

    @classmethod
    def from_dict(cls, data: dict, dice, copy_state=True) -> "Game":
        """A game restored from `to_dict` output (`copy_state=False`: data nobody else holds)."""
        game = cls.__new__(cls)
        game.dice = dice
        game._rolls = []
        for name in cls._STATE:
            if name not in data and name in cls._LATER:
                setattr(game, name, cls.new_tally() if name == "tally" else copy.deepcopy(cls._LATER[name]))
            else:
                setattr(game, name, copy.deepcopy(data[name]) if copy_state else data[name])
        game.options = cls.with_defaults(game.options)
        return game

    @classmethod
    def with_defaults(cls, options: dict) -> dict:
        """Saved options with every option they lack at its default (saved before that option existed)."""
        return {**cls.default_options(), **options}
