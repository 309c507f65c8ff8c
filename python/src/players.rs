//! `Cpu` (the built-in players) and `best_response` (what a best reply gains against a policy).

use crate::*;

/// A built-in player: `random`, `cpu`, `cpu:S3`, `cpu:N20000`, `cpu:exact`, … (the player
/// specs of `kumite play`).
#[pyclass(module = "kumite._core", frozen)]
pub(crate) struct Cpu {
    pub(crate) player: Mutex<ProgramPlayer>,
    pub(crate) spec: String,
    pub(crate) core: Arc<Core>,
}

#[pymethods]
impl Cpu {
    #[new]
    #[pyo3(signature = (game, spec="cpu", seed=0))]
    pub(crate) fn new(game: PyRef<'_, Game>, spec: &str, seed: u64) -> PyResult<Self> {
        use kumite::players::{PlayerSpec, SpecError};
        let core = game.core.clone();
        let not_built_in = || {
            PyValueError::new_err(format!(
                "{spec:?} is not a built-in player: use random, cpu[:…] or cpu:exact"
            ))
        };
        let parsed = match PlayerSpec::parse(&core.prog, &core.config, spec) {
            Ok(PlayerSpec::Human | PlayerSpec::Ai(_)) | Err(SpecError::NoCommand) => {
                return Err(not_built_in());
            }
            other => other.map_err(|e| PyValueError::new_err(e.to_string()))?,
        };
        let p = ProgramPlayer::try_new(core.prog.clone(), |prog| {
            parsed.player(prog, &core.config, seed, Side::H, 1.0)
        })
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(Cpu {
            player: Mutex::new(p),
            spec: spec.to_string(),
            core,
        })
    }

    #[getter]
    fn spec(&self) -> String {
        self.spec.clone()
    }

    /// The action this player chooses for `side` (default: the side to move; in a simultaneous
    /// game give the side).
    #[pyo3(signature = (state, side=None))]
    fn choose(
        &self,
        py: Python<'_>,
        state: PyRef<'_, State>,
        side: Option<usize>,
    ) -> PyResult<usize> {
        if !Arc::ptr_eq(&self.core, &state.core) {
            return Err(PyValueError::new_err("the state is of another game"));
        }
        let st = state.st.clone();
        drop(state);
        let core = self.core.clone();
        let side = match side {
            Some(s) => side_of(s)?,
            None if core.prog.settings.simultaneous => {
                return Err(PyValueError::new_err(
                    "a simultaneous game: say which side chooses (side=0 or 1)",
                ));
            }
            None => st.to_move,
        };
        let result = py.detach(|| {
            let locked = core.eng();
            let eng = locked.borrow_dependent();
            let legal = core.legal(eng, &st, side);
            if legal.is_empty() {
                return Err("this side does not choose now".to_string());
            }
            if legal == [core.nc()] {
                return Ok(core.nc());
            }
            let enabled: Vec<CmdId> = legal.iter().map(|&a| a as CmdId).collect();
            let mut p = self.player.lock().unwrap_or_else(|e| e.into_inner());
            match p.with_dependent_mut(|_, p| p.choose(eng, &st, side, &enabled)) {
                Ok(Some(c)) => Ok(c as usize),
                Ok(None) => Ok(core.nc()),
                Err(e) => Err(e.message),
            }
        });
        result.map_err(PyValueError::new_err)
    }

    fn __repr__(&self) -> String {
        format!("<kumite.Cpu {}>", self.spec)
    }
}

/// h's value when h replies best to `policy` playing c: `policy(state)` returns c's
/// probabilities over actions (a dict action → probability, or a sequence num_actions long),
/// asked once per position where c chooses. Over the positions of `solve --value` (within
/// ±bound of the start's state values; past it the derived evaluation). Returns a dict: value,
/// positions, frontier (positions estimated), sweeps.
#[pyfunction]
#[pyo3(signature = (game, policy, bound=None, max_positions=None, seconds=600.0))]
pub(crate) fn best_response<'py>(
    py: Python<'py>,
    game: PyRef<'py, Game>,
    policy: Bound<'py, PyAny>,
    bound: Option<i64>,
    max_positions: Option<usize>,
    seconds: f64,
) -> PyResult<Bound<'py, PyDict>> {
    let core = game.core.clone();
    let root = core
        .eng()
        .borrow_dependent()
        .initial(core.first)
        .map_err(|e| rule_runtime_error(py, &e))?;
    let nc = core.nc();
    let mut failure: Option<PyErr> = None;
    let mut pol = |st: &EState| -> Vec<(Option<CmdId>, f64)> {
        if failure.is_some() {
            return Vec::new();
        }
        let s = State {
            core: core.clone(),
            st: st.clone(),
            rng: 0,
            error: None,
        };
        let r = policy.call1((s,)).and_then(|r| {
            let pairs: Vec<(usize, f64)> = if let Ok(d) = r.cast::<PyDict>() {
                d.iter()
                    .map(|(k, v)| Ok((k.extract()?, v.extract()?)))
                    .collect::<PyResult<_>>()?
            } else {
                let v: Vec<f64> = r.extract()?;
                v.into_iter().enumerate().collect()
            };
            Ok(pairs
                .into_iter()
                .map(|(a, p)| ((a < nc).then_some(a as CmdId), p))
                .collect())
        });
        match r {
            Ok(v) => v,
            Err(e) => {
                failure = Some(e);
                Vec::new()
            }
        }
    };
    let br = kumite::search::exact::best_response(
        &core.prog,
        &root,
        bound.unwrap_or(kumite::search::VALUE_BOUND),
        max_positions.unwrap_or(kumite::search::VALUE_POSITIONS),
        std::time::Duration::from_secs_f64(seconds.max(0.001)),
        &mut pol,
    );
    if let Some(e) = failure {
        return Err(e);
    }
    let br = br.map_err(|e| limit_exceeded(py, e.to_string()))?;
    let d = PyDict::new(py);
    d.set_item("value", br.value)?;
    d.set_item("positions", br.positions)?;
    d.set_item("frontier", br.frontier)?;
    d.set_item("sweeps", br.sweeps)?;
    Ok(d)
}
