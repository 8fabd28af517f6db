"""Perudo, docs/rules.md §6: five dice each, pacos wild, dudo, calza and palifico.

Everyone still in shakes all the dice they have at the start of a round;
bids ("COUNT × FACE") go round from the opener, and the player whose turn it
is raises, calls dudo, or calls calza. The loser of a call gives up a die;
a right calza wins one back. The last player with dice wins.
"""

import copy
import math

from ... import fair
from ...errors import IllegalMove
from ...rules.game import Game, Option

START_DICE = 5
PACO = 1
FACES = (1, 2, 3, 4, 5, 6)


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
    return count > bid["count"] or (count == bid["count"] and face > bid["face"])


def count_matches(cups, face: int, wild: bool) -> int:
    """Dice on the table that count for `face`: pacos too when they are wild and the face is not pacos."""
    return sum(1 for cup in cups for die in cup if die == face or (wild and face != PACO and die == PACO))


class PerudoGame(Game):
    """Perudo for 2 to 10 players: lose your dice one by one; the last one with dice wins."""

    NAME = "perudo"
    TITLE = "Perudo"
    DICE = START_DICE
    SHARED_PHONE = False
    ACTIONS = ("shake", "bid", "dudo", "calza")
    CLAIM = "bid"
    CHALLENGE = "dudo"
    OPTIONS = {"calza": Option(default="on", choices=("on", "off"))}

    def __init__(self, players, options=None, dice=None):
        super().__init__(players, options, dice)
        self.dice_left = dict.fromkeys(self.players, START_DICE)
        self.out: list[str] = []  # in the order they went out (those who left too)
        self.winner = None
        self.palifico = None  # the player whose palifico round this is
        self.palificos: list[str] = []  # who has brought about a palifico round (once each)
        self._new_round(self.players[0])

    @classmethod
    def lobby_fields(cls, options):
        return {"dice": START_DICE}

    def cup_size(self, player):
        return self.dice_left.get(player, START_DICE)

    # --- who is in ----------------------------------------------------------

    @property
    def over(self):
        return self.winner is not None or len(self.active()) < 2

    def active(self) -> list[str]:
        return [p for p in self.players if p not in self.out]

    def _new_round(self, opener: str) -> None:
        self.round += 1
        self.opener = opener if opener in self.active() else self.next_after(opener)
        self.cups = dict.fromkeys(self.active())
        self.seals = {}  # player -> their cup's salt and commitment (maxchen/fair.py)
        self.bid = None
        self.turn = None  # bidding starts once every cup is shaken

    def dice_in_play(self) -> int:
        """How many dice are on the table this round."""
        return sum(self.dice_left[p] for p in self.cups)

    def calza_allowed(self) -> bool:
        """docs/rules.md §6: calza is a host option, and only with more than two players in."""
        return self.options["calza"] == "on" and len(self.active()) > 2

    # --- actions --------------------------------------------------------------

    def waiting_for(self):
        if self.over:
            return []
        unrolled = [p for p in self.active() if self.cups.get(p) is None]
        return unrolled or [self.turn]

    def allowed(self, player):
        if self.over or player not in self.active():
            return []
        if self.cups.get(player) is None:
            return ["shake"]
        if player != self.turn:
            return []
        actions = ["bid"] if self.choices() else []
        if self.bid is not None:
            actions.append("dudo")
            if self.calza_allowed():
                actions.append("calza")
        return actions

    def apply(self, player, action, payload=None):
        payload = payload or {}
        self._require_player(player)
        if player not in self.active():
            raise IllegalMove("you_are_out")
        if action not in self.allowed(player):
            raise self._why_not(player, action)
        if action == "shake":
            self.cups[player] = sorted(self.dice.roll(self.dice_left[player]), reverse=True)
            self.seals[player] = fair.seal(self.cups[player])
            if all(cup is not None for cup in self.cups.values()):
                self.turn = self.opener
        elif action == "bid":
            self._bid(player, payload.get("count"), payload.get("face"))
        else:
            self._call(player, action)

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

    def _bid(self, player, count, face):
        if type(count) is not int or type(face) is not int or face not in FACES:
            raise IllegalMove("perudo_bad_bid")
        if not 1 <= count <= self.dice_in_play():
            raise IllegalMove("bad_count", dice=self.dice_in_play())
        if not raise_ok(count, face, self.bid, self.palifico is not None):
            raise IllegalMove(self._raise_reason(face))
        self.bid = {"player": player, "count": count, "face": face}
        self.turn = self.next_after(player)

    def _raise_reason(self, face) -> str:
        if self.palifico is not None:
            return "perudo_palifico_raise"
        if self.bid is None:
            return "perudo_paco_opening"
        return "perudo_raise"

    def _call(self, caller, call):
        bid = self.bid
        bidder = bid["player"]
        found = count_matches(self.cups.values(), bid["face"], wild=self.palifico is None)
        gainer, back = None, False
        if call == "dudo":
            loser = bidder if found < bid["count"] else caller
            self._count_check(caught=loser == bidder)
        elif found == bid["count"]:
            loser, gainer = None, caller
            back = self.dice_left[caller] < START_DICE  # never more than five
            self.dice_left[caller] += int(back)
        else:
            loser = caller
        self._log_cups(caller, call, found)
        self.reveal = {
            "round": self.round,
            "call": call,
            "bidder": bidder,
            "caller": caller,
            "count": bid["count"],
            "face": bid["face"],
            "palifico": self.palifico is not None,
            "found": found,
            "dice": copy.deepcopy(self.cups),
            # The keys to the seals every phone got at the shakes, cup by cup.
            "salt": {player: seal["salt"] for player, seal in self.seals.items()},
            "commitment": {player: seal["commitment"] for player, seal in self.seals.items()},
            "loser": loser,
            "gainer": gainer,
            "back": back,  # a die came back (a right caller with five keeps five)
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

    def _log_cups(self, caller=None, call=None, found=None):
        """The round's cups leave the table: all see them at a call (the bidder's with a dudo's verdict), or unseen."""
        bid = self.bid if caller is not None else None
        for player, cup in self.cups.items():
            if cup is None:
                continue
            stood = outcome = None
            if bid is None:
                outcome = "void"  # docs/rules.md §5: someone left, the round starts again; nobody saw these dice
            elif player == bid["player"] and call == "dudo":
                stood = found >= bid["count"]
                outcome = "true" if stood else "too_high"  # not a lie: the bidder saw only their own cup
            else:
                outcome = "shown"  # docs/rules.md §6: a calza's bid is not counted as doubted
            wild = self.palifico is None
            self._rolls.append(
                {
                    "dice": list(cup),
                    # The roll log's `value` of a cup: its dice that count for the called face.
                    "value": count_matches([cup], bid["face"], wild) if bid else None,
                    "announced": None,
                    "bid": {"count": bid["count"], "face": bid["face"]} if bid else None,
                    "table": found,
                    "found": stood,
                    "public": bid is not None,
                    "round": self.round,
                    "player": player,
                    "answerer": caller,
                    "outcome": outcome,
                }
            )

    def remove(self, player):
        """docs/rules.md §5: out for good; mid-round the round is void (a palifico round starts again as one)."""
        if player not in self.players or player in self.left:
            return
        self.left.append(player)
        if self.over or player in self.out:
            return
        self._log_cups()  # the round is void: its cups leave the table unseen
        had_turn = self.turn
        self.out.append(player)
        if len(self.active()) < 2:
            self._finish()
            return
        palifico = self.palifico if self.palifico in self.active() else None
        opener = palifico or (had_turn if had_turn not in (None, player) else self.opener)
        self._new_round(opener if opener != player else self.next_after(player))
        self.palifico = palifico
        self.voided = {"player": player, "round": self.round}

    # --- views ------------------------------------------------------------------

    def player_fields(self, player):
        return {
            "out": player in self.out,
            "dice": self.dice_left[player],
            "rolled": self.cups.get(player) is not None,
        }

    def choices(self) -> list[dict]:
        """Every legal bid now, lowest count first."""
        if self.over or self.turn is None:
            return []
        palifico = self.palifico is not None
        return [
            {"count": count, "face": face}
            for count in range(1, self.dice_in_play() + 1)
            for face in FACES
            if raise_ok(count, face, self.bid, palifico)
        ]

    def answers(self, player):
        if {"bid", "dudo"} & set(self.allowed(player)):
            return {"round": self.round, "bid": dict(self.bid) if self.bid else None}
        return None

    def view_for(self, player):
        mine = self.cups.get(player) if player in self.active() else None
        allowed = self.allowed(player)
        return {
            "round": self.round,
            "turn": None if self.over or self.turn is None else {"player": self.turn, "step": "bid"},
            "allowed": allowed,
            "choices": self.choices() if "bid" in allowed else [],
            "dice": list(mine) if mine else None,
            # The seal of every cup shaken this round, for everyone; the salts stay here.
            "commitments": {p: seal["commitment"] for p, seal in self.seals.items()},
            "bid": dict(self.bid) if self.bid else None,
            "palifico": self.palifico,
            "calza": self.calza_allowed(),
            "dice_in_play": self.dice_in_play(),
            "reveal": copy.deepcopy(self.reveal),
            "winner": self.winner,
            # Best first: the winner, then the last one out (those who left, when they left).
            "ranking": [self.winner, *reversed(self.out)] if self.over and self.winner else None,
            "tally": self.tally_view(),
            "voided": self.voided_view(),
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
        "palifico",
        "palificos",
        "round",
        "reveal",
        "opener",
        "cups",
        "seals",
        "bid",
        "turn",
    )
