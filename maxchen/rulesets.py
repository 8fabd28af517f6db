"""The registry of rule sets: name -> Game class."""

from .game import Game, MaexchenGame
from .luegen import LuegenGame
from .poschen import PoschenGame

RULESETS: dict[str, type[Game]] = {game.NAME: game for game in (MaexchenGame, PoschenGame, LuegenGame)}
DEFAULT = "maexchen"
