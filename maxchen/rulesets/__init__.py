"""The registry of rule sets: the one place that names them.

A rule set is a package here (its game, bots, words, options and statistics
adapter, gathered in its `RULE_SET`), its template folder
(`templates/rulesets/<name>/`: the round, the turn controls, the reveal and
the standing), its rules in `docs/rules.md` and the rules pages, and its
line below.
"""

from ..errors import REASONS
from ..rules.game import Game
from ..rules.ruleset import N_, RuleSet
from . import luegen, maexchen, perudo, poschen

REGISTRY: dict[str, RuleSet] = {
    package.RULE_SET.name: package.RULE_SET
    for package in (
        maexchen,
        poschen,
        luegen,
        perudo,
    )
}
for _rule_set in REGISTRY.values():
    REASONS.update({reason: code for reason, (code, _text) in _rule_set.refusals.items()})
DEFAULT = "maexchen"
SHARED_DEFAULT = "poschen"  # one phone passed round: the rule set played that way (docs/rules.md §3)
RULESETS: dict[str, type[Game]] = {name: rule_set.game for name, rule_set in REGISTRY.items()}
TITLES: dict[str, str] = {name: game.TITLE for name, game in RULESETS.items()}
SHARED_PHONE: list[str] = [name for name, game in RULESETS.items() if game.SHARED_PHONE]

__all__ = ["DEFAULT", "N_", "REGISTRY", "RULESETS", "SHARED_DEFAULT", "SHARED_PHONE", "TITLES", "RuleSet"]
