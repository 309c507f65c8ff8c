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
