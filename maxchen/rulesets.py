"""The registry of rule sets: name -> Game class."""

from .game import Game, MaexchenGame

RULESETS: dict[str, type[Game]] = {game.NAME: game for game in (MaexchenGame,)}
DEFAULT = "maexchen"
