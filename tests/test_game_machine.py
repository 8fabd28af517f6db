"""Invariants of every two-dice game, checked by a Hypothesis state machine.

Random legal and illegal actions, leaving players included; after each step:
scores only move one way, exactly one player is to act, refused actions
change nothing, and no view holds dice (or a server seed) its player may not see.
"""

import json

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from maxchen import fair
from maxchen.errors import IllegalMove
from maxchen.rulesets import RULESETS

from .conftest import SeededDice

PLAYERS = ["p0", "p1", "p2", "p3"]
VALUES = st.one_of(st.integers(0, 70), st.sampled_from(["21", "6-5", "Mäxchen", "12", "", None, [6, 5]]))


def lengths(game_class):
    """Every length of a game the host may choose (docs/rules.md, "A shorter game")."""
    option = game_class.OPTIONS[game_class.LENGTH]
    return st.sampled_from(option.choices) if option.choices else st.integers(option.low, option.high)


def machine_for(game_class):
    class GameMachine(RuleBasedStateMachine):
        @initialize(count=st.integers(2, 4), seed=st.integers(0, 2**32), length=lengths(game_class))
        def start(self, count, seed, length):
            self.game = game_class(PLAYERS[:count], {game_class.LENGTH: length}, dice=SeededDice(seed))
            self.scores = self._scores()
            self.drawn, self.opened = set(), set()  # every server seed drawn, every one a check has shown

        def _scores(self):
            return {p: self.game.player_fields(p) for p in self.game.players}

        @rule(player=st.sampled_from(PLAYERS), action=st.sampled_from(game_class.ACTIONS), value=VALUES)
        def act(self, player, action, value):
            before = self.game.to_dict()
            try:
                self.game.apply(player, action, {"value": value})
            except IllegalMove as refusal:
                assert refusal.code in ("not_your_turn", "not_allowed", "bad_value", "not_higher")
                assert self.game.to_dict() == before

        @rule(data=st.data())
        def play_legal(self, data):
            if self.game.over:
                return
            player = self.game.waiting_for()[0]
            action = data.draw(st.sampled_from(self.game.allowed(player)))
            payload = {}
            if action == "announce":
                payload["value"] = data.draw(st.sampled_from(self.game.announceable()))
            self.game.apply(player, action, payload)

        @precondition(lambda self: not self.game.over)
        @rule(index=st.integers(0, 3))
        def leave(self, index):
            player = PLAYERS[index % len(self.game.players)]
            self.game.remove(player)

        @precondition(lambda self: not self.game.over)
        @rule()
        def teacher_stops(self):
            """docs/rules.md §7: the game ends now; the standings stay, the winner is the best still in."""
            still_in = {p: self.game.player_fields(p) for p in self.game.active()}
            self.game.end_now()
            assert self.game.over and self.game.winner in still_in
            assert all(self.game.player_fields(p) | {"out": False} == f for p, f in still_in.items())

        @invariant()
        def scores_move_one_way(self):
            now = self._scores()
            for player, fields in now.items():
                before = self.scores[player]
                for key in ("points",):
                    if key in fields:
                        assert fields[key] >= before[key]
                for key in ("lives",):
                    if key in fields:
                        assert 0 <= fields[key] <= before[key]
                assert fields["out"] or not before["out"]
            self.scores = now

        @invariant()
        def out_at_the_hosts_length(self):
            """Out exactly at `out_at` points (Mäxchen) or with no lives left (Poschen), or gone."""
            for player in self.game.players:
                fields = self.game.player_fields(player)
                if player not in self.game.left and "points" in fields:
                    assert fields["out"] == (fields["points"] >= self.game.options["out_at"])
                if player not in self.game.left and "lives" in fields:
                    assert fields["out"] == (fields["lives"] == 0)
                    assert fields["lives"] <= self.game.options["lives"]

        @invariant()
        def exactly_one_player_acts(self):
            acting = [p for p in self.game.players if self.game.allowed(p)]
            if self.game.over:
                assert acting == []
                assert self.game.winner is None or not self.game.player_fields(self.game.winner)["out"]
            else:
                assert acting == self.game.waiting_for()
                assert len(acting) == 1
                assert not self.game.player_fields(acting[0])["out"]

        @invariant()
        def views_hold_no_hidden_dice(self):
            game = self.game
            views = {p: game.view_for(p) for p in game.players + [None]}
            public = {
                json.dumps({k: v for k, v in view.items() if k not in ("allowed", "choices", "dice")})
                for view in views.values()
            }
            # Apart from what it may do and its own dice, every seat sees the same table.
            assert len(public) == 1
            for player, view in views.items():
                if view["dice"] is not None:
                    assert player == game.cup_owner
                    assert view["dice"] == game.cup
            # A cup's server seed is as secret as its dice: in no view before a check shows them (a
            # believed cup's never); its commit is in every view from before the shake on, the same one.
            cup = game.record or game.pending
            if cup:
                self.drawn.add(cup.get("server_seed") or cup["seed"])
                assert all(view["fair"]["commit"] == cup["commit"] for view in views.values())
            if game.reveal and game.reveal["fair"]:
                self.opened.add(game.reveal["fair"]["server_seed"])
                assert fair.commit_of(game.reveal["fair"]["server_seed"]) == game.reveal["fair"]["commit"]
            shown = json.dumps(views)
            assert not any(seed in shown for seed in self.drawn - self.opened)

        def teardown(self):
            # The game always ends: checking every time must finish it.
            for _ in range(200):
                if self.game.over:
                    break
                player = self.game.waiting_for()[0]
                allowed = self.game.allowed(player)
                if "check" in allowed:
                    self.game.apply(player, "check")
                elif "shake" in allowed:
                    self.game.apply(player, "shake")
                else:
                    self.game.apply(player, "announce", {"value": self.game.announceable()[-1]})
            assert self.game.over

    GameMachine.__name__ = f"{game_class.__name__}Machine"
    return GameMachine


for _name, _game in RULESETS.items():
    if "announce" in _game.ACTIONS:
        _machine = machine_for(_game)
        _machine.TestCase.settings = settings(max_examples=150, stateful_step_count=60, deadline=None)
        globals()[f"Test{_game.__name__}"] = _machine.TestCase
