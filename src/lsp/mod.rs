//! `kumite lsp`: a language server over standard input and output.
//!
//! rust-analyzer's `lsp-server` carries the messages (no async runtime); `ls-types` (the
//! maintained fork of the LSP types) reads the requests. Every answer comes from the checker's
//! own results — diagnostics, the symbol index, hover cards, completion, fixes and the formatter
//! in [`crate::authoring`] — so the editor and the studio always say the same thing.
//!
//! Positions are counted in UTF-8 bytes when the client offers it, else in UTF-16 units (the
//! protocol's default). A request that fails, or a handler that panics, gets an error answer;
//! the server keeps running.

use crate::analysis::VictoryGraph;
use crate::authoring::{complete, fixes, fmt, hover};
use crate::diag::{Diagnostic, LineIndex, Severity};
use crate::incremental::Checker;
use crate::incremental::compile_cached;
use crate::pipeline::Compiled;
use crate::symbols;
use crate::syntax::highlight::{Kind, highlight_line};
use ls_types as lt;
use lsp_server::{ErrorCode, Notification, Request, RequestId};
use std::io::{BufRead, Write};

mod frame;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;

/// `textDocument/publishDiagnostics` parameters, serialized straight from the checker's data.
#[derive(serde::Serialize)]
struct PublishParams<'a> {
    uri: &'a str,
    diagnostics: Vec<LspDiag<'a>>,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct LspDiag<'a> {
    range: lt::Range,
    severity: u8,
    code: &'a str,
    source: &'static str,
    message: String,
    related_information: Vec<Related<'a>>,
}

#[derive(serde::Serialize)]
struct Related<'a> {
    location: LspLoc<'a>,
    message: &'a str,
}

#[derive(serde::Serialize)]
struct LspLoc<'a> {
    uri: &'a str,
    range: lt::Range,
}

/// One open document.
struct Doc {
    text: String,
    lines: LineIndex,
    compiled: Arc<Compiled>,
    /// The victory graph of the last text that compiled (for hover), built on first use.
    graph: Option<Arc<VictoryGraph>>,
    /// The last program that compiled, for hover while the text has errors.
    last_good: Option<Arc<Compiled>>,
    cache: Checker,
}

impl Doc {
    fn new(text: String) -> Self {
        let mut cache = Checker::default();
        let compiled = Arc::new(compile_cached(&text, &mut cache));
        let mut d = Self {
            lines: LineIndex::new(&text),
            text,
            last_good: None,
            compiled,
            graph: None,
            cache,
        };
        d.keep_good();
        d
    }
    fn set_text(&mut self, text: String) {
        self.text = text;
        self.lines = LineIndex::new(&self.text);
        self.compiled = Arc::new(compile_cached(&self.text, &mut self.cache));
        self.keep_good();
    }
    fn keep_good(&mut self) {
        if self.compiled.program.is_some() {
            self.last_good = Some(self.compiled.clone());
            self.graph = None;
        }
    }
    fn graph(&mut self) -> Option<Arc<VictoryGraph>> {
        if self.graph.is_none() {
            let p = self.last_good.as_ref()?.program.as_ref()?;
            self.graph = Some(Arc::new(VictoryGraph::build(p)));
        }
        self.graph.clone()
    }
}

/// Byte offsets ↔ LSP positions.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Enc {
    Utf8,
    Utf16,
}

fn line_start(text: &str, lines: &LineIndex, line: usize) -> usize {
    lines.line_start(line).unwrap_or(text.len())
}

/// Params that do not parse: an invalid-params error.
fn bad(e: serde_json::Error) -> (i32, String) {
    (ErrorCode::InvalidParams as i32, e.to_string())
}

/// A request about a document not open: an invalid-params error.
fn gone(e: String) -> (i32, String) {
    (ErrorCode::InvalidParams as i32, e)
}

fn to_offset(text: &str, lines: &LineIndex, p: lt::Position, enc: Enc) -> usize {
    let line = p.line as usize;
    if line >= lines.line_count() {
        return text.len();
    }
    let s = line_start(text, lines, line);
    let e = text[s..].find('\n').map_or(text.len(), |i| s + i);
    let mut units = 0u32;
    for (i, c) in text[s..e].char_indices() {
        if units >= p.character {
            return s + i;
        }
        units += match enc {
            Enc::Utf8 => c.len_utf8() as u32,
            Enc::Utf16 => c.len_utf16() as u32,
        };
    }
    e
}

fn to_pos(text: &str, lines: &LineIndex, off: usize, enc: Enc) -> lt::Position {
    let mut off = off.min(text.len());
    while !text.is_char_boundary(off) {
        off -= 1;
    }
    let line = lines.line_of(off);
    let s = line_start(text, lines, line);
    let ch: usize = match enc {
        Enc::Utf8 => off - s,
        Enc::Utf16 => text[s..off].chars().map(char::len_utf16).sum(),
    };
    lt::Position::new(line as u32, ch as u32)
}

fn to_range(text: &str, lines: &LineIndex, r: &std::ops::Range<usize>, enc: Enc) -> lt::Range {
    lt::Range::new(
        to_pos(text, lines, r.start, enc),
        to_pos(text, lines, r.end, enc),
    )
}

/// The server's state.
pub struct Server {
    docs: HashMap<String, Doc>,
    enc: Enc,
    ja: bool,
}

/// Semantic token types, in the order of the legend.
const TOKEN_TYPES: [&str; 11] = [
    "comment",
    "keyword",
    "namespace",
    "function",
    "variable",
    "enumMember",
    "number",
    "operator",
    "property",
    "string",
    "method",
];

fn token_type(k: Kind) -> Option<u32> {
    Some(match k {
        Kind::Comment => 0,
        Kind::Sigil => 1,
        Kind::Side => 2,
        Kind::Command => 3,
        Kind::State => 4,
        Kind::Name => 5,
        Kind::Number => 6,
        Kind::Operator => 7,
        Kind::Setting => 8,
        Kind::Key => 9,
        Kind::Function => 10,
        Kind::Plain | Kind::Punct => return None,
    })
}

fn uri_of(v: &lt::Uri) -> String {
    v.as_str().to_string()
}

impl Server {
    /// A server with no documents; `init` is the client's `initialize` parameters.
    pub fn new(init: &Value) -> Self {
        let encs = init
            .pointer("/capabilities/general/positionEncodings")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let enc = if encs.iter().any(|e| e == "utf-8") {
            Enc::Utf8
        } else {
            Enc::Utf16
        };
        let ja = init
            .get("locale")
            .and_then(Value::as_str)
            .is_some_and(|l| l.starts_with("ja"));
        Self {
            docs: HashMap::new(),
            enc,
            ja,
        }
    }

    /// What the server can do (the `initialize` result).
    pub fn capabilities(&self) -> Value {
        json!({
            "positionEncoding": if self.enc == Enc::Utf8 { "utf-8" } else { "utf-16" },
            "textDocumentSync": { "openClose": true, "change": 2 },
            "completionProvider": { "triggerCharacters": ["[", ".", "［", "．", "=", ":"] },
            "hoverProvider": true,
            "definitionProvider": true,
            "referencesProvider": true,
            "renameProvider": { "prepareProvider": true },
            "documentSymbolProvider": true,
            "documentFormattingProvider": true,
            "codeActionProvider": { "codeActionKinds": ["quickfix"] },
            "semanticTokensProvider": {
                "legend": { "tokenTypes": TOKEN_TYPES, "tokenModifiers": [] },
                "full": true
            }
        })
    }

    fn diagnostics(&self, uri: &str) -> Option<Notification> {
        let d = self.docs.get(uri)?;
        let diags: Vec<LspDiag> = d
            .compiled
            .diags
            .iter()
            .map(|x| self.lsp_diag_typed(d, x, uri))
            .collect();
        Some(Notification::new(
            "textDocument/publishDiagnostics".into(),
            PublishParams {
                uri,
                diagnostics: diags,
            },
        ))
    }

    fn lsp_diag_typed<'a>(&self, d: &Doc, x: &'a Diagnostic, uri: &'a str) -> LspDiag<'a> {
        let mut message = x.message.clone();
        if let Some(h) = &x.help {
            message.push_str("\nhelp: ");
            message.push_str(h);
        }
        LspDiag {
            range: to_range(&d.text, &d.lines, &x.span, self.enc),
            severity: if x.severity == Severity::Error { 1 } else { 2 },
            code: x.code.as_str(),
            source: "kumite",
            message,
            related_information: x
                .labels
                .iter()
                .map(|(sp, m)| Related {
                    location: LspLoc {
                        uri,
                        range: to_range(&d.text, &d.lines, sp, self.enc),
                    },
                    message: m,
                })
                .collect(),
        }
    }

    fn lsp_diag(&self, d: &Doc, x: &Diagnostic, uri: &str) -> Value {
        serde_json::to_value(self.lsp_diag_typed(d, x, uri)).unwrap_or(Value::Null)
    }

    fn loc(&self, uri: &str, d: &Doc, span: &std::ops::Range<usize>) -> Value {
        json!({ "uri": uri, "range": to_range(&d.text, &d.lines, span, self.enc) })
    }

    fn edit_json(&self, d: &Doc, e: &symbols::TextEdit) -> Value {
        json!({ "range": to_range(&d.text, &d.lines, &e.span, self.enc), "newText": e.text })
    }

    /// Handles a notification; returns notifications to send.
    pub fn notify(&mut self, n: &Notification) -> Vec<Notification> {
        match n.method.as_str() {
            "textDocument/didOpen" => {
                let Ok(p) =
                    serde_json::from_value::<lt::DidOpenTextDocumentParams>(n.params.clone())
                else {
                    return vec![];
                };
                let uri = uri_of(&p.text_document.uri);
                self.docs
                    .insert(uri.clone(), Doc::new(p.text_document.text));
                self.diagnostics(&uri).into_iter().collect()
            }
            "textDocument/didChange" => {
                let Ok(p) =
                    serde_json::from_value::<lt::DidChangeTextDocumentParams>(n.params.clone())
                else {
                    return vec![];
                };
                let uri = uri_of(&p.text_document.uri);
                let enc = self.enc;
                let Some(d) = self.docs.get_mut(&uri) else {
                    return vec![];
                };
                let mut text = std::mem::take(&mut d.text);
                for ch in p.content_changes {
                    match ch.range {
                        None => text = ch.text,
                        Some(r) => {
                            let lines = LineIndex::new(&text);
                            let a = to_offset(&text, &lines, r.start, enc);
                            let b = to_offset(&text, &lines, r.end, enc).max(a);
                            text.replace_range(a..b, &ch.text);
                        }
                    }
                }
                d.set_text(text);
                self.diagnostics(&uri).into_iter().collect()
            }
            "textDocument/didClose" => {
                if let Ok(p) =
                    serde_json::from_value::<lt::DidCloseTextDocumentParams>(n.params.clone())
                {
                    let uri = uri_of(&p.text_document.uri);
                    self.docs.remove(&uri);
                    return vec![Notification::new(
                        "textDocument/publishDiagnostics".into(),
                        json!({ "uri": uri, "diagnostics": [] }),
                    )];
                }
                vec![]
            }
            _ => vec![],
        }
    }

    fn doc_pos(&self, v: &lt::TextDocumentPositionParams) -> Result<(String, usize), String> {
        let uri = uri_of(&v.text_document.uri);
        let d = self
            .docs
            .get(&uri)
            .ok_or_else(|| format!("{uri} is not open"))?;
        Ok((uri, to_offset(&d.text, &d.lines, v.position, self.enc)))
    }

    /// Answers a request (other than shutdown).
    pub fn request(&mut self, r: &Request) -> Result<Value, (i32, String)> {
        let params = r.params.clone();
        match r.method.as_str() {
            "textDocument/completion" => self.completion(params),
            "textDocument/hover" => {
                let p: lt::HoverParams = serde_json::from_value(params).map_err(bad)?;
                let (uri, at) = self
                    .doc_pos(&p.text_document_position_params)
                    .map_err(gone)?;
                let ja = self.ja;
                let enc = self.enc;
                let d = self.docs.get_mut(&uri).ok_or_else(|| gone(uri.clone()))?;
                let graph = d.graph();
                let prog = d.last_good.as_ref().and_then(|c| c.program.as_ref());
                let h = hover::hover(&d.compiled.symbols, at, prog, graph.as_deref(), ja);
                Ok(match h {
                    Some(h) => json!({
                        "contents": { "kind": "markdown", "value": h.markdown() },
                        "range": to_range(&d.text, &d.lines, &h.span, enc),
                    }),
                    None => Value::Null,
                })
            }
            "textDocument/definition" => {
                let p: lt::GotoDefinitionParams = serde_json::from_value(params).map_err(bad)?;
                let (uri, at) = self
                    .doc_pos(&p.text_document_position_params)
                    .map_err(gone)?;
                let d = &self.docs[&uri];
                let ix = &d.compiled.symbols;
                Ok(ix
                    .at(at)
                    .and_then(|o| ix.definition(o.kind, &o.name))
                    .map_or(Value::Null, |o| self.loc(&uri, d, &o.span)))
            }
            "textDocument/references" => {
                let p: lt::ReferenceParams = serde_json::from_value(params).map_err(bad)?;
                let (uri, at) = self.doc_pos(&p.text_document_position).map_err(gone)?;
                let d = &self.docs[&uri];
                let ix = &d.compiled.symbols;
                let Some(o) = ix.at(at) else {
                    return Ok(json!([]));
                };
                let def = ix.definition(o.kind, &o.name).map(|o| o.span.clone());
                let locs: Vec<Value> = ix
                    .uses(o.kind, &o.name)
                    .iter()
                    .filter(|u| p.context.include_declaration || Some(&u.span) != def.as_ref())
                    .map(|u| self.loc(&uri, d, &u.span))
                    .collect();
                Ok(Value::Array(locs))
            }
            "textDocument/prepareRename" => {
                let p: lt::TextDocumentPositionParams =
                    serde_json::from_value(params).map_err(bad)?;
                let (uri, at) = self.doc_pos(&p).map_err(gone)?;
                let d = &self.docs[&uri];
                match d.compiled.symbols.at(at) {
                    Some(o)
                        if !(o.kind == symbols::SymKind::State
                            && matches!(o.name.as_ref(), "勝利" | "敗北")) =>
                    {
                        Ok(json!({
                            "range": to_range(&d.text, &d.lines, &o.span, self.enc),
                            "placeholder": o.name.as_ref(),
                        }))
                    }
                    _ => Ok(Value::Null),
                }
            }
            "textDocument/rename" => {
                let p: lt::RenameParams = serde_json::from_value(params).map_err(bad)?;
                let (uri, at) = self.doc_pos(&p.text_document_position).map_err(gone)?;
                let d = &self.docs[&uri];
                let plan = d
                    .compiled
                    .symbols
                    .rename(at, &p.new_name)
                    .map_err(|e| (ErrorCode::InvalidRequest as i32, e.to_string()))?;
                let edits: Vec<Value> = plan.edits.iter().map(|e| self.edit_json(d, e)).collect();
                Ok(json!({ "changes": { uri: edits } }))
            }
            "textDocument/documentSymbol" => self.document_symbols(params),
            "textDocument/formatting" => {
                let p: lt::DocumentFormattingParams =
                    serde_json::from_value(params).map_err(bad)?;
                let uri = uri_of(&p.text_document.uri);
                let d = self.docs.get(&uri).ok_or_else(|| gone(uri.clone()))?;
                let out = fmt::format_checked(&d.text, &d.compiled.diags);
                if out == d.text {
                    return Ok(json!([]));
                }
                let all = 0..d.text.len();
                Ok(
                    json!([{ "range": to_range(&d.text, &d.lines, &all, self.enc), "newText": out }]),
                )
            }
            "textDocument/codeAction" => self.code_actions(params),
            "textDocument/semanticTokens/full" => {
                let p: lt::SemanticTokensParams = serde_json::from_value(params).map_err(bad)?;
                let uri = uri_of(&p.text_document.uri);
                let d = self.docs.get(&uri).ok_or_else(|| gone(uri.clone()))?;
                Ok(json!({ "data": semantic_tokens(&d.text, self.enc) }))
            }
            m => Err((
                ErrorCode::MethodNotFound as i32,
                format!("kumite lsp does not handle {m}"),
            )),
        }
    }

    /// `textDocument/completion`: the names that fit where the cursor is.
    fn completion(&self, params: Value) -> Result<Value, (i32, String)> {
        let p: lt::CompletionParams = serde_json::from_value(params).map_err(bad)?;
        let (uri, at) = self.doc_pos(&p.text_document_position).map_err(gone)?;
        let d = &self.docs[&uri];
        let c = complete::complete(&d.text, at, &d.compiled.symbols, self.ja);
        let range = to_range(&d.text, &d.lines, &c.replace, self.enc);
        let items: Vec<Value> = c
            .items
            .iter()
            .enumerate()
            .map(|(i, it)| {
                json!({
                    "label": it.label,
                    "kind": match it.kind {
                        complete::ItemKind::State => lt::CompletionItemKind::VARIABLE,
                        complete::ItemKind::Command => lt::CompletionItemKind::FUNCTION,
                        complete::ItemKind::Macro => lt::CompletionItemKind::METHOD,
                        complete::ItemKind::Constant => lt::CompletionItemKind::CONSTANT,
                        complete::ItemKind::Prefix => lt::CompletionItemKind::MODULE,
                        complete::ItemKind::Keyword => lt::CompletionItemKind::KEYWORD,
                        complete::ItemKind::Function => lt::CompletionItemKind::FUNCTION,
                    },
                    "detail": it.detail,
                    "sortText": format!("{i:04}"),
                    "filterText": d.text.get(c.replace.clone()).map(|t| format!("{t}{}", it.label)),
                    "textEdit": { "range": range, "newText": it.insert },
                })
            })
            .collect();
        Ok(json!({ "isIncomplete": false, "items": items }))
    }

    /// `textDocument/documentSymbol`: states, commands, macros, constants and keys where defined.
    fn document_symbols(&self, params: Value) -> Result<Value, (i32, String)> {
        let p: lt::DocumentSymbolParams = serde_json::from_value(params).map_err(bad)?;
        let uri = uri_of(&p.text_document.uri);
        let d = self.docs.get(&uri).ok_or_else(|| gone(uri.clone()))?;
        let ix = &d.compiled.symbols;
        let syms: Vec<Value> = ix
            .symbols()
            .iter()
            .filter_map(|(k, n)| {
                let o = ix.definition(*k, n)?;
                let r = to_range(&d.text, &d.lines, &o.span, self.enc);
                let (kind, label) = match k {
                    symbols::SymKind::State => (lt::SymbolKind::VARIABLE, n.to_string()),
                    symbols::SymKind::Command => (lt::SymbolKind::FUNCTION, format!("[{n}]")),
                    symbols::SymKind::Macro => (lt::SymbolKind::FUNCTION, format!("[{n}] (macro)")),
                    symbols::SymKind::Constant => (lt::SymbolKind::CONSTANT, n.to_string()),
                    symbols::SymKind::Key => (lt::SymbolKind::ENUM_MEMBER, format!("key {n}")),
                };
                Some(json!({
                    "name": label,
                    "kind": kind,
                    "detail": format!("{} uses", ix.uses(*k, n).len()),
                    "range": r,
                    "selectionRange": r,
                }))
            })
            .collect();
        Ok(Value::Array(syms))
    }

    /// `textDocument/codeAction`: the quick fixes of the problems in the range.
    fn code_actions(&self, params: Value) -> Result<Value, (i32, String)> {
        let p: lt::CodeActionParams = serde_json::from_value(params).map_err(bad)?;
        let uri = uri_of(&p.text_document.uri);
        let d = self.docs.get(&uri).ok_or_else(|| gone(uri.clone()))?;
        let a = to_offset(&d.text, &d.lines, p.range.start, self.enc);
        let b = to_offset(&d.text, &d.lines, p.range.end, self.enc);
        let mut actions = Vec::new();
        for x in &d.compiled.diags {
            if x.span.end < a || x.span.start > b {
                continue;
            }
            for f in fixes::fixes(&d.text, x, &d.compiled.symbols, self.ja) {
                let edits: Vec<Value> = f.edits.iter().map(|e| self.edit_json(d, e)).collect();
                actions.push(json!({
                    "title": f.title,
                    "kind": "quickfix",
                    "diagnostics": [self.lsp_diag(d, x, &uri)],
                    "edit": { "changes": { uri.clone(): edits } },
                }));
            }
        }
        Ok(Value::Array(actions))
    }
}

/// The semantic tokens of `text`, LSP-encoded (relative line, relative start, length, type, 0).
fn semantic_tokens(text: &str, enc: Enc) -> Vec<u32> {
    let mut data = Vec::new();
    let (mut prev_line, mut prev_start) = (0u32, 0u32);
    for (ln, line) in text.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        for (r, k) in highlight_line(line) {
            let Some(t) = token_type(k) else { continue };
            let units = |s: &str| -> u32 {
                match enc {
                    Enc::Utf8 => s.len() as u32,
                    Enc::Utf16 => s.chars().map(char::len_utf16).sum::<usize>() as u32,
                }
            };
            let start = units(&line[..r.start]);
            let len = units(&line[r.clone()]);
            if len == 0 {
                continue;
            }
            let ln = ln as u32;
            let ds = if ln == prev_line {
                start - prev_start
            } else {
                start
            };
            data.extend([ln - prev_line, ds, len, t, 0]);
            prev_line = ln;
            prev_start = start;
        }
    }
    data
}

/// Why the language server stopped other than by `shutdown` and `exit`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LspError {
    /// The client stopped reading.
    #[error("the client closed the connection")]
    ClientGone,
    /// `exit` came without `shutdown` first (the protocol asks for status 1).
    #[error("exit before shutdown")]
    ExitBeforeShutdown,
    /// Standard input or output failed.
    #[error("{0}")]
    Io(String),
}

/// Where the conversation is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Before `initialize`.
    Waiting,
    /// Between `initialize` and `shutdown`.
    Running,
    /// After `shutdown`: only `exit` is expected.
    ShuttingDown,
}

/// A message as read off the wire, checked against JSON-RPC's shape.
enum Incoming {
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    Notification {
        method: String,
        params: Value,
    },
    /// An answer to something the server sent (it sends no requests; ignored).
    Response,
}

/// JSON-RPC's codes for a body that is not JSON, and for JSON that is not a message.
const PARSE_ERROR: i32 = -32700;
const INVALID_REQUEST: i32 = -32600;
/// LSP's code for a request before `initialize`.
const NOT_INITIALIZED: i32 = -32002;

/// Reads one body: the message, or the error answer it gets (with the id when one was found).
fn parse_message(body: &[u8]) -> Result<Incoming, (Value, i32, String)> {
    let text = std::str::from_utf8(body).map_err(|e| {
        (
            Value::Null,
            PARSE_ERROR,
            format!("the message is not UTF-8 (at byte {})", e.valid_up_to()),
        )
    })?;
    let v: Value = serde_json::from_str(text).map_err(|e| {
        (
            Value::Null,
            PARSE_ERROR,
            format!("the message is not JSON: {e}"),
        )
    })?;
    let Value::Object(mut o) = v else {
        return Err((
            Value::Null,
            INVALID_REQUEST,
            "a message must be a JSON object".into(),
        ));
    };
    let id = o.remove("id");
    let id_ok = |id: &Value| matches!(id, Value::Number(_) | Value::String(_));
    let echo = |id: &Option<Value>| match id {
        Some(v) if id_ok(v) => v.clone(),
        _ => Value::Null,
    };
    if o.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err((
            echo(&id),
            INVALID_REQUEST,
            "the message lacks \"jsonrpc\": \"2.0\"".into(),
        ));
    }
    let params = o.remove("params").unwrap_or(Value::Null);
    match (o.remove("method"), id) {
        (Some(Value::String(method)), Some(id)) if id_ok(&id) => {
            Ok(Incoming::Request { id, method, params })
        }
        (Some(Value::String(_)), Some(_)) => Err((
            Value::Null,
            INVALID_REQUEST,
            "a request's id must be a number or a string".into(),
        )),
        (Some(Value::String(method)), None) => Ok(Incoming::Notification { method, params }),
        (Some(_), id) => Err((
            echo(&id),
            INVALID_REQUEST,
            "a message's method must be a string".into(),
        )),
        (None, Some(_)) if o.contains_key("result") || o.contains_key("error") => {
            Ok(Incoming::Response)
        }
        (None, id) => Err((
            echo(&id),
            INVALID_REQUEST,
            "the message has neither a method nor a result".into(),
        )),
    }
}

/// Writes one framed message.
fn send(out: &mut impl Write, v: &Value) -> Result<(), LspError> {
    let body = v.to_string();
    write!(out, "Content-Length: {}\r\n\r\n{body}", body.len())
        .and_then(|()| out.flush())
        .map_err(|_| LspError::ClientGone)
}

fn answer_err(out: &mut impl Write, id: Value, code: i32, message: &str) -> Result<(), LspError> {
    send(
        out,
        &json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}),
    )
}

/// Serves one connection until `exit` or the end of input. Nothing a client sends stops the
/// server: a broken frame, a body that is not JSON or not a message, a request out of turn
/// each get an error answer, and the server reads on.
pub fn serve(input: impl BufRead, mut out: impl Write) -> Result<(), LspError> {
    let mut frames = frame::FrameReader::new(input);
    let mut phase = Phase::Waiting;
    let mut server: Option<Server> = None;
    loop {
        let body = match frames.next_frame() {
            Ok(frame::Frame::Body(b)) => b,
            Ok(frame::Frame::Bad(why)) => {
                answer_err(&mut out, Value::Null, PARSE_ERROR, &why)?;
                continue;
            }
            Ok(frame::Frame::Eof) => return Ok(()),
            Err(e) => return Err(LspError::Io(e.to_string())),
        };
        let msg = match parse_message(&body) {
            Ok(m) => m,
            Err((id, code, why)) => {
                answer_err(&mut out, id, code, &why)?;
                continue;
            }
        };
        match msg {
            Incoming::Response => {}
            Incoming::Notification { method, params } => {
                if method == "exit" {
                    return match phase {
                        Phase::ShuttingDown => Ok(()),
                        // `exit` without `shutdown` first: the protocol asks for status 1.
                        _ => Err(LspError::ExitBeforeShutdown),
                    };
                }
                let (Phase::Running, Some(s)) = (phase, server.as_mut()) else {
                    continue;
                };
                let n = Notification { method, params };
                let sent = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| s.notify(&n)))
                    .unwrap_or_default();
                for o in sent {
                    send(
                        &mut out,
                        &json!({"jsonrpc": "2.0", "method": o.method, "params": o.params}),
                    )?;
                }
            }
            Incoming::Request { id, method, params } => {
                let answer: Result<Value, (i32, String)> = match (phase, method.as_str()) {
                    (Phase::Waiting, "initialize") => {
                        let s = Server::new(&params);
                        let caps = s.capabilities();
                        server = Some(s);
                        phase = Phase::Running;
                        Ok(json!({
                            "capabilities": caps,
                            "serverInfo": { "name": "kumite", "version": env!("CARGO_PKG_VERSION") },
                        }))
                    }
                    (Phase::Waiting, m) => Err((
                        NOT_INITIALIZED,
                        format!(
                            "the server is not initialized yet: send 'initialize' before '{m}'"
                        ),
                    )),
                    (Phase::Running, "initialize") => {
                        Err((INVALID_REQUEST, "the server is already initialized".into()))
                    }
                    (Phase::Running, "shutdown") => {
                        phase = Phase::ShuttingDown;
                        Ok(Value::Null)
                    }
                    (Phase::Running, _) => {
                        let s = server.as_mut().expect("initialized");
                        let req = Request {
                            id: RequestId::from(0),
                            method,
                            params,
                        };
                        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| s.request(&req)))
                            .unwrap_or_else(|_| {
                                Err((
                                    ErrorCode::InternalError as i32,
                                    "internal error in kumite (a bug): the request failed".into(),
                                ))
                            })
                    }
                    (Phase::ShuttingDown, m) => Err((
                        INVALID_REQUEST,
                        format!(
                            "the server is shutting down: '{m}' came after 'shutdown'; only 'exit' is expected"
                        ),
                    )),
                };
                match answer {
                    Ok(v) => send(&mut out, &json!({"jsonrpc": "2.0", "id": id, "result": v}))?,
                    Err((code, m)) => answer_err(&mut out, id, code, &m)?,
                }
            }
        }
    }
}

/// `kumite lsp`: serves standard input and output.
pub fn run_stdio() -> Result<(), LspError> {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    serve(stdin.lock(), std::io::BufWriter::new(stdout.lock()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_round_trip_in_both_encodings() {
        let t = "!:体力=3\n\n[押す]:O.体力-1\n";
        let l = LineIndex::new(t);
        for enc in [Enc::Utf8, Enc::Utf16] {
            for off in t.char_indices().map(|(i, _)| i).chain([t.len()]) {
                let p = to_pos(t, &l, off, enc);
                assert_eq!(to_offset(t, &l, p, enc), off, "{enc:?} {off} {p:?}");
            }
        }
        assert_eq!(
            to_pos(t, &l, t.find("O.").unwrap(), Enc::Utf16),
            lt::Position::new(2, 5)
        );
    }
}
