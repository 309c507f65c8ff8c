"""Kumite's exceptions, all :class:`KumiteError`:

- :class:`RuleError` (also a ``ValueError``): a rule file that does not compile, with its
  diagnostics;
- :class:`RuleRuntimeError` (also a ``RuntimeError``): a rule that failed while being played
  (division by zero, an overflow) where no game can go on — building a :class:`kumite.VecGame`
  or a value table whose start fails. (In a game being played, a failing rule ends the game as
  a draw instead, and ``State.error`` says why, as ``kumite play`` does);
- :class:`Cancelled` (also a ``RuntimeError``): a solve stopped by its ``cancel``;
- :class:`LimitExceeded` (also a ``RuntimeError``): a solve out of its time or positions.

The extension (``kumite._core``) raises them; they are plain Python classes so that each can
be a ``ValueError`` or ``RuntimeError`` as well, as the bare exceptions raised before were.
"""

from __future__ import annotations

from typing import Any, List, Literal, Optional, Sequence, Tuple, TypedDict


class Diagnostic(TypedDict):
    """One diagnostic of a rule file, as ``kumite check`` prints it: its code (``"E001"``),
    severity, 1-based line and column (in characters), message, and a hint on how to fix it
    (None if there is none)."""

    code: str
    severity: Literal["error", "warning"]
    line: int
    column: int
    message: str
    help: Optional[str]


class KumiteError(Exception):
    """The base of Kumite's own exceptions."""


class RuleError(KumiteError, ValueError):
    """A rule file with errors: it does not compile.

    ``str(error)`` is :attr:`message`. Attributes:

    - ``message``: one line — the file's name, how many errors, the first with its place;
    - ``diagnostics``: every diagnostic (errors and warnings), in the file's order, as
      :class:`Diagnostic` dicts;
    - ``line``, ``column``, ``code``: the first error's 1-based line and column (in characters,
      as ``kumite check`` prints them) and its code (None if no diagnostic is an error).
    """

    message: str
    diagnostics: List[Diagnostic]
    line: Optional[int]
    column: Optional[int]
    code: Optional[str]

    def __init__(self, message: str, diagnostics: Sequence[Diagnostic] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.diagnostics = list(diagnostics)
        first = next((d for d in self.diagnostics if d["severity"] == "error"), None)
        self.line = first["line"] if first else None
        self.column = first["column"] if first else None
        self.code = first["code"] if first else None

    def __reduce__(self) -> Tuple[Any, ...]:
        return (type(self), (self.message, self.diagnostics))


class RuleRuntimeError(KumiteError, RuntimeError):
    """A rule failed while being played (division by zero, an overflow …).

    ``str(error)`` is ``"runtime error at line LINE: MESSAGE"``, the text of ``State.error``.
    Attributes: ``message`` (what went wrong), ``line`` (the failing rule's 1-based line in
    the file) and ``side`` (``"h"`` or ``"c"``: the side the rule was evaluated for — in a
    simultaneous game, the side whose move failed).
    """

    message: str
    line: int
    side: str

    def __init__(self, message: str, line: int, side: str) -> None:
        super().__init__(f"runtime error at line {line}: {message}")
        self.message = message
        self.line = line
        self.side = side

    def __reduce__(self) -> Tuple[Any, ...]:
        return (type(self), (self.message, self.line, self.side))


class Cancelled(KumiteError, RuntimeError):
    """A solve stopped because it was asked to: its ``cancel`` (a ``threading.Event``) was set.
    (Ctrl-C stops it too, raising ``KeyboardInterrupt`` as usual.)"""


class LimitExceeded(KumiteError, RuntimeError):
    """A solve ran out of its time (``best_response``'s ``seconds``) or of positions."""


__all__ = [
    "Cancelled",
    "Diagnostic",
    "KumiteError",
    "LimitExceeded",
    "RuleError",
    "RuleRuntimeError",
]
