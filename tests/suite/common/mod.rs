//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// The project root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.kmt` file in a directory under the root, sorted.
pub fn kmt_files(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .unwrap_or_else(|e| panic!("cannot read {dir}: {e}"))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "kmt"))
        .collect();
    v.sort();
    v
}

/// Reads a file as text.
pub fn read(p: &PathBuf) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()))
}

/// Turns ASCII syntax into its full-width forms (U+FF01–U+FF5E) and spaces into U+3000.
pub fn to_fullwidth(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '!'..='~' => char::from_u32(c as u32 + 0xFEE0).unwrap_or(c),
            ' ' => '\u{3000}',
            _ => c,
        })
        .collect()
}

/// Runs the kumite binary in the project root: (exit status, stdout, stderr).
pub fn kumite(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kumite"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("run kumite");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Draws one frame of the studio at `size` with `events`, as the window would, and returns how
/// long it took in milliseconds (layout, drawing and tessellation).
#[cfg(feature = "studio")]
pub fn timed_frame(
    ctx: &egui::Context,
    app: &mut kumite::gui::StudioApp,
    size: egui::Vec2,
    events: Vec<egui::Event>,
) -> f64 {
    let input = egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, size)),
        events,
        ..Default::default()
    };
    let t0 = std::time::Instant::now();
    let out = ctx.run_ui(input, |ui| app.show(ui));
    let _ = ctx.tessellate(out.shapes, out.pixels_per_point);
    t0.elapsed().as_secs_f64() * 1000.0
}

/// The generated file of the benchmarks (`benches/gen.rs`): about `lines` lines using every
/// construct.
#[path = "../../../benches/gen.rs"]
mod genfile;
#[allow(unused_imports)]
pub use genfile::generated;

/// The build without the studio, unoptimised in `target/headless` (its tests ask whether it
/// builds and works, not how fast): the command line `target/headless/debug/kumite`, and the
/// Python extension `libkumite_py.so` beside it when `python` (the interpreter pyo3 builds
/// for) can be run. One cargo run for both, made once and shared by the headless and the Python
/// test: the library is compiled once for them (48 s on a fresh clone instead of 41 s + 35 s).
/// Err(cargo's errors) when the build fails.
pub fn headless_build(python: &str) -> Result<PathBuf, String> {
    static BUILT: std::sync::OnceLock<Result<PathBuf, String>> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let target = root().join("target").join("headless");
            let with_python = std::process::Command::new(python)
                .args(["-c", "import sys"])
                .output()
                .is_ok_and(|o| o.status.success());
            let mut args = vec!["build", "-p", "kumite"];
            if with_python {
                args.extend(["-p", "kumite-py"]);
            }
            args.extend([
                "--no-default-features",
                "--features",
                "kumite/cli",
                "--config",
                "profile.dev.package.\"*\".opt-level=0",
                "--config",
                "profile.dev.debug=0",
            ]);
            let out = std::process::Command::new(env!("CARGO"))
                .args(&args)
                .env("CARGO_TARGET_DIR", &target)
                .env("PYO3_PYTHON", python)
                .current_dir(root())
                .output()
                .map_err(|e| format!("cannot run cargo: {e}"))?;
            if out.status.success() {
                Ok(target)
            } else {
                Err(String::from_utf8_lossy(&out.stderr).into_owned())
            }
        })
        .clone()
}

/// The interpreter the Python package is built and tested with: `KUMITE_PYTHON`, else
/// `python3`.
pub fn python() -> String {
    std::env::var("KUMITE_PYTHON").unwrap_or_else(|_| "python3".into())
}
