//! Authoring help on one analysis core: the symbol index the checker builds, and what the
//! studio's editor and the language server answer from it — completion, hover cards, go to
//! definition, find uses, rename, quick fixes — plus the formatter.

pub mod complete;
pub mod fixes;
pub mod fmt;
pub mod hover;
pub mod symbols;
