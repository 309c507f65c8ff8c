//! The generated rule file shared by the pipeline benchmark and `benches/stage_times.rs`.

/// A 10,000-line file in the style of the examples: rules of every kind, macros, a symmetric
/// block per 100 lines, full-width lines, comments.
pub fn generated(lines: usize) -> String {
    let mut s = String::from(
        "${\n[攻撃]:[殴る];[蹴る]\n費用:5\n}\n!:体力=30,スタミナ=10,[殴る],[蹴る],[守る]\n':a=[殴る],b=[蹴る],g=[守る]\n~P200,S3\n",
    );
    let mut i = 0;
    let mut count = s.matches('\n').count();
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
            5 => s.push_str(
                &format!("&{{\n[蹴る],S.左構え{i}:O.体力-=rand(1,费用),S.右構え{i}\n}}\n")
                    .replace("费用", "費用"),
            ),
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
