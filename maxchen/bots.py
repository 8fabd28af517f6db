"""Computer players: what a strategy does with the view a seat gets (and nothing more).

Each rule set brings its strategies (its package's `bots.py`); this is the
one door to them. Randomness comes from the `rng` passed in (a
`random.Random`), so games replay with a seed.
"""

from .rules.bots import BLUFF_RATE, STRATEGIES
from .rulesets import REGISTRY

__all__ = ["BLUFF_RATE", "STRATEGIES", "act"]


def act(strategy: str, view: dict, rng) -> dict | None:
    """The action `strategy` takes in this view of its seat, or None (not its move)."""
    if strategy not in STRATEGIES:
        raise ValueError(f"no strategy {strategy!r}")
    if view.get("phase") != "playing" or not view.get("allowed"):
        return None
    return REGISTRY[view["rules"]].bots(strategy, view, rng)
