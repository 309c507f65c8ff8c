//! A small string interner: names become `NameId`s so tokens and AST nodes stay `Copy`.

use rustc_hash::FxHashMap as HashMap;

/// An interned name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NameId(pub u32);

/// The interner.
#[derive(Clone, Debug, Default)]
pub struct Names {
    map: HashMap<String, NameId>,
    list: Vec<String>,
}

impl Names {
    /// The id of `s`, adding it if new.
    pub fn intern(&mut self, s: &str) -> NameId {
        if let Some(id) = self.map.get(s) {
            return *id;
        }
        let id = NameId(self.list.len() as u32);
        self.list.push(s.to_string());
        self.map.insert(s.to_string(), id);
        id
    }
    /// Shows `id` as `text` from now on (it is still found by its own text too): the reserved
    /// states as a file spells them.
    pub fn set_display(&mut self, id: NameId, text: &str) {
        if let Some(slot) = self.list.get_mut(id.0 as usize) {
            *slot = text.to_string();
        }
    }
    /// The text of `id`.
    pub fn get(&self, id: NameId) -> &str {
        &self.list[id.0 as usize]
    }
}
