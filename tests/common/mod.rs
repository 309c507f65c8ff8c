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

/// The generator of `benches/pipeline.rs`: a valid file of about `lines` lines using every
/// construct.
pub fn generated(lines: usize) -> String {
    let mut s = String::from(
        "${\n[攻撃]:[殴る];[蹴る]\n費用:5\n}\n!:体力=30,スタミナ=10,[殴る],[蹴る],[守る]\n':a=[殴る],b=[蹴る],g=[守る]\n~P200,S3\n",
    );
    let mut i = 0;
    let mut count = s.lines().count();
    while count < lines {
        let before = s.len();
        match i % 10 {
            0 => s.push_str(&format!("# 区切り {i}\n")),
            1 => s.push_str(&format!("S.スタミナ>={}::[攻撃]\n", i % 7)),
            2 => s.push_str(&format!(
                "[殴る],!O.[守る]:O.体力-{},S.スタミナ-1\n",
                i % 3 + 1
            )),
            3 => s.push_str(&format!(
                "@{}/:S.スタミナ+=min(2,10-S.スタミナ)\n",
                i % 5 + 2
            )),
            4 => s.push_str("Ｓ．スタミナ＜＝０：！［殴る］\n"),
            5 => s.push_str(&format!(
                "&{{\n[蹴る],S.左構え{i}:O.体力-=rand(1,費用),S.右構え{i}\n}}\n"
            )),
            6 => s.push_str(&format!("%0.5{{\nS.体力>{}:1\n}}\n", i % 20)),
            7 => s.push_str("[守る],O.[攻撃]:S.スタミナ+1\n"),
            8 => s.push_str(&format!(
                "[殴る],[蹴る]:O.体力-=費用*2,!S.左構え{}\n",
                i - 3
            )),
            _ => s.push_str("O.体力<=0:S.勝利\n"),
        }
        count += s[before..].matches('\n').count();
        i += 1;
    }
    s
}
