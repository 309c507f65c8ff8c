//! Runs every annotated broken file in `tests/diag/`: each carries its expected diagnostics as
//! comment lines `#> CODE LINE:COL`, and the file must produce exactly those (errors and warnings).

use crate::common;
use kumite::diag::{JsonDiagnostic, LineIndex};
use kumite::pipeline::compile;

fn expected(text: &str) -> Vec<(String, usize, usize)> {
    let mut v = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("#>") {
            let mut it = rest.split_whitespace();
            let code = it.next().expect("code after #>").to_string();
            let pos = it.next().expect("LINE:COL after the code");
            let (l, c) = pos.split_once(':').expect("LINE:COL");
            v.push((
                code,
                l.parse().expect("line number"),
                c.parse().expect("column number"),
            ));
        }
    }
    v.sort();
    v
}

#[test]
fn annotated_files_produce_exactly_their_diagnostics() {
    let files = common::kmt_files("tests/diag");
    assert!(
        files.len() >= 10,
        "expected the annotated files in tests/diag"
    );
    let mut failures = Vec::new();
    for f in &files {
        let text = common::read(f);
        let c = compile(&text);
        let idx = LineIndex::new(&text);
        let mut actual: Vec<(String, usize, usize)> = c
            .diags
            .iter()
            .map(|d| {
                let j = JsonDiagnostic::new(d, "", &text, &idx);
                (j.code, j.line, j.column)
            })
            .collect();
        actual.sort();
        let exp = expected(&text);
        if actual != exp {
            let msgs: Vec<String> = c
                .diags
                .iter()
                .map(|d| {
                    format!(
                        "{} {:?} {}",
                        d.code,
                        idx.line_col(&text, d.span.start),
                        d.message
                    )
                })
                .collect();
            failures.push(format!(
                "{}:\n  expected {:?}\n  actual   {:?}\n  {}",
                f.display(),
                exp,
                actual,
                msgs.join("\n  ")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} files differ:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

#[test]
fn the_code_table_in_rules_readme_is_the_list_of_codes() {
    use kumite::diag::DiagCode;
    let readme = common::read(&common::root().join("rules/README.md"));
    let table = readme
        .split("## Diagnostic codes")
        .nth(1)
        .expect("rules/README.md has a Diagnostic codes section");
    let rows: Vec<(String, String)> = table
        .lines()
        .filter_map(|l| {
            // A row `| E001 | meaning |` (a code is a letter and three digits).
            let cells: Vec<&str> = l.trim().trim_matches('|').split(" | ").collect();
            let code = cells[0].trim();
            let is_code = code.len() == 4
                && (code.starts_with('E') || code.starts_with('W'))
                && code[1..].chars().all(|c| c.is_ascii_digit());
            (cells.len() == 2 && is_code).then(|| (code.to_string(), cells[1].trim().to_string()))
        })
        .collect();
    let listed: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    let codes: Vec<&str> = DiagCode::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(
        listed, codes,
        "the table and DiagCode::ALL list different codes"
    );
    for (code, meaning) in &rows {
        let c = DiagCode::parse(code).expect("a code");
        assert_eq!(
            meaning,
            c.summary(),
            "{code}: the table and DiagCode::summary differ"
        );
    }
}

#[test]
fn helps_name_the_likely_fix() {
    let help = |text: &str, code: &str| -> String {
        let c = compile(text);
        let d = c
            .diags
            .iter()
            .find(|d| d.code == code)
            .unwrap_or_else(|| panic!("{code} in {:?}", c.diags));
        d.help.clone().unwrap_or_default()
    };
    // A state written without its side.
    let h = help(
        "!:体力=10,[ジャブ]\n[ジャブ]:体力-1\nO.体力<=0:S.勝利\n",
        "E001",
    );
    assert!(h.contains("S.体力") && h.contains("O.体力"), "{h}");
    // A misspelt state in an effect (katakana カ for 力).
    let h = help(
        "!:体力=10,[ジャブ]\n[ジャブ]:O.体カ-1\nO.体力<=0:S.勝利\n",
        "W016",
    );
    assert_eq!(h, "did you mean 体力?");
    // A state written without its side, with a near constant about: the state is meant.
    let stamina = "${\n最大スタミナ:8\n}\n!:スタミナ=8,体力=5,[突き]\n[突き],スタミナ>=2:O.体力-1,S.スタミナ-2\nO.体力<=0:S.勝利\n";
    let h = help(stamina, "E020");
    assert!(
        h.contains("S.スタミナ") && !h.contains("最大スタミナ"),
        "{h}"
    );
    // Without such a state the near constant is still proposed.
    let h = help(
        "${\n最大スタミナ:8\n}\n!:体力=5,[突き]\n[突き],大スタミナ>=2:O.体力-1\nO.体力<=0:S.勝利\n",
        "E020",
    );
    assert!(h.contains("did you mean 最大スタミナ?"), "{h}");
    // A key line without '=' names the form, and never prints a raw tab.
    for line in ["':w[前進]", "':w\t[前進]", "':w=[前進],s\t[後退]"] {
        let c = compile(&format!(
            "!:体力=3,[前進],[後退]\n{line}\n[前進]:O.体力-1\n[後退]:O.体力-1\nO.体力<=0:S.勝利\n"
        ));
        let d = c.diags.iter().find(|d| d.code == "E001").expect("E001");
        let h = d.help.clone().unwrap_or_default();
        assert!(h.contains("KEY=[command]"), "{line}: {h}");
        assert!(
            h.contains("=[前進]") || h.contains("=[後退]"),
            "{line}: {h}"
        );
        assert!(
            !d.message.contains('\t') && !h.contains('\t'),
            "{line}: {}",
            d.message
        );
    }
    // Both readings of a negated sequence, and how to write the other one.
    let c = compile(&common::read(
        &common::root().join("tests/diag/negated_sequence.kmt"),
    ));
    let d = c.diags.iter().find(|d| d.code == "W019").expect("W019");
    assert!(
        d.message
            .contains("not [受け] on its move before the latest")
            && d.message.contains("not [後退] on its latest move")
            && d.message.contains("neither [受け] nor [後退] now"),
        "{}",
        d.message
    );
    let h = d.help.clone().unwrap_or_default();
    assert!(
        h.contains("O.[受け・後退以外]") && h.contains("# 順番"),
        "{h}"
    );
    // The broken line is the only problem: no W011 for the command it would have enabled.
    let c = compile("!:体力=10\n:[打つ\n[打つ]:O.体力-1\nO.体力<=0:S.勝利\n");
    let codes: Vec<String> = c.diags.iter().map(|d| d.code.to_string()).collect();
    assert_eq!(codes, ["E001"]);
}
