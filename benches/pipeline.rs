//! Parse + expand + compile throughput: a generated 10,000-line rule file and every file in rules/.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

#[path = "gen.rs"]
mod genfile;
use genfile::generated;

fn bench(c: &mut Criterion) {
    let big = generated(10_000);
    assert!(
        kumite::program::compile(&big).program.is_some(),
        "the generated file must compile"
    );
    c.bench_function("compile 10k lines", |b| {
        b.iter(|| kumite::program::compile(black_box(&big)))
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
            b.iter(|| kumite::program::compile(black_box(&text)))
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
