"""One game as a state machine: legal actions, apply, view_for(player).

`Game` is the interface every rule set implements; the room and transport
layers use nothing else. `MaexchenGame` is RULES.md §2. The dice source is
injected: anything with `roll(count) -> list[int]`.
"""

import copy
from dataclasses import dataclass

from . import fair, rules
from .errors import IllegalMove


@dataclass(frozen=True)
class Option:
    """A host option of a rule set: an int range or a set of choices."""

    default: int | str
    low: int | None = None
    high: int | None = None
    choices: tuple = ()

    def check(self, name: str, value):
        """The value if it is allowed, else IllegalMove `bad_value`."""
        if self.choices:
            if value in self.choices:
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


# What became of a logged roll: its claim checked and true, or a lie; believed or accepted unseen;
# shown by a doubt of another's bid (Lügen); left on the table when a round was void (RULES.md §5).
OUTCOMES = ("true", "lie", "too_high", "believed", "accepted", "shown", "void")  # too_high: a Lügen bid that fell


class Game:
    """The interface of a game, whatever its rule set."""

    NAME = ""
    TITLE = ""
    SCORE = "points"  # what a seat shows: "points", "lives" or "mats"
    DICE = 2  # dice in each cup
    SHARED_PHONE = True  # playable on one phone passed around
    ACTIONS: tuple[str, ...] = ()
    MIN_PLAYERS = 2
    MAX_PLAYERS = 10
    OPTIONS: dict[str, Option] = {}

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

    @staticmethod
    def new_tally() -> dict:
        """The game's numbers for its end screen: checks (or doubts), bluffs caught, lies that got through."""
        return {"checks": 0, "caught": 0, "unseen_lies": 0}

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
                raise IllegalMove("no_such_option", game=cls.TITLE, option=str(name))
            cls.OPTIONS[name].check(name, value)
        return dict(options)

    @classmethod
    def lobby_fields(cls, options: dict) -> dict:
        """What a seat shows before a game: fresh points, lives or mats."""
        raise NotImplementedError

    @property
    def over(self) -> bool:
        """True once the game has its result."""
        raise NotImplementedError

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
        """`player` leaves for good (RULES.md §5)."""
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

    def voided_view(self) -> dict | None:
        """Who left mid-round, while the round that started again because of it runs."""
        voided = self.voided
        return dict(voided) if voided and voided["round"] == self.round and not self.over else None

    def tally_view(self) -> dict | None:
        """The game's numbers, once it is over (before, lies that got through would tell on their tellers)."""
        if not self.over:
            return None
        return {
            "rounds": self.round,
            "checks": self.tally["checks"],
            "caught": self.tally["caught"],
            "unseen_lies": self.tally["unseen_lies"],
        }

    _STATE: tuple[str, ...] = ()  # the attributes that make up a game's state
    # State that games saved before it existed start fresh without (an upgrade loses no room):
    # name -> its fresh value (the tally's is `new_tally()`).
    _LATER: dict = {"tally": None, "voided": None}

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
        return game


class MaexchenGame(Game):
    """Mäxchen, RULES.md §2: penalty points, out at 5, accept after 21."""

    NAME = "maexchen"
    TITLE = "Mäxchen"
    ACTIONS = ("shake", "believe", "check", "accept", "announce")
    OUT_AT = 5
    # The teaching hint: beside each announcement the odds of a fresh roll (a classroom asks).
    OPTIONS = {"hint": Option(default="off", choices=("off", "on"))}
    _LATER = {**Game._LATER, "seal": None}

    def __init__(self, players, options=None, dice=None):
        super().__init__(players, options, dice)
        self.score = {player: self._start_score() for player in self.players}
        self.out: list[str] = []  # in the order they went out
        self.winner = None
        self._new_round(self.players[0])

    # --- what differs between two-dice rule sets -------------------------

    @classmethod
    def lobby_fields(cls, options):
        return {"points": 0}

    def _start_score(self) -> int:
        return 0

    def _penalize(self, player: str, amount: int) -> None:
        self.score[player] += amount

    def _is_eliminated(self, player: str) -> bool:
        return self.score[player] >= self.OUT_AT

    def _score_fields(self, player: str) -> dict:
        return {"points": self.score[player]}

    def _may_accept(self) -> bool:
        return self.announcement["value"] == rules.MAEXCHEN

    def _may_believe(self) -> bool:
        return self.announcement["value"] != rules.MAEXCHEN

    @staticmethod
    def follows(value: int, previous: int | None) -> bool:
        """Whether `value` may be announced after `previous` (RULES.md §2: strictly higher)."""
        return rules.is_higher(value, previous)

    def _announcement_ok(self, value: int) -> bool:
        return self.follows(value, self.announcement["value"] if self.announcement else None)

    def announceable(self) -> list[int]:
        """The values the player with the turn may announce now."""
        return [value for value in rules.VALUES if self._announcement_ok(value)]

    def _next_opener(self, loser: str, checker: str) -> str:
        """RULES.md §2: the penalised player opens, or the next still in."""
        return loser

    # --- the shared turn loop --------------------------------------------

    @property
    def over(self):
        return self.winner is not None

    def active(self) -> list[str]:
        """Players still in the game, in seating order."""
        return [p for p in self.players if p not in self.out]

    def next_after(self, player: str) -> str:
        """The next player after `player` in seating order who is still in."""
        start = self.players.index(player)
        for step in range(1, len(self.players) + 1):
            candidate = self.players[(start + step) % len(self.players)]
            if candidate not in self.out:
                return candidate
        raise LookupError("nobody is left")

    def _opener_from(self, player: str) -> str:
        return player if player not in self.out else self.next_after(player)

    def _new_round(self, opener: str) -> None:
        self.round += 1
        self.turn = opener
        self.step = "shake"
        self.announcement = None
        self.history: list[dict] = []
        self.cup = None
        self.cup_owner = None
        self.seal = None  # the cup's salt and commitment (maxchen/fair.py)

    def waiting_for(self):
        return [] if self.over else [self.turn]

    def allowed(self, player):
        if self.over or player != self.turn:
            return []
        if self.step == "decide":
            actions = []
            if self._may_believe():
                actions.append("believe")
            actions.append("check")
            if self._may_accept():
                actions.append("accept")
            return actions
        return [self.step]

    def apply(self, player, action, payload=None):
        payload = payload or {}
        self._require_player(player)
        if player in self.out:
            raise IllegalMove("you_are_out")
        if player != self.turn:
            raise IllegalMove("not_your_turn")
        if action not in self.allowed(player):
            raise IllegalMove("cannot_now", action=str(action))
        if action == "announce":
            # Validate before anything changes.
            value = rules.parse_value(payload.get("value"))
            if value is None:
                raise IllegalMove("bad_announcement")
            if not self._announcement_ok(value):
                raise IllegalMove("not_higher")
            self._announce(player, value)
        else:
            getattr(self, "_" + action)(player)

    def _log_cup(self, outcome, answerer=None):
        """The cup leaves the table (`outcome`, answered by `answerer`): its roll goes to the pending roll log."""
        if self.cup is None:
            return
        announced = (
            self.announcement["value"] if self.announcement and self.announcement["player"] == self.cup_owner else None
        )
        value = rules.value_of(self.cup)
        # Seen by all only at a check; a cup believed, accepted or voided leaves the table unseen.
        found = {"true": True, "lie": False}.get(outcome)
        self._rolls.append(
            {
                "dice": list(self.cup),
                "value": value,
                "announced": announced,
                "found": found,
                "public": found is not None,
                "round": self.round,
                "player": self.cup_owner,
                "answerer": answerer,
                "outcome": outcome,
            }
        )
        if announced is not None and found is None and rules.rank(value) < rules.rank(announced):
            # A lie passed on unseen: counted, and the count told only when the game is over. Whose
            # lie and what was under the cup are never told: nobody saw those dice.
            self.tally["unseen_lies"] += 1

    def _believe(self, player):
        # The previous cup is lifted off the table unseen.
        self._log_cup("believed", player)
        self.cup = None
        self.cup_owner = None
        self.seal = None  # its salt is never told: nobody saw those dice
        self.step = "shake"

    def _shake(self, player):
        self.cup = sorted(self.dice.roll(self.DICE), reverse=True)
        self.cup_owner = player
        self.seal = fair.seal(self.cup)
        self.step = "announce"

    def _announce(self, player, value):
        self.announcement = {"player": player, "value": value}
        self.history.append(dict(self.announcement))
        self.turn = self.next_after(player)
        self.step = "decide"

    def _check(self, player):
        announcer = self.announcement["player"]
        announced = self.announcement["value"]
        actual = rules.value_of(self.cup)
        loser = player if rules.checker_loses(actual, announced) else announcer
        penalty = rules.check_penalty(announced)
        self._log_cup("true" if loser == player else "lie", player)
        self._count_check(caught=loser == announcer)
        self.reveal = {
            "kind": "check",
            "round": self.round,
            "announcer": announcer,
            "checker": player,
            "value": announced,
            "dice": list(self.cup),
            # The key to the seal every phone got at the shake: now anyone can check the dice.
            "salt": self.seal["salt"] if self.seal else None,
            "commitment": self.seal["commitment"] if self.seal else None,
            "actual": actual,
            "loser": loser,
            "penalty": penalty,
        }
        self._end_round(loser, penalty, checker=player)

    def _accept(self, player):
        self._log_cup("accepted", player)
        self.reveal = {
            "kind": "accept",
            "round": self.round,
            "announcer": self.announcement["player"],
            "checker": player,
            "value": self.announcement["value"],
            "dice": None,
            "salt": None,
            "commitment": None,
            "actual": None,
            "loser": player,
            "penalty": rules.ACCEPT_PENALTY,
        }
        self._end_round(player, rules.ACCEPT_PENALTY, checker=player)

    def _end_round(self, loser, penalty, checker):
        self._penalize(loser, penalty)
        if self._is_eliminated(loser):
            self.out.append(loser)
        if self._finish_if_decided():
            return
        self._new_round(self._opener_from(self._next_opener(loser, checker)))

    def _finish_if_decided(self) -> bool:
        active = self.active()
        if len(active) > 1:
            return False
        self.winner = active[0] if active else None
        self.turn = None
        self.step = None
        self.cup = None
        self.cup_owner = None
        self.seal = None
        return True

    def remove(self, player):
        """RULES.md §5: out for good; mid-round the round is void."""
        if player not in self.players or player in self.left:
            return
        self.left.append(player)
        if player in self.out or self.over:
            return
        had_turn = self.turn
        self._log_cup("void")
        self.out.append(player)
        if self._finish_if_decided():
            return
        opener = had_turn if had_turn != player else self.next_after(player)
        self._new_round(opener)
        self.voided = {"player": player, "round": self.round}

    def player_fields(self, player):
        return {"out": player in self.out, **self._score_fields(player)}

    def answers(self, player):
        if player == self.turn and self.step == "decide":
            return dict(self.announcement, round=self.round)
        return None

    def view_for(self, player):
        mine = self.cup is not None and self.cup_owner == player
        return {
            "round": self.round,
            "turn": None if self.over else {"player": self.turn, "step": self.step},
            "allowed": self.allowed(player),
            "choices": self.announceable() if "announce" in self.allowed(player) else [],
            "announcement": dict(self.announcement) if self.announcement else None,
            "history": [dict(entry) for entry in self.history],
            "dice": list(self.cup) if mine else None,
            # The seal of the cup on the table, for everyone from the shake on; its salt stays here.
            "commitment": self.seal["commitment"] if self.seal else None,
            # A reveal saved before the seals had no salt.
            "reveal": {"salt": None, "commitment": None, **self.reveal} if self.reveal else None,
            "winner": self.winner,
            # Best first: the winner, then the last one out (those who left, when they left).
            "ranking": [self.winner, *reversed(self.out)] if self.over else None,
            "tally": self.tally_view(),
            "voided": self.voided_view(),
        }

    _STATE = [
        "options",
        "players",
        "tally",
        "voided",
        "score",
        "out",
        "left",
        "winner",
        "round",
        "reveal",
        "turn",
        "step",
        "announcement",
        "history",
        "cup",
        "cup_owner",
        "seal",
    ]
