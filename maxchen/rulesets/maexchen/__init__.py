"""Mäxchen, the default rule set (docs/rules.md §2): two dice, penalty points, out at 5 (or the host's 3 or 7)."""

from ... import stats
from ...rules.ruleset import HINT_LABELS, N_, RuleSet
from . import batch, bots
from .game import MaexchenGame

DOUBLES = {
    11: N_("double one"),
    22: N_("double two"),
    33: N_("double three"),
    44: N_("double four"),
    55: N_("double five"),
    66: N_("double six"),
}


def hint(follows):
    """The teaching hint of a two-dice ladder: a fresh roll's odds of reaching a value, and of going on after it."""
    return lambda value: (stats.at_least(value), stats.goes_on(value, follows))


RULE_SET = RuleSet(
    MaexchenGame,
    bots.act,
    "values",
    summary=N_("Two dice under the cup: say more than the last player, or bluff. Caught out: a point."),
    names={21: "Mäxchen", **DOUBLES},
    labels={"out_at": N_("Points to go out"), **HINT_LABELS},
    hint=hint(MaexchenGame.follows),
    batch=batch.play_tapes,
)
