//! Sides: the one place that names them and resolves the relative forms of the rule text.
//!
//! A side is an index — [`H`] (0, the human; first to move unless `~先手c`) or [`C`] (1, the
//! CPU) — because positions and the engine's tables are laid out per side
//! (`side * n + id`), and an index keeps that arithmetic free. Rule text names sides relative
//! to the acting side (`S.`, `O.`, own or opponent's command) or absolutely (`h.`, `c.`):
//! [`SideRef::resolve`] turns either into an index, for the engine, the analysis and the
//! reports alike.

use crate::syntax::ast::SideRef;

/// A side: [`H`] = 0, [`C`] = 1.
pub type Side = usize;

/// The human's side (h).
pub const H: Side = 0;
/// The CPU's side (c).
pub const C: Side = 1;
/// Both sides, h first.
pub const BOTH: [Side; 2] = [H, C];

/// The other side.
#[inline]
pub fn opponent(s: Side) -> Side {
    1 - s
}

/// How a side is written in output and the AI protocol: `"h"` or `"c"`.
#[inline]
pub fn name(s: Side) -> &'static str {
    if s == H { "h" } else { "c" }
}

impl SideRef {
    /// The side this written side names when `acting` acts.
    #[inline]
    pub fn resolve(self, acting: Side) -> Side {
        match self {
            SideRef::S => acting,
            SideRef::O => opponent(acting),
            SideRef::H => H,
            SideRef::C => C,
        }
    }

    /// The side seen from the opponent: S and O exchanged (h and c are absolute: None).
    pub fn swapped(self) -> Option<SideRef> {
        match self {
            SideRef::S => Some(SideRef::O),
            SideRef::O => Some(SideRef::S),
            SideRef::H | SideRef::C => None,
        }
    }
}

/// The acting side, or its opponent when `opp` (a command or flag written `O.[X]`).
#[inline]
pub fn relative(opp: bool, acting: Side) -> Side {
    if opp { opponent(acting) } else { acting }
}
