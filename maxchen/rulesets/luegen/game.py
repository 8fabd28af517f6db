"""Lügen, docs/rules.md "Lügen": liar's dice with three dice each and beer mats.

Everyone shakes their own cup at the start of a round; bids ("COUNT × FACE",
ones are jokers) go round from the opener; anyone but the last bidder may
doubt at any moment. Mats are handed out from the stack (phase 1), then
played down between the two players of a doubt (phase 2), until one loser.
"""

from ...errors import IllegalMove
from ...rules.bidding import BiddingGame, count_matches, plain_raise
from ...rules.game import HINT, Option, plain_copy

DICE = 3
FACES = (2, 3, 4, 5, 6)
__all__ = ["DICE", "FACES", "LuegenGame", "bid_beats", "count_matches"]


bid_beats = plain_raise  # docs/rules.md §4: same count with a higher face, or a higher count with any face


class LuegenGame(BiddingGame):
    """Liar's dice with beer mats (Deckel) for 3 to 10 players."""

    NAME = "luegen"
    TITLE = "Lügen"
    DICE = DICE
    FACES = FACES
    NOT_IN = "you_are_safe"
    MIN_PLAYERS = 3
    ACTIONS = ("shake", "bid", "doubt")
    CLAIM = "bid"
    CHALLENGE = "doubt"
    OPTIONS = {
        "mats": Option(default=12, low=2, high=30),
        "playoff": Option(default="equal", choices=("equal", "last_two")),
        "hint": HINT,
    }
    LENGTH = "mats"
    SHARED_PHONE = False
    _LATER = {**BiddingGame._LATER, "seals": {}, "safe_at": {}}

    def __init__(self, players, options=None, dice=None):
        super().__init__(players, options, dice)
        self.mats = dict.fromkeys(self.players, 0)
        self.stack = self.options["mats"]
        self.stage = "handing_out"
        self.safe: list[str] = []  # in the order they got safe
        self.safe_at: dict[str, int] = {}  # player -> the moment they got safe (1, 2, ...): those of one are tied
        self.loser = None
        self._new_round(self.players[0])

    @classmethod
    def lobby_fields(cls, options):
        return {"mats": 0, "safe": False}

    # --- who is in ----------------------------------------------------------

    @property
    def winner(self):
        """Lügen has a loser, not a winner."""
        return None

    @property
    def over(self):
        return self.loser is not None or len(self.active()) < 2

    def active(self) -> list[str]:
        """Players still in the game (not safe, not gone), in seating order."""
        return [p for p in self.players if p not in self.safe and p not in self.left]

    # --- actions --------------------------------------------------------------

    def allowed(self, player):
        active = self.active()
        if self.loser is not None or len(active) < 2 or player not in active:  # over, or not in
            return []
        if self.cups.get(player) is None:
            return ["shake"]
        if self.turn is None:
            return []
        # At the highest possible bid, only a doubt is left.
        actions = ["bid"] if player == self.turn and self.can_raise() else []
        if self.bid is not None and self.bid["player"] != player:
            actions.append("doubt")
        return actions

    def _call(self, caller, call):
        self._doubt(caller)

    def _why_not(self, player, action) -> IllegalMove:
        if action == "bid" and self.turn not in (None, player):
            return IllegalMove("not_your_bid")
        if action == "doubt" and self.bid is None and self.reveal and self.reveal["round"] == self.round - 1:
            return IllegalMove("faster", name=self.reveal["doubter"])
        if action == "doubt" and self.bid is not None:
            return IllegalMove("own_bid")
        if action in ("bid", "doubt") and self.turn is None:
            return IllegalMove("cups_unshaken")
        return IllegalMove("cannot_now", action=str(action))

    def stale(self, action: str) -> IllegalMove | None:
        if action == "doubt" and self.reveal and self.reveal.get("doubter"):
            return IllegalMove("faster", code="stale", name=self.reveal["doubter"])
        return None

    def answers(self, player):
        if {"bid", "doubt"} & set(self.allowed(player)):
            return {"round": self.round, "bid": dict(self.bid) if self.bid else None}
        return None

    def _legal(self, count, face):
        return bid_beats(count, face, self.bid)

    def _doubt(self, doubter):
        bid = self.bid
        bidder = bid["player"]
        found = count_matches(self.cups.values(), bid["face"])
        loser, winner = (doubter, bidder) if found >= bid["count"] else (bidder, doubter)
        self._log_cups(doubter)
        self._count_check(caught=loser == bidder)
        mat_from = None
        if self.stage == "play_off":
            self.loser = loser  # docs/rules.md §4: the play-off doubt decides the game; no mat moves
        elif self.stage == "handing_out":
            self.stack -= 1
            self.mats[loser] += 1
            mat_from = "stack"
        else:
            self.mats[winner] -= 1
            self.mats[loser] += 1
            mat_from = winner
        self.reveal = {**self._opened("doubter", doubter, found), "loser": loser, "mat_from": mat_from}
        self._settle()
        if not self.over:
            self._new_round(loser)
        else:
            self._finish()

    def _settle(self):
        """Safe players leave; the stage moves on (docs/rules.md §4)."""
        if self.loser is not None:
            return
        if self.stage == "handing_out" and self.stack == 0:
            self._make_safe([p for p in self.active() if self.mats[p] == 0])
            self.stage = "playing_down"
        elif self.stage == "playing_down":
            self._make_safe([p for p in self.active() if self.mats[p] == 0])
        active = self.active()
        if len(active) == 1:
            self.loser = active[0]
            return
        equal = len({self.mats[p] for p in active}) == 1
        if self.stage == "playing_down" and equal and (self.options["playoff"] == "equal" or len(active) == 2):
            self.stage = "play_off"

    def _make_safe(self, players):
        new = [p for p in players if p not in self.safe]
        moment = max(self.safe_at.values(), default=0) + 1
        self.safe.extend(new)
        self.safe_at.update(dict.fromkeys(new, moment))

    def tied(self, a, b) -> bool:
        return a in self.safe_at and self.safe_at.get(a) == self.safe_at.get(b)  # safe at one moment: one place

    def _safe_groups(self) -> list[list[str]]:
        """Who got safe, in order, those of one moment together (a game saved before the moments: one each)."""
        groups: list[list[str]] = []
        for i, p in enumerate(self.safe):
            if i and self.tied(p, self.safe[i - 1]):
                groups[-1].append(p)
            else:
                groups.append([p])
        return groups

    def _finish(self):
        # Everyone but the loser is safe; those still in join the order in seating order.
        self._make_safe([p for p in self.active() if p != self.loser])
        self.turn = None
        self.bid = None

    def _last_one_left(self):
        remaining = self.active()
        self.loser = remaining[0] if remaining and self.mats[remaining[0]] > 0 else None
        self._finish()

    def standing_key(self, player):
        return self.mats[player]  # fewer mats is better

    def _ranked(self, best_first):
        gone = [p for p in self.left if p not in self.safe]
        self.final = [*self.safe, *best_first[:-1], *gone, best_first[-1]]  # as a played-out game ranks
        self.loser = best_first[-1]
        self.turn = self.bid = None

    def _reopened(self):
        self._settle()  # docs/rules.md §4: a stage may have moved on without the one who left

    # --- views ------------------------------------------------------------------

    def player_fields(self, player):
        return {
            "out": player in self.safe or player in self.left,
            "mats": self.mats[player],
            "safe": player in self.safe,
            "rolled": self.cups.get(player) is not None,
        }

    def view_for(self, player):
        return {
            **self._round_view(player),
            "stack": self.stack,
            "stage": self.stage,
            # A reveal saved before the seals had no salts, and before the seeds no records.
            "reveal": {"salt": {}, "commitment": {}, "fair": {}, **plain_copy(self.reveal)} if self.reveal else None,
            "winner": None,
            "loser": self.loser,
            "safe_order": list(self.safe) if self.over else None,
            "safe_groups": self._safe_groups() if self.over else None,
            # Best first: safe in the order they got safe, those who left, the loser.
            "ranking": (self.final or self._ranking()) if self.over else None,
        }

    def _ranking(self) -> list[str]:
        return [*self.safe, *(p for p in self.left if p not in self.safe), *[self.loser] * bool(self.loser)]

    _STATE = (
        "options",
        "players",
        "tally",
        "voided",
        "mats",
        "stack",
        "stage",
        "safe",
        "safe_at",
        "left",
        "loser",
        "final",
        *BiddingGame.ROUND_STATE,
    )
