"""The state API of kumite._core against the rule files and the command line."""

import copy
import json
import pathlib
import subprocess

import numpy as np
import pytest

import kumite
from conftest import ALL_FILES, rule

BAD = "!:体力=3,[殴る]\n[殴る]:O.体力-1\nO.体力<=0:S.勝利\n[殴る]:O.体力-(\n"


def test_a_bad_file_raises_with_its_diagnostics():
    with pytest.raises(kumite.RuleError) as e:
        kumite.Game.from_text(BAD, name="bad.kmt")
    d = e.value.diagnostics
    assert isinstance(e.value, ValueError)
    assert d and d[0]["severity"] == "error"
    # The expression breaks off at the end of line 4: column 12 in characters, as
    # `kumite check` says (4:12).
    assert (d[0]["line"], d[0]["column"], d[0]["code"]) == (4, 12, "E001"), d
    assert "bad.kmt" in str(e.value) and "line 4" in str(e.value)


def test_a_missing_file_is_an_os_error():
    with pytest.raises(OSError):
        kumite.Game.from_file("/no/such/file.kmt")


def test_set_overrides_start_values_and_refuses_unknown_names():
    g = kumite.Game.from_file(rule("sumo.kmt"))
    names = dict(g.new_initial_state().values(0))
    state = next(n for n in names if n not in ("勝利", "敗北"))
    g2 = kumite.Game.from_file(rule("sumo.kmt"), set={f"h.{state}": names[state] + 7})
    s = g2.new_initial_state()
    assert s.value(0, state) == names[state] + 7 and s.value(1, state) == names[state]
    with pytest.raises(ValueError, match="no state"):
        kumite.Game.from_file(rule("sumo.kmt"), set={"nonexistent": 1})


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: p.name)
def test_random_play_ends_and_every_state_is_consistent(path):
    g = kumite.Game.from_file(str(path))
    s = g.new_initial_state(seed=5)
    rng = np.random.default_rng(1)
    for _ in range(3000):
        if s.is_terminal():
            break
        movers = s.movers()
        assert movers and all(s.legal_actions(m) for m in movers)
        for side in (0, 1):
            mask = s.legal_mask(side)
            assert len(mask) == g.num_actions
            assert [a for a, on in enumerate(mask) if on] == s.legal_actions(side)
            obs = s.observation(side)
            assert obs.dtype == np.float32 and obs.shape == (g.observation_size,)
        acts = [int(rng.choice(s.legal_actions(m))) if m in movers else None for m in (0, 1)]
        s.apply_joint(*acts)
    if s.is_terminal():
        r = s.returns()
        assert r[0] == -r[1] and s.outcome in ("h", "c", "draw")
        assert s.movers() == [] and s.legal_actions(0) == []
        assert (r[0] > 0) == (s.outcome == "h")


def test_illegal_moves_are_refused_with_the_legal_ones_named():
    g = kumite.Game.from_file(rule("cc_lemon.kmt"))
    s = g.new_initial_state()
    with pytest.raises(ValueError, match="not legal.*チャージ"):
        s.apply_joint(2, 0)  # ビーム needs a charge
    with pytest.raises(ValueError, match="simultaneous"):
        s.apply(0)
    a = kumite.Game.from_file(rule("karate.kmt")).new_initial_state()
    mover = a.movers()[0]
    acts = [0, 0]
    acts[mover] = a.legal_actions(mover)[0]
    with pytest.raises(ValueError, match="does not choose now"):
        a.apply_joint(*acts)  # the side that waits gave a move: refused, not ignored
    acts[1 - mover] = None
    a.apply_joint(*acts)
    assert a.turn == 1


def test_clone_is_independent_and_keys_hash_and_equality_agree():
    g = kumite.Game.from_file(rule("cc_lemon.kmt"))
    s = g.new_initial_state()
    c = s.clone()
    assert c == s and hash(c) == hash(s) and c.key() == s.key()
    c.apply_joint(0, 0)
    assert c != s and s.turn == 0 and c.turn == 1
    d = copy.deepcopy(c)
    assert d == c
    # Charge, charge, then both guard: the same charges as after charge/charge, another turn and
    # history: the history is part of the position (rules may read it), the turn is not.
    e = c.clone()
    e.apply_joint(1, 1)
    assert e.key() != c.key() and "チャージ=1" in e.key()


def test_chance_outcomes_are_exact_and_sum_to_one():
    g = kumite.Game.from_file(rule("karate.kmt"))
    s = g.new_initial_state(seed=2)
    seen = 0
    rng = np.random.default_rng(3)
    for _ in range(200):
        if s.is_terminal():
            s = g.new_initial_state(seed=int(rng.integers(1 << 30)))
        m = s.movers()[0]
        a = int(rng.choice(s.legal_actions(m)))
        acts = (a, None) if m == 0 else (None, a)
        outs = s.chance_outcomes(*acts)
        assert abs(sum(p for p, _ in outs) - 1.0) < 1e-9
        assert all(p > 0 for p, _ in outs)
        assert len({o.key() for _, o in outs}) == len(outs)  # identical positions merged
        seen = max(seen, len(outs))
        s.apply_joint(*acts)
    assert seen >= 3  # karate's blows draw rand(1,3) and more


def test_the_same_seed_replays_the_same_game():
    g = kumite.Game.from_file(rule("karate.kmt"))

    def game(seed):
        s, moves = g.new_initial_state(seed=seed), []
        cpu = kumite.cpu(g, "random", seed=9)
        while not s.is_terminal() and s.turn < 400:
            a = cpu.choose(s)
            moves.append(a)
            s.apply(a)
        return moves, s.key()

    assert game(4) == game(4)
    assert len({game(k)[1] for k in range(1, 6)}) > 1  # chance differs between seeds


def test_vec_game_steps_resets_and_agrees_with_single_states():
    g = kumite.Game.from_file(rule("cc_lemon.kmt"))
    v = kumite.VecGame(g, 64, seed=3)
    obs, masks = v.observations(), v.masks()
    assert obs.shape == (64, 2, g.observation_size) and obs.dtype == np.float32
    # One game's observations are those of its State.
    assert all(np.array_equal(obs[3, side], v.state(3).observation(side)) for side in (0, 1))
    assert masks.shape == (64, 2, g.num_actions) and masks.dtype == np.bool_
    done_total = 0
    for _ in range(200):
        before = [v.state(i) for i in range(3)]
        a = v.random_actions()
        assert a.shape == (64, 2)
        m = v.masks()
        for i in range(64):
            for side in (0, 1):
                assert m[i, side, a[i, side]]
        r, d = v.step(a)
        assert r.shape == (64, 2) and d.shape == (64,)
        assert np.all(r[:, 0] == -r[:, 1]) and np.all(r[~d] == 0)
        done_total += int(d.sum())
        # Game 0..2 replayed one at a time gives the same result (CC Lemon has no chance).
        for i in range(3):
            s = before[i]
            s.apply_joint(int(a[i, 0]), int(a[i, 1]))
            if d[i]:
                assert s.is_terminal() and s.returns()[0] == r[i, 0]
                assert v.state(i).turn == 0  # started again
            else:
                assert s == v.state(i)
    assert v.games_done == done_total > 500 and v.errors == 0
    with pytest.raises(ValueError, match="shape"):
        v.step(np.zeros((3, 2), np.int32))
    # numpy's default integers and nested lists are taken as they are; floats are refused,
    # not truncated.
    v.step(np.zeros((64, 2), dtype=int))
    v.step([[0, 0]] * 64)
    with pytest.raises(ValueError, match="integer numpy array"):
        v.step(np.full((64, 2), 0.5))


def test_builtin_players_choose_legal_moves():
    g = kumite.Game.from_file(rule("cc_lemon.kmt"))
    s = g.new_initial_state()
    for spec in ("random", "cpu:N2000", "cpu:exact", "cpu:matrix"):
        p = kumite.cpu(g, spec, seed=1)
        for side in (0, 1):
            assert p.choose(s, side) in s.legal_actions(side)
    with pytest.raises(ValueError):
        kumite.cpu(g, "human")
    with pytest.raises(ValueError, match="unknown player|cpu"):
        kumite.cpu(g, "cpu:Q9")
    # An alternate game: the side to move by default.
    k = kumite.Game.from_file(rule("karate.kmt"))
    ks = k.new_initial_state()
    assert kumite.cpu(k, "cpu:N500").choose(ks) in ks.legal_actions(ks.movers()[0])
    # A file's learned evaluation (kumite train) is read with it, as on the command line.
    assert kumite.cpu(k, "cpu:trained,N2000").choose(ks) in ks.legal_actions(ks.movers()[0])
    text = pathlib.Path(rule("karate.kmt")).read_text(encoding="utf-8")
    with pytest.raises(ValueError, match="kumite train"):
        kumite.cpu(kumite.Game.from_text(text), "cpu:trained")


def _cli_json(cli, *args):
    out = subprocess.run([cli, *args, "--format", "json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_value_table_and_best_response_agree_with_kumite_solve(cli):
    path = rule("cc_lemon.kmt")
    g = kumite.Game.from_file(path)
    t = g.value_table()
    solved = _cli_json(cli, "solve", path, "--value")
    assert abs(t.start_value - solved["value"]) < 1e-6
    assert f"{t.positions} positions" in solved["value_method"]
    # A uniform random c: what a best reply gains, as `solve --value --against random`.
    uniform = lambda st: {a: 1.0 for a in st.legal_actions(1)}  # noqa: E731
    br = kumite.best_response(g, uniform)
    against = _cli_json(cli, "solve", path, "--value", "--against", "random")
    ag = against["against"]
    assert abs(br["value"] - ag["best_reply_value"]) < 1e-6, (br, ag)
    assert br["positions"] == ag["positions"] and br["frontier"] == ag["frontier"]
    assert br["value"] > 0.5
    # The optimal mix, as c: next to nothing to gain (0.0017: the table stops at ±12 charges,
    # past which the derived evaluation stands in).
    opt = kumite.best_response(g, lambda st: dict(t.strategy(st, 1)))
    assert opt["value"] < 0.01
