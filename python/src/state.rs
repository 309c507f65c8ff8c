//! `State`: a position, with its legal moves, apply, chance outcomes, returns and observation.

use crate::*;

/// A position of a game, with its own chance stream.
#[pyclass(module = "kumite._core")]
pub(crate) struct State {
    pub(crate) core: Arc<Core>,
    pub(crate) st: EState,
    pub(crate) rng: u64,
    pub(crate) error: Option<String>,
}

impl State {
    pub(crate) fn with(&self, st: EState, rng: u64, error: Option<String>) -> State {
        State {
            core: self.core.clone(),
            st,
            rng,
            error,
        }
    }
}

#[pymethods]
impl State {
    /// The game.
    #[getter]
    fn game(&self) -> Game {
        Game {
            core: self.core.clone(),
        }
    }

    /// Turns played.
    #[getter]
    fn turn(&self) -> u32 {
        self.st.turn
    }

    /// The sides that choose now: [0], [1] or [0, 1] (none once the game is over).
    fn movers(&self) -> Vec<usize> {
        if self.st.outcome.is_some() {
            return Vec::new();
        }
        let locked = self.core.eng();
        let eng = locked.borrow_dependent();
        eng.movers(&self.st).iter().map(|s| s.index()).collect()
    }

    fn is_terminal(&self) -> bool {
        self.st.outcome.is_some()
    }

    /// "h", "c", "draw", or None while the game goes on.
    #[getter]
    fn outcome(&self) -> Option<&'static str> {
        self.st.outcome.map(Outcome::as_str)
    }

    /// A runtime error of the rules that ended the game (as a draw), if one did.
    #[getter]
    fn error(&self) -> Option<String> {
        self.error.clone()
    }

    /// [h's, c's]: +1 win, −1 loss, 0 draw or not over.
    fn returns(&self) -> [f64; 2] {
        match self.st.outcome {
            Some(Outcome::H) => [1.0, -1.0],
            Some(Outcome::C) => [-1.0, 1.0],
            _ => [0.0, 0.0],
        }
    }

    /// The legal actions of `side`: its enabled commands, or [pass] when it chooses and has
    /// none; [] when it does not choose now.
    fn legal_actions(&self, side: usize) -> PyResult<Vec<usize>> {
        let s = side_of(side)?;
        let locked = self.core.eng();
        let eng = locked.borrow_dependent();
        Ok(self.core.legal(eng, &self.st, s))
    }

    /// A mask over all actions (num_actions long).
    fn legal_mask(&self, side: usize) -> PyResult<Vec<bool>> {
        let legal = self.legal_actions(side)?;
        let mut m = vec![false; self.core.nc() + 1];
        for a in legal {
            m[a] = true;
        }
        Ok(m)
    }

    /// Plays an alternate game's move for the side to move (chance drawn from this state's
    /// stream).
    fn apply(&mut self, action: i64) -> PyResult<()> {
        let locked = self.core.eng();
        let eng = locked.borrow_dependent();
        if self.st.outcome.is_some() {
            return Err(PyValueError::new_err("the game is over"));
        }
        if eng.simultaneous {
            return Err(PyValueError::new_err(
                "a simultaneous game: use apply_joint(h_action, c_action)",
            ));
        }
        let s = self.st.to_move;
        let c = self.core.command(eng, &self.st, s, action)?;
        let mut cmds = [None, None];
        cmds[s] = c;
        let mut script = ChanceScript::default();
        self.error = play_sampled(eng, &mut self.st, cmds, &mut self.rng, &mut script);
        Ok(())
    }

    /// Plays a turn from both sides' actions (in an alternate game the side not to move may
    /// give None).
    #[pyo3(signature = (h_action, c_action))]
    fn apply_joint(&mut self, h_action: Option<i64>, c_action: Option<i64>) -> PyResult<()> {
        let locked = self.core.eng();
        let eng = locked.borrow_dependent();
        if self.st.outcome.is_some() {
            return Err(PyValueError::new_err("the game is over"));
        }
        let cmds = self.joint(eng, [h_action, c_action])?;
        let mut script = ChanceScript::default();
        self.error = play_sampled(eng, &mut self.st, cmds, &mut self.rng, &mut script);
        Ok(())
    }

    /// Every chance outcome of playing the actions (h's, c's; None for a side that does not
    /// choose), as (probability, state) pairs summing to 1, identical positions merged. Raises
    /// when the turn has more than `limit` outcome combinations.
    #[pyo3(signature = (h_action, c_action, limit=4096))]
    fn chance_outcomes(
        &self,
        h_action: Option<i64>,
        c_action: Option<i64>,
        limit: u64,
    ) -> PyResult<Vec<(f64, State)>> {
        let locked = self.core.eng();
        let eng = locked.borrow_dependent();
        if self.st.outcome.is_some() {
            return Err(PyValueError::new_err("the game is over"));
        }
        let cmds = self.joint(eng, [h_action, c_action])?;
        let mut script = ChanceScript::default();
        let mut out: Vec<(f64, State)> = Vec::new();
        let push = |st: EState, p: f64, err: Option<String>, out: &mut Vec<(f64, State)>| {
            if let Some(o) = out.iter_mut().find(|o| o.1.st == st) {
                o.0 += p;
            } else {
                out.push((p, self.with(st, self.rng, err)));
            }
        };
        loop {
            let mut c = self.st.clone();
            let err = eng.play_scripted(&mut c, cmds, &mut script).err().map(|e| {
                c.outcome = Some(Outcome::Draw);
                runtime_text(&e)
            });
            if script.combinations() > limit {
                return Err(PyValueError::new_err(format!(
                    "this turn has {} chance outcome combinations, more than limit={limit}",
                    script.combinations()
                )));
            }
            push(c, script.probability(), err, &mut out);
            // The next combination, odometer-wise (later draws may depend on earlier ones).
            let mut picks: Vec<u64> = script.draws.iter().map(|d| d.pick).collect();
            loop {
                match picks.last().copied() {
                    None => return Ok(out),
                    Some(last) => {
                        let k = picks.len() - 1;
                        if last + 1 < script.draws[k].outcomes {
                            picks[k] += 1;
                            break;
                        }
                        picks.pop();
                    }
                }
            }
            script.picks = picks;
        }
    }

    /// A state's value: `side` 0 (h) or 1 (c), the state's name.
    fn value(&self, side: usize, name: &str) -> PyResult<i64> {
        let s = side_of(side)?;
        let id = self
            .core
            .prog
            .state_id(name)
            .ok_or_else(|| PyKeyError::new_err(format!("no state {name:?}")))?;
        Ok(self.st.vals[s.index() * self.core.ns() + id as usize])
    }

    /// All state values of `side` by name.
    fn values(&self, side: usize) -> PyResult<Vec<(String, i64)>> {
        let s = side_of(side)?;
        let ns = self.core.ns();
        Ok(self
            .core
            .prog
            .states
            .iter()
            .zip(&self.st.vals[s.index() * ns..(s.index() + 1) * ns])
            .map(|(n, &v)| (n.clone(), v))
            .collect())
    }

    /// `side`'s observation, a float32 numpy array `observation_size` long: own then
    /// opponent's state values, enabled flags and command history (command id + 1, 0 none),
    /// then 1 if `side` chooses now, then the turn (as one game of [`VecGame::observations`]).
    #[pyo3(signature = (side=0))]
    fn observation<'py>(
        &self,
        py: Python<'py>,
        side: usize,
    ) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let s = side_of(side)?;
        let locked = self.core.eng();
        let eng = locked.borrow_dependent();
        let mut v = vec![0f32; self.core.obs_len(eng.hl)];
        self.core.observe(eng, &self.st, s, &mut v);
        Ok(v.into_pyarray(py))
    }

    fn clone(&self) -> State {
        self.with(self.st.clone(), self.rng, self.error.clone())
    }

    fn __copy__(&self) -> State {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: Bound<'_, PyAny>) -> State {
        self.clone()
    }

    /// A stable text of the position (state values, enabled commands, history, side to move,
    /// outcome): equal for equal positions whatever the turn counter says.
    fn key(&self) -> String {
        let p = &self.core.prog;
        let (ns, nc) = (self.core.ns(), self.core.nc());
        let locked = self.core.eng();
        let eng = locked.borrow_dependent();
        let hl = eng.hl;
        let mut s = String::new();
        for side in [Side::H, Side::C] {
            let i = side.index();
            s.push_str(side.name());
            s.push(':');
            for (k, v) in self.st.vals[i * ns..(i + 1) * ns]
                .iter()
                .enumerate()
                .skip(2)
            {
                s.push_str(&format!(" {}={v}", p.states[k]));
            }
            let on: Vec<&str> = (0..nc)
                .filter(|&c| self.st.enabled[i * nc + c])
                .map(|c| p.commands[c].as_str())
                .collect();
            s.push_str(&format!(" [{}]", on.join(",")));
            if hl > 0 {
                let h: Vec<&str> = self.st.hist[i * hl..(i + 1) * hl]
                    .iter()
                    .map(|&c| {
                        if c == NONE {
                            "-"
                        } else {
                            p.commands[c as usize].as_str()
                        }
                    })
                    .collect();
                s.push_str(&format!(" <{}>", h.join(",")));
            }
            s.push_str("; ");
        }
        match self.st.outcome {
            Some(o) => s.push_str(&format!("over: {}", o.as_str())),
            None if eng.simultaneous => s.push_str("both choose"),
            None => s.push_str(&format!("{} to move", self.st.to_move.name())),
        }
        s
    }

    fn __str__(&self) -> String {
        format!("turn {}: {}", self.st.turn, self.key())
    }

    fn __repr__(&self) -> String {
        format!("<kumite.State {}>", self.__str__())
    }

    fn __hash__(&self) -> u64 {
        self.st.fingerprint(true)
            ^ rng::mix(self.st.to_move.index() as u64 + 7)
            ^ self.st.outcome.map_or(0, |o| rng::mix(o as u64 + 101))
    }

    fn __eq__(&self, other: PyRef<'_, State>) -> bool {
        Arc::ptr_eq(&self.core, &other.core)
            && self.st.vals == other.st.vals
            && self.st.enabled == other.st.enabled
            && self.st.hist == other.st.hist
            && self.st.to_move == other.st.to_move
            && self.st.outcome == other.st.outcome
    }
}

impl State {
    pub(crate) fn joint(&self, eng: &Engine, a: [Option<i64>; 2]) -> PyResult<[Option<CmdId>; 2]> {
        let mut cmds = [None, None];
        for side in [Side::H, Side::C] {
            let chooses = eng.movers(&self.st).contains(&side);
            match (chooses, a[side]) {
                (true, Some(x)) => cmds[side] = self.core.command(eng, &self.st, side, x)?,
                (true, None) => {
                    return Err(PyValueError::new_err(format!(
                        "{} chooses now: give its action",
                        side.name()
                    )));
                }
                (false, Some(x)) => {
                    return Err(PyValueError::new_err(format!(
                        "{} does not choose now: give None for it, not {x}",
                        side.name()
                    )));
                }
                (false, None) => {}
            }
        }
        Ok(cmds)
    }
}
