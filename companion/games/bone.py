"""Bone's Würfelpoker (guide/RULES.md ``bone``, rule text 004): every hand scores its points each round.

Readings in force (docs/games/bone.md): rounds start with the next seat each round (round 1 with
seat 0); an extra round for a tie at the end is played only by the players tied for the highest
total, in seat order; its best hand wins the game (the rule text's FAQ: "Drei 6er schlagen drei
4er"; an exact tie plays another extra round). Its points still count; lower places share on
equal totals.
"""

from __future__ import annotations

from companion.core import DICE_SETTING, JSON, Outcome, Setting, Setup, Standing, places, register
from companion.english import count
from companion.errors import N_
from companion.hands import BONE, HandRules
from companion.rounds import RoundRules, RoundState

__all__ = ["BoneRules"]


class BoneRules(RoundRules):
    id = "bone"
    name_en = N_("Dice poker (Bone)")
    name_de = "Würfelpoker (Bone)"
    readings_en = (
        N_(
            "Round 1 starts with the first seat, and the start passes one seat on each round (the rule text does not "
            "say)."
        ),
        N_("A hand counts as the highest category it meets: 1-2-3-4-4 is a small straight."),
        N_(
            "Equal highest totals at the end: only the tied players play an extra round; its best hand wins, higher "
            "dice "
            "deciding, and an exact tie plays again."
        ),
        N_("Lower places share on equal totals."),
    )
    readings_de = (
        "Runde 1 beginnt der erste Platz, danach rückt der Beginn jede Runde einen Platz weiter (der Regeltext sagt "
        "es nicht).",
        "Eine Hand zählt als die höchste Kategorie, die sie erfüllt: 1-2-3-4-4 ist eine Kleine Straße.",
        "Gleiche höchste Summen am Ende: nur diese Spieler spielen eine Extrarunde; ihre beste Hand gewinnt, höhere "
        "Würfel entscheiden, und bei genau gleichen Händen wird weitergespielt.",
        "Tiefere Plätze teilen sich gleiche Summen.",
    )
    settings = (
        DICE_SETTING,
        Setting(
            "rounds",
            5,
            "How many rounds are played; every hand scores its points each round.",
            "Wie viele Runden gespielt werden; jede Hand bringt in jeder Runde ihre Punkte.",
            minimum=1,
            maximum=30,
        ),
        Setting(
            "ties",
            "extra",
            "Equal highest totals at the end: the tied players play one more round (extra), or share the place.",
            "Gleichstand an der Spitze am Ende: die Gleichen spielen eine weitere Runde (extra) oder teilen den Platz.",
            choices=("extra", "share"),
        ),
    )

    def hand_rules(self, setup: Setup) -> HandRules:
        return BONE

    def settle(self, state: RoundState) -> RoundState:
        keys = self.keys(state)
        top = max(keys.values())
        best = [p for p in state.stage.order if keys[p] == top]
        points = [0] * state.seats
        for player, rank in keys.items():
            points[player] = rank.points or 0
        extra = state.kind == "extra"
        state = self.close_round(state, best, points=points)
        if extra:
            if len(best) == 1:
                return self.finish(state)
            return self.begin_round(state, starter=best[0], kind="extra", players=best)
        if state.number < state.setup.get("rounds"):
            return self.begin_round(state, starter=state.number % state.seats)
        leaders = self._leaders(state)
        if len(leaders) > 1 and state.setup.get("ties") == "extra":
            return self.begin_round(state, starter=leaders[0], kind="extra", players=leaders)
        return self.finish(state)

    def _leaders(self, state: RoundState) -> list[int]:
        top = max(self._order(state))
        return [p for p in range(state.seats) if self._order(state)[p] == top]

    def _order(self, state: RoundState) -> list[int]:
        """Totals doubled, plus one for the winner of the last extra round: equal totals, decided by the hand."""
        won = {r.best[0] for r in state.history[-1:] if r.kind == "extra" and len(r.best) == 1}
        return [2 * s + (1 if p in won else 0) for p, s in enumerate(state.scores)]

    def standings(self, state: RoundState) -> list[Standing]:
        place = places(list(enumerate(self._order(state))))
        lines = []
        for p in sorted(range(state.seats), key=lambda q: (place[q], q)):
            per_round = [r.points[p] if p in r.stages[0].order else None for r in state.history]
            lines.append(Standing(p, state.setup.players[p], place[p], state.scores[p], {"rounds": per_round}))
        return lines

    def outcome(self, state: RoundState) -> Outcome | None:
        if not state.over:
            return None
        leaders = self._leaders(state)
        total = state.scores[leaders[0]]
        extra = sum(1 for r in state.history if r.kind == "extra")
        if len(leaders) > 1:
            reason = f"Equal highest total of {count(total, 'point')}: the place is shared."
        elif extra:
            rounds = "an extra round" if extra == 1 else f"{extra} extra rounds"
            reason = f"{state.setup.players[leaders[0]]} has the best hand of {rounds} for equal totals."
        else:
            reason = f"Highest total after {count(len(state.history), 'round')}: {count(total, 'point')}."
        return Outcome(tuple(leaders), reason)

    def view(self, state: RoundState) -> JSON:
        """Adds ``running``: each total with the points of the hands already made in the round being played, which
        the block shows as soon as a cell is filled (``scores`` change only when the round is settled)."""
        running = list(state.scores)
        if not state.over:
            for player, rank in self.keys(state).items():
                running[player] += rank.points or 0
        return {
            **super().view(state),
            "rounds": state.setup.get("rounds"),
            "ties": state.setup.get("ties"),
            "running": running,
        }


register(BoneRules())
