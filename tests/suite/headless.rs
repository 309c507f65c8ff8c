//! The headless build: `cargo build --no-default-features --features cli` gives the library and
//! a command line without the studio's GUI crates (eframe, egui, rfd …), for servers, CI and AI
//! training. This test builds it (in its own target directory, so the binary the other tests
//! run is left alone), checks that no GUI crate went into it, and runs it. The Python
//! extension, which builds the library without the command line, links no clap.

use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `cargo tree ARGS… -e normal --prefix none`: one crate a line.
fn tree(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO"))
        .arg("tree")
        .args(args)
        .args(["-e", "normal", "--prefix", "none"])
        .current_dir(root())
        .output()
        .expect("cargo tree");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_command_line_builds_and_runs_without_the_studio() {
    let deps = tree(&["--no-default-features", "--features", "cli"]);
    for gui in [
        "eframe ",
        "egui ",
        "egui_extras ",
        "egui_plot ",
        "rfd ",
        "winit ",
    ] {
        assert!(
            !deps.lines().any(|l| l.starts_with(gui)),
            "the headless build depends on {gui}"
        );
    }
    // The Python extension's own tree: the library without `cli`, so no clap.
    let py = tree(&["-p", "kumite-py"]);
    assert!(py.lines().any(|l| l.starts_with("kumite ")), "{py}");
    assert!(
        !py.lines().any(|l| l.starts_with("clap ")),
        "the Python extension links clap:\n{py}"
    );
    // An unoptimised build (dependencies too), shared with the Python test: this test asks
    // whether it builds and runs, not how fast.
    let target = crate::common::headless_build(&crate::common::python())
        .unwrap_or_else(|e| panic!("headless build failed:\n{e}"));
    let bin = target.join("debug").join("kumite");
    let run = |args: &[&str]| {
        let out = Command::new(&bin)
            .args(args)
            .current_dir(root())
            .output()
            .expect("run the headless kumite");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, out, _) = run(&["check", "rules/sumo.kmt"]);
    assert_eq!(code, Some(0), "{out}");
    let (code, out, _) = run(&[
        "arena",
        "rules/cc_lemon.kmt",
        "--games",
        "1000",
        "--seed",
        "1",
        "--format",
        "json",
    ]);
    assert_eq!(code, Some(0));
    assert!(out.contains("\"games\":1000"), "{out}");
    let (code, _, err) = run(&["studio"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("no studio window"), "{err}");
}
