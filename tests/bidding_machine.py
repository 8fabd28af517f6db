"""What every liar's-dice game's state machine tries besides its legal moves (Lügen, Perudo)."""

import itertools

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from maxchen.errors import IllegalMove


class BiddingMachine(RuleBasedStateMachine):
    """Anything at all from anyone is refused without a change; players leave; nobody sees another's cup.

    A subclass starts `self.game` and `self.players` (an `initialize` rule) and adds its legal moves.
    """

    MOVES = ("shake", "bid", "doubt", "dudo", "calza", "fly")

    @rule(
        data=st.data(),
        player=st.sampled_from(["p0", "p1", "p2", "p3", "p4", "stranger"]),
        count=st.integers(-1, 30),
        face=st.integers(0, 7),
    )
    def anything(self, data, player, count, face):
        action = data.draw(st.sampled_from(self.MOVES))
        before = self.game.to_dict()
        try:
            self.game.apply(player, action, {"count": count, "face": face})
        except IllegalMove:
            assert self.game.to_dict() == before

    @rule(index=st.integers(0, 4))
    def leave(self, index):
        if not self.game.over and index < len(self.players):
            self.game.remove(self.players[index])

    @rule()
    def teacher_stops(self):
        """docs/rules.md §7: the game ends now, its round void; nobody gains or loses a die or a mat."""
        if self.game.over:
            return
        before = {p: self.game.player_fields(p) for p in self.players}
        self.game.end_now()
        assert self.game.over and self.game.allowed(self.players[0]) == []
        keep = ("mats", "dice")
        assert all(
            {k: before[p].get(k) for k in keep} == {k: self.game.player_fields(p).get(k) for k in keep}
            for p in self.players
        )

    @invariant()
    def the_bids_heard_end_with_the_standing_one(self):
        """The round's history, as every view shows it: the standing bid last, none before the first, and no
        player twice in a row (the turn moves on after a bid)."""
        view = self.game.view_for(None)
        bids = view["bids"]
        assert (bids[-1] if bids else None) == view["bid"]
        assert all(a["player"] != b["player"] for a, b in itertools.pairwise(bids))

    @invariant()
    def nobody_sees_another_cup(self):
        for player in self.players:
            view = self.game.view_for(player)
            assert view["dice"] is None or view["dice"] == self.game.cups.get(player)
