"""Bots of Lügen: every strategy bids and doubts from the binomial odds.

The odds are of its own dice plus the unknown ones (each shows the face or a
joker with chance 1/3); `bluffer` sometimes bids past what the odds support.
"""

from ...rules.bots import best_bid, chance_at_least  # each unseen die a face or a joker: 1/3


def _bid_chance(bid: dict, dice: list[int], in_play: int) -> float:
    mine = sum(1 for d in dice if d in (1, bid["face"]))
    return chance_at_least(bid["count"] - mine, in_play - len(dice))


def act(strategy: str, view: dict, rng) -> dict | None:
    """The action `strategy` takes in this view of its seat, or None (not its move)."""
    allowed, dice, bid = view["allowed"], view.get("dice") or [], view.get("bid")
    if "shake" in allowed:
        return {"action": "shake"}
    in_play = view.get("dice_in_play") or len(dice)
    if bid and "doubt" in allowed and bid["player"] != view["you"] and _bid_chance(bid, dice, in_play) < 0.5:
        return {"action": "doubt"}
    if "bid" not in allowed or not view.get("choices"):
        return None
    unseen = in_play - len(dice)
    mine = {face: sum(1 for d in dice if d in (1, face)) for face in {c["face"] for c in view["choices"]}}
    return best_bid(strategy, view["choices"], lambda c: chance_at_least(c["count"] - mine[c["face"]], unseen), rng)
