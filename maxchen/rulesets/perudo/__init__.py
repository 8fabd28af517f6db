"""Perudo (docs/rules.md §6): five dice each (or the host's three or four), pacos wild, dudo, calza and palifico."""

from ...rules import bidding
from ...rules.ruleset import HINT_LABELS, N_, RuleSet
from . import batch, bots
from .game import PerudoGame

RULE_SET = RuleSet(
    PerudoGame,
    bots.act,
    "faces",
    summary=N_("Five dice each, ones are wild: raise the bid, or call dudo or calza. Lose a call, lose a die."),
    labels={"dice": N_("Dice each"), "calza": N_("Calza"), **HINT_LABELS},
    fields=("count", "face"),
    hint=bidding.odds,
    batch=batch.play_tapes,
    refusals={
        "perudo_bad_bid": ("bad_value", N_("Bid a count and a face from 1 to 6 (ones are pacos).")),
        "perudo_paco_opening": ("not_higher", N_("The opening bid cannot be on pacos.")),
        "perudo_raise": (
            "not_higher",
            N_(
                "Raise: the same count with a higher face, or a higher count; onto pacos at least half the count, "
                "from pacos at least twice the count plus one."
            ),
        ),
        "perudo_palifico_raise": ("not_higher", N_("Palifico: the face stays; raise the count.")),
        "perudo_no_calza": ("not_allowed", N_("Calza needs more than two players in the game, and calza switched on.")),
    },
)
