"""Perudo, docs/rules.md §6: five dice each (or three or four), pacos wild, dudo, calza and palifico.

Everyone still in shakes all the dice they have at the start of a round;
bids ("COUNT × FACE") go round from the opener, and the player whose turn it
is raises, calls dudo, or calls calza. The loser of a call gives up a die;
a right calza wins one back. The last player with dice wins.
"""

import math

from ...errors import IllegalMove
from ...rules.bidding import JOKER as PACO
from ...rules.bidding import BiddingGame, count_matches, plain_raise
from ...rules.game import HINT, Option, plain_copy

FACES = (1, 2, 3, 4, 5, 6)
__all__ = ["FACES", "PACO", "PerudoGame", "count_matches", "raise_ok"]


def raise_ok(count: int, face: int, bid: dict | None, palifico: bool) -> bool:
    """Whether COUNT × FACE may follow `bid` (None: it opens the round), docs/rules.md §6."""
    if bid is None:
        return palifico or face != PACO
    if palifico:
        return face == bid["face"] and count > bid["count"]
    if bid["face"] == PACO:
        return count > bid["count"] if face == PACO else count >= 2 * bid["count"] + 1
    if face == PACO:
        return count >= math.ceil(bid["count"] / 2)
    return plain_raise(count, face, bid)


class PerudoGame(BiddingGame):
    """Perudo for 2 to 10 players: lose your dice one by one; the last one with dice wins."""

    NAME = "perudo"
    TITLE = "Perudo"
    DICE = 5  # in a full cup, at most
    FACES = FACES
    BAD_BID = "perudo_bad_bid"
    SHARED_PHONE = False
    ACTIONS = ("shake", "bid", "dudo", "calza")
    CLAIM = "bid"
    CHALLENGE = "dudo"
    OPTIONS = {
        "dice": Option(default=5, choices=(3, 4, 5)),  # each player's dice at the start (docs/rules.md §6)
        "calza": Option(default="on", choices=("on", "off")),
        "hint": HINT,
    }
    LENGTH = "dice"

    def __init__(self, players, options=None, dice=None):
        super().__init__(players, options, dice)
        self.dice_left = dict.fromkeys(self.players, self.first_cup(self.options))
        self.out: list[str] = []  # in the order they went out (those who left too)
        self.winner = None
        self.palifico = None  # the player whose palifico round this is
        self.palificos: list[str] = []  # who has brought about a palifico round (once each)
        self._new_round(self.players[0])

    @classmethod
    def lobby_fields(cls, options):
        return {"dice": options["dice"]}

    @classmethod
    def first_cup(cls, options):
        return options["dice"]

    def cup_size(self, player):
        return self.dice_left.get(player, self.options["dice"])

    # --- who is in ----------------------------------------------------------

    @property
    def over(self):
        return self.winner is not None or len(self.active()) < 2

    def active(self) -> list[str]:
        return [p for p in self.players if p not in self.out]

    def calza_allowed(self) -> bool:
        """docs/rules.md §6: calza is a host option, and only with more than two players in."""
        return self.options["calza"] == "on" and len(self.active()) > 2

    # --- actions --------------------------------------------------------------

    def allowed(self, player):
        active = self.active()
        if self.winner is not None or len(active) < 2 or player not in active:  # over, or not in
            return []
        if self.cups.get(player) is None:
            return ["shake"]
        if player != self.turn:
            return []
        actions = ["bid"] if self.can_raise() else []
        if self.bid is not None:
            actions.append("dudo")
            if self.calza_allowed():
                actions.append("calza")
        return actions

    def _why_not(self, player, action) -> IllegalMove:
        if action in ("dudo", "calza") and self.bid is None and self.reveal and self.reveal["round"] == self.round - 1:
            return IllegalMove("stale")  # the call was made: a second one (a double tap) finds a new round
        if action in ("bid", "dudo", "calza") and self.turn is None:
            return IllegalMove("cups_unshaken")
        if action in ("bid", "dudo", "calza") and player != self.turn:
            return IllegalMove("not_your_turn")
        if action == "calza" and self.bid is not None:
            return IllegalMove("perudo_no_calza")
        return IllegalMove("cannot_now", action=str(action))

    def wild(self):
        return self.palifico is None  # docs/rules.md §6: no jokers in a palifico round

    def _legal(self, count, face):
        return raise_ok(count, face, self.bid, self.palifico is not None)

    def _raise_reason(self):
        if self.palifico is not None:
            return "perudo_palifico_raise"
        if self.bid is None:
            return "perudo_paco_opening"
        return "perudo_raise"

    def _call(self, caller, call):
        bid = self.bid
        bidder = bid["player"]
        found = count_matches(self.cups.values(), bid["face"], self.wild())
        gainer, back = None, False
        if call == "dudo":
            loser = bidder if found < bid["count"] else caller
            self._count_check(caught=loser == bidder)
        elif found == bid["count"]:
            loser, gainer = None, caller
            back = self.dice_left[caller] < self.options["dice"]  # never more than at the start
            self.dice_left[caller] += int(back)
        else:
            loser = caller
        self._log_cups(caller, judged=call == "dudo")  # docs/rules.md §6: a calza's bid is not counted as doubted
        self.reveal = {
            **self._opened("caller", caller, found),
            "call": call,
            "palifico": self.palifico is not None,
            "loser": loser,
            "gainer": gainer,
            "back": back,  # a die came back (a right caller with every die of the start keeps them)
            "out": False,
            "next_palifico": None,
        }
        self.palifico = None
        if loser is not None:
            self._lose_die(loser)
        if len(self.active()) < 2:
            self._finish()
            return
        self._new_round(loser or caller)
        self.reveal["next_palifico"] = self.palifico

    def _lose_die(self, player):
        self.dice_left[player] -= 1
        if self.dice_left[player] == 0:
            self.out.append(player)
            self.reveal["out"] = True
        elif self.dice_left[player] == 1 and player not in self.palificos and len(self.active()) > 2:
            # docs/rules.md §6: the first time a player is down to one die, with more than two in.
            self.palificos.append(player)
            self.palifico = player

    def _finish(self):
        active = self.active()
        self.winner = active[0] if active else None
        self.turn = None
        self.bid = None
        self.palifico = None

    def _gone(self, player):
        self.out.append(player)
        if self.palifico == player:
            self.palifico = None

    def _last_one_left(self):
        self._finish()

    def standing_key(self, player):
        return -self.dice_left[player]  # more dice left is better

    def _ranked(self, best_first):
        self.final = [*best_first, *reversed(self.out)]
        self._finish()
        self.winner = best_first[0]

    def _reopener(self, player, had_turn):
        # docs/rules.md §6: a void palifico round starts again as one, opened by its player.
        return self.palifico or super()._reopener(player, had_turn)

    # --- views ------------------------------------------------------------------

    def player_fields(self, player):
        return {
            "out": player in self.out,
            "dice": self.dice_left[player],
            "rolled": self.cups.get(player) is not None,
        }

    def answers(self, player):
        if {"bid", "dudo"} & set(self.allowed(player)):
            return {"round": self.round, "bid": dict(self.bid) if self.bid else None}
        return None

    def view_for(self, player):
        return {
            **self._round_view(player),
            "palifico": self.palifico,
            "calza": self.calza_allowed(),
            "reveal": {"fair": {}, **plain_copy(self.reveal)} if self.reveal else None,  # before the seeds: none
            "winner": self.winner,
            # Best first: the winner, then the last one out (those who left, when they left).
            "ranking": self.final or ([self.winner, *reversed(self.out)] if self.over and self.winner else None),
        }

    _STATE = (
        "options",
        "players",
        "tally",
        "voided",
        "dice_left",
        "out",
        "left",
        "winner",
        "final",
        "palifico",
        "palificos",
        *BiddingGame.ROUND_STATE,
    )
