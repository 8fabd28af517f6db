"""Lügen (docs/rules.md §4): liar's dice with three dice each and beer mats."""

from ...rules import bidding
from ...rules.ruleset import HINT_LABELS, N_, RuleSet
from . import batch, bots
from .game import LuegenGame

RULE_SET = RuleSet(
    LuegenGame,
    bots.act,
    "faces",
    summary=N_("Three dice each, bids on every die on the table: raise the bid or doubt it."),
    labels={
        "mats": N_("Beer mats"),
        "playoff": N_("Play-off"),
        "equal": N_("if all tie"),
        "last_two": N_("last two only"),
        **HINT_LABELS,
    },
    fields=("count", "face"),
    hint=bidding.odds,
    batch=batch.play_tapes,
)
