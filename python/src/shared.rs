//! The compiled program and its engine shared by every object of one game, and the helpers
//! the classes share (sides, one sampled turn).

use crate::*;

self_cell::self_cell!(
    /// A compiled program and the engine that plays it, which borrows it.
    pub(crate) struct ProgramEngine {
        owner: Arc<RuleProgram>,
        #[covariant]
        dependent: Engine,
    }
);

/// The boxed player of [`ProgramPlayer`], borrowing the program.
pub(crate) type BoxedPlayer<'p> = Box<dyn kumite::engine::players::Player + Send + 'p>;

self_cell::self_cell!(
    /// A built-in player (a [`crate::players::Cpu`]'s) and the program it borrows.
    pub(crate) struct ProgramPlayer {
        owner: Arc<RuleProgram>,
        #[covariant]
        dependent: BoxedPlayer,
    }
);

/// A compiled program and its engine, shared by every object of one game. The engine is
/// locked once per call from Python (a whole batch for [`crate::batch::VecGame::step`]): it
/// keeps scratch space that one thread at a time may use.
pub(crate) struct Core {
    eng: Mutex<ProgramEngine>,
    pub(crate) prog: Arc<RuleProgram>,
    /// What its players run under (the learned evaluation read beside the file).
    pub(crate) config: RunConfig,
    pub(crate) name: String,
    pub(crate) first: Side,
}

impl Core {
    pub(crate) fn new(prog: RuleProgram, config: RunConfig, name: String) -> Arc<Self> {
        let prog = Arc::new(prog);
        let first = Side::first_mover(prog.settings.cpu_first);
        Arc::new(Core {
            eng: Mutex::new(ProgramEngine::new(prog.clone(), |p| Engine::new(p, 0))),
            prog,
            config,
            name,
            first,
        })
    }

    /// The engine, locked: `let locked = core.eng(); let eng = locked.borrow_dependent();`.
    pub(crate) fn eng(&self) -> MutexGuard<'_, ProgramEngine> {
        self.eng.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn nc(&self) -> usize {
        self.prog.commands.len()
    }

    pub(crate) fn ns(&self) -> usize {
        self.prog.states.len()
    }

    /// The observation length: own and opponent's state values, enabled flags and history,
    /// then "I choose now" and the turn.
    pub(crate) fn obs_len(&self, hl: usize) -> usize {
        2 * self.ns() + 2 * self.nc() + 2 * hl + 2
    }

    /// Writes `side`'s observation of `st` into `out` (see [`Core::obs_len`]).
    pub(crate) fn observe(&self, eng: &Engine, st: &EState, side: Side, out: &mut [f32]) {
        let (ns, nc, hl) = (self.ns(), self.nc(), eng.hl);
        let (me, op) = (side.index(), side.opponent().index());
        let mut k = 0;
        for s in [me, op] {
            for &v in &st.vals[s * ns..(s + 1) * ns] {
                out[k] = v as f32;
                k += 1;
            }
        }
        for s in [me, op] {
            for &on in &st.enabled[s * nc..(s + 1) * nc] {
                out[k] = f32::from(u8::from(on));
                k += 1;
            }
        }
        for s in [me, op] {
            for &c in &st.hist[s * hl..(s + 1) * hl] {
                out[k] = if c == NONE { 0.0 } else { (c + 1) as f32 };
                k += 1;
            }
        }
        out[k] = f32::from(u8::from(
            st.outcome.is_none() && eng.movers(st).contains(&side),
        ));
        out[k + 1] = st.turn as f32;
    }

    /// The legal actions of `side` in `st`: its enabled commands, or the pass when it chooses
    /// and has none; empty when it does not choose (or the game is over).
    pub(crate) fn legal(&self, eng: &Engine, st: &EState, side: Side) -> Vec<usize> {
        if st.outcome.is_some() || !eng.movers(st).contains(&side) {
            return Vec::new();
        }
        let mut v: Vec<usize> = (0..self.nc())
            .filter(|&c| eng.is_enabled(st, side, c as CmdId))
            .collect();
        if v.is_empty() {
            v.push(self.nc());
        }
        v
    }

    /// The command of an action for `side`, or an error saying why it is not legal.
    pub(crate) fn command(
        &self,
        eng: &Engine,
        st: &EState,
        side: Side,
        a: i64,
    ) -> PyResult<Option<CmdId>> {
        let legal = self.legal(eng, st, side);
        if a >= 0 && legal.contains(&(a as usize)) {
            return Ok((a as usize) < self.nc()).map(|is_cmd| is_cmd.then_some(a as CmdId));
        }
        let names: Vec<String> = legal.iter().map(|&l| self.action_name(l)).collect();
        Err(PyValueError::new_err(format!(
            "action {a} is not legal for {} now (legal: {})",
            side.name(),
            if names.is_empty() {
                "none: this side does not choose now".to_string()
            } else {
                names.join(", ")
            }
        )))
    }

    pub(crate) fn action_name(&self, a: usize) -> String {
        match self.prog.commands.get(a) {
            Some(c) => format!("{a}={c}"),
            None => format!("{a}=pass"),
        }
    }
}

pub(crate) fn side_of(s: usize) -> PyResult<Side> {
    match s {
        0 => Ok(Side::H),
        1 => Ok(Side::C),
        _ => Err(PyIndexError::new_err(format!(
            "side must be 0 (h) or 1 (c), not {s}"
        ))),
    }
}

pub(crate) fn side_arg(s: Option<&str>, default: Side) -> PyResult<Side> {
    match s {
        None => Ok(default),
        Some("h" | "H") => Ok(Side::H),
        Some("c" | "C") => Ok(Side::C),
        Some(o) => Err(PyValueError::new_err(format!(
            "first must be 'h' or 'c', not {o:?}"
        ))),
    }
}

/// Plays one turn with chance drawn from `rng` (advanced by the draws made). A runtime error
/// of the rules ends the game as a draw and is returned.
pub(crate) fn play_sampled(
    eng: &Engine,
    st: &mut EState,
    cmds: [Option<CmdId>; 2],
    rng: &mut u64,
    script: &mut ChanceScript,
) -> Option<String> {
    script.picks.clear();
    script.sampler = Some(*rng);
    let r = eng.play_scripted(st, cmds, script);
    // No draw leaves the stream where it was: move it on so that turns differ.
    *rng = script.sampler.take().unwrap_or(*rng);
    match r {
        Ok(()) => None,
        Err(e) => {
            st.outcome = Some(Outcome::Draw);
            Some(runtime_text(&e))
        }
    }
}

pub(crate) fn runtime_text(e: &RuntimeError) -> String {
    format!("runtime error at {e}")
}
