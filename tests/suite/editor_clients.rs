//! `kumite lsp` under a language client we did not write: Neovim's built-in LSP client,
//! headless (`tests/editors/neovim_check.lua`): diagnostics, hover, completion, definition,
//! rename and a quick fix applied to the buffer. `.ci/run` installs Neovim; where it cannot be
//! had the test says so and checks nothing.

use std::process::Command;

#[test]
fn neovim_gets_diagnostics_hover_completion_definition_rename_and_a_fix() {
    if Command::new("nvim").arg("--version").output().is_err() {
        // Written past the test harness's capture, so that the run shows the skip (the test
        // itself cannot be marked skipped at run time).
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED editor_clients::neovim_gets_diagnostics_…: nvim is not installed, nothing was checked"
        );
        return;
    }
    let dir = std::env::temp_dir().join(format!("kumite-nvim-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("t.kmt");
    std::fs::write(
        &file,
        "!:体力=3,[ジャブ]\n[ジャブ]:O.体カ-1\nO.体力<=0:S.勝利\n",
    )
    .expect("write");
    let out = dir.join("out.txt");
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/editors/neovim_check.lua"
    );
    let status = Command::new("nvim")
        .args([
            "--headless",
            "-u",
            "NONE",
            "-c",
            &format!("luafile {script}"),
        ])
        .env("KUMITE", env!("CARGO_BIN_EXE_kumite"))
        .env("KMT_FILE", &file)
        .env("OUT", &out)
        .output()
        .expect("nvim runs");
    let got = std::fs::read_to_string(&out).unwrap_or_else(|_| {
        panic!(
            "no findings written; nvim said: {}",
            String::from_utf8_lossy(&status.stderr)
        )
    });
    let lines: Vec<&str> = got.lines().collect();
    assert!(lines.contains(&"diag 2 W016"), "{got}");
    let hover = lines
        .iter()
        .find(|l| l.starts_with("hover "))
        .expect("hover");
    assert!(
        hover.contains("state 体力") && hover.contains("initial: h 3, c 3"),
        "{got}"
    );
    assert!(lines.contains(&"completion ジャブ"), "{got}");
    assert!(lines.contains(&"definition 1"), "{got}");
    assert!(lines.contains(&"rename 2"), "{got}");
    assert!(lines.contains(&"action Change to 体力"), "{got}");
    assert!(lines.contains(&"fixed [ジャブ]:O.体力-1"), "{got}");
    let _ = std::fs::remove_dir_all(&dir);
}
