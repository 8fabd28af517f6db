"""The registry of rule sets: name -> Game class."""

from .game import Game, MaexchenGame
from .poschen import PoschenGame

RULESETS: dict[str, type[Game]] = {game.NAME: game for game in (MaexchenGame, PoschenGame)}
DEFAULT = "maexchen"
