"""The liar's-dice batch simulator's shared part (Lügen, Perudo): many games at once over numpy arrays.

Every game is a row. A step shakes the cups of every game that starts a
round, then moves every game on by one decision of its bots, as the rule
set's bots module decides it: a bid (`bots.best_bid`), or a call that the
rule set's `Table.call` settles. A bot ranks its bids by their chance, and
within a face a higher count is never likelier: its five best bids are among
the five lowest counts of each face, and those are all a step weighs.
"""

import functools

import numpy as np

from .bidding import JOKER
from .bots import BLUFF_RATE, chance_at_least
from .tapes import Tapes

NONE = 1 << 20  # the lowest count of a face that may not be bid now
BEST = 5  # a bluffer takes one of its five likeliest bids


def plain_lowest(count, face, faces):
    """`bidding.plain_raise` as lowest counts: the same count with a higher face, else a higher count ([row, face];
    `count` and `face` per row, 0 where no bid stands)."""
    return count[:, None] + (faces <= face[:, None])


@functools.cache
def _chances(dice: int) -> tuple[np.ndarray, np.ndarray]:
    """chance_at_least as a table [single, needed, unseen] (needed clipped to 0..dice + 1): the bots' very
    floats, and each one's place among them all, the likeliest first (equal chances, equal places).
    `single`: a die counts with 1/6 (pacos, or no jokers), else with 1/3."""
    table = np.array(
        [[[chance_at_least(k, u, p) for u in range(dice + 1)] for k in range(dice + 2)] for p in (1 / 3, 1 / 6)]
    )
    return table, np.unique(-table, return_inverse=True)[1].reshape(table.shape).astype(np.int64)


class Table:
    """Every game of a batch of liar's dice, seat j of game g holding strategies[(j + g) % n]."""

    FACES: tuple[int, ...] = ()
    DICE = 0  # in a full cup (at the start, unless `first_cup` says fewer)
    SCORED = ""  # the standing field `score` holds

    def __init__(self, strategies: list[str], tapes: Tapes, options: dict):
        n, games = len(strategies), tapes.games
        self.n, self.tapes, self.options = n, tapes, options
        names = list(dict.fromkeys(strategies))
        of_seat = np.array([names.index(s) for s in strategies])
        kind = np.array(names)[of_seat[(np.arange(n)[None, :] + tapes.first + np.arange(games)[:, None]) % n]]
        self.bluffer, self.statistician = kind == "bluffer", kind == "statistician"
        self.faces = np.array(self.FACES)
        self.full = self.first_cup(options)  # each seat's dice at the start
        self.chances, places = _chances(n * self.full)
        self.chances, self.places = self.chances.ravel(), places.ravel()
        self.most = n * self.full + 1  # needed past every die: no chance
        self.size = np.full((games, n), self.full)  # the dice each seat shakes this round (0: not in)
        self.in_play = np.zeros(games, dtype=np.int64)  # the dice on the table this round
        self.mine = np.zeros((games, n, len(self.FACES)), dtype=np.int64)  # each cup's dice that count per face
        self.single = np.zeros((games, len(self.FACES)), dtype=bool)  # a die counts for the face with 1/6 only
        self.bid_count = np.zeros(games, dtype=np.int64)  # 0: no bid yet this round
        self.bid_face = np.zeros(games, dtype=np.int64)
        self.bidder = np.full(games, -1)
        self.turn = np.zeros(games, dtype=np.int64)
        self.opener = np.zeros(games, dtype=np.int64)
        self.shaken = np.zeros(games, dtype=bool)
        self.rounds = np.ones(games, dtype=np.int64)
        self.winner = np.full(games, -1)  # the best seat (Lügen's first safe player, once there is one)
        self.over = np.zeros(games, dtype=bool)
        self.checks = np.zeros(games, dtype=np.int64)
        self.caught = np.zeros(games, dtype=np.int64)
        self.dice_at = np.zeros(games, dtype=np.int64)  # each game's place on its tapes
        self.chances_at = np.zeros(games, dtype=np.int64)
        self.rolls = np.zeros(7, dtype=np.int64)

    # --- what a rule set says ---

    def first_cup(self, options: dict) -> int:
        """Each seat's dice at the start of a game with `options`."""
        return self.DICE

    def wild(self, rows) -> np.ndarray:
        """Whether ones are jokers this round."""
        return np.ones(len(rows), dtype=bool)

    def lowest_counts(self, rows) -> np.ndarray:
        """[row, face]: the lowest count of each face that may be bid now (`NONE`: none)."""
        raise NotImplementedError

    def decide(self, rows, seat, has_bid, odds, can_raise) -> np.ndarray:
        """The move of each row's player with the turn: 0 a bid, 1 the call on the bid (a doubt, a dudo),
        2 calza, -1 none (another player may call). `odds`: (needed, unseen, single, chance) of the bid."""
        raise NotImplementedError

    def call(self, rows, caller, move) -> None:
        """Settle a call: the loser, the standings, the game's end or its next round (`new_round`)."""
        raise NotImplementedError

    def result(self) -> dict:
        """What `simulate` counts, per game, and each seat's standing (`score`)."""
        return {
            "winner": self.winner,
            "rounds": self.rounds,
            "lost": np.zeros_like(self.rounds),  # neither points nor lives
            "scored": self.SCORED,
            "checks": self.checks,
            "caught": self.caught,
            "rolls": {face: int(count) for face, count in enumerate(self.rolls) if face},
        }

    # --- what every liar's dice does ---

    def play(self) -> dict:
        """Every game to its end."""
        live = np.arange(self.tapes.games)
        while len(live):
            fresh = live[~self.shaken[live]]
            if len(fresh):
                self.shake(fresh)
            self.step(live)
            live = live[~self.over[live]]
        return self.result()

    def next_in(self, rows, seats) -> np.ndarray:
        """The next seat after `seats` (per row) still in the game."""
        found = np.full(len(rows), -1)
        for step in range(1, self.n + 1):
            candidate = (seats + step) % self.n
            free = (found < 0) & (self.size[rows, candidate] > 0)
            found[free] = candidate[free]
        return found

    def new_round(self, rows, opener) -> None:
        """The next round, opened by `opener`, or the next one in after them."""
        self.rounds[rows] += 1
        self.opener[rows] = np.where(self.size[rows, opener] > 0, opener, self.next_in(rows, opener))
        self.bid_count[rows] = self.bid_face[rows] = 0
        self.shaken[rows] = False

    def shake(self, rows) -> None:
        """Everyone in shakes, in seating order, reading their dice one after another from the game's tape."""
        sizes = self.size[rows]
        ends = sizes.cumsum(axis=1)
        total = ends[:, -1]
        dice = self.tapes.read("dice", rows, self.dice_at[rows], int(total.max())).T  # [row, place]
        self.dice_at[rows] += total
        self.in_play[rows] = total
        places = np.arange(dice.shape[1])
        seat = (places[None, :, None] >= ends[:, None, :]).sum(axis=2)  # the seat whose cup a place is in
        shaken = places[None, :] < total[:, None]
        cell = (np.arange(len(rows))[:, None] * self.n + seat) * 7 + dice  # [row, seat, face], flat
        counts = np.bincount(cell[shaken], minlength=len(rows) * self.n * 7).reshape(len(rows), self.n, 7)
        self.rolls += counts.sum(axis=(0, 1))
        wild = self.wild(rows)[:, None] & (self.faces != JOKER)
        self.mine[rows] = counts[:, :, self.faces] + np.where(wild[:, None, :], counts[:, :, JOKER, None], 0)
        self.single[rows] = ~wild
        self.turn[rows] = self.opener[rows]
        self.shaken[rows] = True

    def chance(self, needed, unseen, single, table=None) -> np.ndarray:
        """P(at least `needed` of `unseen` dice count), as the bots compute it (arrays that broadcast); or
        from `table` (`places`), its place among all chances."""
        at = (single * (self.most + 1) + np.minimum(np.maximum(needed, 0), self.most)) * self.most + unseen
        return (self.chances if table is None else table).take(at)

    def likeliest(self, counts, mine, unseen, single, in_play, faces) -> np.ndarray:
        """The bots' order of bids as one number each, the likeliest first, then the lowest count and face
        (arrays that broadcast); a bid that may not be made comes last."""
        place = self.chance(counts - mine, unseen, single, self.places)
        return np.where(counts <= in_play, place << 32 | counts << 3 | faces, 1 << 62)

    def bid_chance(self, rows, seat, in_play) -> tuple:
        """The odds `seat` gives the standing bid: (needed, unseen, single, chance)."""
        at = self.bid_face[rows] - self.FACES[0]  # the faces are whole numbers in a row
        index = np.arange(len(rows))
        needed = self.bid_count[rows] - self.mine[rows, seat][index, at]
        unseen = in_play - self.size[rows, seat]
        single = self.single[rows][index, at]
        return needed, unseen, single, self.chance(needed, unseen, single)

    def step(self, rows) -> None:
        """Every row's player with the turn bids or calls (or, where they may not, another player calls)."""
        seat, in_play = self.turn[rows], self.in_play[rows]
        has_bid = self.bid_count[rows] > 0
        odds = self.bid_chance(rows, seat, in_play)
        lowest = self.lowest_counts(rows)
        can_raise = (lowest <= in_play[:, None]).any(axis=1)
        move = self.decide(rows, seat, has_bid, odds, can_raise)
        caller = seat.copy()
        idle = np.flatnonzero(move < 0)
        if len(idle):
            caller[idle] = self.other_caller(rows[idle], seat[idle], in_play[idle])
            move[idle] = 1
        bids = move == 0
        if bids.any():
            self.bid(rows[bids], seat[bids], in_play[bids], lowest[bids])
        if (~bids).any():
            self.call(rows[~bids], caller[~bids], move[~bids])

    def other_caller(self, rows, turn, in_play) -> np.ndarray:
        """Where the player with the turn may not raise and will not call: the first other player in seating
        order who may call and would, as the real engine asks them."""
        found = np.full(len(rows), -1)
        for seat in range(self.n):
            seats = np.full(len(rows), seat)
            *_, chance = self.bid_chance(rows, seats, in_play)
            may = (seat != turn) & (self.size[rows, seat] > 0) & (self.bidder[rows] != seat)
            found = np.where((found < 0) & may & (chance < 0.5), seat, found)
        if (found < 0).any():
            raise RuntimeError("no bot could move")
        return found

    def bid(self, rows, seat, in_play, lowest) -> None:
        """Each row's player raises with their likeliest bid (a bluffer sometimes with another of the five)."""
        mine, single = self.mine[rows, seat], self.single[rows]
        unseen = (in_play - self.size[rows, seat])[:, None]
        pick = np.zeros(len(rows), dtype=np.int64)  # the place in the ranking of the bid taken
        bluffers = np.flatnonzero(self.bluffer[rows, seat])
        if len(bluffers):  # two draws at every bid of a bluffer, as `bots.best_bid`
            at = rows[bluffers]
            bluff, draw = self.tapes.read("chances", at, self.chances_at[at], 2)
            self.chances_at[at] += 2
            legal = np.clip(in_play[bluffers, None] - lowest[bluffers] + 1, 0, None).sum(axis=1)
            other = np.minimum(legal - 1, 1 + (draw * 4).astype(np.int64))
            pick[bluffers] = np.where(bluff < BLUFF_RATE, other, 0)
        # The likeliest bid is the lowest count of some face; a bluff may be any of the five lowest of each.
        best = np.argmin(self.likeliest(lowest, mine, unseen, single, in_play[:, None], self.faces), axis=1)
        count, face = lowest[np.arange(len(rows)), best], self.faces[best]
        deep = np.flatnonzero(pick)
        if len(deep):
            counts = (lowest[deep, :, None] + np.arange(BEST)).reshape(len(deep), -1)  # [row, face and k]
            each = np.repeat(self.faces, BEST)
            mine_each, single_each = np.repeat(mine[deep], BEST, axis=1), np.repeat(single[deep], BEST, axis=1)
            order = self.likeliest(counts, mine_each, unseen[deep], single_each, in_play[deep, None], each)
            chosen = np.argsort(order, axis=1)[np.arange(len(deep)), pick[deep]]
            count[deep] = counts[np.arange(len(deep)), chosen]
            face[deep] = each[chosen]
        self.bid_count[rows] = count
        self.bid_face[rows] = face
        self.bidder[rows] = seat
        self.turn[rows] = self.next_in(rows, seat)

    def found(self, rows) -> np.ndarray:
        """The dice on the whole table that count for the bid (per row)."""
        return self.mine[rows].sum(axis=1)[np.arange(len(rows)), self.bid_face[rows] - self.FACES[0]]

    def counted(self, rows, loser) -> None:
        """A check of the bid: counted, and caught where the bidder lost it."""
        self.checks[rows] += 1
        self.caught[rows] += loser == self.bidder[rows]
