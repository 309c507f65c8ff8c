//! `ValueTable`: the exact game values of `kumite solve --value`, per position.

use crate::*;

/// The exact game values of a game (see [`Game::value_table`]).
#[pyclass(module = "kumite._core", frozen)]
pub(crate) struct ValueTable {
    /// Undiscounted: the game values.
    pub(crate) table: kumite::search::exact::ExactTable,
    /// Discounted as `cpu:exact` plays: the strategies.
    pub(crate) play: kumite::search::exact::ExactTable,
    pub(crate) it: kumite::search::exact::Iterated,
    pub(crate) start_value: f64,
    pub(crate) core: Arc<Core>,
}

#[pymethods]
impl ValueTable {
    /// h's value of a position (+1 a sure win, −1 a sure loss, 0 a draw or endless), None if
    /// it is not in the table.
    fn value(&self, state: PyRef<'_, State>) -> Option<f64> {
        if let Some(o) = state.st.outcome {
            return Some(match o {
                Outcome::H => 1.0,
                Outcome::C => -1.0,
                Outcome::Draw => 0.0,
            });
        }
        self.table.value(&state.st)
    }

    /// `side`'s optimal mix in a position, as `cpu:exact` plays it: (action, probability)
    /// pairs. (From values discounted by 0.999 a turn, so that it wins rather than waits: a mix
    /// read off the undiscounted values may wait forever in a won position and be exploited.)
    fn strategy(
        &self,
        state: PyRef<'_, State>,
        side: usize,
    ) -> PyResult<Option<Vec<(usize, f64)>>> {
        let s = side_of(side)?;
        let nc = self.core.nc();
        Ok(self.play.strategy(&state.st, s).map(|m| {
            m.into_iter()
                .map(|(c, p)| (c.map_or(nc, |c| c as usize), p))
                .collect()
        }))
    }

    /// The value at the state the table was built from.
    #[getter]
    fn start_value(&self) -> f64 {
        self.start_value
    }

    /// Positions solved.
    #[getter]
    fn positions(&self) -> usize {
        self.table.positions
    }

    /// Positions past the bound, valued by the derived evaluation (0: every value exact).
    #[getter]
    fn frontier(&self) -> usize {
        self.table.frontier
    }

    /// Value iteration settled within its tolerance.
    #[getter]
    fn converged(&self) -> bool {
        !self.it.timed_out && self.it.residual <= kumite::search::exact::GAME_VALUE.tolerance
    }

    /// Sweeps of value iteration.
    #[getter]
    fn sweeps(&self) -> u32 {
        self.it.sweeps
    }

    /// How the values were obtained, in words.
    fn describe(&self) -> String {
        self.table.describe_untimed()
    }
}
