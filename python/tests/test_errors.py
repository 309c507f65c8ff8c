"""The package's exceptions: a rule file that does not compile, a rule failing in play, a solve
cancelled or out of time — each its own KumiteError, and the built-in exception it used to be."""

import _thread
import pickle
import signal
import threading

import pytest

import kumite
from conftest import rule

# Line 4 breaks off at its end (column 12, as `kumite check` says: 4:12).
BAD = "!:体力=3,[殴る]\n[殴る]:O.体力-1\nO.体力<=0:S.勝利\n[殴る]:O.体力-(\n"
# Line 2 divides by zero as soon as availability runs: at the start.
FAILS_AT_START = "!:x=1,w=0,[a],[b]\nS.x/S.w>0:S.[b]\n"
# The effect of [b] divides by zero.
FAILS_IN_PLAY = "!:x=1,w=0,[a],[b]\n[b]:S.v=S.x/S.w\n"


def test_a_rule_error_says_where_the_first_error_is():
    with pytest.raises(kumite.RuleError) as caught:
        kumite.Game.from_text(BAD, name="bad.kmt")
    e = caught.value
    assert isinstance(e, kumite.KumiteError) and isinstance(e, ValueError)
    assert (e.line, e.column, e.code) == (4, 12, "E001")
    assert str(e) == e.message and e.message.startswith("bad.kmt has 1 error(s)")
    assert "line 4 column 12" in e.message
    first = e.diagnostics[0]
    assert (first["line"], first["column"], first["severity"]) == (4, 12, "error")
    # Pickled (multiprocessing sends exceptions so) with its attributes.
    back = pickle.loads(pickle.dumps(e))
    assert (back.line, back.column, back.diagnostics) == (e.line, e.column, e.diagnostics)


def test_a_rule_failing_at_the_start_raises_rule_runtime_error():
    game = kumite.Game.from_text(FAILS_AT_START, name="div.kmt")
    for make in (lambda: kumite.VecGame(game, 4), game.value_table):
        with pytest.raises(kumite.RuleRuntimeError) as caught:
            make()
        e = caught.value
        assert isinstance(e, kumite.KumiteError) and isinstance(e, RuntimeError)
        assert (e.line, e.side) == (2, "h") and "division by zero" in e.message
        assert str(e) == f"runtime error at line 2: {e.message}"
    # One game at a time, the failure ends the game as a draw and says why, as `kumite play`.
    s = game.new_initial_state()
    assert s.is_terminal() and s.outcome == "draw" and s.error == str(e)
    back = pickle.loads(pickle.dumps(e))
    assert (back.message, back.line, back.side) == (e.message, e.line, e.side)


def test_a_rule_failing_in_play_ends_the_game_as_a_draw():
    game = kumite.Game.from_text(FAILS_IN_PLAY, name="div.kmt")
    s = game.new_initial_state()
    s.apply(game.commands.index("b"))
    assert s.outcome == "draw" and s.error == "runtime error at line 2: division by zero (1 / 0)"
    v = kumite.VecGame(game, 3)
    _, dones = v.step([[game.commands.index("b"), -1]] * 3)
    assert dones.all() and v.errors == 3


def test_a_value_table_stops_when_cancelled():
    game = kumite.Game.from_file(rule("moge_battle.kmt"))  # 200,000 positions: seconds
    already = threading.Event()
    already.set()
    with pytest.raises(kumite.Cancelled):
        game.value_table(cancel=already)
    during = threading.Event()
    timer = threading.Timer(0.1, during.set)
    timer.start()
    with pytest.raises(kumite.Cancelled) as caught:
        game.value_table(cancel=during)
    timer.cancel()
    assert isinstance(caught.value, kumite.KumiteError) and isinstance(caught.value, RuntimeError)
    # An event that is never set changes nothing.
    small = kumite.Game.from_file(rule("cc_lemon.kmt"))
    assert small.value_table(cancel=threading.Event()).positions == small.value_table().positions


def test_ctrl_c_stops_a_value_table():
    game = kumite.Game.from_file(rule("moge_battle.kmt"))
    timer = threading.Timer(0.1, _thread.interrupt_main)
    # Ctrl-C as in a terminal: a process started with SIGINT ignored (a shell's background
    # job, and what it starts) has no handler for interrupt_main to trip.
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        # (Should the solve end before the timer, a late interrupt still lands in this block.)
        with pytest.raises(KeyboardInterrupt):
            timer.start()
            try:
                game.value_table()
            finally:
                timer.cancel()
    finally:
        signal.signal(signal.SIGINT, before)


def test_best_response_out_of_time_raises_limit_exceeded():
    game = kumite.Game.from_file(rule("cc_lemon.kmt"))
    uniform = lambda st: {a: 1.0 for a in st.legal_actions(1)}  # noqa: E731
    with pytest.raises(kumite.LimitExceeded) as caught:
        kumite.best_response(game, uniform, seconds=0)
    assert isinstance(caught.value, kumite.KumiteError) and isinstance(caught.value, RuntimeError)
