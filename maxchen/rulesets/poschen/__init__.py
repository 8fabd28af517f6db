"""Poschen (docs/rules.md §3): Mäxchen's turn loop with lives and Mayer rules, also on one phone."""

import functools

from ...rules.ruleset import HINT_LABELS, N_, RuleSet
from ..maexchen import batch, bots, hint
from .game import PoschenGame

LADDER = batch.Ladder(PoschenGame, points=False, accept=False, checker_opens=True)

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
    batch=functools.partial(batch.play_tapes, ladder=LADDER),
)
