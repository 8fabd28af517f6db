"""The two-dice batch simulator: many games of Mäxchen or Poschen at once over numpy arrays (docs/rules.md §2, §3).

Every game is a row, every step moves all unfinished games by one decision.
The strategies are the tables `bots` makes, and every game reads its dice
and its bluffers' draws from its own row of `Tapes`: the real engine, given
the same rows (`Tapes.dice_of`, `Tapes.chances_of`), plays the same games,
which a test checks game by game.
"""

from dataclasses import dataclass

import numpy as np

from ...rules import two_dice
from ...rules.tapes import Tapes
from . import bots
from .game import MaexchenGame


@dataclass(frozen=True)
class Ladder:
    """What the two-dice rule sets differ in, for the batch engine."""

    # The game: its options, and the one (`LENGTH`) that is each player's margin at the start: Mäxchen's
    # points to go out, Poschen's lives.
    game: type[MaexchenGame]
    points: bool  # the score counts points up (Mäxchen), else lives down and never below 0 (Poschen)
    accept: bool  # a 21 may be accepted
    checker_opens: bool  # the checker opens the next round (Poschen), else the loser


MAEXCHEN = Ladder(MaexchenGame, points=True, accept=True, checker_opens=False)


def _tables(strategy: str, may_accept: bool) -> tuple[np.ndarray, np.ndarray]:
    """(answer[earlier + 1, announced]: 0 believe, 1 check, 2 accept; announce[earlier + 1, roll]: rank)."""
    answer = np.zeros((22, 21), dtype=np.int8)
    announce = np.full((22, 21), -1, dtype=np.int8)
    for earlier in range(-1, 21):
        for rank in range(21):
            move = bots.answer_rank(strategy, rank, earlier, may_accept)
            answer[earlier + 1, rank] = ("believe", "check", "accept").index(move)
            if strategy != "bluffer" and earlier < 20:
                announce[earlier + 1, rank] = bots.announce_rank(strategy, rank, earlier, None)
    return answer, announce


# The rank of two dice, indexed [die1 - 1, die2 - 1].
ROLL_RANK = np.array(
    [[two_dice.rank(two_dice.value_of((a, b))) for b in range(1, 7)] for a in range(1, 7)], dtype=np.int8
)


def play_tapes(strategies: list[str], tapes: Tapes, options: dict | None = None, ladder: Ladder = MAEXCHEN) -> dict:
    """Every game of `tapes` with `options` (the defaults where none), seat j of game g holding
    strategies[(j + g) % n]: per game its winner's seat, rounds, points (or lives) lost, each seat's standing
    (`score`, the game's `scored` field), checks and lies caught (arrays, a row per game), and every roll's count."""
    margin = ladder.game.merged_options(None, options or {})[ladder.game.LENGTH]
    n, games = len(strategies), tapes.games
    names = list(dict.fromkeys(strategies))
    answer = np.stack([_tables(name, ladder.accept)[0] for name in names])
    announce = np.stack([_tables(name, ladder.accept)[1] for name in names])
    bluffs = np.array([name == "bluffer" for name in names])
    of_seat = np.array([names.index(s) for s in strategies])
    numbers = tapes.first + np.arange(games)  # each game's number in its run
    kind = of_seat[(np.arange(n)[None, :] + numbers[:, None]) % n]  # [games, seats] -> strategy index

    lives = np.full((games, n), margin, dtype=np.int64)  # in at more than 0
    turn = np.zeros(games, dtype=np.int64)
    standing = np.full(games, -1, dtype=np.int64)  # the standing announcement's rank
    earlier = np.full(games, -1, dtype=np.int64)  # the one before it
    real = np.zeros(games, dtype=np.int64)  # the rank under the announcer's cup
    announcer = np.zeros(games, dtype=np.int64)
    rounds = np.ones(games, dtype=np.int64)
    winner = np.full(games, -1, dtype=np.int64)
    checks = np.zeros(games, dtype=np.int64)
    caught = np.zeros(games, dtype=np.int64)
    dice_at = np.zeros(games, dtype=np.int64)  # each game's place on its tapes
    chances_at = np.zeros(games, dtype=np.int64)
    roll_counts = np.zeros(21, dtype=np.int64)
    live = np.arange(games)

    def next_in(rows, seats):
        """The next seat after `seats` (per row) still in the game."""
        found = np.full(len(rows), -1, dtype=np.int64)
        for step in range(1, n + 1):
            candidate = (seats + step) % n
            free = (found < 0) & (lives[rows, candidate] > 0)
            found[free] = candidate[free]
        return found

    def roll_and_announce(rows, over):
        """The player with the turn rolls and announces over rank `over` (-1: none)."""
        dice = tapes.read("dice", rows, dice_at[rows], 2)
        dice_at[rows] += 2
        roll = ROLL_RANK[dice[0] - 1, dice[1] - 1].astype(np.int64)
        np.add.at(roll_counts, roll, 1)
        who = kind[rows, turn[rows]]
        said = announce[who, over + 1, roll].astype(np.int64)
        bluffing = bluffs[who]
        if bluffing.any():  # as bots.announce_rank: two draws at every announcement
            b = np.flatnonzero(bluffing)
            bluff, pick = tapes.read("chances", rows[b], chances_at[rows[b]], 2)
            chances_at[rows[b]] += 2
            lowest = over[b] + 1
            can = roll[b] >= lowest
            lie = (~can) | ((roll[b] < 20) & (bluff < bots.BLUFF_RATE))
            floor = np.where(can, roll[b] + 1, lowest)
            said[b] = np.where(lie, floor + (pick * (21 - floor)).astype(np.int64), roll[b])
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
                is_check = move[move != 0] == 1
                true = real[ended] >= standing[ended]
                checks[ended] += is_check
                caught[ended] += is_check & ~true
                loser = np.where(is_check & ~true, announcer[ended], turn[ended])
                penalty = np.where(is_check & (standing[ended] == 20), 2, 1)
                lives[ended, loser] -= penalty
                if not ladder.points:
                    lives[ended, loser] = np.maximum(lives[ended, loser], 0)
                over = (lives[ended] > 0).sum(axis=1) <= 1
                if over.any():
                    done = ended[over]
                    winner[done] = np.argmax(lives[done] > 0, axis=1)
                going = ended[~over]
                opener = turn[going] if ladder.checker_opens else loser[~over]
                turn[going] = np.where(lives[going, opener] > 0, opener, next_in(going, opener))
                standing[going] = -1
                rounds[going] += 1
        live = live[winner[live] < 0]

    return {
        "winner": winner,
        "rounds": rounds,
        "lost": (margin - lives).sum(axis=1),
        "score": margin - lives if ladder.points else lives,
        "scored": "points" if ladder.points else "lives",
        "checks": checks,
        "caught": caught,
        "rolls": {two_dice.VALUES[rank]: int(count) for rank, count in enumerate(roll_counts)},
    }
