"""The OpenSpiel adapter: OpenSpiel's own algorithms, unchanged, on Kumite rule files, checked
against Kumite's solver."""

import json
import pathlib
import subprocess

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import cfr, exploitability, get_all_states, mcts
from open_spiel.python.algorithms import value_iteration

import kumite
import kumite.openspiel as kos
from conftest import ALL_FILES, rule

# A dice race of our own (alternate, with chance): a safe step of 1–2 or a gamble of 0–3;
# first to 5 wins.
DICE_RACE = """!:位置=0,[小],[大]
[小]:S.位置+=rand(1,2)
[大]:S.位置+=rand(0,3)
S.位置>=5:S.勝利
"""


def tiny_oshi_zumo():
    """Oshi-Zumo with 2 coins, a field of 3 and 3 turns: small enough for CFR's full tree."""
    text = pathlib.Path(rule("oshi_zumo_small.kmt")).read_text(encoding="utf-8")
    return text.replace("所持金:4", "所持金:2").replace("土俵:2", "土俵:1").replace("T1000", "T3")


def vi_agrees_with_kumite(game):
    values = value_iteration.value_iteration(game, -1, 1e-7, cyclic_game=True)
    states = get_all_states.get_all_states(
        game, -1, True, False, to_string=str, stop_if_encountered=True
    )
    table = game.kgame.value_table()
    assert table.frontier == 0 and table.converged
    worst = max(abs(values[k] - table.value(s.kumite_state)) for k, s in states.items())
    return values, states, table, worst


def test_value_iteration_on_oshi_zumo_equals_kumite_solve(cli):
    path = rule("oshi_zumo_small.kmt")
    game = kos.load(path)
    assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    values, states, table, worst = vi_agrees_with_kumite(game)
    assert len(states) > 400 and worst < 1e-5
    start = str(game.new_initial_state())
    out = subprocess.run([cli, "solve", path, "--value", "--format", "json"],
                         capture_output=True, text=True, check=True)
    assert abs(values[start] - json.loads(out.stdout)["value"]) < 1e-5


def test_value_iteration_with_explicit_chance_equals_kumite():
    game = kos.load(text=DICE_RACE)
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    values, states, table, worst = vi_agrees_with_kumite(game)
    assert worst < 1e-5
    # The first mover's edge in a race is real: neither 0 nor a sure thing.
    v = values[str(game.new_initial_state())]
    assert 0.05 < v < 0.9


def test_cfr_on_the_turn_based_conversion_converges_to_zero_exploitability():
    game = kos.load(text=tiny_oshi_zumo())
    tb = pyspiel.convert_to_turn_based(game)
    solver = cfr.CFRSolver(tb)
    conv = []
    for i in range(1, 151):
        solver.evaluate_and_update_policy()
        if i in (1, 10, 150):
            conv.append(exploitability.nash_conv(tb, solver.average_policy()))
    assert conv[0] > conv[1] > conv[2] and conv[2] < 0.005, conv


def test_load_game_by_name_and_random_play_on_every_file():
    for path in ALL_FILES:
        game = pyspiel.load_game(kos.SHORT_NAME, {"file": str(path)})
        rng = np.random.default_rng(7)
        for _ in range(3):
            s = game.new_initial_state()
            while not s.is_terminal():
                if s.is_chance_node():
                    outs = s.chance_outcomes()
                    assert abs(sum(p for _, p in outs) - 1) < 1e-9
                    s.apply_action(outs[rng.choice(len(outs), p=[p for _, p in outs])][0])
                elif s.is_simultaneous_node():
                    s.apply_actions([int(rng.choice(s.legal_actions(p))) for p in (0, 1)])
                else:
                    s.apply_action(int(rng.choice(s.legal_actions())))
            r = s.returns()
            assert r[0] == -r[1] and r[0] in (-1, 0, 1), (path.name, r)
        obs = game.make_py_observer() if hasattr(game, "make_py_observer") else None
        if obs is not None:
            obs.set_from(game.new_initial_state(), 0)
            assert obs.tensor.shape == (game.kgame.observation_size,)


def test_sampled_chance_mode_plays_from_the_states_stream():
    game = kos.load(rule("karate.kmt"), chance="sampled")
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    s = game.new_initial_state()
    while not s.is_terminal():
        assert not s.is_chance_node()
        s.apply_action(s.legal_actions()[0])
    assert s.returns()[0] in (-1.0, 0.0, 1.0)


def test_openspiel_mcts_beats_random_on_an_alternate_game():
    # Sumo: random against random is about even (54% for the first mover).
    game = kos.load(rule("sumo.kmt"))
    rng = np.random.RandomState(3)
    bot = mcts.MCTSBot(game, 2.0, 200, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    score = 0.0
    for g in range(6):
        s = game.new_initial_state()
        mcts_side = g % 2
        while not s.is_terminal():
            if s.is_chance_node():
                outs = s.chance_outcomes()
                s.apply_action(outs[rng.choice(len(outs), p=[p for _, p in outs])][0])
            elif s.current_player() == mcts_side:
                s.apply_action(bot.step(s))
            else:
                s.apply_action(int(rng.choice(s.legal_actions())))
        score += (s.returns()[mcts_side] + 1) / 2
    assert score >= 5, score


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="chance"):
        kos.load(rule("karate.kmt"), chance="maybe")
    with pytest.raises(kumite.RuleError):
        kos.load(text="[殴る]:O.体力-(\n")
