//! Text to syntax tree: lexing (with full-width folding), line classification, block structure,
//! and chumsky parsers for every statement kind.

pub mod ast;
pub mod grammar;
pub mod highlight;
pub mod lexer;
pub mod lint;
pub mod names;
pub mod parser;
mod settings;

pub use parser::{ParsedFile, parse};
