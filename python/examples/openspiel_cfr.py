"""OpenSpiel's CFR on a Kumite rule file, checked against Kumite's exact solver.

Oshi-Zumo (tests/designs/oshi_zumo_small.kmt) made small enough for CFR's full game tree — a
field of 3, 3 turns, h with 2 coins and c with 1 (so the game is not even) — is loaded through the OpenSpiel adapter, turned into a
turn-based game by OpenSpiel (``convert_to_turn_based``: the second mover does not see the
first's choice), and solved by CFR. Its NashConv (the sum of both players' best-reply gains)
falls towards 0, and the value of its average policy approaches Kumite's exact game value.

    python python/examples/openspiel_cfr.py [iterations]
"""

from __future__ import annotations

import pathlib
import sys
from typing import List, Tuple

import pyspiel
from open_spiel.python.algorithms import cfr, exploitability, expected_game_score

import kumite.openspiel as kos

OSHI = pathlib.Path(__file__).resolve().parents[2] / "tests" / "designs" / "oshi_zumo_small.kmt"


def tiny_text() -> str:
    text = OSHI.read_text(encoding="utf-8")
    return text.replace("所持金:4", "所持金:2").replace("土俵:2", "土俵:1").replace("T1000", "T3")


def main() -> Tuple[List[Tuple[int, float]], float, float]:
    iterations = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    game = kos.load(text=tiny_text(), set={"c.金": 1})
    turn_based = pyspiel.convert_to_turn_based(game)
    solver = cfr.CFRSolver(turn_based)
    history: List[Tuple[int, float]] = []
    for i in range(1, iterations + 1):
        solver.evaluate_and_update_policy()
        if i in (1, 10, 100, 1000, iterations):
            conv = exploitability.nash_conv(turn_based, solver.average_policy())
            history.append((i, conv))
            print(f"CFR iteration {i:5d}: NashConv {conv:.5f}")
    policy = solver.average_policy()
    value = expected_game_score.policy_value(turn_based.new_initial_state(), [policy] * 2)[0]
    exact = game.kgame.value_table().start_value
    print(f"value of CFR's average policy for h: {value:+.4f}; Kumite's exact game value: {exact:+.4f}")
    return history, value, exact


if __name__ == "__main__":
    main()
