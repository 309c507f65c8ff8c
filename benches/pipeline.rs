//! Parse + expand + compile throughput: a generated 10,000-line rule file and every file in rules/.

/// The allocator the `kumite` binary uses, so the figures are what users get.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

#[path = "gen.rs"]
mod genfile;
use genfile::generated;

fn bench(c: &mut Criterion) {
    let big = generated(10_000);
    assert!(
        kumite::pipeline::compile(&big).program.is_some(),
        "the generated file must compile"
    );
    c.bench_function("compile 10k lines", |b| {
        b.iter(|| kumite::pipeline::compile(black_box(&big)))
    });
    // One keystroke: the studio's checker keeps what it compiled, and each check sees one line
    // changed (a number typed into a rule in the middle of the file).
    let at = big.find("S.左構え55").expect("the generator's line") + "S.左構え".len();
    // A number not typed before each time, so the edited line is new to the checker.
    let version = |n: usize| format!("{}{n}{}", &big[..at], &big[at..]);
    let mut cache = kumite::incremental::Checker::default();
    kumite::incremental::compile_cached(&big, &mut cache);
    let mut n = 0;
    c.bench_function("edit one line of 10k", |b| {
        b.iter_batched(
            || {
                n += 1;
                version(n)
            },
            |text| kumite::incremental::compile_cached(black_box(&text), &mut cache),
            criterion::BatchSize::SmallInput,
        )
    });
    c.bench_function("edit one line of 10k, studio check", |b| {
        b.iter_batched(
            || {
                n += 1;
                std::sync::Arc::<str>::from(version(n))
            },
            |text| kumite::gui::worker::check_with(0, text, Some(&mut cache)),
            criterion::BatchSize::SmallInput,
        )
    });
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rules");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("rules/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "kmt"))
        .collect();
    files.sort();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read");
        let name = format!(
            "compile {}",
            f.file_name().and_then(|n| n.to_str()).unwrap_or("?")
        );
        c.bench_function(&name, |b| {
            b.iter(|| kumite::pipeline::compile(black_box(&text)))
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
