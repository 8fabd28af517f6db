"""Mäxchen, docs/rules.md "Mäxchen": two dice under one cup, passed on; penalty points, out at 5 (or 3 or 7)."""

from functools import cache

from ... import fair
from ...errors import IllegalMove
from ...rules import two_dice
from ...rules.game import HINT, Game, Option


@cache
def _following(follows, previous: int | None) -> tuple[int, ...]:
    """The values `follows` lets follow `previous`, lowest first."""
    return tuple(value for value in two_dice.VALUES if follows(value, previous))


class MaexchenGame(Game):
    """Mäxchen, docs/rules.md §2: penalty points, out at 5 (the host's `out_at`), accept after 21."""

    NAME = "maexchen"
    TITLE = "Mäxchen"
    ACTIONS = ("shake", "believe", "check", "accept", "announce")
    CLAIM = "announce"
    CHALLENGE = "check"
    # Out at this many points (docs/rules.md §2); the teaching hint: beside each announcement the odds of a
    # fresh roll (a classroom asks).
    OPTIONS = {"out_at": Option(default=5, choices=(3, 5, 7)), "hint": HINT}
    LENGTH = "out_at"
    _LATER = {**Game._LATER, "seal": None, "pending": None, "record": None}

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
        return self.score[player] >= self.options["out_at"]

    def _score_fields(self, player: str) -> dict:
        return {"points": self.score[player]}

    def standing_key(self, player: str) -> int:
        """Lower is better: fewer penalty points."""
        return self.score[player]

    def _may_accept(self) -> bool:
        return self.announcement["value"] == two_dice.MAEXCHEN

    def _may_believe(self) -> bool:
        return self.announcement["value"] != two_dice.MAEXCHEN

    @staticmethod
    def follows(value: int, previous: int | None) -> bool:
        """Whether `value` may be announced after `previous` (docs/rules.md §2: strictly higher)."""
        return two_dice.is_higher(value, previous)

    def _announcement_ok(self, value: int) -> bool:
        return self.follows(value, self.announcement["value"] if self.announcement else None)

    def announceable(self) -> list[int]:
        """The values the player with the turn may announce now."""
        return list(_following(self.follows, self.announcement["value"] if self.announcement else None))

    def _next_opener(self, loser: str, checker: str) -> str:
        """docs/rules.md §2: the penalised player opens, or the next still in."""
        return loser

    # --- the shared turn loop --------------------------------------------

    @property
    def over(self):
        return self.winner is not None

    def active(self) -> list[str]:
        """Players still in the game, in seating order."""
        return [p for p in self.players if p not in self.out]

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
        self.seal = None  # a cup rolled before the seeds: its salt and commitment (maxchen/fair.py)
        self.record = None  # the cup on the table: what its dice were read from (fair.cup)
        self.pending = self._pending(opener)  # the next cup's server seed, its commit shown before the shake

    def waiting_for(self):
        return [] if self.over else [self.turn]

    def moved(self):
        return self.cup is not None or bool(self.history)  # a believed cup leaves the round its announcement

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
            value = two_dice.parse_value(payload.get("value"))
            if value is None:
                raise IllegalMove("bad_announcement")
            if not self._announcement_ok(value):
                raise IllegalMove("not_higher")
            self._announce(player, value)
        elif action == "shake":
            self._shake(player, fair.client_seed(payload.get("seed")))
        else:
            self._MOVES[action](self, player)

    def _log_cup(self, outcome, answerer=None):
        """The cup leaves the table (`outcome`, answered by `answerer`): its roll goes to the pending roll log."""
        if self.cup is None:
            return
        announced = (
            self.announcement["value"] if self.announcement and self.announcement["player"] == self.cup_owner else None
        )
        value = two_dice.value_of(self.cup)
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
                "fair": self.record,
            }
        )
        if announced is not None and found is None and two_dice.rank(value) < two_dice.rank(announced):
            # A lie passed on unseen: counted, and the count told only when the game is over. Whose
            # lie and what was under the cup are never told: nobody saw those dice.
            self.tally["unseen_lies"] += 1

    def _believe(self, player):
        # The previous cup is lifted off the table unseen.
        self._log_cup("believed", player)
        self.cup = None
        self.cup_owner = None
        self.seal = self.record = None  # its seeds are told when the game is over (the roll log)
        self.pending = self._pending(player)
        self.step = "shake"

    def _shake(self, player, seed=None):
        # A round saved before the seeds has no commit yet: it gets one now.
        self.record = self._cup(player, self.pending, seed)
        self.cup = sorted(self.dice.cast(self.DICE, self.record), reverse=True)
        self.cup_owner = player
        self.pending = self.seal = None
        self.step = "announce"

    def _announce(self, player, value):
        self.announcement = {"player": player, "value": value}
        self.history.append(dict(self.announcement))
        self.turn = self.next_after(player)
        self.step = "decide"

    def _check(self, player):
        announcer = self.announcement["player"]
        announced = self.announcement["value"]
        actual = two_dice.value_of(self.cup)
        loser = player if two_dice.checker_loses(actual, announced) else announcer
        penalty = two_dice.check_penalty(announced)
        self._log_cup("true" if loser == player else "lie", player)
        self._count_check(caught=loser == announcer)
        self.reveal = {
            "kind": "check",
            "round": self.round,
            "announcer": announcer,
            "checker": player,
            "value": announced,
            "before": self.history[-2]["value"] if len(self.history) > 1 else None,  # the claim it beat
            "dice": list(self.cup),
            # The server seed whose commit every phone got before the shake: now anyone can roll the dice
            # again. (A cup rolled before the seeds has a salt that opens its seal instead.)
            "fair": self.record,
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
            "fair": None,
            "salt": None,
            "commitment": None,
            "actual": None,
            "loser": player,
            "penalty": two_dice.ACCEPT_PENALTY,
        }
        self._end_round(player, two_dice.ACCEPT_PENALTY, checker=player)

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
        self._finish(active[0] if active else None)
        return True

    def _finish(self, winner) -> None:
        self.winner = winner
        self.turn = None
        self.step = None
        self.cup = None
        self.cup_owner = None
        self.seal = self.record = self.pending = None

    def remove(self, player):
        """docs/rules.md §5: out for good; mid-round the round is void."""
        if player not in self.players or player in self.left:
            return
        self.left.append(player)
        if player in self.out or self.over:
            return
        had_turn = self.turn
        self._void_round()
        self.out.append(player)
        if self._finish_if_decided():
            return
        opener = had_turn if had_turn != player else self.next_after(player)
        self._new_round(opener)
        self.voided = {"player": player, "round": self.round}

    def _void_round(self):
        self._log_cup("void")
        self._count_void()

    def _ranked(self, best_first):
        self.final = [*best_first, *reversed(self.out)]
        self._finish(best_first[0])

    def player_fields(self, player):
        return {"out": player in self.out, **self._score_fields(player)}

    def answers(self, player):
        if player == self.turn and self.step == "decide":
            return dict(self.announcement, round=self.round)
        return None

    def view_for(self, player):
        mine = self.cup is not None and self.cup_owner == player
        allowed = self.allowed(player)
        return {
            "round": self.round,
            "turn": None if self.over else {"player": self.turn, "step": self.step},
            "allowed": allowed,
            "choices": self.announceable() if "announce" in allowed else [],
            "announcement": dict(self.announcement) if self.announcement else None,
            "history": [dict(entry) for entry in self.history],
            "dice": list(self.cup) if mine else None,
            # The commit of the cup about to be rolled, then of the cup on the table, with the roller's
            # seed; its server seed stays here. A cup rolled before the seeds shows its seal instead.
            "fair": fair.public(self.record or self.pending),
            "commitment": self.seal["commitment"] if self.seal else None,
            # A reveal saved before the seals had no salt, and before the seeds no record.
            "reveal": {"salt": None, "commitment": None, "fair": None, **self.reveal} if self.reveal else None,
            "winner": self.winner,
            # Best first: the winner, then the last one out (those who left, when they left).
            "ranking": (self.final or [self.winner, *reversed(self.out)]) if self.over else None,
            "tally": self.tally_view(),
            "voided": self.voided_view(),
        }

    _MOVES = {"believe": _believe, "shake": _shake, "check": _check, "accept": _accept}

    _STATE = [
        "options",
        "players",
        "tally",
        "voided",
        "score",
        "out",
        "left",
        "winner",
        "final",
        "round",
        "reveal",
        "turn",
        "step",
        "announcement",
        "history",
        "cup",
        "cup_owner",
        "seal",
        "record",
        "pending",
    ]
