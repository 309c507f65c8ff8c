//! Random-versus-random play, single-threaded: turn resolutions per second.

/// The allocator the `kumite` binary uses, so the figures are what users get.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use kumite::engine::Engine;
use kumite::engine::rng::SplitMix;
use kumite::side::Side;
use rand::RngExt;

fn load(name: &str) -> kumite::program::RuleProgram {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("rules")
        .join(name);
    kumite::pipeline::compile(&std::fs::read_to_string(path).expect("read"))
        .program
        .expect("compiles")
}

/// Plays random games until `turns` turns have been resolved.
fn play_turns(e: &Engine, turns: u64, rng: &mut SplitMix) -> u64 {
    let mut done = 0;
    let mut buf = Vec::new();
    let mut games = 0;
    let mut st = e.initial(Side::H).expect("start");
    while done < turns {
        if st.outcome.is_some() {
            e.reset(&mut st, Side::H).expect("start");
            games += 1;
        }
        let mut cmds = [None, None];
        for &s in e.movers(&st) {
            e.enabled_commands(&st, s, &mut buf);
            if !buf.is_empty() {
                cmds[s] = Some(buf[rng.random_range(0..buf.len())]);
            }
        }
        if e.play(&mut st, cmds, None).is_err() {
            e.reset(&mut st, Side::H).expect("start");
        }
        done += 1;
    }
    games
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("random play");
    const TURNS: u64 = 100_000;
    g.throughput(Throughput::Elements(TURNS));
    for f in ["sumo.kmt", "cc_lemon.kmt", "karate.kmt", "ex1_push.kmt"] {
        let p = load(f);
        let e = Engine::new(&p, 1);
        let mut rng = SplitMix(7);
        g.bench_function(f, |b| b.iter(|| play_turns(&e, TURNS, &mut rng)));
    }
    g.finish();

    // Search: alpha-beta nodes per second on the sumo start position.
    let p = load("sumo.kmt");
    let mut probe = kumite::search::Searcher::new(&p, 1);
    let st = probe.eng.initial(Side::H).expect("start");
    probe.negamax(&st, 5, f64::NEG_INFINITY, f64::INFINITY, true);
    let nodes = probe.nodes;
    let mut g = c.benchmark_group("search");
    g.throughput(Throughput::Elements(nodes));
    g.sample_size(10);
    g.bench_function("sumo negamax depth 5", |b| {
        b.iter(|| {
            let mut s = kumite::search::Searcher::new(&p, 1);
            s.negamax(&st, 5, f64::NEG_INFINITY, f64::INFINITY, true)
        })
    });
    g.finish();
    let mut g = c.benchmark_group("search setup");
    g.bench_function("sumo Searcher::new", |b| {
        b.iter(|| kumite::search::Searcher::new(&p, 1).nodes)
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
