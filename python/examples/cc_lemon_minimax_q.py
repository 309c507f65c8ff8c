"""Tabular self-play on CC Lemon, then its exploitability from Kumite's solver.

The CC Lemon article trained tabular Q-learning agents; in a simultaneous game a greedy Q policy
is a pure strategy, and a pure strategy in CC Lemon loses to the reply that reads it. This
example learns a *mixed* policy with Minimax-Q (Littman 1994): a table Q[s][a][o] over its own
and the opponent's move, whose maximin mix is the policy, trained by self-play from both seats.
Then it asks Kumite's exact solver what a best reply gains against it (``kumite.best_response``:
0 for ``cpu:exact``, about 0.89 against uniform random play).

    python python/examples/cc_lemon_minimax_q.py [episodes]
"""

from __future__ import annotations

import pathlib
import random
import sys
from typing import Dict, List, Optional, Tuple

import numpy as np
import numpy.typing as npt

import kumite

#: What a side sees (its observation without the turn, as bytes) and both sides' legal actions.
Key = Tuple[bytes, Tuple[int, ...], Tuple[int, ...]]
Vector = npt.NDArray[np.float64]

RULES = pathlib.Path(__file__).resolve().parents[2] / "rules" / "cc_lemon.kmt"


class Cell:
    """One position's table Q[a][o] (own move a, opponent's move o) and its maximin mix, found
    by regret matching warm-started from the last visit (the average strategies of regret
    matching approach the matrix game's equilibrium; a few iterations a visit keep up with Q)."""

    def __init__(self, n: int, m: int) -> None:
        self.q: Vector = np.zeros((n, m))
        self.regret: List[Vector] = [np.zeros(n), np.zeros(m)]
        self.total: List[Vector] = [np.zeros(n), np.zeros(m)]

    def solve(self, iters: int = 8) -> Tuple[Vector, float]:
        rr, rc = self.regret
        for _ in range(iters):
            pr = np.maximum(rr, 0)
            pr = pr / pr.sum() if pr.sum() > 0 else np.full(len(rr), 1 / len(rr))
            pc = np.maximum(rc, 0)
            pc = pc / pc.sum() if pc.sum() > 0 else np.full(len(rc), 1 / len(rc))
            ur, uc = self.q @ pc, -(pr @ self.q)
            # Discounted (older iterations count less): Q moves as it learns.
            rr *= 0.98
            rc *= 0.98
            rr += ur - pr @ ur
            rc += uc - pc @ uc
            self.total[0] *= 0.98
            self.total[1] *= 0.98
            self.total[0] += pr
            self.total[1] += pc
        mix = self.total[0] / self.total[0].sum()
        return mix, float(np.min(mix @ self.q))


class MinimaxQ:
    def __init__(
        self, alpha: float = 0.2, gamma: float = 0.97, explore: float = 0.2, seed: int = 0
    ) -> None:
        self.cells: Dict[Key, Cell] = {}
        self.alpha, self.gamma, self.explore = alpha, gamma, explore
        self.rng = random.Random(seed)

    @staticmethod
    def key(state: kumite.State, side: int) -> Key:
        # What the side sees (own then opponent's values, commands, history), not the turn.
        return (
            state.observation(side)[:-1].tobytes(),
            tuple(state.legal_actions(side)),
            tuple(state.legal_actions(1 - side)),
        )

    def cell(self, k: Key) -> Cell:
        if k not in self.cells:
            self.cells[k] = Cell(len(k[1]), len(k[2]))
        return self.cells[k]

    def act(self, state: kumite.State, side: int) -> int:
        k = self.key(state, side)
        if self.rng.random() < self.explore:
            return self.rng.choice(k[1])
        mix, _ = self.cell(k).solve()
        return self.rng.choices(k[1], weights=mix.tolist())[0]

    def learn(self, k: Key, a: int, o: int, reward: float, k2: Optional[Key]) -> None:
        v2 = 0.0 if k2 is None else self.cell(k2).solve()[1]
        q = self.cell(k).q
        i, j = k[1].index(a), k[2].index(o)
        q[i, j] += self.alpha * (reward + self.gamma * v2 - q[i, j])

    def mix_for(self, state: kumite.State, side: int) -> Dict[int, float]:
        """The learned mix of ``side`` in ``state`` as {action: probability}."""
        k = self.key(state, side)
        if k not in self.cells:
            return {a: 1.0 for a in k[1]}  # never seen: uniform
        mix, _ = self.cells[k].solve(0) if self.cells[k].total[0].sum() else self.cells[k].solve()
        return dict(zip(k[1], mix.tolist()))


def train(episodes: int, seed: int = 0) -> Tuple[kumite.Game, MinimaxQ]:
    game = kumite.Game.from_file(str(RULES))
    agent = MinimaxQ(seed=seed)
    for e in range(episodes):
        s = game.new_initial_state(seed=e)
        # Exploring starts: a few random turns first (learned from too), so that positions with
        # more charge are visited — a best reply will steer there.
        opening = agent.rng.randrange(12)
        while not s.is_terminal() and s.turn < 60:
            keys = [agent.key(s, side) for side in (0, 1)]
            if s.turn < opening:
                a = [agent.rng.choice(s.legal_actions(side)) for side in (0, 1)]
            else:
                a = [agent.act(s, side) for side in (0, 1)]
            s.apply_joint(a[0], a[1])
            r = s.returns()
            for side in (0, 1):
                nxt = None if s.is_terminal() else agent.key(s, side)
                agent.learn(keys[side], a[side], a[1 - side], r[side], nxt)
    return game, agent


def main() -> Tuple[float, float]:
    episodes = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    game, agent = train(episodes)
    learned = kumite.best_response(game, lambda st: agent.mix_for(st, 1))
    uniform = kumite.best_response(game, lambda st: {a: 1.0 for a in st.legal_actions(1)})
    table = game.value_table()

    def exact_mix(st: kumite.State) -> Dict[int, float]:
        mix = table.strategy(st, 1)
        if mix is None:
            raise ValueError(f"not in the value table: {st}")
        return dict(mix)

    exact = kumite.best_response(game, exact_mix)
    print(f"Minimax-Q after {episodes} self-play games ({len(agent.cells)} positions seen)")
    print(f"a best reply gains: learned {learned['value']:.3f}, uniform random {uniform['value']:.3f}, "
          f"the exact strategy {exact['value']:.3f} (over {learned['positions']} positions)")
    return learned["value"], uniform["value"]


if __name__ == "__main__":
    main()
