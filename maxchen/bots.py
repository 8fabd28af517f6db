"""Computer players: what a strategy does with the view a seat gets (and nothing more).

Pure: a strategy reads a player's view (the JSON a bot receives) and returns
one action payload, or None when it has nothing to do. Randomness comes from
the `rng` passed in (a `random.Random`), so games replay with a seed.

Strategies (Mäxchen and Poschen):

- `honest`: announces its roll when that beats the announcement, else the
  smallest legal lie; checks when a fresh roll would beat the announcement
  less than one time in four; accepts a 21 where it may.
- `bluffer`: as `honest`, but lies at a rate (`BLUFF_RATE`) even when the
  truth would do, and then names any higher value.
- `statistician`: checks when the chance that the announcement is true,
  given the one before it, is below one half (under `LIAR`, a model of
  how players lie); when it must lie, it names the most believable value.

In Lügen every strategy bids and doubts from the binomial odds of its own
dice plus the unknown ones (each shows the face or a joker with chance 1/3);
`bluffer` sometimes bids past what the odds support.
"""

import math
from fractions import Fraction
from functools import cache

from . import rules, stats

STRATEGIES = ("honest", "bluffer", "statistician")
BLUFF_RATE = 0.3
CHECK_BELOW = Fraction(1, 4)  # honest and bluffer: check when a fresh roll beats the announcement less often
LIAR = Fraction(1, 2)  # the statistician's model: a liar names the smallest legal lie this often, else any higher
NONE = -1  # the rank of "no announcement yet"


# --- Mäxchen and Poschen, on ranks: 0 (31) to 20 (21); the batch simulator uses the same tables ---


def _share(rank: int) -> Fraction:
    return stats.value_chance(rules.VALUES[rank])


@cache
def below_or_equal(rank: int) -> Fraction:
    """The chance that a fresh roll does not beat rank `rank` (0 for no announcement)."""
    return sum((_share(r) for r in range(rank + 1)), Fraction(0))


@cache
def lie_share(announced: int, earlier: int) -> Fraction:
    """Under `LIAR`: the chance a liar who must beat rank `earlier` names rank `announced`."""
    above = 20 - earlier  # legal values: earlier+1 .. 20
    if announced <= earlier or above <= 0:
        return Fraction(0)
    if above == 1:
        return Fraction(1)
    return LIAR if announced == earlier + 1 else (1 - LIAR) / (above - 1)


@cache
def chance_true(announced: int, earlier: int) -> Fraction:
    """P(the dice are at least the announcement | it was made over `earlier`), under `LIAR`.

    The announcer rolled; a roll that beats `earlier` is told as it is, any
    other is hidden behind a lie. No earlier announcement: nothing forces a lie.
    """
    if earlier == NONE:
        return Fraction(1)
    truth = _share(announced) if announced > earlier else Fraction(0)
    lie = below_or_equal(earlier) * lie_share(announced, earlier)
    return truth / (truth + lie) if truth + lie else Fraction(0)


@cache
def answer_rank(strategy: str, announced: int, earlier: int, may_accept: bool) -> str:
    """`believe`, `check` or `accept` for an announcement (ranks; `earlier` the one before it)."""
    if strategy == "statistician":
        doubtful = chance_true(announced, earlier) < Fraction(1, 2)
    else:
        doubtful = announced < 20 and stats.beats(rules.VALUES[announced]) < CHECK_BELOW
    if announced == 20:  # nothing beats 21: accept it where the rules allow, or check
        return "check" if doubtful or not may_accept else "accept"
    return "check" if doubtful else "believe"


def announce_rank(strategy: str, roll: int, earlier: int, rng, equal_ok: bool = False) -> int:
    """The rank to announce over `earlier` with a roll of rank `roll` (`equal_ok`: Poschen after 21)."""
    lowest = earlier if equal_ok else earlier + 1
    if lowest > 20:
        raise ValueError("nothing is left to announce")
    if roll >= lowest:
        if strategy == "bluffer" and roll < 20 and rng.random() < BLUFF_RATE:
            return rng.randint(roll + 1, 20)
        return roll
    if strategy == "honest":
        return lowest
    if strategy == "bluffer":
        return rng.randint(lowest, 20)
    return max(range(lowest, 21), key=lambda rank: (chance_true(rank, earlier), -rank))


# --- Lügen ---


@cache
def chance_at_least(needed: int, unknown: int) -> float:
    """P(at least `needed` of `unknown` dice show a face or a joker), each with chance 1/3."""
    if needed <= 0:
        return 1.0
    return sum(math.comb(unknown, k) * (1 / 3) ** k * (2 / 3) ** (unknown - k) for k in range(needed, unknown + 1))


def _bid_chance(bid: dict, dice: list[int], in_play: int) -> float:
    mine = sum(1 for d in dice if d in (1, bid["face"]))
    return chance_at_least(bid["count"] - mine, in_play - len(dice))


def _luegen(strategy: str, view: dict, rng) -> dict | None:
    allowed, dice, bid = view["allowed"], view.get("dice") or [], view.get("bid")
    if "shake" in allowed:
        return {"action": "shake"}
    in_play = view.get("dice_in_play") or len(dice)
    if bid and "doubt" in allowed and bid["player"] != view["you"] and _bid_chance(bid, dice, in_play) < 0.5:
        return {"action": "doubt"}
    if "bid" not in allowed or not view.get("choices"):
        return None
    ranked = sorted(view["choices"], key=lambda c: (-_bid_chance(c, dice, in_play), c["count"], c["face"]))
    choice = ranked[0]
    if strategy == "bluffer" and rng.random() < BLUFF_RATE:
        choice = ranked[min(len(ranked) - 1, rng.randint(1, 4))]
    return {"action": "bid", "count": choice["count"], "face": choice["face"]}


# --- a view in, an action out ---


def act(strategy: str, view: dict, rng) -> dict | None:
    """The action `strategy` takes in this view of its seat, or None (not its move)."""
    if strategy not in STRATEGIES:
        raise ValueError(f"no strategy {strategy!r}")
    allowed = view.get("allowed") or []
    if view.get("phase") != "playing" or not allowed:
        return None
    if view.get("rules") == "luegen":
        return _luegen(strategy, view, rng)
    if "shake" in allowed:
        return {"action": "shake"}
    history = view.get("history") or []
    said = view.get("announcement")
    if "announce" in allowed:
        earlier = rules.rank(said["value"]) if said else NONE
        choices = [rules.rank(v) for v in view["choices"]]
        roll = rules.rank(rules.value_of(view["dice"]))
        rank = announce_rank(strategy, roll, earlier, rng, equal_ok=earlier in choices)
        return {"action": "announce", "value": rules.VALUES[rank]}
    if said and {"believe", "check"} & set(allowed) or "accept" in allowed:
        earlier = rules.rank(history[-2]["value"]) if len(history) >= 2 else NONE
        move = answer_rank(strategy, rules.rank(said["value"]), earlier, "accept" in allowed)
        if move == "believe" and "believe" not in allowed:
            move = "check"
        return {"action": move}
    return None
