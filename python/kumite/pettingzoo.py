"""A Kumite rule file as a PettingZoo environment.

    import kumite.pettingzoo as kpz
    env = kpz.env("rules/karate.kmt")            # AEC: alternate games (any game, in fact)
    penv = kpz.parallel_env("rules/cc_lemon.kmt")  # Parallel: simultaneous games

The agents are ``"h"`` and ``"c"``. Each observation is a dict, as in PettingZoo's classic
games: ``"observation"`` (float32: own then opponent's state values, enabled commands and command
history, 1 if the agent chooses now, the turn — see ``Game.observation_names()``) and
``"action_mask"`` (int8 over the actions: command k is action k, the pass is the last). Rewards
are +1 / −1 for a decided game and 0 otherwise (a draw, or the turn limit). A file without a
turn limit is truncated after ``max_turns`` turns (default 1000).

``env(path)`` of a simultaneous game is the parallel environment turned into an AEC one by
PettingZoo's own ``parallel_to_aec``.
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import AgentSelector  # noqa: F401  (kept for users who subclass)
from pettingzoo.utils.conversions import parallel_to_aec

from . import Game, State

AGENTS = ["h", "c"]
_DEFAULT_TURNS = 1000

#: What the environments are made from: a rule file's path, or a compiled :class:`kumite.Game`.
Source = Union[str, os.PathLike[str], Game]
#: One agent's observation: ``observation`` (float32) and ``action_mask`` (int8).
Observation = Dict[str, npt.NDArray[Any]]


def _game(source: Source, set: Optional[Mapping[str, int]]) -> Game:
    if isinstance(source, Game):
        return source
    return Game.from_file(str(source), set=set)


class _Common:
    """What both kinds of environment share: spaces, observations, the turn cap."""

    game: Game
    max_turns: int
    render_mode: Optional[str]
    possible_agents: List[str]
    agents: List[str]
    state_: Optional[State]
    _seed: int

    def _setup(
        self,
        source: Source,
        set: Optional[Mapping[str, int]],
        max_turns: Optional[int],
        render_mode: Optional[str],
    ) -> None:
        self.game = _game(source, set)
        self.render_mode = render_mode
        limit = self.game.turn_limit
        self.max_turns = max_turns or (limit if limit > 0 else _DEFAULT_TURNS)
        self.possible_agents = AGENTS[:]
        n = self.game.observation_size
        na = self.game.num_actions
        self._obs_space = spaces.Dict(
            {
                "observation": spaces.Box(-np.inf, np.inf, shape=(n,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(na,), dtype=np.int8),
            }
        )
        self._act_space = spaces.Discrete(na)
        self.state_ = None

    @property
    def _state(self) -> State:
        """The game being played (after ``reset``)."""
        if self.state_ is None:
            raise RuntimeError("call reset() first")
        return self.state_

    def _new_game(self, seed: Optional[int]) -> None:
        """A new game: seeded by ``seed``, or the next seed after the last game's."""
        self._seed = int(seed) if seed is not None else self._seed + 1
        self.state_ = self.game.new_initial_state(seed=self._seed)
        self.agents = AGENTS[:]

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._act_space

    def _observe(self, agent: str) -> Observation:
        side = AGENTS.index(agent)
        obs = self._state.observation(side)
        mask = np.asarray(self._state.legal_mask(side), dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def _rewards(self) -> Dict[str, float]:
        r = self._state.returns()
        return {"h": float(r[0]), "c": float(r[1])}

    def _truncated(self) -> bool:
        return not self._state.is_terminal() and self._state.turn >= self.max_turns

    def render(self) -> Optional[str]:
        if self.render_mode is None:
            return None
        text = str(self.state_)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


class KumiteAECEnv(_Common, AECEnv):
    """An alternate Kumite game as a PettingZoo AEC environment."""

    metadata = {"render_modes": ["human", "ansi"], "name": "kumite_v0", "is_parallelizable": False}

    def __init__(
        self,
        source: Source,
        set: Optional[Mapping[str, int]] = None,
        max_turns: Optional[int] = None,
        render_mode: Optional[str] = None,
    ) -> None:
        super().__init__()
        self._setup(source, set, max_turns, render_mode)
        if self.game.simultaneous:
            raise ValueError(
                f"{self.game.name} is simultaneous: use parallel_env (or env, which converts it)"
            )
        self.agents = []
        self._seed = 0

    def observe(self, agent: str) -> Observation:
        return self._observe(agent)

    def reset(self, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> None:
        self._new_game(seed)
        self.rewards: Dict[str, float] = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards: Dict[str, float] = dict.fromkeys(self.agents, 0.0)
        self.terminations: Dict[str, bool] = dict.fromkeys(self.agents, False)
        self.truncations: Dict[str, bool] = dict.fromkeys(self.agents, False)
        self.infos: Dict[str, Dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection: str = AGENTS[self._state.movers()[0]]

    def step(self, action: Optional[int]) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to move: give its action, not None")
        self._cumulative_rewards[agent] = 0.0
        self._state.apply(int(action))
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if self._state.is_terminal():
            self.rewards = self._rewards()
            self.terminations = dict.fromkeys(self.agents, True)
        elif self._truncated():
            self.truncations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()
        if self._state.is_terminal() or self._truncated():
            # Both are told in turn (each then steps None).
            self.agent_selection = AGENTS[1 - AGENTS.index(agent)]
        else:
            self.agent_selection = AGENTS[self._state.movers()[0]]
        if self.render_mode == "human":
            self.render()


class KumiteParallelEnv(_Common, ParallelEnv):
    """A simultaneous Kumite game as a PettingZoo parallel environment."""

    metadata = {"render_modes": ["human", "ansi"], "name": "kumite_parallel_v0"}

    def __init__(
        self,
        source: Source,
        set: Optional[Mapping[str, int]] = None,
        max_turns: Optional[int] = None,
        render_mode: Optional[str] = None,
    ) -> None:
        self._setup(source, set, max_turns, render_mode)
        if not self.game.simultaneous:
            raise ValueError(f"{self.game.name} is an alternate game: use env (AEC)")
        self.agents = []
        self._seed = 0

    def reset(
        self, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None
    ) -> Tuple[Dict[str, Observation], Dict[str, Dict[str, Any]]]:
        self._new_game(seed)
        obs = {a: self._observe(a) for a in self.agents}
        return obs, {a: {} for a in self.agents}

    def step(self, actions: Mapping[str, Optional[int]]) -> Tuple[
        Dict[str, Observation],
        Dict[str, float],
        Dict[str, bool],
        Dict[str, bool],
        Dict[str, Dict[str, Any]],
    ]:
        h, c = (actions.get(a) for a in AGENTS)
        self._state.apply_joint(None if h is None else int(h), None if c is None else int(c))
        done = self._state.is_terminal()
        trunc = self._truncated()
        obs = {a: self._observe(a) for a in self.agents}
        rewards = self._rewards() if done else {a: 0.0 for a in self.agents}
        terms = {a: done for a in self.agents}
        truncs = {a: trunc for a in self.agents}
        infos: Dict[str, Dict[str, Any]] = {a: {} for a in self.agents}
        if done or trunc:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return obs, rewards, terms, truncs, infos


def parallel_env(
    source: Source,
    set: Optional[Mapping[str, int]] = None,
    max_turns: Optional[int] = None,
    render_mode: Optional[str] = None,
) -> KumiteParallelEnv:
    """A simultaneous game's parallel environment (``source``: a path or a :class:`kumite.Game`)."""
    return KumiteParallelEnv(source, set=set, max_turns=max_turns, render_mode=render_mode)


def env(
    source: Source,
    set: Optional[Mapping[str, int]] = None,
    max_turns: Optional[int] = None,
    render_mode: Optional[str] = None,
) -> AECEnv:
    """An AEC environment of any game: alternate games directly, simultaneous ones through
    PettingZoo's ``parallel_to_aec``."""
    game = _game(source, set)
    if game.simultaneous:
        return parallel_to_aec(
            KumiteParallelEnv(game, max_turns=max_turns, render_mode=render_mode)
        )
    return KumiteAECEnv(game, max_turns=max_turns, render_mode=render_mode)
