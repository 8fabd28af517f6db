"""Perudo's batch simulator (docs/rules.md §6): many games at once, the same games as the real engine plays.

The shared liar's-dice part (`rules/bidding_batch.py`) shakes and bids;
this adds Perudo's raises (pacos, palifico), dudo and calza, and the dice
lost and won back.
"""

import numpy as np

from ...rules.bidding_batch import NONE, Table, plain_lowest
from ...rules.tapes import Tapes
from .bots import CALZA_ABOVE
from .game import FACES, PACO, PerudoGame

DUDO, CALZA = 1, 2


class PerudoTable(Table):
    FACES = FACES
    DICE = PerudoGame.DICE
    SCORED = "dice"

    def __init__(self, strategies, tapes, options):
        super().__init__(strategies, tapes, options)
        self.palifico = np.full(tapes.games, -1)  # the seat whose palifico round this is
        self.had_palifico = np.zeros((tapes.games, self.n), dtype=bool)

    def first_cup(self, options):
        return PerudoGame.first_cup(options)  # docs/rules.md §6: five dice each, or the host's three or four

    def wild(self, rows):
        return self.palifico[rows] < 0  # no jokers in a palifico round

    def lowest_counts(self, rows):
        """docs/rules.md §6, as `game.raise_ok`."""
        count, face, faces = self.bid_count[rows, None], self.bid_face[rows, None], self.faces
        palifico = self.palifico[rows, None] >= 0
        opening = np.where(palifico | (faces != PACO), 1, NONE)
        held = np.where(faces == face, count + 1, NONE)  # palifico: the face stays
        from_pacos = np.where(faces == PACO, count + 1, 2 * count + 1)
        plain = np.where(
            faces == PACO, (count + 1) // 2, plain_lowest(self.bid_count[rows], self.bid_face[rows], faces)
        )
        return np.where(count == 0, opening, np.where(palifico, held, np.where(face == PACO, from_pacos, plain)))

    def decide(self, rows, seat, has_bid, odds, can_raise):
        needed, unseen, single, chance = odds
        calza = (
            has_bid
            & self.statistician[rows, seat]
            & (self.options["calza"] == "on")
            & ((self.size[rows] > 0).sum(axis=1) > 2)
            & (chance - self.chance(needed + 1, unseen, single) > CALZA_ABOVE)
        )
        dudo = has_bid & ((chance < 0.5) | ~can_raise)
        return np.where(calza, CALZA, np.where(dudo, DUDO, 0))

    def call(self, rows, caller, move):
        found, count, bidder = self.found(rows), self.bid_count[rows], self.bidder[rows]
        dudo = move == DUDO
        loser = np.where(dudo, np.where(found < count, bidder, caller), np.where(found == count, -1, caller))
        self.counted(rows[dudo], loser[dudo])  # a calza's bid is not counted as doubted
        right = loser < 0
        self.size[rows[right], caller[right]] = np.minimum(self.size[rows[right], caller[right]] + 1, self.full)
        self.palifico[rows] = -1
        lost = rows[~right]
        seat = loser[~right]
        self.size[lost, seat] -= 1
        first_one = (
            (self.size[lost, seat] == 1) & ~self.had_palifico[lost, seat] & ((self.size[lost] > 0).sum(axis=1) > 2)
        )
        self.palifico[lost[first_one]] = seat[first_one]
        self.had_palifico[lost[first_one], seat[first_one]] = True
        playing = self.size[rows] > 0
        over = playing.sum(axis=1) < 2
        self.winner[rows[over]] = np.argmax(playing[over], axis=1)
        self.over[rows[over]] = True
        self.new_round(rows[~over], np.where(right, caller, loser)[~over])

    def result(self):
        return {**super().result(), "score": self.size}


def play_tapes(strategies: list[str], tapes: Tapes, options: dict | None = None) -> dict:
    """Every game of `tapes` with `options` (the defaults where none; see `maxchen.simulate.batches`)."""
    return PerudoTable(strategies, tapes, PerudoGame.merged_options(None, options or {})).play()
