"""What the liar's-dice games share (Lügen, Perudo): everyone shakes a cup at once, bids go round, a call opens all.

docs/rules.md §4 and §6. A bid is "COUNT × FACE": at least COUNT dice on the
whole table show FACE, ones (pacos) counting too while they are jokers. A
game says which bids may follow which (`_legal`) and what a call does.
"""

import functools
from fractions import Fraction

from .. import fair
from ..errors import IllegalMove
from .bots import at_least
from .game import Game, plain_copy

JOKER = 1
HINT_SPAN = 2  # the hint's table: the bid's count and this many counts either side


def plain_raise(count: int, face: int, bid: dict | None) -> bool:
    """The raise of liar's dice: the same count with a higher face, or a higher count with any face."""
    if bid is None:
        return True
    return count > bid["count"] or (count == bid["count"] and face > bid["face"])


def count_matches(cups, face: int, wild: bool = True) -> int:
    """Dice on the table that count for `face`: ones too while they are jokers and the face is not one."""
    return sum(1 for cup in cups for die in cup if die == face or (wild and face != JOKER and die == JOKER))


def odds(view: dict) -> dict:
    """The teaching hint of a view's standing bid, by chance alone, as the board sees the table (every die
    unseen): the chance that at least COUNT of the dice in play count for it, and the same for the counts
    around it. A die counts with chance 1/3 (the face or a joker), or 1/6 for pacos and without jokers."""
    bid, dice = view["bid"], view["dice_in_play"]
    wild = view.get("palifico") is None and bid["face"] != JOKER  # ones count too (Lügen has no palifico)
    p = Fraction(1, 3) if wild else Fraction(1, 6)
    counts = range(max(1, bid["count"] - HINT_SPAN), min(dice, bid["count"] + HINT_SPAN) + 1)
    rows = [(k, _at_least(k, dice, p)) for k in counts]
    return {"chance": _at_least(bid["count"], dice, p), "wild": wild, "rows": rows}


_at_least = functools.cache(at_least)  # exact, and each page of a table draws it again


class BiddingGame(Game):
    """The round of a liar's-dice game: every cup shaken, then bids from the opener until a call."""

    FACES: tuple[int, ...] = ()  # the faces a bid may name
    BAD_BID = "bad_bid"  # the refusal of a bid that is no count and face
    NOT_IN = "you_are_out"  # the refusal of a player no longer in the game
    # The end of every `_STATE`.
    ROUND_STATE = ("round", "reveal", "opener", "cups", "seals", "bid", "bids", "turn", "records", "pending")
    # A round saved before the history starts with the standing bid; one saved before the seeds, with none.
    _LATER = {**Game._LATER, "bids": [], "records": {}, "pending": {}}

    def _new_round(self, opener: str) -> None:
        self.round += 1
        self.opener = opener if opener in self.active() else self.next_after(opener)
        self.cups = dict.fromkeys(self.active())
        self.seals = {}  # player -> the salt and commitment of a cup rolled before the seeds (maxchen/fair.py)
        self.records = {}  # player -> what their cup's dice were read from (fair.cup)
        self.pending = {player: self._pending(player) for player in self.cups}  # every cup's commit before the shakes
        self.bid = None
        self.bids = []  # the round's bids, oldest first: what the table heard
        self.turn = None  # bidding starts once every cup is shaken

    def dice_in_play(self) -> int:
        """How many dice are on the table this round."""
        return sum(self.cup_size(player) for player in self.cups)

    def wild(self) -> bool:
        """Whether ones are jokers this round."""
        return True

    def _legal(self, count: int, face: int) -> bool:
        """Whether COUNT × FACE may follow the standing bid (or open the round)."""
        raise NotImplementedError

    def _raise_reason(self) -> str:
        """The refusal of a bid that does not follow the standing one."""
        return "raise_bid"

    def can_raise(self) -> bool:
        """Whether any bid may follow the standing one (at the top bid only a call is left)."""
        # Highest counts first: where any bid is left, one of those is (the answer is the same either way).
        return any(self._legal(count, face) for count in range(self.dice_in_play(), 0, -1) for face in self.FACES)

    def choices(self) -> list[dict]:
        """Every legal bid now, lowest count first."""
        if self.over or self.turn is None:
            return []
        return [
            {"count": count, "face": face}
            for count in range(1, self.dice_in_play() + 1)
            for face in self.FACES
            if self._legal(count, face)
        ]

    def apply(self, player, action, payload=None):
        payload = payload or {}
        self._require_player(player)
        if player not in self.active():
            raise IllegalMove(self.NOT_IN)
        if action not in self.allowed(player):
            raise self._why_not(player, action)
        if action == "shake":
            self._shake(player, fair.client_seed(payload.get("seed")))
        elif action == "bid":
            self._bid(player, payload.get("count"), payload.get("face"))
        else:
            self._call(player, action)

    def _why_not(self, player, action) -> IllegalMove:
        """The refusal of an action not allowed now, as clear as the game can make it."""
        raise NotImplementedError

    def _call(self, caller, call) -> None:
        """A call on the standing bid: every cup is opened and the call judged."""
        raise NotImplementedError

    def waiting_for(self):
        if self.over:
            return []
        unrolled = [p for p in self.active() if self.cups.get(p) is None]
        return unrolled or [self.turn]

    def moved(self):
        return any(cup is not None for cup in self.cups.values())  # every round begins with the shakes

    def _shake(self, player, seed=None) -> None:
        # A round saved before the seeds has no commits yet: the cup gets one now.
        record = self._cup(player, self.pending.pop(player, None), seed)
        self.cups[player] = sorted(self.dice.cast(self.cup_size(player), record), reverse=True)
        self.records[player] = record
        if all(cup is not None for cup in self.cups.values()):
            self.turn = self.opener

    def _bid(self, player, count, face) -> None:
        """Raise the standing bid, or IllegalMove and nothing changes."""
        if type(count) is not int or type(face) is not int or face not in self.FACES:
            raise IllegalMove(self.BAD_BID)
        if not 1 <= count <= self.dice_in_play():
            raise IllegalMove("bad_count", dice=self.dice_in_play())
        if not self._legal(count, face):
            raise IllegalMove(self._raise_reason())
        if self.bid and not self.bids:  # a round saved before the history: it begins with the standing bid
            self.bids.append(dict(self.bid))
        self.bid = {"player": player, "count": count, "face": face}
        self.bids.append(dict(self.bid))
        self.turn = self.next_after(player)

    def _opened(self, caller_key: str, caller: str, found: int) -> dict:
        """The reveal of a call: the bid, what was found, every cup and the keys to their seals."""
        return {
            "round": self.round,
            "bidder": self.bid["player"],
            caller_key: caller,
            "count": self.bid["count"],
            "face": self.bid["face"],
            "found": found,
            "dice": plain_copy(self.cups),
            # The server seeds whose commits every phone got before the shakes, cup by cup: now anyone can roll
            # the dice again. (Cups rolled before the seeds have salts that open their seals instead.)
            "fair": plain_copy(self.records),
            "salt": {player: seal["salt"] for player, seal in self.seals.items()},
            "commitment": {player: seal["commitment"] for player, seal in self.seals.items()},
        }

    def _log_cups(self, caller=None, judged=True) -> None:
        """The round's cups leave the table: shown to all at a call, or unseen when the round is void.

        `judged`: the call tests whether the bid stood (a doubt, a dudo; not a
        calza), and the bidder's cup carries the verdict: `true`, or
        `too_high` (not a lie: the bidder saw only their own cup).
        """
        bid = self.bid if caller is not None else None
        wild = self.wild()
        table = count_matches(self.cups.values(), bid["face"], wild) if bid else None
        for player, cup in self.cups.items():
            if cup is None:
                continue
            stood = outcome = None
            if bid is None:
                outcome = "void"  # docs/rules.md §5: someone left, the round starts again; nobody saw these dice
            elif player == bid["player"] and judged:
                stood = table >= bid["count"]
                outcome = "true" if stood else "too_high"
            else:
                outcome = "shown"
            self._rolls.append(
                {
                    "dice": list(cup),
                    # The roll log's `value` of such a cup: its dice that count for the called face.
                    "value": count_matches([cup], bid["face"], wild) if bid else None,
                    "announced": None,
                    "bid": {"count": bid["count"], "face": bid["face"]} if bid else None,
                    "table": table,
                    "found": stood,
                    "public": bid is not None,
                    "round": self.round,
                    "player": player,
                    "answerer": caller,
                    "outcome": outcome,
                    "fair": self.records.get(player),
                }
            )

    def remove(self, player):
        """docs/rules.md §5: out for good; mid-round the round is void: its cups leave unseen, a new one opens."""
        if player not in self.players or player in self.left:
            return
        was_in = player in self.active() and not self.over
        self.left.append(player)
        if not was_in:
            return
        had_turn = self.turn
        self._log_cups()  # the round is void: its cups leave the table unseen
        self._count_void()
        self._gone(player)
        if len(self.active()) < 2:
            self._last_one_left()
            return
        opener = self._reopener(player, had_turn)
        self._new_round(opener if opener != player else self.next_after(player))
        self._reopened()
        self.voided = {"player": player, "round": self.round}

    def _void_round(self) -> None:
        self._log_cups()
        self._count_void()
        self.cups, self.seals, self.records, self.pending = {}, {}, {}, {}

    def _gone(self, player) -> None:
        """A player who left is out of the turns (`left` already holds them)."""

    def _last_one_left(self) -> None:
        """Everyone else left: the game ends."""
        raise NotImplementedError

    def _reopener(self, player, had_turn) -> str:
        """Who opens the round that starts again: who had the turn, else this round's opener (§5)."""
        return had_turn if had_turn not in (None, player) else self.opener

    def _reopened(self) -> None:
        """After the void round's new one opened."""

    def _fair_view(self) -> dict:
        return {p: fair.public(cup) for p, cup in {**self.pending, **self.records}.items()}

    def _round_view(self, player) -> dict:
        """What every liar's-dice view holds of the round: the turn, the choices, one's own cup, the seals."""
        mine = self.cups.get(player) if player in self.active() else None
        allowed = self.allowed(player)
        return {
            "round": self.round,
            "turn": None if self.over or self.turn is None else {"player": self.turn, "step": "bid"},
            "allowed": allowed,
            "choices": self.choices() if "bid" in allowed else [],
            "dice": list(mine) if mine else None,
            # Every cup's commit, from the round's start; once shaken, its roller's seed too. The server seeds
            # stay here. (Cups rolled before the seeds show their seals.)
            "fair": {} if self.over else self._fair_view(),
            "commitments": {p: seal["commitment"] for p, seal in self.seals.items()},
            "bid": dict(self.bid) if self.bid else None,
            "bids": [dict(b) for b in self.bids or [self.bid]] if self.bid else [],
            "dice_in_play": self.dice_in_play(),
            "can_raise": bool(self.bid) and not self.over and self.can_raise(),  # at the top bid only a call is left
            "tally": self.tally_view(),
            "voided": self.voided_view(),
        }
