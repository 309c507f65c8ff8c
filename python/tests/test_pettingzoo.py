"""The PettingZoo adapters pass PettingZoo's own API tests on every bundled rule file."""

import functools

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, seed_test

import kumite
import kumite.pettingzoo as kpz
from conftest import ALL_FILES, rule


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: p.name)
def test_pettingzoo_api_tests_pass(path):
    game = kumite.Game.from_file(str(path))
    if game.simultaneous:
        parallel_api_test(kpz.parallel_env(game), num_cycles=300)
        with pytest.raises(ValueError, match="simultaneous"):
            kpz.KumiteAECEnv(game)
    else:
        with pytest.raises(ValueError, match="alternate"):
            kpz.parallel_env(game)
    # Every game has an AEC form (simultaneous ones through parallel_to_aec).
    api_test(kpz.env(game), num_cycles=300)


def test_the_same_seed_gives_the_same_games():
    seed_test(functools.partial(kpz.env, rule("karate.kmt")), num_cycles=200)
    seed_test(functools.partial(kpz.env, rule("cc_lemon.kmt")), num_cycles=200)


def test_an_aec_game_played_with_masks_ends_with_opposite_rewards():
    env = kpz.env(rule("sumo.kmt"))
    env.reset(seed=11)
    rng = np.random.default_rng(0)
    totals = {"h": 0.0, "c": 0.0}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        if term or trunc:
            action = None
        else:
            mask = obs["action_mask"]
            assert mask.sum() >= 1 and obs["observation"][-2] == 1.0  # it chooses now
            action = int(rng.choice(np.flatnonzero(mask)))
        env.step(action)
    assert totals["h"] == -totals["c"] and abs(totals["h"]) in (0.0, 1.0)


def test_a_parallel_game_without_a_turn_limit_is_truncated():
    penv = kpz.parallel_env(rule("cc_lemon.kmt"), max_turns=3)
    obs, _ = penv.reset(seed=1)
    steps = 0
    while penv.agents:
        # Both guard: nothing happens, so only the cap ends it.
        obs, rew, term, trunc, _ = penv.step({"h": 1, "c": 1})
        steps += 1
    assert steps == 3 and all(trunc.values()) and not any(term.values())
    assert rew == {"h": 0.0, "c": 0.0}
