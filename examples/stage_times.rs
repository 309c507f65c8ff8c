#[path = "../benches/gen.rs"]
mod genfile;
fn main() {
    let big = genfile::generated(10_000);
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(3);
    for _ in 0..n {
        let t = std::time::Instant::now();
        let index = kumite::diag::LineIndex::new(&big);
        let t0 = t.elapsed();
        let mut parsed = kumite::syntax::parser::parse(&big);
        let t1 = t.elapsed();
        let mut diags = std::mem::take(&mut parsed.diags);
        let _x = kumite::expand::expand(&mut parsed, &index, &mut diags);
        let t2 = t.elapsed();
        let c = kumite::program::compile(&big);
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
