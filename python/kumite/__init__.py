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

Adapters: ``kumite.openspiel.load(path)`` (a pyspiel game) and ``kumite.pettingzoo.env(path)``
/ ``parallel_env(path)``. Many games at once: ``kumite.VecGame(game, n)``.
"""

import random as _random

from ._core import (  # noqa: F401  (re-exported)
    Cpu,
    Game,
    RuleError,
    State,
    ValueTable,
    VecGame,
    __version__,
    best_response,
)


def _diagnostics(self):
    """The diagnostics of the rule file: dicts with code, severity, line, column, message, help."""
    return self.args[1] if len(self.args) > 1 else []


def _message(self):
    return str(self.args[0]) if self.args else "rule file has errors"


# The exception raised for a rule file with errors carries its diagnostics.
RuleError.diagnostics = property(_diagnostics)
RuleError.__str__ = _message

H = 0
C = 1


def cpu(game, spec="cpu", seed=0):
    """A built-in player of ``game``: ``random``, ``cpu``, ``cpu:S3``, ``cpu:N20000``,
    ``cpu:exact`` … (the player specs of ``kumite play``). ``.choose(state, side)`` gives its
    action."""
    return Cpu(game, spec, seed)


def random_action(state, side, rng=_random):
    """A uniformly random legal action of ``side``, or None if it does not choose now."""
    legal = state.legal_actions(side)
    return rng.choice(legal) if legal else None


def play(game, players, seed=0, first=None):
    """Plays one game between two players (callables ``f(state, side) -> action`` or
    :class:`Cpu`) and returns the final state."""
    state = game.new_initial_state(seed=seed, first=first)
    chooser = [p.choose if isinstance(p, Cpu) else p for p in players]
    while not state.is_terminal():
        movers = state.movers()
        acts = [chooser[s](state, s) if s in movers else None for s in (0, 1)]
        state.apply_joint(acts[0], acts[1])
    return state


__all__ = [
    "C",
    "Cpu",
    "Game",
    "H",
    "RuleError",
    "State",
    "ValueTable",
    "VecGame",
    "best_response",
    "cpu",
    "play",
    "random_action",
]
