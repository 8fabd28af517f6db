"""Lügen, docs/rules.md "Lügen": liar's dice with three dice each and beer mats.

Everyone shakes their own cup at the start of a round; bids ("COUNT × FACE",
ones are jokers) go round from the opener; anyone but the last bidder may
doubt at any moment. Mats are handed out from the stack (phase 1), then
played down between the two players of a doubt (phase 2), until one loser.
"""

import copy

from ... import fair
from ...errors import IllegalMove
from ...rules.game import Game, Option

DICE = 3
FACES = (2, 3, 4, 5, 6)


def bid_beats(count: int, face: int, bid: dict | None) -> bool:
    """docs/rules.md §4: same count with a higher face, or a higher count with any face."""
    if bid is None:
        return True
    return count > bid["count"] or (count == bid["count"] and face > bid["face"])


def count_matches(cups, face: int) -> int:
    """Dice on the whole table showing `face`, ones counting as jokers."""
    return sum(1 for cup in cups for die in cup if die in (1, face))


class LuegenGame(Game):
    """Liar's dice with beer mats (Deckel) for 3 to 10 players."""

    NAME = "luegen"
    TITLE = "Lügen"
    DICE = DICE
    MIN_PLAYERS = 3
    ACTIONS = ("shake", "bid", "doubt")
    CLAIM = "bid"
    CHALLENGE = "doubt"
    OPTIONS = {
        "mats": Option(default=12, low=2, high=30),
        "playoff": Option(default="equal", choices=("equal", "last_two")),
    }
    SHARED_PHONE = False
    _LATER = {**Game._LATER, "seals": {}}

    def __init__(self, players, options=None, dice=None):
        super().__init__(players, options, dice)
        self.mats = dict.fromkeys(self.players, 0)
        self.stack = self.options["mats"]
        self.stage = "handing_out"
        self.safe: list[str] = []  # in the order they got safe
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

    def _new_round(self, opener: str) -> None:
        self.round += 1
        self.opener = opener if opener in self.active() else self.next_after(opener)
        self.cups = dict.fromkeys(self.active())
        self.seals = {}  # player -> their cup's salt and commitment (maxchen/fair.py)
        self.bid = None
        self.turn = None  # bidding starts once every cup is shaken

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
        if self.turn is None:
            return []
        # At the highest possible bid, only a doubt is left.
        actions = ["bid"] if player == self.turn and not self._bid_is_top() else []
        if self.bid is not None and self.bid["player"] != player:
            actions.append("doubt")
        return actions

    def apply(self, player, action, payload=None):
        payload = payload or {}
        self._require_player(player)
        if player not in self.active():
            raise IllegalMove("you_are_safe")
        if action not in self.allowed(player):
            if action == "bid" and self.turn not in (None, player):
                raise IllegalMove("not_your_bid")
            raise self._why_not(action)
        if action == "shake":
            self.cups[player] = sorted(self.dice.roll(DICE), reverse=True)
            self.seals[player] = fair.seal(self.cups[player])
            if all(cup is not None for cup in self.cups.values()):
                self.turn = self.opener
        elif action == "bid":
            count, face = payload.get("count"), payload.get("face")
            if type(count) is not int or type(face) is not int or face not in FACES:
                raise IllegalMove("bad_bid")
            if not 1 <= count <= self.dice_in_play():
                raise IllegalMove("bad_count", dice=self.dice_in_play())
            if not bid_beats(count, face, self.bid):
                raise IllegalMove("raise_bid")
            self.bid = {"player": player, "count": count, "face": face}
            self.turn = self.next_after(player)
        else:
            self._doubt(player)

    def _why_not(self, action) -> IllegalMove:
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

    def _bid_is_top(self) -> bool:
        return self.bid is not None and (self.bid["count"], self.bid["face"]) == (self.dice_in_play(), FACES[-1])

    def dice_in_play(self) -> int:
        """How many dice are on the table this round."""
        return DICE * len(self.cups)

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
        self.reveal = {
            "round": self.round,
            "bidder": bidder,
            "doubter": doubter,
            "count": bid["count"],
            "face": bid["face"],
            "found": found,
            "dice": copy.deepcopy(self.cups),
            # The keys to the seals every phone got at the shakes, cup by cup.
            "salt": {player: seal["salt"] for player, seal in self.seals.items()},
            "commitment": {player: seal["commitment"] for player, seal in self.seals.items()},
            "loser": loser,
            "mat_from": mat_from,
        }
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
        self.safe.extend(p for p in players if p not in self.safe)

    def _finish(self):
        # Everyone but the loser is safe; those still in join the order in seating order.
        self._make_safe([p for p in self.active() if p != self.loser])
        self.turn = None
        self.bid = None

    def _log_cups(self, doubter=None):
        """The round's cups leave the table: shown to all at a doubt (the bidder's with the verdict), else unseen."""
        bid = self.bid if doubter is not None else None
        table = count_matches(self.cups.values(), bid["face"]) if bid else None
        for player, cup in self.cups.items():
            if cup is None:
                continue
            found = outcome = None
            if bid is None:
                outcome = "void"  # docs/rules.md §5: someone left, the round starts again; nobody saw these dice
            elif player == bid["player"]:
                found = table >= bid["count"]
                outcome = "true" if found else "too_high"  # not a lie: the bidder saw only their own cup
            else:
                outcome = "shown"
            self._rolls.append(
                {
                    "dice": list(cup),
                    # The roll log's `value` of a Lügen cup: its dice that count for the doubted face.
                    "value": count_matches([cup], bid["face"]) if bid else None,
                    "announced": None,
                    "bid": {"count": bid["count"], "face": bid["face"]} if bid else None,
                    "table": table,
                    "found": found,
                    "public": bid is not None,
                    "round": self.round,
                    "player": player,
                    "answerer": doubter,
                    "outcome": outcome,
                }
            )

    def remove(self, player):
        """docs/rules.md §5: out for good (keeping any mats); mid-round the round is void."""
        if player not in self.players or player in self.left:
            return
        self.left.append(player)
        if self.over or player in self.safe:
            return
        self._log_cups()  # the round is void: its cups leave the table unseen
        if len(self.active()) < 2:
            remaining = self.active()
            self.loser = remaining[0] if remaining and self.mats[remaining[0]] > 0 else None
            self._finish()
            return
        opener = self.turn if self.turn not in (None, player) else self.opener
        self._new_round(opener if opener != player else self.next_after(player))
        self._settle()
        self.voided = {"player": player, "round": self.round}

    # --- views ------------------------------------------------------------------

    def player_fields(self, player):
        return {
            "out": player in self.safe or player in self.left,
            "mats": self.mats[player],
            "safe": player in self.safe,
            "rolled": self.cups.get(player) is not None,
        }

    def choices(self) -> list[dict]:
        """Every legal bid now, lowest first."""
        return [
            {"count": count, "face": face}
            for count in range(1, self.dice_in_play() + 1)
            for face in FACES
            if bid_beats(count, face, self.bid)
        ]

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
            "commitments": {player: seal["commitment"] for player, seal in self.seals.items()},
            "bid": dict(self.bid) if self.bid else None,
            "stack": self.stack,
            "stage": self.stage,
            "dice_in_play": self.dice_in_play(),
            # A reveal saved before the seals had no salts.
            "reveal": {"salt": {}, "commitment": {}, **copy.deepcopy(self.reveal)} if self.reveal else None,
            "winner": None,
            "loser": self.loser,
            "safe_order": list(self.safe) if self.over else None,
            # Best first: safe in the order they got safe, those who left, the loser.
            "ranking": [*self.safe, *(p for p in self.left if p not in self.safe), self.loser] if self.over else None,
            "tally": self.tally_view(),
            "voided": self.voided_view(),
        }

    _STATE = (
        "options",
        "players",
        "tally",
        "voided",
        "mats",
        "stack",
        "stage",
        "safe",
        "left",
        "loser",
        "round",
        "reveal",
        "opener",
        "cups",
        "seals",
        "bid",
        "turn",
    )
