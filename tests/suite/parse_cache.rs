//! The studio's incremental check against a fresh one: random edits (typed characters,
//! deletions, pasted and removed lines, undo to an older version) to the bundled rule files and
//! to the generated 10,000-line file, and after every edit `compile_cached` must give what
//! `compile` gives: the same diagnostics at the same places, the same expansion, the same
//! program.

use crate::common;

use kumite::incremental::Checker;
use kumite::incremental::compile_cached;
use kumite::pipeline::{Compiled, compile, expanded_kmt};

/// Everything a user sees of one check, with names spelled out (ids may differ).
fn seen(c: &Compiled) -> String {
    let mut s = String::new();
    for d in &c.diags {
        s.push_str(&format!(
            "{:?} {} {:?} {} {:?} {:?}\n",
            d.severity, d.code, d.span, d.message, d.labels, d.help
        ));
    }
    s.push_str(&expanded_kmt(c, "f"));
    s.push_str(&format!("{:?}", c.program));
    s
}

/// A small deterministic generator (xorshift*), so a failure names its seed and step.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Characters an author types, the language's syntax among them.
const TYPED: &[&str] = &[
    "a",
    "x",
    "1",
    "0",
    ":",
    "::",
    "[",
    "]",
    ",",
    "!",
    "&{",
    "}",
    "${",
    "%0.5{",
    "@2/",
    "S.",
    "O.",
    "+",
    "-",
    "=",
    "<",
    ">=",
    " ",
    "体力",
    "殴る",
    "：",
    "［",
    "］",
    "＋",
    "（",
    ")",
    "#",
    "'",
    "~",
    "\n",
    "ー",
    "ー1",
    "99999999999999999999",
    "2x",
    "?",
];

/// Whether a line holds a brace (opens or closes a block).
fn braced(line: &str) -> bool {
    line.contains(['{', '}', '｛', '｝'])
}

/// One random edit of `text`; with `keep_blocks`, one that leaves every brace where it is (the
/// block structure stays as it was, so the checker keeps working by chunks).
fn edit(text: &str, rng: &mut Rng, keep_blocks: bool) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    if lines.is_empty() {
        return "x:S.y+1\n".into();
    }
    // A line to edit (and one to copy or swap with): any, or one without braces.
    let pick = |rng: &mut Rng| {
        for _ in 0..50 {
            let i = rng.below(lines.len());
            // Lines that may not stand in a block stay out of these edits too.
            let statement = ["!", "'", "~", "！", "＇", "～"]
                .iter()
                .any(|p| lines[i].trim_start().starts_with(p));
            if !keep_blocks || !(braced(lines[i]) || statement) {
                return Some(i);
            }
        }
        None
    };
    let (Some(at), Some(other)) = (pick(rng), pick(rng)) else {
        return text.to_string();
    };
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    match rng.below(6) {
        // Type something at a character boundary of one line.
        0 | 1 => {
            let l = &out[at];
            // (After the newline is the start of the next line.)
            let end = if keep_blocks {
                l.trim_end_matches('\n').len()
            } else {
                l.len()
            };
            let cuts: Vec<usize> = l[..end]
                .char_indices()
                .map(|(i, _)| i)
                .chain([end])
                .collect();
            let cut = cuts[rng.below(cuts.len())];
            let t = TYPED[rng.below(TYPED.len())];
            if keep_blocks && braced(t) {
                return text.to_string();
            }
            out[at] = format!("{}{}{}", &l[..cut], t, &l[cut..]);
        }
        // Delete one character.
        2 => {
            let l = &out[at];
            if let Some((i, c)) = l.char_indices().nth(rng.below(l.chars().count())) {
                if keep_blocks && c == '\n' {
                    return text.to_string(); // the next line could be a brace's
                }
                out[at] = format!("{}{}", &l[..i], &l[i + c.len_utf8()..]);
            }
        }
        // Paste a copy of another line.
        3 => {
            let from = out[other].clone();
            out.insert(at, from);
        }
        // Remove a line.
        4 => {
            out.remove(at);
        }
        // Swap two lines.
        _ => out.swap(at, other),
    }
    out.concat()
}

/// Runs `steps` random edits from `start`, checking the cached compile against a fresh one after
/// each; now and then goes back to an older version (undo).
fn run(name: &str, start: &str, seed: u64, steps: usize) {
    run_edits(name, start, seed, steps, false);
    run_edits(name, start, seed, steps, true);
}

/// [`run`] with edits that keep or may break the block structure.
fn run_edits(name: &str, start: &str, seed: u64, steps: usize, keep_blocks: bool) {
    let mut rng = Rng(seed | 1);
    let mut cache = Checker::default();
    let mut history = vec![start.to_string()];
    let mut text = start.to_string();
    let mut by_chunks = 0;
    for step in 0..steps {
        let cached = compile_cached(&text, &mut cache);
        by_chunks += usize::from(cache.last_compiled.is_some());
        let fresh = compile(&text);
        let (a, b) = (seen(&cached), seen(&fresh));
        if a != b {
            let (x, y) = a
                .lines()
                .zip(b.lines())
                .find(|(x, y)| x != y)
                .unwrap_or(("(shorter)", "(shorter)"));
            panic!(
                "{name}, seed {seed}, step {step}: the incremental check differs from a fresh one\n cached: {x}\n fresh:  {y}\non\n{text}"
            );
        }
        text = if rng.below(10) == 0 {
            history[rng.below(history.len())].clone()
        } else {
            edit(&text, &mut rng, keep_blocks)
        };
        history.push(text.clone());
    }
    // Edits that keep the blocks are checked by chunks (those that break them, mostly by
    // the whole-file pipeline): both ways are compared with a fresh compile.
    assert!(
        !keep_blocks || by_chunks * 2 >= steps,
        "{name}, seed {seed}: only {by_chunks} of {steps} checks went by chunks"
    );
}

#[test]
fn edits_to_the_bundled_rule_files_check_as_a_fresh_compile() {
    for (k, path) in common::kmt_files("rules").iter().enumerate() {
        let text = common::read(path);
        for seed in 0..8u64 {
            run(
                &path.display().to_string(),
                &text,
                seed * 7919 + k as u64,
                100,
            );
        }
    }
}

#[test]
fn edits_to_full_width_rules_check_as_a_fresh_compile() {
    let text = common::to_fullwidth(&common::read(&common::root().join("rules/karate.kmt")));
    run("karate (full width)", &text, 11, 150);
}

#[test]
fn edits_to_a_10000_line_file_check_as_a_fresh_compile() {
    let text = common::generated(10_000);
    run("generated 10k", &text, 5, 12);
}

#[test]
fn an_unchanged_file_is_not_compiled_again_and_one_edit_compiles_one_chunk() {
    let text = common::generated(10_000);
    let mut cache = Checker::default();
    compile_cached(&text, &mut cache);
    let total = cache.last_compiled.unwrap() + cache.last_reused;
    assert!(total > 5_000, "{total} chunks");
    compile_cached(&text, &mut cache);
    assert_eq!((cache.last_compiled, cache.last_reused), (Some(0), total));
    // Type one character into a rule in the middle of the file.
    let at = text.find("[守る],O.[攻撃]:S.スタミナ+1").unwrap() + "[守る]".len();
    let edited = format!("{},{}", &text[..at], &text[at..]);
    let c = compile_cached(&edited, &mut cache);
    assert_eq!(cache.last_compiled, Some(1));
    assert!(
        c.diags.iter().any(|d| d.is_error()),
        "a doubled comma is an error"
    );
    assert_eq!(seen(&c), seen(&compile(&edited)));
    // A new name typed into a symmetric block's rule (numbered where it first appears).
    let at = text.find("S.左構え55:").unwrap() + "S.左構え55".len();
    let edited = format!("{}0{}", &text[..at], &text[at..]);
    let c = compile_cached(&edited, &mut cache);
    assert_eq!(cache.last_compiled, Some(1));
    assert_eq!(seen(&c), seen(&compile(&edited)));
}
