"""What the bots of every rule set share: the strategies' names and how often a bluffer bluffs.

A rule set's strategy (its package's `bots.act`) reads a player's view (the
JSON a bot receives) and returns one action payload, or None when it has
nothing to do. Randomness comes from the `rng` passed in (a
`random.Random`), so games replay with a seed.
"""

import math
from functools import cache

STRATEGIES = ("honest", "bluffer", "statistician")
BLUFF_RATE = 0.3


def at_least(needed: int, unknown: int, p):
    """Liar's dice: P(at least `needed` of `unknown` dice count), each with chance `p` (a face or a joker: 1/3;
    pacos, or any face without jokers: 1/6). Exact for a Fraction `p` (what /learn shows), else a float."""
    terms = (math.comb(unknown, k) * p**k * (1 - p) ** (unknown - k) for k in range(max(needed, 0), unknown + 1))
    return sum(terms, 0 * p)


@cache
def chance_at_least(needed: int, unknown: int, p: float = 1 / 3) -> float:
    """P(at least `needed` of `unknown` dice count for a bid), each with chance `p` (the bots' odds)."""
    return 1.0 if needed <= 0 else at_least(needed, unknown, p)


def best_bid(strategy: str, choices: list[dict], chance, rng) -> dict:
    """Liar's dice: the bid of the likeliest choice (`chance(choice)`), the lowest count and face among equals;
    a bluffer sometimes takes the 2nd to 5th likeliest instead."""
    ranked = sorted(choices, key=lambda c: (-chance(c), c["count"], c["face"]))
    choice = ranked[0]
    if strategy == "bluffer":
        # Two draws at every bid, used or not: a batch engine replays a game from the same draws.
        bluff, pick = rng.random(), rng.random()
        if bluff < BLUFF_RATE:
            choice = ranked[min(len(ranked) - 1, 1 + int(pick * 4))]
    return {"action": "bid", "count": choice["count"], "face": choice["face"]}
