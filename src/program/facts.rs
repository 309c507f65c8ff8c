//! What the semantic checks need to know about names, gathered while lowering: where each
//! state is set, read and written, and where each command is enabled, mentioned and used. Its
//! own module, so that `lower` (which gathers the facts) and `checks` (which reads them) do not
//! depend on each other for it.

use crate::syntax::names::NameId;
use rustc_hash::FxHashMap as HashMap;
use std::ops::Range;

type Span = Range<usize>;

/// What the checks need to know about names, gathered while lowering.
#[derive(Default)]
pub(super) struct Facts {
    pub(super) state_set: HashMap<NameId, Span>,
    pub(super) state_read: Vec<(NameId, Span)>,
    /// States written by rule effects (first place each).
    pub(super) state_effect: Vec<(NameId, Span)>,
    pub(super) cmd_enable: HashMap<NameId, Span>,
    pub(super) cmd_mention: Vec<(NameId, Span)>,
    pub(super) cmd_used: HashMap<NameId, Span>,
}

impl Facts {
    /// Adds a piece's facts (spans relative to the piece, which stands at byte `at`) to a file's:
    /// the first place of each name stays the first in the file.
    pub(super) fn merge(&mut self, f: &Facts, at: usize) {
        let into = self;
        let mv = |s: &Span| s.start + at..s.end + at;
        let first = |into: &mut HashMap<NameId, Span>, from: &HashMap<NameId, Span>| {
            for (n, s) in from {
                into.entry(*n).or_insert_with(|| mv(s));
            }
        };
        let all = |into: &mut Vec<(NameId, Span)>, from: &[(NameId, Span)]| {
            into.extend(from.iter().map(|(n, s)| (*n, mv(s))));
        };
        first(&mut into.state_set, &f.state_set);
        all(&mut into.state_read, &f.state_read);
        all(&mut into.state_effect, &f.state_effect);
        first(&mut into.cmd_enable, &f.cmd_enable);
        all(&mut into.cmd_mention, &f.cmd_mention);
        first(&mut into.cmd_used, &f.cmd_used);
    }
}
