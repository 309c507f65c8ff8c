"""A Kumite rule file as an OpenSpiel game (the Python game API of ``pyspiel``).

    import kumite.openspiel
    game = kumite.openspiel.load("rules/cc_lemon.kmt")
    # or, once this module is imported: pyspiel.load_game("python_kumite", {"file": path})

The game is two-player zero-sum (+1 / −1, a draw 0) with perfect information: simultaneous
(``~同時``) or sequential. Chance (``rand`` in the rules) is explicit by default: after the
players' moves, a turn with several outcomes becomes a chance node whose outcomes are numbered
0, 1, … with their exact probabilities (``chance="sampled"`` draws them instead, from the
state's own stream). Actions are Kumite's: command k is action k and the pass is
``num_commands`` (legal only for a side with no enabled command).

``str(state)`` is the position (state values, enabled commands, history, who chooses), not the
turn counter, so that OpenSpiel's value iteration (``cyclic_game=True``) sees each position once,
as ``kumite solve --value`` does. A file without a turn limit is cut at ``max_game_length``
(default 1000) turns as a draw, since OpenSpiel needs a bound.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt
import pyspiel

from . import Game, State

#: A move of the record behind ``moves_string``: (side, action), a joint (h, c) move, or
#: ("r", outcome) for a chance outcome.
_Move = Tuple[Union[int, str], int]

SHORT_NAME = "python_kumite"
_DEFAULT_PARAMS: Dict[str, Union[str, int]] = {
    "file": "",
    "set": "",
    "chance": "explicit",
    "max_game_length": 0,
}
_DEFAULT_LENGTH = 1000
# The most outcomes a chance node may have (a turn with more raises).
MAX_CHANCE_OUTCOMES = 4096


def _game_type(simultaneous: bool, chance: Any, provides: bool = True) -> Any:
    return pyspiel.GameType(
        short_name=SHORT_NAME,
        long_name="Kumite rule file",
        dynamics=(
            pyspiel.GameType.Dynamics.SIMULTANEOUS
            if simultaneous
            else pyspiel.GameType.Dynamics.SEQUENTIAL
        ),
        chance_mode=chance,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=provides,
        provides_information_state_tensor=False,
        provides_observation_string=provides,
        provides_observation_tensor=provides,
        provides_factored_observation_string=False,
        parameter_specification=_DEFAULT_PARAMS,
    )


def _parse_set(text: str) -> Dict[str, int]:
    """``"体力=30,h.気力=2"`` → ``{"体力": 30, "h.気力": 2}``."""
    out: Dict[str, int] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, value = part.partition("=")
        if not _:
            raise ValueError(f"set: expected NAME=VALUE, not {part!r}")
        out[name.strip()] = int(value)
    return out


class _Shared:
    """What a state needs of its game. pyspiel clones a Python state by deep-copying its
    attributes, and a deep copy of a pyspiel game loses its Python attributes: states keep this
    instead, which copies as itself."""

    def __init__(self, kgame: Game, cap: int, explicit: bool) -> None:
        self.kgame = kgame
        self.cap = cap
        self.explicit = explicit
        self.simultaneous = kgame.simultaneous
        self.commands = kgame.commands

    def __deepcopy__(self, memo: Any) -> _Shared:
        return self


class KumiteGame(pyspiel.Game):
    """A Kumite rule file as a pyspiel game (made by :func:`load` or ``pyspiel.load_game``)."""

    def __init__(
        self,
        params: Optional[Mapping[str, Union[str, int]]] = None,
        kgame: Optional[Game] = None,
    ) -> None:
        params = {**_DEFAULT_PARAMS, **(params or {})}
        if kgame is None:
            if not params["file"]:
                raise ValueError("python_kumite needs the parameter file=PATH")
            kgame = Game.from_file(str(params["file"]), set=_parse_set(str(params["set"])))
        if params["chance"] not in ("explicit", "sampled"):
            raise ValueError(f"chance must be 'explicit' or 'sampled', not {params['chance']!r}")
        limit = kgame.turn_limit
        cap = int(params["max_game_length"]) or (limit if limit > 0 else _DEFAULT_LENGTH)
        if not kgame.has_chance:
            chance = pyspiel.GameType.ChanceMode.DETERMINISTIC
        elif params["chance"] == "sampled":
            chance = pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
        else:
            chance = pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
        explicit = chance == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
        # (pybind11: attributes set before the base's __init__ are lost.)
        super().__init__(
            _game_type(kgame.simultaneous, chance),
            pyspiel.GameInfo(
                num_distinct_actions=kgame.num_actions,
                max_chance_outcomes=MAX_CHANCE_OUTCOMES if explicit else 0,
                num_players=2,
                min_utility=-1.0,
                max_utility=1.0,
                utility_sum=0.0,
                max_game_length=cap * (2 if explicit else 1),
            ),
            params,
        )
        self.kgame = kgame
        self._shared = _Shared(kgame, cap, explicit)

    def new_initial_state(self, seed: int = 0) -> KumiteState:
        return KumiteState(self, self.kgame.new_initial_state(seed=seed))

    def make_py_observer(
        self, iig_obs_type: Any = None, params: Optional[Mapping[str, Any]] = None
    ) -> KumiteObserver:
        return KumiteObserver(self, iig_obs_type, params)

    def observation_tensor_shape(self) -> List[int]:
        return [self.kgame.observation_size]

    def observation_tensor_size(self) -> int:
        return self.kgame.observation_size


_CHANCE: int = int(pyspiel.PlayerId.CHANCE)
_TERMINAL: int = int(pyspiel.PlayerId.TERMINAL)
_SIMULTANEOUS: int = int(pyspiel.PlayerId.SIMULTANEOUS)


class KumiteState(pyspiel.State):
    """A position of a Kumite game, as a pyspiel state.

    OpenSpiel asks a state for its current player and whether it is over several times per
    move (through pybind11, a call into Python each): both are kept as attributes, set once
    per move, so those calls do nothing else."""

    def __init__(self, game: KumiteGame, kstate: State) -> None:
        super().__init__(game)
        self._g = game._shared
        self._k = kstate
        # The outcomes of the turn being played, while at a chance node.
        self._pending: Optional[List[Tuple[float, State]]] = None
        # Joint moves (and chance outcomes) so far, for the information state.
        self._moves: List[_Move] = []
        self._update()

    def _update(self) -> None:
        k = self._k
        if self._pending is not None:
            self._cp = _CHANCE
        elif k.is_terminal() or k.turn >= self._g.cap:
            self._cp = _TERMINAL
        elif self._g.simultaneous:
            self._cp = _SIMULTANEOUS
        else:
            self._cp = k.movers()[0]

    @property
    def kumite_state(self) -> State:
        """The underlying :class:`kumite.State`."""
        return self._k

    def current_player(self) -> int:
        return self._cp

    def is_terminal(self) -> bool:
        return self._cp == _TERMINAL

    def _legal_actions(self, player: int) -> List[int]:
        return self._k.legal_actions(player)

    def chance_outcomes(self) -> List[Tuple[int, float]]:
        return [(i, p) for i, (p, _) in enumerate(self._pending or [])]

    def _play(self, h: Optional[int], c: Optional[int]) -> None:
        if self._g.explicit:
            outs = self._k.chance_outcomes(h, c, MAX_CHANCE_OUTCOMES)
            if len(outs) == 1:
                self._k = outs[0][1]
            else:
                self._pending = outs
        else:
            self._k.apply_joint(h, c)
        self._update()

    def _apply_action(self, action: int) -> None:
        if self._pending is not None:
            self._k = self._pending[action][1]
            self._pending = None
            self._moves.append(("r", action))
            self._update()
            return
        side = self._cp
        self._moves.append((side, action))
        if side == 0:
            self._play(action, None)
        else:
            self._play(None, action)

    def _apply_actions(self, actions: List[int]) -> None:
        self._moves.append((actions[0], actions[1]))
        self._play(actions[0], actions[1])

    def _action_to_string(self, player: int, action: int) -> str:
        if player == _CHANCE:
            return f"outcome {action}"
        commands = self._g.commands
        return commands[action] if action < len(commands) else "pass"

    def moves_string(self) -> str:
        """The moves so far: ``h2 c0`` (alternate), ``2/0`` (joint), ``r1`` (chance outcome)."""
        out = []
        for m in self._moves:
            if m[0] == "r":
                out.append(f"r{m[1]}")
            elif len(m) == 2 and isinstance(m[0], int) and not self._g.simultaneous:
                out.append(f"{'hc'[m[0]]}{m[1]}")
            else:
                out.append(f"{m[0]}/{m[1]}")
        return " ".join(out)

    def returns(self) -> List[float]:
        if self._pending is not None:
            return [0.0, 0.0]
        return self._k.returns()

    def rewards(self) -> List[float]:
        return self.returns()

    def __str__(self) -> str:
        key = self._k.key()
        if self._pending is not None:
            return key + " (chance)"
        if self._k.turn >= self._g.cap and not self._k.is_terminal():
            return key + " (turn limit)"
        return key


class KumiteObserver:
    """Observations for OpenSpiel: the tensor is Kumite's observation of the player (own and
    opponent's state values, enabled commands, history, whether it chooses, the turn); the string
    is the position, or with perfect recall the moves so far."""

    def __init__(
        self, game: KumiteGame, iig_obs_type: Any, params: Optional[Mapping[str, Any]]
    ) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        self.iig_obs_type = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        size = game.kgame.observation_size
        self.tensor: npt.NDArray[np.float32] = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: KumiteState, player: int) -> None:
        self.tensor[:] = state._k.observation(player)

    def string_from(self, state: KumiteState, player: int) -> str:
        if self.iig_obs_type.perfect_recall:
            return f"p{player} " + state.moves_string()
        return str(state)


def load(
    path: Optional[str] = None,
    *,
    text: Optional[str] = None,
    set: Optional[Mapping[str, int]] = None,
    chance: str = "explicit",
    max_game_length: int = 0,
) -> KumiteGame:
    """A pyspiel game of a rule file (``path``) or rule text (``text``). ``set`` overrides start
    values (``{"体力": 30}``); ``chance`` is ``"explicit"`` (chance nodes with exact
    probabilities) or ``"sampled"``; ``max_game_length`` cuts a file without a turn limit
    (default 1000 turns)."""
    params: Dict[str, Union[str, int]] = {
        "file": path or "",
        "set": ",".join(f"{k}={v}" for k, v in (set or {}).items()),
        "chance": chance,
        "max_game_length": int(max_game_length),
    }
    if text is not None:
        return KumiteGame(params, Game.from_text(text, set=set))
    if not path:
        raise ValueError("load needs a path or text=")
    return KumiteGame(params)


pyspiel.register_game(_game_type(True, pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC), KumiteGame)
