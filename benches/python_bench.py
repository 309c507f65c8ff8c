"""Steps per second of Kumite games driven from Python, side by side:

1. the batched API (kumite.VecGame: n games stepped at once, random legal actions drawn in
   Rust), on one core;
2. one game at a time through the state API (State.apply_joint, random.choice in Python);
3. the OpenSpiel adapter against OpenSpiel's own C++ oshi_zumo, both driven by the same Python
   loop through the pyspiel API (10 coins, a field of 7, min bid 0, alesia: the same rules as
   tests/designs/oshi_zumo.kmt).

Run: benches/python.sh (builds the release extension with pip, then runs this).
"""

import os
import random
import sys
import time

import numpy as np

import kumite

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def best_of(runs, f):
    return max(f() for _ in range(runs))


def batched(path, n=4096, batches=400):
    g = kumite.Game.from_file(path)
    v = kumite.VecGame(g, n, seed=1)

    def run():
        t0 = time.perf_counter()
        for _ in range(batches):
            v.step(v.random_actions())
        return n * batches / (time.perf_counter() - t0)

    return best_of(3, run), v.games_done


def one_at_a_time(path, steps=200_000):
    g = kumite.Game.from_file(path)
    rng = random.Random(1)

    def run():
        s, done = g.new_initial_state(seed=1), 0
        t0 = time.perf_counter()
        for _ in range(steps):
            if s.is_terminal():
                s = g.new_initial_state(seed=done)
                done += 1
            h = rng.choice(s.legal_actions(0)) if g.simultaneous or s.movers() == [0] else None
            c = rng.choice(s.legal_actions(1)) if g.simultaneous or s.movers() == [1] else None
            s.apply_joint(h, c)
        return steps / (time.perf_counter() - t0)

    return best_of(3, run)


def pyspiel_loop(game, steps=100_000):
    rng = random.Random(1)

    def run():
        s, n = game.new_initial_state(), 0
        t0 = time.perf_counter()
        while n < steps:
            if s.is_terminal():
                s = game.new_initial_state()
            s.apply_actions([rng.choice(s.legal_actions(0)), rng.choice(s.legal_actions(1))])
            n += 1
        return steps / (time.perf_counter() - t0)

    return best_of(3, run)


def main():
    os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core
    cc = os.path.join(ROOT, "rules", "cc_lemon.kmt")
    oshi = os.path.join(ROOT, "tests", "designs", "oshi_zumo.kmt")
    rate, games = batched(cc)
    print(f"batched (VecGame, 4096 games, random actions in Rust), CC Lemon: {rate / 1e6:.2f} M steps/s ({games} games)")
    rate, _ = batched(oshi)
    print(f"batched, Oshi-Zumo 10 coins / field 7: {rate / 1e6:.2f} M steps/s")
    print(f"one game at a time (State.apply_joint + random.choice), CC Lemon: {one_at_a_time(cc) / 1e3:.0f} k steps/s")
    try:
        import pyspiel

        import kumite.openspiel as kos
    except ImportError as e:
        print(f"OpenSpiel comparison skipped: {e}")
        return
    ours = pyspiel_loop(kos.load(oshi))
    theirs = pyspiel_loop(
        pyspiel.load_game("oshi_zumo", {"coins": 10, "size": 3, "alesia": True, "min_bid": 0})
    )
    print(
        f"pyspiel API, random Oshi-Zumo 10 coins / field 7: Kumite adapter {ours / 1e3:.0f} k steps/s, "
        f"OpenSpiel's C++ oshi_zumo {theirs / 1e3:.0f} k steps/s (ratio {ours / theirs:.2f})"
    )


if __name__ == "__main__":
    sys.exit(main())
