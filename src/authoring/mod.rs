//! Authoring help: what the studio's editor and the language server answer from the symbol
//! index the checker builds ([`crate::symbols`]) — completion, hover cards, go to definition,
//! find uses, rename, quick fixes — plus the formatter.

pub mod complete;
pub mod fixes;
pub mod fmt;
pub mod hover;
