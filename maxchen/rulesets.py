"""The registry of rule sets: the one place to add one.

A rule set is its game module (the rules, pure), its template folder
(`templates/rulesets/<name>/`: the round, the turn controls and the reveal),
and here: the words players use for its values, the labels of its options,
and the form fields of its actions. Texts are marked with `N_` and
translated where they are shown.
"""

from dataclasses import dataclass, field

from .game import Game, MaexchenGame
from .luegen import LuegenGame
from .poschen import PoschenGame


def N_(text: str) -> str:  # noqa: N802 - the usual name of the marker
    """Mark a text for translation; it is translated where it is shown."""
    return text


@dataclass(frozen=True)
class RuleSet:
    """How one rule set looks and reads, beside its rules."""

    game: type[Game]
    top: str  # the name of the highest value (21)
    doubles: tuple[str, ...]  # the names of 11 … 66
    summary: str = ""  # the game in one line, for the lobby
    labels: dict[str, str] = field(default_factory=dict)  # option names and choices
    fields: tuple[str, ...] = ()  # whole-number form fields of its actions

    @property
    def templates(self) -> str:
        """Its template folder."""
        return f"rulesets/{self.game.NAME}"


DOUBLES = (
    N_("double one"),
    N_("double two"),
    N_("double three"),
    N_("double four"),
    N_("double five"),
    N_("double six"),
)

HINT_LABELS = {"hint": N_("Teaching hint"), "off": N_("off"), "on": N_("on")}

REGISTRY: dict[str, RuleSet] = {
    rule_set.game.NAME: rule_set
    for rule_set in (
        RuleSet(
            MaexchenGame,
            "Mäxchen",
            DOUBLES,
            summary=N_("Two dice under the cup: say more than the last player, or bluff. Caught out: a point."),
            labels=HINT_LABELS,
        ),
        RuleSet(
            PoschenGame,
            N_("Mayer"),  # seeds/000: "Mayer" and "four posch"
            (N_("one posch"), N_("two posch"), N_("three posch"), N_("four posch"), N_("five posch"), N_("six posch")),
            summary=N_("Mäxchen with lives: lose them all and you are out; the last one in wins."),
            labels={"lives": N_("Lives"), **HINT_LABELS},
        ),
        RuleSet(
            LuegenGame,
            "Mäxchen",
            DOUBLES,
            summary=N_("Three dice each, bids on every die on the table: raise the bid or doubt it."),
            labels={
                "mats": N_("Beer mats"),
                "playoff": N_("Play-off"),
                "equal": N_("if all tie"),
                "last_two": N_("last two only"),
            },
            fields=("count", "face"),
        ),
    )
}
RULESETS: dict[str, type[Game]] = {name: rule_set.game for name, rule_set in REGISTRY.items()}
TITLES: dict[str, str] = {name: game.TITLE for name, game in RULESETS.items()}
SHARED_PHONE: list[str] = [name for name, game in RULESETS.items() if game.SHARED_PHONE]
DEFAULT = "maexchen"
