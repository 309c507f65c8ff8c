//! `Game`: a compiled rule file.

use crate::*;

/// A compiled rule file.
#[pyclass(module = "kumite._core", frozen)]
pub(crate) struct Game {
    pub(crate) core: Arc<Core>,
}

pub(crate) fn diagnostics_list<'py>(
    py: Python<'py>,
    text: &str,
    c: &kumite::pipeline::Compiled,
) -> PyResult<Bound<'py, PyList>> {
    let index = kumite::diag::LineIndex::new(text);
    let list = PyList::empty(py);
    for d in &c.diags {
        let (line, col) = index.line_col(text, d.span.start);
        let dict = PyDict::new(py);
        dict.set_item("code", d.code.to_string())?;
        dict.set_item("severity", if d.is_error() { "error" } else { "warning" })?;
        dict.set_item("line", line)?;
        dict.set_item("column", col)?;
        dict.set_item("message", &d.message)?;
        dict.set_item("help", d.help.as_deref())?;
        list.append(dict)?;
    }
    Ok(list)
}

pub(crate) fn compile_game(
    py: Python<'_>,
    text: &str,
    name: &str,
    file: Option<&std::path::Path>,
    sets: Option<Bound<'_, PyDict>>,
) -> PyResult<Game> {
    let c = kumite::pipeline::compile(text);
    let Some(mut prog) = c.program.clone() else {
        let diags = diagnostics_list(py, text, &c)?;
        let first = c.diags.iter().find(|d| d.is_error());
        let index = kumite::diag::LineIndex::new(text);
        let msg = match first {
            Some(d) => {
                let (l, col) = index.line_col(text, d.span.start);
                format!(
                    "{name} has {} error(s); the first, at line {l} column {col}: {} {}",
                    c.error_count(),
                    d.code,
                    d.message
                )
            }
            None => format!("{name} has errors"),
        };
        return Err(rule_error(py, msg, diags));
    };
    // A file's learned evaluation (`kumite train`, for `cpu:trained`), as the command line
    // reads it: belonging to the rules as written, so before any `set`.
    let config = match file {
        Some(f) => RunConfig::with_learned(kumite::search::trained::read_for(f, &prog)),
        None => RunConfig::default(),
    };
    if let Some(sets) = sets {
        let mut list = Vec::new();
        for (k, v) in sets.iter() {
            let k: String = k.extract()?;
            let v: i64 = v.extract().map_err(|_| {
                PyValueError::new_err(format!("set: the value of {k:?} must be an integer"))
            })?;
            list.push(format!("{k}={v}"));
        }
        kumite::load::apply_sets(&mut prog, &list)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
    }
    Ok(Game {
        core: Core::new(prog, config, name.to_string()),
    })
}

#[pymethods]
impl Game {
    /// Compiles a rule file; `set` overrides start values as `kumite --set` does
    /// (`{"体力": 30}` for both sides, `{"h.体力": 30}` for one).
    #[staticmethod]
    #[pyo3(signature = (path, set=None))]
    fn from_file(py: Python<'_>, path: &str, set: Option<Bound<'_, PyDict>>) -> PyResult<Game> {
        let text = kumite::load::read_rules(std::path::Path::new(path))
            .map_err(|e| pyo3::exceptions::PyOSError::new_err(e.to_string()))?;
        compile_game(py, &text, path, Some(std::path::Path::new(path)), set)
    }

    /// Compiles rule text.
    #[staticmethod]
    #[pyo3(signature = (text, name="<text>", set=None))]
    fn from_text(
        py: Python<'_>,
        text: &str,
        name: &str,
        set: Option<Bound<'_, PyDict>>,
    ) -> PyResult<Game> {
        compile_game(py, text, name, None, set)
    }

    /// The file name (or the name given with the text).
    #[getter]
    fn name(&self) -> String {
        self.core.name.clone()
    }

    /// Both sides choose at once (`~同時`).
    #[getter]
    fn simultaneous(&self) -> bool {
        self.core.prog.settings.simultaneous
    }

    /// Command names; command k is action k.
    #[getter]
    fn commands(&self) -> Vec<String> {
        self.core.prog.commands.clone()
    }

    /// State names (0 = 勝利, 1 = 敗北, then the file's).
    #[getter]
    fn states(&self) -> Vec<String> {
        self.core.prog.states.clone()
    }

    #[getter]
    fn num_commands(&self) -> usize {
        self.core.nc()
    }

    /// The pass action (= num_commands).
    #[getter]
    fn pass_action(&self) -> usize {
        self.core.nc()
    }

    /// Actions: the commands and the pass.
    #[getter]
    fn num_actions(&self) -> usize {
        self.core.nc() + 1
    }

    /// The side that moves first by the file: "h" or "c".
    #[getter]
    fn first(&self) -> &'static str {
        self.core.first.name()
    }

    /// Some rule draws `rand`: turns may have several chance outcomes.
    #[getter]
    fn has_chance(&self) -> bool {
        self.core
            .prog
            .code
            .iter()
            .any(|op| matches!(op, kumite::program::Op::Rand(_)))
    }

    /// The turn limit (`~T…`; 0 = none).
    #[getter]
    fn turn_limit(&self) -> u32 {
        self.core.prog.settings.turn_limit
    }

    /// Length of [`State::observation`].
    #[getter]
    fn observation_size(&self) -> usize {
        let locked = self.core.eng();
        let eng = locked.borrow_dependent();
        self.core.obs_len(eng.hl)
    }

    /// Names of the observation's entries, in order.
    fn observation_names(&self) -> Vec<String> {
        let locked = self.core.eng();
        let eng = locked.borrow_dependent();
        let p = &self.core.prog;
        let mut v = Vec::new();
        for who in ["own", "opponent"] {
            v.extend(p.states.iter().map(|s| format!("{who}.{s}")));
        }
        for who in ["own", "opponent"] {
            v.extend(p.commands.iter().map(|c| format!("{who}.[{c}]")));
        }
        for who in ["own", "opponent"] {
            v.extend((0..eng.hl).map(|k| format!("{who}.history[{k}]")));
        }
        v.push("chooses".into());
        v.push("turn".into());
        v
    }

    /// The starting position. `first` ("h"/"c") overrides the file's first mover in alternate
    /// games; `seed` seeds the position's chance stream (states cloned from it share it).
    #[pyo3(signature = (seed=0, first=None))]
    fn new_initial_state(&self, seed: u64, first: Option<&str>) -> PyResult<State> {
        let first = side_arg(first, self.core.first)?;
        let locked = self.core.eng();
        let eng = locked.borrow_dependent();
        let (st, error) = match eng.initial(first) {
            Ok(st) => (st, None),
            Err(e) => {
                let mut st = EState {
                    vals: self.core.prog.init_values.concat(),
                    enabled: self.core.prog.init_enabled.concat(),
                    hist: vec![NONE; 2 * eng.hl],
                    to_move: first,
                    ..Default::default()
                };
                st.outcome = Some(Outcome::Draw);
                (st, Some(runtime_text(&e)))
            }
        };
        Ok(State {
            core: self.core.clone(),
            st,
            rng: rng::mix(seed ^ 0x4B55_4D49_5445),
            error,
        })
    }

    /// The exact game values of `kumite solve --value` (positions within ±bound of the start's
    /// state values; the rest estimated), for every position reachable from `state` (default:
    /// the start). Ctrl-C stops it, and so does `cancel` (a `threading.Event`, or anything
    /// with `is_set()`) once set, raising `Cancelled`.
    #[pyo3(signature = (state=None, bound=None, max_positions=None, cancel=None))]
    fn value_table(
        &self,
        py: Python<'_>,
        state: Option<PyRef<'_, State>>,
        bound: Option<i64>,
        max_positions: Option<usize>,
        cancel: Option<Bound<'_, PyAny>>,
    ) -> PyResult<ValueTable> {
        let start = match state {
            Some(s) => s.st.clone(),
            None => {
                let locked = self.core.eng();
                let eng = locked.borrow_dependent();
                eng.initial(self.core.first)
                    .map_err(|e| rule_runtime_error(py, &e))?
            }
        };
        let prog = &*self.core.prog;
        let bound = bound.unwrap_or(kumite::search::VALUE_BOUND);
        let max = max_positions.unwrap_or(kumite::search::VALUE_POSITIONS);
        let ((table, it), play) = run_cancellable(py, cancel.as_ref(), |stop| {
            let values = solve::game_value_table(prog, &start, bound, max, false, Some(stop))?;
            let play = solve::game_value_table(prog, &start, bound, max, true, Some(stop))?;
            Some((values, play.0))
        })?;
        Ok(ValueTable {
            start_value: table.value(&start).unwrap_or(f64::NAN),
            table,
            play,
            it,
            core: self.core.clone(),
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "<kumite.Game {:?}: {} commands, {}>",
            self.core.name,
            self.core.nc(),
            if self.simultaneous() {
                "simultaneous"
            } else {
                "alternate"
            }
        )
    }
}
