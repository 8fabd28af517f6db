"""Poschen, docs/rules.md §3: Mäxchen's turn loop with lives, Mayer rules and no accept."""

from ...rules import two_dice
from ...rules.game import HINT, Option
from ..maexchen.game import MaexchenGame


class PoschenGame(MaexchenGame):
    """Lives instead of points; after a Mayer (21) only 21 again or a check."""

    NAME = "poschen"
    TITLE = "Poschen"
    ACTIONS = ("shake", "believe", "check", "announce")
    OPTIONS = {"lives": Option(default=5, low=3, high=10), "hint": HINT}  # lives, not Mäxchen's points to go out
    LENGTH = "lives"

    @classmethod
    def lobby_fields(cls, options):
        return {"lives": options["lives"]}

    def _start_score(self):
        return self.options["lives"]

    def _penalize(self, player, amount):
        # docs/rules.md §3: lives never go below 0.
        self.score[player] = max(0, self.score[player] - amount)

    def _is_eliminated(self, player):
        return self.score[player] <= 0

    def _score_fields(self, player):
        return {"lives": self.score[player]}

    def standing_key(self, player):
        return -self.score[player]  # more lives left is better

    def _may_accept(self):
        return False

    def _may_believe(self):
        return True

    @staticmethod
    def follows(value, previous):
        """docs/rules.md §3: strictly higher, but after a Mayer the one announcement allowed is Mayer again."""
        if previous == two_dice.MAEXCHEN:
            return value == two_dice.MAEXCHEN
        return two_dice.is_higher(value, previous)

    def _next_opener(self, loser, checker):
        """docs/rules.md §3: the last accuser opens (or the next player still in)."""
        return checker
