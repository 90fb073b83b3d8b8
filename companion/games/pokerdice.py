"""Poker Dice with card faces (guide/RULES.md ``pokerdice``, rule text 001): first to three round wins.

The best hand of a round scores a point; an exact tie for best is rolled off by the tied players
alone until one hand is best. The next round starts with the seat after the last player who
threw (after a roll-off: after the last tied player who threw), so after an ordinary round the
same seat starts again.
"""

from __future__ import annotations

import dataclasses

from companion.core import DICE_SETTING, JSON, Outcome, Setting, Setup, Standing, places, register
from companion.english import count
from companion.errors import N_
from companion.hands import POKERDICE, HandRank, HandRules
from companion.rounds import RoundRules, RoundState

__all__ = ["PokerDiceRules"]


class PokerDiceRules(RoundRules):
    id = "pokerdice"
    name_en = N_("Poker Dice")
    name_de = "Poker Dice (Pokerwürfel)"
    readings_en = (
        N_("The only straights are 9-10-J-Q-K and 10-J-Q-K-A; 9-J-Q-K-A is a high die."),
        N_(
            "An exact tie for the best hand: nobody scores yet; the tied players play the round again while the others "
            "sit out, until one hand is best."
        ),
        N_(
            "The next round starts with the seat after the last player who threw; after a roll-off, after the last "
            "tied "
            "player who threw."
        ),
    )
    readings_de = (
        "Die einzigen Straßen sind 9-10-J-Q-K und 10-J-Q-K-A; 9-J-Q-K-A ist nur ein höchster Würfel.",
        "Genau gleiche beste Hände: noch niemand punktet; nur diese Spieler spielen die Runde noch einmal, bis eine "
        "Hand die beste ist.",
        "Die nächste Runde beginnt der Platz nach dem Letzten, der geworfen hat; nach einem Stechen der Platz nach "
        "dem letzten Beteiligten.",
    )
    settings = (
        dataclasses.replace(DICE_SETTING, default="poker"),
        Setting(
            "wins",
            3,
            "Round wins that take the match.",
            "Gewonnene Runden, die das Match entscheiden.",
            minimum=1,
            maximum=20,
        ),
    )

    def hand_rules(self, setup: Setup) -> HandRules:
        return POKERDICE

    def points_of(self, rank: HandRank) -> int | None:
        return None

    def settle(self, state: RoundState) -> RoundState:
        keys = self.keys(state)
        top = max(keys.values())
        best = [h.player for h in state.stage.hands if keys[h.player] == top]
        if len(best) > 1:
            return self.begin_rolloff(state, best)
        winner = best[0]
        last = state.stage.order[-1]
        points = [0] * state.seats
        points[winner] = 1
        state = self.close_round(state, best, points=points)
        if state.scores[winner] >= state.setup.get("wins"):
            return self.finish(state)
        return self.begin_round(state, starter=(last + 1) % state.seats)

    def standings(self, state: RoundState) -> list[Standing]:
        place = places([(p, s) for p, s in enumerate(state.scores)])
        return [
            Standing(p, state.setup.players[p], place[p], state.scores[p], {"wins": state.scores[p]})
            for p in sorted(range(state.seats), key=lambda q: (place[q], q))
        ]

    def outcome(self, state: RoundState) -> Outcome | None:
        if not state.over:
            return None
        winner = max(range(state.seats), key=lambda p: state.scores[p])
        return Outcome(
            (winner,),
            f"{state.setup.players[winner]} is the first to {count(int(state.setup.get('wins')), 'round win')}.",
        )

    def view(self, state: RoundState) -> JSON:
        return {**super().view(state), "wins": list(state.scores), "wins_needed": state.setup.get("wins")}


register(PokerDiceRules())
