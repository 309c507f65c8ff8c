"""Type stubs of ``kumite._core``, the Rust extension (python/src/*.rs).

Side 0 is h, side 1 is c. Actions are integers: command k of ``Game.commands`` is action k and
``Game.pass_action`` (= ``num_commands``) is the pass. tests/test_typing.py checks that every
public name of the module and of its classes is here.
"""

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, Optional, Protocol, TypedDict, final

import numpy as np
import numpy.typing as npt

__version__: str

class _Cancel(Protocol):
    """What ``value_table``'s ``cancel`` needs: ``threading.Event`` has it."""

    def is_set(self) -> bool: ...

class _BestResponse(TypedDict):
    value: float
    positions: int
    frontier: int
    sweeps: int

@final
class Game:
    """A compiled rule file."""

    @staticmethod
    def from_file(path: str, set: Optional[Mapping[str, int]] = None) -> Game:
        """Compiles a rule file (``RuleError`` if it has errors, ``OSError`` if it cannot be
        read); ``set`` overrides start values as ``kumite --set`` does."""
    @staticmethod
    def from_text(
        text: str, name: str = "<text>", set: Optional[Mapping[str, int]] = None
    ) -> Game:
        """Compiles rule text."""
    @property
    def name(self) -> str: ...
    @property
    def simultaneous(self) -> bool: ...
    @property
    def commands(self) -> list[str]: ...
    @property
    def states(self) -> list[str]: ...
    @property
    def num_commands(self) -> int: ...
    @property
    def pass_action(self) -> int: ...
    @property
    def num_actions(self) -> int: ...
    @property
    def first(self) -> Literal["h", "c"]: ...
    @property
    def has_chance(self) -> bool: ...
    @property
    def turn_limit(self) -> int: ...
    @property
    def observation_size(self) -> int: ...
    def observation_names(self) -> list[str]: ...
    def new_initial_state(
        self, seed: int = 0, first: Optional[str] = None
    ) -> State: ...
    def value_table(
        self,
        state: Optional[State] = None,
        bound: Optional[int] = None,
        max_positions: Optional[int] = None,
        cancel: Optional[_Cancel] = None,
    ) -> ValueTable:
        """The exact game values of ``kumite solve --value``. Ctrl-C stops it; so does
        ``cancel`` once set (raising ``Cancelled``)."""

@final
class State:
    """A position of a game, with its own chance stream."""

    @property
    def game(self) -> Game: ...
    @property
    def turn(self) -> int: ...
    @property
    def outcome(self) -> Optional[Literal["h", "c", "draw"]]: ...
    @property
    def error(self) -> Optional[str]:
        """The runtime error of the rules that ended the game (as a draw), if one did."""
    def movers(self) -> list[int]: ...
    def is_terminal(self) -> bool: ...
    def returns(self) -> list[float]:
        """[h's, c's]: +1 win, -1 loss, 0 draw or not over."""
    def legal_actions(self, side: int) -> list[int]: ...
    def legal_mask(self, side: int) -> list[bool]: ...
    def apply(self, action: int) -> None: ...
    def apply_joint(self, h_action: Optional[int], c_action: Optional[int]) -> None: ...
    def chance_outcomes(
        self, h_action: Optional[int], c_action: Optional[int], limit: int = 4096
    ) -> list[tuple[float, State]]: ...
    def value(self, side: int, name: str) -> int: ...
    def values(self, side: int) -> list[tuple[str, int]]: ...
    def observation(self, side: int = 0) -> npt.NDArray[np.float32]:
        """``side``'s observation, ``observation_size`` long (see
        ``Game.observation_names()``)."""
    def clone(self) -> State: ...
    def __copy__(self) -> State: ...
    def __deepcopy__(self, memo: Any) -> State: ...
    def key(self) -> str: ...
    def __hash__(self) -> int: ...
    def __eq__(self, other: object) -> bool: ...

@final
class VecGame:
    """Many games stepped at once, numpy arrays in and out; a finished game starts again."""

    def __new__(
        cls,
        game: Game,
        n: int,
        seed: int = 0,
        first: Optional[str] = None,
    ) -> VecGame: ...
    @property
    def n(self) -> int: ...
    @property
    def observation_size(self) -> int: ...
    @property
    def games_done(self) -> int: ...
    @property
    def errors(self) -> int: ...
    def observations(self) -> npt.NDArray[np.float32]:
        """Shape (n, 2, observation_size): [:, 0] h's view, [:, 1] c's."""
    def masks(self) -> npt.NDArray[np.bool_]:
        """Shape (n, 2, num_actions)."""
    def random_actions(self) -> npt.NDArray[np.int32]:
        """Shape (n, 2), -1 for a side that does not choose."""
    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
        """``actions`` integers of shape (n, 2); returns (rewards (n, 2), dones (n,))."""
    def reset(self) -> None: ...
    def state(self, i: int) -> State: ...

@final
class Cpu:
    """A built-in player: ``random``, ``cpu``, ``cpu:S3``, ``cpu:exact`` …"""

    def __new__(cls, game: Game, spec: str = "cpu", seed: int = 0) -> Cpu: ...
    @property
    def spec(self) -> str: ...
    def choose(self, state: State, side: Optional[int] = None) -> int: ...

@final
class ValueTable:
    """The exact game values of a game (``Game.value_table``)."""

    def value(self, state: State) -> Optional[float]: ...
    def strategy(self, state: State, side: int) -> Optional[list[tuple[int, float]]]: ...
    @property
    def start_value(self) -> float: ...
    @property
    def positions(self) -> int: ...
    @property
    def frontier(self) -> int: ...
    @property
    def converged(self) -> bool: ...
    @property
    def sweeps(self) -> int: ...
    def describe(self) -> str: ...

def best_response(
    game: Game,
    policy: Callable[[State], Mapping[int, float] | Sequence[float]],
    bound: Optional[int] = None,
    max_positions: Optional[int] = None,
    seconds: float = 600.0,
) -> _BestResponse:
    """h's value replying best to ``policy`` playing c (a dict with value, positions,
    frontier, sweeps); ``LimitExceeded`` past ``seconds``."""
