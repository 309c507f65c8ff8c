//! `VecGame`: many games stepped at once, numpy arrays in and out.

use crate::*;

/// What [`VecGame::step`] returns: rewards (n, 2) and ends (n,).
type Stepped<'py> = (Bound<'py, PyArray2<f32>>, Bound<'py, numpy::PyArray1<bool>>);

/// Many games stepped at once: actions in and observations, masks, rewards and ends out as
/// numpy arrays, with no Python per game. A finished game starts again at once (its next
/// observation is the new game's); `dones` says which finished.
#[pyclass(module = "kumite._core")]
pub(crate) struct VecGame {
    pub(crate) core: Arc<Core>,
    pub(crate) states: Vec<EState>,
    pub(crate) rngs: Vec<u64>,
    pub(crate) first: Side,
    pub(crate) obs_len: usize,
    pub(crate) script: ChanceScript,
    /// A stream for [`VecGame::random_actions`].
    pub(crate) pick: rng::SplitMix,
    pub(crate) games_done: u64,
    pub(crate) errors: u64,
}

#[pymethods]
impl VecGame {
    #[new]
    #[pyo3(signature = (game, n, seed=0, first=None))]
    pub(crate) fn new(
        py: Python<'_>,
        game: PyRef<'_, Game>,
        n: usize,
        seed: u64,
        first: Option<&str>,
    ) -> PyResult<Self> {
        if n == 0 {
            return Err(PyValueError::new_err("n must be at least 1"));
        }
        let core = game.core.clone();
        let first = side_arg(first, core.first)?;
        let locked = core.eng();
        let eng = locked.borrow_dependent();
        let st = eng.initial(first).map_err(|e| rule_runtime_error(py, &e))?;
        let obs_len = core.obs_len(eng.hl);
        drop(locked);
        Ok(VecGame {
            states: vec![st; n],
            rngs: (0..n as u64)
                .map(|i| rng::mix(seed ^ rng::mix(i.wrapping_add(0x5EED))))
                .collect(),
            first,
            obs_len,
            script: ChanceScript::default(),
            pick: rng::SplitMix(rng::mix(seed ^ 0x00AC_7105)),
            games_done: 0,
            errors: 0,
            core,
        })
    }

    #[getter]
    fn n(&self) -> usize {
        self.states.len()
    }

    #[getter]
    fn observation_size(&self) -> usize {
        self.obs_len
    }

    /// Games finished so far, and those ended by a runtime error of the rules (as draws).
    #[getter]
    fn games_done(&self) -> u64 {
        self.games_done
    }

    #[getter]
    fn errors(&self) -> u64 {
        self.errors
    }

    /// Observations, shape (n, 2, observation_size): [:, 0] h's view, [:, 1] c's.
    fn observations<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray3<f32>> {
        let locked = self.core.eng();
        let eng = locked.borrow_dependent();
        let mut a = Array3::<f32>::zeros((self.states.len(), 2, self.obs_len));
        let flat = a.as_slice_mut().expect("standard layout");
        for (i, st) in self.states.iter().enumerate() {
            for side in [Side::H, Side::C] {
                let at = (i * 2 + side.index()) * self.obs_len;
                self.core
                    .observe(eng, st, side, &mut flat[at..at + self.obs_len]);
            }
        }
        a.into_pyarray(py)
    }

    /// Legal-action masks, shape (n, 2, num_actions).
    fn masks<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray3<bool>> {
        let locked = self.core.eng();
        let eng = locked.borrow_dependent();
        let na = self.core.nc() + 1;
        let mut a = Array3::<bool>::from_elem((self.states.len(), 2, na), false);
        let flat = a.as_slice_mut().expect("standard layout");
        for (i, st) in self.states.iter().enumerate() {
            for side in [Side::H, Side::C] {
                let at = (i * 2 + side.index()) * na;
                for l in self.core.legal(eng, st, side) {
                    flat[at + l] = true;
                }
            }
        }
        a.into_pyarray(py)
    }

    /// Uniformly random legal actions, shape (n, 2) (-1 for a side that does not choose).
    fn random_actions<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray2<i32>> {
        let locked = self.core.eng();
        let eng = locked.borrow_dependent();
        let nc = self.core.nc();
        let mut buf = vec![0 as CmdId; nc.max(1)];
        let mut a = Array2::<i32>::from_elem((self.states.len(), 2), -1);
        for (i, st) in self.states.iter().enumerate() {
            for &side in eng.movers(st) {
                let k = eng.enabled_into(st, side, &mut buf);
                a[[i, side.index()]] = if k == 0 {
                    nc as i32
                } else {
                    buf[self.pick.below(k)] as i32
                };
            }
        }
        a.into_pyarray(py)
    }

    /// Plays one turn in every game: `actions` shape (n, 2), h's and c's action (ignored for a
    /// side that does not choose; an illegal action is a pass). Returns (rewards, dones):
    /// rewards shape (n, 2) float32 (+1/−1 for a decided game, 0 otherwise), dones shape (n,)
    /// bool; finished games are reset.
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
    ) -> PyResult<Stepped<'py>> {
        // int32 (what random_actions gives) without a copy; int64 (numpy's default integer)
        // and other integer arrays converted.
        let converted;
        let acts: ArrayView2<i32> = if let Ok(a) = actions.extract::<PyReadonlyArray2<'py, i32>>() {
            converted = a;
            converted.as_array()
        } else {
            let refuse = || {
                PyValueError::new_err(
                    "actions must be an integer numpy array of shape (n, 2): h's and c's action per game",
                )
            };
            let arr = py
                .import("numpy")?
                .call_method1("asarray", (actions,))
                .map_err(|_| refuse())?;
            let kind: String = arr.getattr("dtype")?.getattr("kind")?.extract()?;
            if kind != "i" && kind != "u" {
                return Err(refuse());
            }
            let a: PyReadonlyArray2<'py, i64> = arr
                .call_method1("astype", ("int64",))
                .and_then(|x| x.extract())
                .map_err(|_| refuse())?;
            let owned = a.as_array().mapv(|x| x.clamp(-1, i32::MAX as i64) as i32);
            return self.step_with(py, owned.view());
        };
        self.step_with(py, acts)
    }

    /// Starts every game again.
    fn reset(&mut self, py: Python<'_>) -> PyResult<()> {
        let locked = self.core.eng();
        let eng = locked.borrow_dependent();
        for st in &mut self.states {
            eng.reset(st, self.first)
                .map_err(|e| rule_runtime_error(py, &e))?;
        }
        Ok(())
    }

    /// Game i's position, as a State.
    fn state(&self, i: usize) -> PyResult<State> {
        let st = self
            .states
            .get(i)
            .ok_or_else(|| PyIndexError::new_err(format!("game {i} of {}", self.states.len())))?;
        Ok(State {
            core: self.core.clone(),
            st: st.clone(),
            rng: self.rngs[i],
            error: None,
        })
    }
}

impl VecGame {
    /// [`VecGame::step`] on actions already read.
    fn step_with<'py>(&mut self, py: Python<'py>, acts: ArrayView2<i32>) -> PyResult<Stepped<'py>> {
        if acts.shape() != [self.states.len(), 2] {
            return Err(PyValueError::new_err(format!(
                "actions must have shape ({}, 2), not {:?}",
                self.states.len(),
                acts.shape()
            )));
        }
        let n = self.states.len();
        let mut rewards = Array2::<f32>::zeros((n, 2));
        let mut dones = vec![false; n];
        let locked = self.core.eng();
        let eng = locked.borrow_dependent();
        let nc = self.core.nc() as i32;
        for i in 0..n {
            let st = &mut self.states[i];
            let cmd = |a: i32| (a >= 0 && a < nc).then_some(a as CmdId);
            let cmds = [cmd(acts[[i, 0]]), cmd(acts[[i, 1]])];
            // A runtime error ends the game as a draw (play_sampled sets it) and is counted.
            if play_sampled(eng, st, cmds, &mut self.rngs[i], &mut self.script).is_some() {
                self.errors += 1;
            }
            if let Some(o) = st.outcome {
                let r = match o {
                    Outcome::H => [1.0, -1.0],
                    Outcome::C => [-1.0, 1.0],
                    Outcome::Draw => [0.0, 0.0],
                };
                rewards[[i, 0]] = r[0];
                rewards[[i, 1]] = r[1];
                dones[i] = true;
                self.games_done += 1;
                if eng.reset(st, self.first).is_err() {
                    st.outcome = Some(Outcome::Draw);
                }
            }
        }
        drop(locked);
        Ok((rewards.into_pyarray(py), dones.into_pyarray(py)))
    }
}
