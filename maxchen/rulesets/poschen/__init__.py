"""Poschen (docs/rules.md §3): Mäxchen's turn loop with lives and Mayer rules, also on one phone."""

from ...rules.ruleset import N_, RuleSet
from ..maexchen import HINT_LABELS, bots, hint
from .game import PoschenGame

RULE_SET = RuleSet(
    PoschenGame,
    bots.act,
    "values",
    summary=N_("Mäxchen with lives: lose them all and you are out; the last one in wins."),
    names={
        21: N_("Mayer"),  # seeds/000: "Mayer" and "four posch"
        11: N_("one posch"),
        22: N_("two posch"),
        33: N_("three posch"),
        44: N_("four posch"),
        55: N_("five posch"),
        66: N_("six posch"),
    },
    labels={"lives": N_("Lives"), **HINT_LABELS},
    hint=hint(PoschenGame.follows),
)
