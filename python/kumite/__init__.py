"""Kumite rule files as games for Python.

    import kumite
    game = kumite.Game.from_file("rules/cc_lemon.kmt")
    state = game.new_initial_state(seed=1)
    while not state.is_terminal():
        h, c = [kumite.random_action(state, side) for side in (0, 1)]
        state.apply_joint(h, c)
    print(state.outcome, state.returns())

Actions are integers: command k of ``game.commands`` is action k, and ``game.pass_action``
(= ``num_commands``) is the pass, legal only for a side that chooses and has no enabled command.
Side 0 is h (the human, first to move unless the file says ``~先手c``), side 1 is c.

The package's own exceptions (``kumite.errors``) are :class:`KumiteError` subclasses:
:class:`RuleError` for a rule file that does not compile, :class:`RuleRuntimeError` for a rule
failing where no game can go on, :class:`Cancelled` and :class:`LimitExceeded` for a solve
stopped early. (A bad argument, such as an illegal action, is a plain ``ValueError``.)

Adapters: ``kumite.openspiel.load(path)`` (a pyspiel game) and ``kumite.pettingzoo.env(path)``
/ ``parallel_env(path)``. Many games at once: ``kumite.VecGame(game, n)``.
"""

from __future__ import annotations

import random as _random
from typing import Callable, Optional, Protocol, Sequence, TypeVar, Union

from ._core import (  # noqa: F401  (re-exported)
    Cpu,
    Game,
    State,
    ValueTable,
    VecGame,
    best_response,
)
from ._core import __version__ as __version__
from .errors import (  # noqa: F401  (re-exported)
    Cancelled,
    Diagnostic,
    KumiteError,
    LimitExceeded,
    RuleError,
    RuleRuntimeError,
)

H = 0
C = 1

_T = TypeVar("_T")


class _Rng(Protocol):
    """What :func:`random_action` draws with: the ``random`` module or a ``random.Random``."""

    def choice(self, seq: Sequence[_T]) -> _T: ...


def cpu(game: Game, spec: str = "cpu", seed: int = 0) -> Cpu:
    """A built-in player of ``game``: ``random``, ``cpu``, ``cpu:S3``, ``cpu:N20000``,
    ``cpu:exact`` … (the player specs of ``kumite play``). ``.choose(state, side)`` gives its
    action."""
    return Cpu(game, spec, seed)


def random_action(state: State, side: int, rng: _Rng = _random) -> Optional[int]:
    """A uniformly random legal action of ``side``, or None if it does not choose now."""
    legal = state.legal_actions(side)
    return rng.choice(legal) if legal else None


def play(
    game: Game,
    players: Sequence[Union[Cpu, Callable[[State, int], Optional[int]]]],
    seed: int = 0,
    first: Optional[str] = None,
) -> State:
    """Plays one game between two players (callables ``f(state, side) -> action`` or
    :class:`Cpu`) and returns the final state."""
    state = game.new_initial_state(seed=seed, first=first)
    chooser: list[Callable[[State, int], Optional[int]]] = [
        p.choose if isinstance(p, Cpu) else p for p in players
    ]
    while not state.is_terminal():
        movers = state.movers()
        acts = [chooser[s](state, s) if s in movers else None for s in (0, 1)]
        state.apply_joint(acts[0], acts[1])
    return state


__all__ = [
    "C",
    "Cancelled",
    "Cpu",
    "Diagnostic",
    "Game",
    "H",
    "KumiteError",
    "LimitExceeded",
    "RuleError",
    "RuleRuntimeError",
    "State",
    "ValueTable",
    "VecGame",
    "best_response",
    "cpu",
    "play",
    "random_action",
]
