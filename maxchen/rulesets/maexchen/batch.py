"""Mäxchen's batch simulator: many games at once over numpy arrays (docs/rules.md §2).

Every game is a row, every step moves all unfinished games by one decision.
The strategies are the tables `bots` makes, so this engine plays the same
bots as the real one; a test checks that their results agree.
"""

import numpy as np

from ...rules import two_dice
from . import bots
from .game import MaexchenGame

OUT_AT = MaexchenGame.OUT_AT


def _tables(strategy: str) -> tuple[np.ndarray, np.ndarray]:
    """(answer[earlier + 1, announced]: 0 believe, 1 check, 2 accept; announce[earlier + 1, roll]: rank)."""
    answer = np.zeros((22, 21), dtype=np.int8)
    announce = np.full((22, 21), -1, dtype=np.int8)
    for earlier in range(-1, 21):
        for rank in range(21):
            move = bots.answer_rank(strategy, rank, earlier, may_accept=True)
            answer[earlier + 1, rank] = ("believe", "check", "accept").index(move)
            if strategy != "bluffer" and earlier < 20:
                announce[earlier + 1, rank] = bots.announce_rank(strategy, rank, earlier, None)
    return answer, announce


# The rank of two dice, indexed [die1 - 1, die2 - 1].
ROLL_RANK = np.array(
    [[two_dice.rank(two_dice.value_of((a, b))) for b in range(1, 7)] for a in range(1, 7)], dtype=np.int8
)


def play(strategies: list[str], games: int, seed: int | None = None) -> dict:
    """`games` games of Mäxchen between `strategies` (seats rotated each game): what `simulate.Result` holds."""
    n = len(strategies)
    rng = np.random.default_rng(seed)
    names = list(dict.fromkeys(strategies))
    answer = np.stack([_tables(name)[0] for name in names])
    announce = np.stack([_tables(name)[1] for name in names])
    bluffs = np.array([name == "bluffer" for name in names])
    # Seat j of game g holds strategies[(j + g) % n]: every strategy opens as often as the others.
    of_seat = np.array([names.index(s) for s in strategies])
    g_index = np.arange(games)
    kind = of_seat[(np.arange(n)[None, :] + g_index[:, None]) % n]  # [games, seats] -> strategy index
    home = (np.arange(n)[None, :] + g_index[:, None]) % n  # [games, seats] -> position in `strategies`

    points = np.zeros((games, n), dtype=np.int8)
    turn = np.zeros(games, dtype=np.int64)
    standing = np.full(games, -1, dtype=np.int64)  # the standing announcement's rank
    earlier = np.full(games, -1, dtype=np.int64)  # the one before it
    real = np.zeros(games, dtype=np.int64)  # the rank under the announcer's cup
    announcer = np.zeros(games, dtype=np.int64)
    rounds = np.ones(games, dtype=np.int64)
    winner = np.full(games, -1, dtype=np.int64)
    roll_counts = np.zeros(21, dtype=np.int64)
    checks = caught = 0
    live = np.arange(games)

    def next_in(rows, seats):
        """The next seat after `seats` (per row) still in the game."""
        found = np.full(len(rows), -1, dtype=np.int64)
        for step in range(1, n + 1):
            candidate = (seats + step) % n
            free = (found < 0) & (points[rows, candidate] < OUT_AT)
            found[free] = candidate[free]
        return found

    def roll_and_announce(rows, over):
        """The player with the turn rolls and announces over rank `over` (-1: none)."""
        dice = rng.integers(0, 6, size=(2, len(rows)))
        roll = ROLL_RANK[dice[0], dice[1]].astype(np.int64)
        np.add.at(roll_counts, roll, 1)
        who = kind[rows, turn[rows]]
        said = announce[who, over + 1, roll].astype(np.int64)
        bluffing = bluffs[who]
        if bluffing.any():
            b = np.flatnonzero(bluffing)
            lowest = over[b] + 1
            can = roll[b] >= lowest
            lie = (~can) | ((roll[b] < 20) & (rng.random(len(b)) < bots.BLUFF_RATE))
            floor = np.where(can, roll[b] + 1, lowest)
            pick = floor + (rng.random(len(b)) * (21 - floor)).astype(np.int64)
            said[b] = np.where(lie, pick, roll[b])
        earlier[rows] = over
        standing[rows] = said
        real[rows] = roll
        announcer[rows] = turn[rows]
        turn[rows] = next_in(rows, turn[rows])

    while len(live):
        opening = standing[live] < 0
        if opening.any():
            rows = live[opening]
            roll_and_announce(rows, np.full(len(rows), -1, dtype=np.int64))
        rows = live[~opening]
        if len(rows):
            move = answer[kind[rows, turn[rows]], earlier[rows] + 1, standing[rows]]
            go_on = rows[move == 0]
            if len(go_on):
                roll_and_announce(go_on, standing[go_on])
            ended = rows[move != 0]
            if len(ended):
                m = move[move != 0]
                is_check = m == 1
                true = real[ended] >= standing[ended]
                checks += int(is_check.sum())
                caught += int((is_check & ~true).sum())
                loser = np.where(is_check & ~true, announcer[ended], turn[ended])
                penalty = np.where(is_check & (standing[ended] == 20), 2, 1)
                points[ended, loser] += penalty.astype(np.int8)
                still = (points[ended] < OUT_AT).sum(axis=1)
                over = still <= 1
                if over.any():
                    done = ended[over]
                    winner[done] = np.argmax(points[done] < OUT_AT, axis=1)
                going = ended[~over]
                turn[going] = np.where(points[going, loser[~over]] < OUT_AT, loser[~over], next_in(going, loser[~over]))
                standing[going] = -1
                rounds[going] += 1
        live = live[winner[live] < 0]

    wins = np.bincount(home[g_index, winner], minlength=n)
    rolls = {two_dice.VALUES[rank]: int(count) for rank, count in enumerate(roll_counts)}
    return {
        "wins": [int(w) for w in wins],
        "rounds": [int(r) for r in rounds],
        "points": [int(p) for p in points.sum(axis=1)],
        "rolls": rolls,
        "checks": checks,
        "lies_caught": caught,
    }
