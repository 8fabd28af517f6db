"""What a rule set is: its game and everything the shared places ask it.

Each rule set is one package under `maxchen/rulesets/` that builds one
`RuleSet`; the registry (`maxchen/rulesets/__init__.py`) lists them. Texts
are marked with `N_` and translated where they are shown.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

from .game import Game


def N_(text: str) -> str:  # noqa: N802 - the usual name of the marker
    """Mark a text for translation; it is translated where it is shown."""
    return text


HINT_LABELS = {"hint": N_("Teaching hint"), "off": N_("off"), "on": N_("on")}  # the words of its option


@dataclass(frozen=True)
class RuleSet:
    """How one rule set looks, reads, plays by bots and counts, beside its rules."""

    game: type[Game]
    # The computer players: act(strategy, view, rng) -> an action payload, or None (not its move).
    bots: Callable[[str, dict, object], dict | None]
    # What the statistics count: "values" (the value of each two-dice cup) or "faces" (every die).
    dice: str
    summary: str = ""  # the game in one line, for the lobby
    names: dict[int, str] = field(default_factory=dict)  # the words for values players say as words
    labels: dict[str, str] = field(default_factory=dict)  # option names and choices
    fields: tuple[str, ...] = ()  # whole-number form fields of its actions
    # The teaching hint beside a claim, where the rule set has one: a two-dice value, or a liar's-dice view
    # with a bid, -> its odds by chance alone.
    hint: Callable | None = None
    # A fast simulator of many games at once, where the rule set has one: play_tapes(strategies, tapes, options)
    # -> every game of `maxchen.rules.tapes.Tapes` played with the options (see maxchen/simulate.py).
    batch: Callable | None = None
    # Its own refusals: reason -> (the API code it answers with, its text marked with N_).
    refusals: dict[str, tuple[str, str]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """Its name in URLs, the API and the store."""
        return self.game.NAME

    @property
    def templates(self) -> str:
        """Its template folder: round, turn controls, reveal and standing."""
        return f"rulesets/{self.game.NAME}"
