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


@cache
def chance_at_least(needed: int, unknown: int, p: float = 1 / 3) -> float:
    """P(at least `needed` of `unknown` dice count for a bid), each with chance `p` (liar's dice odds)."""
    if needed <= 0:
        return 1.0
    return sum(math.comb(unknown, k) * p**k * (1 - p) ** (unknown - k) for k in range(needed, unknown + 1))
