"""Bots of the two-dice rule sets (Mäxchen, Poschen), on ranks: 0 (31) to 20 (21).

- `honest`: announces its roll when that beats the announcement, else the
  smallest legal lie; checks when a fresh roll would beat the announcement
  less than one time in four; accepts a 21 where it may.
- `bluffer`: as `honest`, but lies at a rate (`BLUFF_RATE`) even when the
  truth would do, and then names any higher value.
- `statistician`: checks when the chance that the announcement is true,
  given the one before it, is below one half (under `LIAR`, a model of
  how players lie); when it must lie, it names the most believable value.

The batch simulator (`batch.py`) plays from the same tables.
"""

from fractions import Fraction
from functools import cache

from ... import stats
from ...rules import two_dice
from ...rules.bots import BLUFF_RATE

CHECK_BELOW = Fraction(1, 4)  # honest and bluffer: check when a fresh roll beats the announcement less often
LIAR = Fraction(1, 2)  # the statistician's model: a liar names the smallest legal lie this often, else any higher
NONE = -1  # the rank of "no announcement yet"


def _share(rank: int) -> Fraction:
    return stats.value_chance(two_dice.VALUES[rank])


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
        doubtful = announced < 20 and stats.beats(two_dice.VALUES[announced]) < CHECK_BELOW
    if announced == 20:  # nothing beats 21: accept it where the rules allow, or check
        return "check" if doubtful or not may_accept else "accept"
    return "check" if doubtful else "believe"


def announce_rank(strategy: str, roll: int, earlier: int, rng, equal_ok: bool = False) -> int:
    """The rank to announce over `earlier` with a roll of rank `roll` (`equal_ok`: Poschen after 21)."""
    lowest = earlier if equal_ok else earlier + 1
    if lowest > 20:
        raise ValueError("nothing is left to announce")
    if strategy == "bluffer":
        # Two draws at every announcement, used or not: the batch engine replays a game from the same draws.
        bluff, pick = rng.random(), rng.random()
        floor = roll + 1 if roll >= lowest else lowest  # a lie names any value from here up
        if roll < lowest or (roll < 20 and bluff < BLUFF_RATE):
            return floor + int(pick * (21 - floor))
        return roll
    if roll >= lowest:
        return roll
    if strategy == "honest":
        return lowest
    return max(range(lowest, 21), key=lambda rank: (chance_true(rank, earlier), -rank))


def act(strategy: str, view: dict, rng) -> dict | None:
    """The action `strategy` takes in this view of its seat, or None (not its move)."""
    allowed = view["allowed"]
    if "shake" in allowed:
        return {"action": "shake"}
    history = view.get("history") or []
    said = view.get("announcement")
    if "announce" in allowed:
        earlier = two_dice.rank(said["value"]) if said else NONE
        choices = [two_dice.rank(v) for v in view["choices"]]
        roll = two_dice.rank(two_dice.value_of(view["dice"]))
        rank = announce_rank(strategy, roll, earlier, rng, equal_ok=earlier in choices)
        return {"action": "announce", "value": two_dice.VALUES[rank]}
    if said and {"believe", "check"} & set(allowed) or "accept" in allowed:
        earlier = two_dice.rank(history[-2]["value"]) if len(history) >= 2 else NONE
        move = answer_rank(strategy, two_dice.rank(said["value"]), earlier, "accept" in allowed)
        if move == "believe" and "believe" not in allowed:
            move = "check"
        return {"action": move}
    return None
