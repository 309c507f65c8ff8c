//! The Python package (`python/`): builds the extension module `kumite._core` and runs the
//! package's own tests (`python/tests`, pytest) against it — the state API, the batched API, the
//! OpenSpiel adapter under OpenSpiel's value iteration, CFR and MCTS, the PettingZoo adapters
//! under PettingZoo's API tests — with this build's `kumite` command line for cross-checks.
//!
//! The extension is built unoptimised in `target/headless`, in the same cargo run as the
//! headless test's command line (`common::headless_build`: the library compiled once for both): this test asks whether the
//! package works, not how fast (`benches/python.sh` measures the release build). It needs a
//! Python 3 with numpy, pytest, open_spiel, cvxpy and ecos (OpenSpiel's value iteration) and pettingzoo:
//! `.ci/run` installs them and sets `KUMITE_REQUIRE_PYTHON=1`, so that CI fails instead of
//! skipping; elsewhere, without them, the test says it skipped and checks nothing.
//! `KUMITE_PYTHON` chooses the interpreter (default `python3`).

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

const MODULES: &str = "import numpy, pytest, pyspiel, cvxpy, ecos, pettingzoo, gymnasium, mypy";

fn skip_or_fail(why: &str) {
    if std::env::var_os("KUMITE_REQUIRE_PYTHON").is_some_and(|v| v != "0") {
        panic!("KUMITE_REQUIRE_PYTHON is set and {why}");
    }
    // Past the harness's capture, so that the run shows the skip.
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED python::the_python_package_passes_its_own_tests: {why}; nothing was checked \
         (install with: python3 -m pip install numpy pytest open_spiel cvxpy ecos pettingzoo gymnasium mypy)"
    );
}

fn copy_package(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("package dir");
    for e in std::fs::read_dir(from).expect("python/kumite") {
        let p = e.expect("entry").path();
        if p.extension().is_some_and(|x| x == "py" || x == "pyi") || p.ends_with("py.typed") {
            std::fs::copy(&p, to.join(p.file_name().expect("name"))).expect("copy");
        }
    }
}

#[test]
fn the_python_package_passes_its_own_tests() {
    let python = crate::common::python();
    match Command::new(&python).args(["-c", MODULES]).output() {
        Err(e) => return skip_or_fail(&format!("{python} cannot be run ({e})")),
        Ok(o) if !o.status.success() => {
            let err = String::from_utf8_lossy(&o.stderr);
            let last = err.lines().last().unwrap_or("").to_string();
            return skip_or_fail(&format!("{python} lacks a module the tests need ({last})"));
        }
        Ok(_) => {}
    }
    // Built with the headless test's command line, in one cargo run (see common::headless_build).
    let target = crate::common::headless_build(&python)
        .unwrap_or_else(|e| panic!("building the Python extension failed:\n{e}"));
    // What maturin would install: the Python sources and the extension as kumite/_core.
    let site = target.join("python-site");
    let pkg = site.join("kumite");
    let _ = std::fs::remove_dir_all(&pkg);
    copy_package(&root().join("python").join("kumite"), &pkg);
    std::fs::copy(
        target.join("debug").join("libkumite_py.so"),
        pkg.join("_core.abi3.so"),
    )
    .expect("the built extension (target/headless/debug/libkumite_py.so)");
    let out = Command::new(&python)
        .args([
            "-m",
            "pytest",
            "python/tests",
            "-q",
            "-p",
            "no:cacheprovider",
            "-W",
            "ignore::UserWarning",
        ])
        .env("PYTHONPATH", &site)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("KUMITE_BIN", env!("CARGO_BIN_EXE_kumite"))
        .current_dir(root())
        .output()
        .expect("python -m pytest");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the Python tests failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // pytest's summary ("NN passed in …"): every test ran, none was skipped.
    let summary = stdout.lines().last().unwrap_or("");
    assert!(
        summary.contains(" passed") && !summary.contains("skipped"),
        "{summary}"
    );
    println!("{summary}");
}
