//! Stage timings of the generated 10,000-line file (parse, expand, full compile) and of one
//! keystroke re-checked as the studio's checker does it. Not a criterion benchmark: run
//! `cargo bench --bench stage_times` (full compiles), `-- edit` (keystrokes, stage by stage),
//! `-- keystrokes` (only the incremental check, for profilers) or `-- dump` (print the file).

/// The allocator the `kumite` binary uses, so the figures are what users get.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "gen.rs"]
mod genfile;
fn main() {
    let big = genfile::generated(10_000);
    // `cargo bench` passes `--bench`; the first other argument is the mode (`edit`, `dump` or a
    // number of full compiles).
    let arg = std::env::args().skip(1).find(|a| !a.starts_with("--"));
    if arg.as_deref() == Some("dump") {
        print!("{big}");
        return;
    }
    if arg.as_deref() == Some("keystrokes") {
        let n = std::env::args().filter_map(|a| a.parse().ok()).next();
        keystrokes(&big, n.unwrap_or(200));
        return;
    }
    if arg.as_deref() == Some("edit") {
        edit_times(&big, 40);
        return;
    }
    edit_times(&big, 40);
    let n: usize = arg.and_then(|a| a.parse().ok()).unwrap_or(3);
    for _ in 0..n {
        let t = std::time::Instant::now();
        let index = kumite::diag::LineIndex::new(&big);
        let t0 = t.elapsed();
        let mut parsed = kumite::syntax::parser::parse(&big);
        let t1 = t.elapsed();
        let mut diags = std::mem::take(&mut parsed.diags);
        let _x = kumite::expand::expand(&mut parsed, &index, &mut diags);
        let t2 = t.elapsed();
        let c = kumite::pipeline::compile(&big);
        let t3 = t.elapsed();
        if n <= 5 {
            println!(
                "index {:?} parse {:?} expand {:?} | full compile {:?} ({} rules)",
                t0,
                t1 - t0,
                t2 - t1,
                t3 - t2,
                c.program.map_or(0, |p| p.rules.len())
            );
        }
    }
}

/// One keystroke in the 10,000-line file: the studio's incremental check (`compile_cached`) and
/// the studio's whole check (with its views), each in a loop of its own, then the stages of the
/// whole-file pipeline for the same edits (for comparison: what a keystroke cost before the
/// checker worked by chunks). Each edit types a number not typed before.
fn edit_times(big: &str, n: usize) {
    let at = big.find("S.左構え55").unwrap_or(0) + "S.左構え".len();
    let version =
        |i: usize| -> std::sync::Arc<str> { format!("{}{}{}", &big[..at], i, &big[at..]).into() };
    let median = |mut v: Vec<std::time::Duration>| {
        v.sort();
        (v[n / 2], v[n * 9 / 10])
    };
    let mut checker = kumite::incremental::Checker::default();
    kumite::incremental::compile_cached(big, &mut checker);
    let mut compile = Vec::new();
    for i in 0..n {
        let a = version(i);
        let t0 = std::time::Instant::now();
        let c = kumite::incremental::compile_cached(&a, &mut checker);
        compile.push(t0.elapsed());
        assert!(checker.last_compiled == Some(1) && c.program.is_some());
    }
    let mut check = Vec::new();
    for i in 0..n {
        let b = version(n + i);
        let t0 = std::time::Instant::now();
        let _ = kumite::gui::worker::check_with(i as u64, b, Some(&mut checker));
        check.push(t0.elapsed());
    }
    let mut cache = kumite::syntax::parser::ParseCache::default();
    kumite::syntax::parser::parse_cached(big, Some(&mut cache));
    let (mut parse, mut graph) = (Vec::new(), Vec::new());
    let mut stages: [Vec<std::time::Duration>; 3] = Default::default();
    for i in 0..n {
        let a = version(2 * n + i);
        let t0 = std::time::Instant::now();
        let mut p = kumite::syntax::parser::parse_cached(&a, Some(&mut cache));
        parse.push(t0.elapsed());
        let t0 = std::time::Instant::now();
        let index = kumite::diag::LineIndex::new(&a);
        let mut diags = std::mem::take(&mut p.diags);
        let _sym = kumite::symbols::SymbolIndex::build(&a, &p.stmts, &p.names, &index);
        let t1 = t0.elapsed();
        let x = kumite::expand::expand(&mut p, &index, &mut diags);
        let t2 = t0.elapsed();
        let prog = kumite::program::lower::lower(&x, &p.names, &mut diags);
        let t3 = t0.elapsed();
        stages[0].push(t1);
        stages[1].push(t2 - t1);
        stages[2].push(t3 - t2);
        assert!(cache.last_parsed <= 1);
        let t0 = std::time::Instant::now();
        let _ = kumite::analysis::VictoryGraph::build(&prog);
        graph.push(t0.elapsed());
    }
    let [s0, s1, s2] = stages;
    let ((c, c90), (k, k90)) = (median(compile), median(check));
    println!(
        "edit one line of 10k: compile_cached median {c:?} p90 {c90:?} | studio check median {k:?} p90 {k90:?}"
    );
    println!(
        "  the whole-file pipeline for the same edits: parse_cached median {:?}, symbols {:?}, expand {:?}, lower+checks {:?}; victory graph median {:?}",
        median(parse).0,
        median(s0).0,
        median(s1).0,
        median(s2).0,
        median(graph).0
    );
}

/// Only the studio's incremental check of `n` keystrokes in the 10,000-line file (for
/// profilers: `-- keystrokes`).
fn keystrokes(big: &str, n: usize) {
    let at = big.find("S.左構え55").unwrap_or(0) + "S.左構え".len();
    let mut checker = kumite::incremental::Checker::default();
    let t0 = std::time::Instant::now();
    kumite::incremental::compile_cached(big, &mut checker);
    println!("first check (every chunk compiled): {:?}", t0.elapsed());
    let mut times = Vec::new();
    for i in 0..n {
        let a = format!("{}{}{}", &big[..at], i, &big[at..]);
        let t0 = std::time::Instant::now();
        let c = kumite::incremental::compile_cached(&a, &mut checker);
        times.push(t0.elapsed());
        drop(c);
    }
    times.sort();
    println!("{n} keystrokes: compile_cached median {:?}", times[n / 2]);
}
