"""Lügen's batch simulator (docs/rules.md §4): many games at once, the same games as the real engine plays.

The shared liar's-dice part (`rules/bidding_batch.py`) shakes and bids;
this adds the doubt, the beer mats and their stages, and who gets safe.
"""

import numpy as np

from ...rules.bidding_batch import Table, plain_lowest
from ...rules.tapes import Tapes
from .game import DICE, FACES, LuegenGame

HANDING_OUT, PLAYING_DOWN, PLAY_OFF = range(3)


class LuegenTable(Table):
    FACES = FACES
    DICE = DICE
    SCORED = "mats"

    def __init__(self, strategies, tapes, options):
        super().__init__(strategies, tapes, options)
        games = tapes.games
        self.mats = np.zeros((games, self.n), dtype=np.int64)
        self.stack = np.full(games, options["mats"])
        self.stage = np.full(games, HANDING_OUT)
        self.loser = np.full(games, -1)

    def lowest_counts(self, rows):
        # docs/rules.md §4: the same count with a higher face, or a higher count (no bid yet: face 0, count 0).
        return np.maximum(plain_lowest(self.bid_count[rows], self.bid_face[rows], self.faces), 1)

    def decide(self, rows, seat, has_bid, odds, can_raise):
        doubt = has_bid & (odds[-1] < 0.5)
        return np.where(doubt, 1, np.where(can_raise, 0, -1))  # anyone but the bidder may doubt

    def call(self, rows, caller, move):
        bidder = self.bidder[rows]
        loser = np.where(self.found(rows) >= self.bid_count[rows], caller, bidder)
        winner = np.where(loser == caller, bidder, caller)
        self.counted(rows, loser)
        stage = self.stage[rows]
        off = stage == PLAY_OFF
        self.loser[rows[off]] = loser[off]  # the play-off doubt decides the game; no mat moves
        self.stack[rows[stage == HANDING_OUT]] -= 1
        self.mats[rows[~off], loser[~off]] += 1
        down = stage == PLAYING_DOWN
        self.mats[rows[down], winner[down]] -= 1
        self.settle(rows[~off])
        over = self.loser[rows] >= 0
        self.finish(rows[over])
        self.new_round(rows[~over], loser[~over])

    def settle(self, rows):
        """Safe players leave; the stage moves on."""
        stage = self.stage[rows]
        emptied = (stage == HANDING_OUT) & (self.stack[rows] == 0)
        self.make_safe(rows, (emptied | (stage == PLAYING_DOWN))[:, None] & (self.mats[rows] == 0))
        self.stage[rows[emptied]] = PLAYING_DOWN
        playing = self.size[rows] > 0
        left = playing.sum(axis=1)
        alone = left == 1
        self.loser[rows[alone]] = np.argmax(playing[alone], axis=1)
        mats = self.mats[rows]
        equal = np.where(playing, mats, -1).max(axis=1) == np.where(playing, mats, 1 << 30).min(axis=1)
        everyone = self.options["playoff"] == "equal"  # a play-off when all tie, else only between the last two
        off = ~alone & (self.stage[rows] == PLAYING_DOWN) & equal & (everyone | (left == 2))
        self.stage[rows[off]] = PLAY_OFF

    def make_safe(self, rows, safe):
        """Players get safe (in seating order): out of the turns; the first is the game's winner."""
        first = np.where(safe.any(axis=1), np.argmax(safe, axis=1), -1)
        self.winner[rows] = np.where(self.winner[rows] < 0, first, self.winner[rows])
        self.size[rows] = np.where(safe, 0, self.size[rows])

    def finish(self, rows):
        """Everyone still in but the loser gets safe."""
        self.make_safe(rows, (self.size[rows] > 0) & (np.arange(self.n) != self.loser[rows, None]))
        self.over[rows] = True

    def result(self):
        return {**super().result(), "score": self.mats}


def play_tapes(strategies: list[str], tapes: Tapes, options: dict | None = None) -> dict:
    """Every game of `tapes` with `options` (the defaults where none; see `maxchen.simulate.batches`)."""
    return LuegenTable(strategies, tapes, LuegenGame.merged_options(None, options or {})).play()
