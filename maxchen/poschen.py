"""Poschen, RULES.md §3: Mäxchen's turn loop with lives, Mayer rules and no accept."""

from . import rules
from .game import MaexchenGame, Option


class PoschenGame(MaexchenGame):
    """Lives instead of points; after a Mayer (21) only 21 again or a check."""

    NAME = "poschen"
    TITLE = "Poschen"
    ACTIONS = ("shake", "believe", "check", "announce")
    OPTIONS = {"lives": Option(default=5, low=3, high=10), **MaexchenGame.OPTIONS}
    SCORE = "lives"

    @classmethod
    def lobby_fields(cls, options):
        return {"lives": options["lives"]}

    def _start_score(self):
        return self.options["lives"]

    def _penalize(self, player, amount):
        # RULES.md §3: lives never go below 0.
        self.score[player] = max(0, self.score[player] - amount)

    def _is_eliminated(self, player):
        return self.score[player] <= 0

    def _score_fields(self, player):
        return {"lives": self.score[player]}

    def _may_accept(self):
        return False

    def _may_believe(self):
        return True

    @staticmethod
    def follows(value, previous):
        """RULES.md §3: strictly higher, but after a Mayer the one announcement allowed is Mayer again."""
        if previous == rules.MAEXCHEN:
            return value == rules.MAEXCHEN
        return rules.is_higher(value, previous)

    def _next_opener(self, loser, checker):
        """RULES.md §3: the last accuser opens (or the next player still in)."""
        return checker
