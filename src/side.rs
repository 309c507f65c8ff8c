//! Sides: the one place that names them and resolves the relative forms of the rule text.
//!
//! A side is [`Side::H`] (the human; first to move unless `~先手c`) or [`Side::C`] (the CPU).
//! Positions and the engine's tables are laid out per side (`side.index() * n + id`), so a
//! side has an [`index`](Side::index) for tables and indexes `[T; 2]` arrays directly. Rule text
//! names sides relative to the acting side (`S.`, `O.`, own or opponent's command) or
//! absolutely (`h.`, `c.`): [`SideRef::resolve`] turns either into a side, for the engine, the
//! analysis and the reports alike.

use std::ops::{Index, IndexMut};

use crate::syntax::ast::SideRef;

/// A side of the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Side {
    /// The human (h), index 0.
    #[default]
    H = 0,
    /// The CPU (c), index 1.
    C = 1,
}

/// The human's side (h).
pub const H: Side = Side::H;
/// The CPU's side (c).
pub const C: Side = Side::C;
/// Both sides, h first.
pub const BOTH: [Side; 2] = [H, C];

impl Side {
    /// Both sides, h first.
    pub const BOTH: [Side; 2] = BOTH;

    /// The other side.
    #[inline]
    pub const fn opponent(self) -> Side {
        match self {
            Side::H => Side::C,
            Side::C => Side::H,
        }
    }

    /// The index of this side in per-side tables: h 0, c 1.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The side at a table index (0 h, anything else c).
    #[inline]
    pub const fn from_index(i: usize) -> Side {
        if i == 0 { Side::H } else { Side::C }
    }

    /// The side that moves first: c when the file says `~先手c` (`cpu_first`), else h.
    #[inline]
    pub const fn first_mover(cpu_first: bool) -> Side {
        if cpu_first { Side::C } else { Side::H }
    }

    /// +1 for h, −1 for c: values are kept from h's point of view.
    #[inline]
    pub const fn sign(self) -> f64 {
        match self {
            Side::H => 1.0,
            Side::C => -1.0,
        }
    }

    /// How a side is written in output and the AI protocol: `"h"` or `"c"`.
    #[inline]
    pub const fn name(self) -> &'static str {
        match self {
            Side::H => "h",
            Side::C => "c",
        }
    }

    /// Orders a pair given as (this side's, the opponent's) into (h's, c's).
    #[inline]
    pub fn seat<T>(self, mine: T, theirs: T) -> [T; 2] {
        match self {
            Side::H => [mine, theirs],
            Side::C => [theirs, mine],
        }
    }
}

impl std::fmt::Display for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Written as its name, `"h"` or `"c"`, in JSON output.
impl serde::Serialize for Side {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<T> Index<Side> for [T; 2] {
    type Output = T;
    #[inline]
    fn index(&self, s: Side) -> &T {
        &self[s as usize]
    }
}

impl<T> IndexMut<Side> for [T; 2] {
    #[inline]
    fn index_mut(&mut self, s: Side) -> &mut T {
        &mut self[s as usize]
    }
}

impl SideRef {
    /// The side this written side names when `acting` acts.
    #[inline]
    pub fn resolve(self, acting: Side) -> Side {
        match self {
            SideRef::S => acting,
            SideRef::O => acting.opponent(),
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
    if opp { acting.opponent() } else { acting }
}
