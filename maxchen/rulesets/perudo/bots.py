"""Bots of Perudo: every strategy weighs bids by the binomial odds of the dice it cannot see.

An unseen die counts for a face 2–6 with chance 1/3 (the face or a paco),
for pacos, or for any face in a palifico round, with 1/6.

- `honest`: raises with the most likely bid; calls dudo when the bid is
  less likely than not.
- `bluffer`: as `honest`, but sometimes raises past what the odds support.
- `statistician`: as `honest`, and calls calza where it may when the bid
  being exactly right is likelier than one in three.
"""

from ...rules.bots import best_bid, chance_at_least
from .game import PACO, count_matches

CALZA_ABOVE = 1 / 3


def _odds(bid: dict, view: dict) -> tuple[int, int, float]:
    """What a bid needs of the unseen dice: (needed, unseen, chance per die)."""
    dice = view.get("dice") or []
    wild = view.get("palifico") is None
    mine = count_matches([dice], bid["face"], wild)
    single = bid["face"] == PACO or not wild
    return bid["count"] - mine, view["dice_in_play"] - len(dice), 1 / 6 if single else 1 / 3


def chance(bid: dict, view: dict) -> float:
    """The chance that at least the bid's count is on the table, for this seat."""
    return chance_at_least(*_odds(bid, view))


def exact(bid: dict, view: dict) -> float:
    """The chance that exactly the bid's count is on the table, for this seat."""
    needed, unseen, p = _odds(bid, view)
    return chance_at_least(needed, unseen, p) - chance_at_least(needed + 1, unseen, p)


def act(strategy: str, view: dict, rng) -> dict | None:
    """The action `strategy` takes in this view of its seat, or None (not its move)."""
    allowed, bid = view["allowed"], view.get("bid")
    if "shake" in allowed:
        return {"action": "shake"}
    if strategy == "statistician" and "calza" in allowed and exact(bid, view) > CALZA_ABOVE:
        return {"action": "calza"}
    if "dudo" in allowed and (chance(bid, view) < 0.5 or "bid" not in allowed):
        return {"action": "dudo"}
    if "bid" not in allowed:
        return None
    return best_bid(strategy, view["choices"], lambda c: chance(c, view), rng)
