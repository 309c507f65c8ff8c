//! `kumite._core`: Kumite rule files as games for Python.
//!
//! The Python part of the package (`python/kumite/`) wraps these classes: [`Game`] (a compiled
//! rule file), [`State`] (a position, with legal moves, apply, chance outcomes, returns and an
//! observation), [`VecGame`] (many games stepped at once with numpy arrays, no Python per
//! game), [`Cpu`] (the CPU levels, `random` and `cpu:exact`) and [`ValueTable`] (the exact game
//! values of `kumite solve --value`, per position).
//!
//! Errors a caller can act on are the package's exceptions (`kumite/errors.py`, raised through
//! [`errors`]): a rule file that does not compile, a rule failing in play, a solve cancelled
//! or out of its limits.
//!
//! Moves are integers: command `k` of [`Game::commands`] is action `k`, and action
//! `num_commands` is the pass, legal only for a side that chooses and has no enabled command.

pub(crate) use kumite::engine::{ChanceScript, rng};
pub(crate) use kumite::engine::{Engine, NONE, Outcome, RuntimeError, State as EState};
pub(crate) use kumite::program::{CmdId, RuleProgram, RunConfig};
pub(crate) use kumite::search::solve;
pub(crate) use kumite::side::Side;
pub(crate) use numpy::ndarray::{Array2, Array3, ArrayView2};
pub(crate) use numpy::{IntoPyArray, PyArray1, PyArray2, PyArray3, PyReadonlyArray2};
pub(crate) use pyo3::exceptions::{PyIndexError, PyKeyError, PyValueError};
pub(crate) use pyo3::prelude::*;
pub(crate) use pyo3::types::{PyDict, PyList};
pub(crate) use std::sync::{Arc, Mutex, MutexGuard};

mod batch;
mod cancel;
mod errors;
mod game;
mod players;
mod shared;
mod state;
mod table;

use batch::VecGame;
use cancel::run_cancellable;
use errors::*;
use game::Game;
use players::{Cpu, best_response};
use shared::*;
use state::State;
use table::ValueTable;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Game>()?;
    m.add_class::<State>()?;
    m.add_class::<VecGame>()?;
    m.add_class::<Cpu>()?;
    m.add_class::<ValueTable>()?;
    m.add_function(wrap_pyfunction!(best_response, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
