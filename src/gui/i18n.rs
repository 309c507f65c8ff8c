//! Every string the studio shows, in English and Japanese, in one table.
//!
//! Keys are an enum rather than strings so that a missing translation is a compile error. Texts
//! with a `{}` take one argument ([`trf`]).

use serde::{Deserialize, Serialize};

/// The language of the studio's own text (rule text is never translated).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Lang {
    /// English.
    #[default]
    En,
    /// 日本語.
    Ja,
}

impl Lang {
    /// The language named by the environment (`LANG=ja_JP…` gives Japanese), else English.
    pub fn from_env() -> Self {
        let lang = std::env::var("LC_ALL")
            .ok()
            .filter(|s| !s.is_empty())
            .or_else(|| std::env::var("LANG").ok())
            .unwrap_or_default();
        if lang.starts_with("ja") {
            Lang::Ja
        } else {
            Lang::En
        }
    }
}

/// The table: every key with its English and Japanese text. The macro makes the key enum
/// [`T`] (so a missing translation is a compile error), [`ALL`] and the lookup.
macro_rules! strings {
    ($($key:ident => ($en:expr, $ja:expr $(,)?),)*) => {
        /// A UI string.
        #[allow(missing_docs)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum T {
            $($key,)*
        }

        /// Every key, in table order.
        pub const ALL: &[T] = &[$(T::$key,)*];

        fn text(key: T) -> (&'static str, &'static str) {
            match key {
                $(T::$key => ($en, $ja),)*
            }
        }
    };
}

strings! {
    MenuFile => ("File", "ファイル"),
    New => ("New", "新規"),
    Open => ("Open…", "開く…"),
    Save => ("Save", "保存"),
    SaveAs => ("Save As…", "名前を付けて保存…"),
    Recent => ("Recent files", "最近使ったファイル"),
    NoRecent => ("(none)", "(なし)"),
    ClearRecent => ("Clear list", "一覧を消去"),
    Examples => ("Examples", "サンプル"),
    ExportExpanded => ("Export expanded…", "展開結果を書き出す…"),
    Quit => ("Quit", "終了"),
    MenuEdit => ("Edit", "編集"),
    Undo => ("Undo", "元に戻す"),
    Redo => ("Redo", "やり直す"),
    Find => ("Find…", "検索…"),
    ToggleComment => ("Toggle comment", "コメントの切り替え"),
    Indent => ("Indent", "字下げ"),
    Outdent => ("Outdent", "字下げを戻す"),
    MenuView => ("View", "表示"),
    Theme => ("Theme", "テーマ"),
    Light => ("Light", "ライト"),
    Dark => ("Dark", "ダーク"),
    Language => ("Language", "言語"),
    EditorLabel => ("Rule editor", "ルールエディタ"),
    FindLabel => ("Find", "検索"),
    FindNext => ("Next", "次へ"),
    FindPrev => ("Previous", "前へ"),
    FindClose => ("Close", "閉じる"),
    MatchCase => ("Match case", "大文字と小文字を区別"),
    NoMatches => ("no matches", "見つかりません"),
    MatchCount => ("{} matches", "{} 件"),
    LineCol => ("Ln {}", "{} 行"),
    DiagnosticsTitle => ("Problems", "問題"),
    NoProblems => ("No problems.", "問題はありません。"),
    Checking => ("checking…", "検査中…"),
    CheckedIn => ("checked in {} ms", "検査 {} ms"),
    ErrorsWarnings => ("{} errors, ", "エラー {} 件、"),
    ColCode => ("Code", "コード"),
    ColMessage => ("Message", "内容"),
    ColPosition => ("Line:Col", "行:桁"),
    ColHelp => ("Help", "ヒント"),
    ReportTitle => ("Report", "詳細"),
    ReportHint => (
        "Select a problem to see its full report.",
        "問題を選ぶと詳しい報告が表示されます。",
    ),
    ExpandedTitle => ("Expanded rules", "展開されたルール"),
    TabRules => ("Rules", "ルール"),
    TabInitial => ("Initial state", "初期状態"),
    TabKeys => ("Keys & CPU", "キーとCPU"),
    TabAdvantage => ("Advantage", "有利条件"),
    ColOrigin => ("Origin", "由来"),
    ColConditions => ("Conditions", "条件"),
    ColEffects => ("Effects", "効果"),
    Stale => (
        "⚠ The text has errors: showing the last program that compiled.",
        "⚠ テキストにエラーがあります。最後にコンパイルできたプログラムを表示しています。",
    ),
    NoProgram => (
        "No program yet: fix the errors to see the expanded rules.",
        "まだプログラムがありません。エラーを直すと展開されたルールが表示されます。",
    ),
    StateCol => ("State", "状態"),
    SideH => ("h", "h"),
    SideC => ("c", "c"),
    CommandsEnabled => (
        "Commands enabled at each side's first turn (after the availability rules)",
        "各側の最初の手番で使えるコマンド(使用可否のルール適用後)",
    ),
    NoKeys => ("No key bindings.", "キー割り当てはありません。"),
    KeyCol => ("Key", "キー"),
    CommandCol => ("Command", "コマンド"),
    SettingsTitle => ("CPU and match settings", "CPU と対戦の設定"),
    SetPeriod => (
        "P: turn length / thinking time",
        "P: ターンの長さ・思考時間",
    ),
    SetDepth => ("S: look-ahead (plies)", "S: 先読み(手)"),
    SetThin => ("D: pruning by chance (1/x)", "D: 確率による枝刈り (1/x)"),
    SetMistakes => ("E: slips per 10 moves", "E: 10 手あたりのミス"),
    SetMode => ("Mode", "手番"),
    ModeAlternate => ("sides take turns", "交互"),
    ModeSimultaneous => ("simultaneous", "同時"),
    SetFirst => ("First to move", "先手"),
    SetTurnLimit => ("T: turn limit", "T: ターン上限"),
    WeightCol => ("Weight", "重み"),
    AdvLineCol => ("Conditions : value", "条件 : 値"),
    NoAdvantage => ("No advantage lines.", "有利条件はありません。"),
    ConstantsTitle => ("Constants", "定数"),
    MacrosTitle => ("Macros", "マクロ"),
    RulesCount => ("{} rules", "ルール {} 件"),
    OriginHelp => (
        "source line; & = symmetric copy; $ = macro instance",
        "元の行。& = 左右対称のコピー、$ = マクロの展開",
    ),
    Untitled => ("untitled.kmt", "無題.kmt"),
    ExampleSuffix => ("(example)", "(サンプル)"),
    UnsavedTitle => ("Unsaved changes", "未保存の変更"),
    UnsavedBody => (
        "Save the changes to {} first?",
        "{} への変更を先に保存しますか?",
    ),
    SaveBtn => ("Save", "保存"),
    DiscardBtn => ("Don't save", "保存しない"),
    CancelBtn => ("Cancel", "キャンセル"),
    OkBtn => ("OK", "OK"),
    PathDialogOpen => ("Open a rule file", "ルールファイルを開く"),
    PathDialogSave => ("Save the rule file as", "ルールファイルの保存先"),
    PathDialogExport => ("Export the expanded rules to", "展開結果の書き出し先"),
    PathLabel => ("Path", "パス"),
    PathHint => ("/path/to/rules.kmt", "/path/to/rules.kmt"),
    NoPortal => (
        "No system file dialog is available; type a path.",
        "システムのファイルダイアログが使えないため、パスを入力してください。",
    ),
    RecoveryTitle => (
        "Recover unsaved work?",
        "保存されていない作業を復元しますか?",
    ),
    RecoveryBody => (
        "Kumite did not close normally. Unsaved text of {} was kept.",
        "Kumite は正常に終了しませんでした。{} の未保存のテキストが残っています。",
    ),
    RecoverBtn => ("Recover", "復元する"),
    DiscardRecoveryBtn => ("Discard it", "破棄する"),
    ChangedOnDisk => (
        "{} was changed on disk.",
        "{} がディスク上で変更されました。",
    ),
    ChangedOnDiskDirty => (
        "{} was changed on disk; reloading drops your unsaved changes.",
        "{} がディスク上で変更されました。再読み込みすると未保存の変更は失われます。",
    ),
    ReloadBtn => ("Reload", "再読み込み"),
    IgnoreBtn => ("Ignore", "無視"),
    ErrorTitle => ("Error", "エラー"),
    PathDialogSaveMatch => ("Save the match (JSON lines, as kumite match --log)", "対戦を保存(JSON lines、kumite match --log と同じ形式)"),
    SaveMatchFailed => ("Could not save the match", "対戦を保存できませんでした"),
    SaveMatch => ("Save match…", "対戦を保存…"),
    MatchOpened => ("Match {} loaded: drag the turn slider or play it", "対戦 {} を読み込みました: ターンのスライダーを動かすか再生してください"),
    ReplayTurn => ("turn", "ターン"),
    OpenMatch => ("Open match…", "対戦を開く…"),
    PathDialogOpenMatch => ("Open a match (a log of kumite match --log or Save match)", "対戦を開く(kumite match --log または対戦を保存のログ)"),
    OpenMatchFailed => ("Could not open the match", "対戦を開けませんでした"),
    WatchPace => ("pace", "間隔"),
    WatchPaceHover => ("CPU against CPU: seconds between turns, to watch the match (0: as fast as they think)", "CPU 同士: 観戦のためのターン間の秒数(0: 考えたらすぐ)"),
    BalanceMeter => ("balance", "バランス"),
    BalanceMeterHover => (
        "After each edit that compiles: the report's outcome (30 CPU games a seating, one worker thread) and exact sections in the background; the next edit cancels a run still going. The line shows h's score and the first mover's advantage (sampled, with 95% intervals and distinct games) or the exact value; the sparkline, h's score over your edits.",
        "コンパイルできた編集のたびに、レポートの結果(1 配置 30 局の CPU 対局、1 スレッド)と厳密解をバックグラウンドで計算します。次の編集で実行中のものは取り消されます。h の勝率と先手有利(抽出: 95% 区間と異なる対局数)または厳密値を表示し、スパークラインは編集ごとの h の勝率です。",
    ),
    BalanceMeasuring => ("measuring…", "計測中…"),
    BalanceExact => ("exact: game value for h {}", "厳密: h のゲーム値 {}"),
    BalanceForced => ("exact: {} has a forced win", "厳密: {} の必勝"),
    BalanceSampled => ("h {} · first mover {} pts · sampled: {} games, {} different", "h {} · 先手 {} pt · 抽出: {} 局、うち異なる {} 局"),
    NewFileNotice => ("New file {}: not on disk yet — Ctrl+S writes it.", "新しいファイル {}: まだ保存されていません — Ctrl+S で書き込みます。"),
    OpenFailed => ("Could not open {}", "{} を開けませんでした"),
    SaveFailed => ("Could not save {}", "{} を保存できませんでした"),
    Saved => ("Saved {}", "{} を保存しました"),
    Exported => ("Exported {}", "{} に書き出しました"),
    FileFilter => ("Kumite rules", "Kumite ルール"),
    Fix => ("Fix…", "修正…"),
    FixHint => (
        "Offer this problem's quick fixes in the editor (Ctrl+.)",
        "この問題のクイックフィックスをエディタに出す(Ctrl+.)",
    ),
    Match => ("Match", "対戦"),
    KeysActive => ("● keys active", "● キー操作中"),
    ClickHereF6To => (
        "click here (F6) to use the keys",
        "ここをクリック(F6)でキー操作",
    ),
    TheRulesChangedThis => (
        "The rules changed. This match still runs the rules it started with.",
        "ルールが変わりました。この対戦は開始時のルールのままです。",
    ),
    RestartWithTheNew => ("Restart with the new rules", "新しいルールで再開"),
    KeepPlaying => ("Keep playing", "このまま続ける"),
    PressNewMatchF5 => (
        "Press \"New match\" (F5) to play the CPU with the keys of the ': line.",
        "「新しい対戦」(F5) で ': 行のキーを使って CPU と対戦します。",
    ),
    FixTheErrorsIn => (
        "Fix the errors in the rules to play a match.",
        "対戦するにはルールのエラーを直してください。",
    ),
    Replay => ("Replay:", "再生:"),
    NextStep => ("Next step", "次の手"),
    Pause => ("Pause", "一時停止"),
    PlayAll => ("Play all", "すべて再生"),
    StopReplay => ("Stop replay", "再生をやめる"),
    NewMatch => ("New match", "新しい対戦"),
    UndoTurn => ("Undo turn", "1手戻す"),
    FromAPosition => ("From a position…", "局面を編集して開始…"),
    EditBothSidesStates => (
        "Edit both sides' states, then start from there",
        "両者の状態を編集してからその局面で開始",
    ),
    Human => ("human", "人"),
    Seed => ("seed", "シード"),
    NewSeed => ("new", "変更"),
    NewRandomSeed => ("new random seed", "新しいシード"),
    RealTime => ("real time", "リアルタイム"),
    OneTurnEveryP => (
        "One turn every P ms; a side that has not chosen acts with no command",
        "P ミリ秒ごとに1ターン。選ばなかった側はコマンドなしで行動",
    ),
    CPULevelOfThe => ("CPU level of the file (~)", "ファイルの CPU 設定 (~)"),
    ExactUnbeatableNotHere => ("exact — not for this game (playing by search)", "完全読み — このゲームでは不可(探索で指します)"),
    ExactUnbeatable => ("exact — unbeatable", "完全読み — 負けない"),
    PlaysFromAnExact => (
        "Plays from an exact table of every position when the game is small enough (built at its first move, up to 5 s); otherwise by search at the level shown",
        "ゲームが小さければ全局面の完全な表から指す(最初の手で最大5秒かけて作る)。大きすぎるときは表示の設定で探索する",
    ),
    RuntimeError => ("Runtime error:", "実行時エラー:"),
    HWins => ("h wins!", "h の勝ち!"),
    CWins => ("c wins!", "c の勝ち!"),
    Draw => ("Draw.", "引き分け。"),
    Turns => ("turns", "ターン"),
    CPUIsThinking => ("(CPU) is thinking…", "(CPU) 思考中…"),
    ReplayingTheWinPath => ("Replaying the win path:", "勝ち筋を再生中:"),
    Turn => ("Turn", "ターン"),
    BothChoose => ("both choose", "両者が同時に選択"),
    WaitingFor => ("waiting for", "待ち:"),
    ToMove => ("to move", "の番"),
    YourMovePressA => (" — your move: press a key", " — キーを押してください"),
    CPUIsChoosing => ("CPU is choosing…", "CPU が選択中…"),
    ChanceWentOtherwiseThan => (
        "Chance went otherwise than the path assumed at step",
        "乱数の結果が勝ち筋の前提と異なりました。ステップ",
    ),
    Chosen => ("chosen", "選択済み"),
    ToMoveMarker => ("▶ to move", "▶ 手番"),
    NotEnabledNow => ("not enabled now", "今は使えません"),
    Pass => ("pass", "パス"),
    EvaluationH => ("Evaluation (h)", "評価値 (h)"),
    DistanceToWin => ("distance to win", "勝利まで"),
    EvaluationForH => ("evaluation for h", "h の評価値"),
    TurnLog => ("Turn log", "ターンの記録"),
    ShowTheLine => ("show the line", "その行を表示"),
    EditThePositionThen => (
        "Edit the position, then start the match from it.",
        "局面を編集してから、その局面で対戦を始めます。",
    ),
    ToMoveColon => ("to move:", "手番:"),
    State => ("state", "状態"),
    AvailabilityRulesRunAgain => (
        "Availability rules run again for the side to move when the match starts.",
        "開始時に手番側の使用可否ルールがもう一度評価されます。",
    ),
    StartFromThisPosition => ("Start from this position", "この局面から開始"),
    RuntimeErrorLower => ("runtime error:", "実行時エラー:"),
    HWinsLower => ("h wins", "h の勝ち"),
    CWinsLower => ("c wins", "c の勝ち"),
    DrawLower => ("draw", "引き分け"),
    ExpandedRules => ("Expanded rules", "展開ルール"),
    VictoryConditions => ("Victory conditions", "勝利評価条件"),
    WinPath => ("Win path", "勝ち筋"),
    Report => ("Report", "レポート"),
    RuleBuilder => ("Rule builder…", "ルールビルダー…"),
    FormatFile => ("Format file", "ファイルを整形"),
    Games => ("Games", "対局数"),
    CPUGamesPerSeating => (
        "CPU games per seating; random games ×10, restricted play ×¼ (10–50), skill ×¼",
        "先手・後手それぞれの CPU 対局数。ランダム対局は ×10、制限対局は ×¼(10〜50)、実力差は ×¼",
    ),
    SeedLabel => ("Seed", "シード"),
    Sweep => ("Sweep", "スイープ"),
    Cancel => ("Cancel", "中止"),
    RunReport => ("Run report", "レポートを作成"),
    SuggestFixes => ("Suggest fixes", "修正を提案"),
    SuggestFixesHover => (
        "Search for the smallest edits of the file's numbers that make the game fair (value within ±0.05, or both scores within 50% ± 5 points; at most 10% of games without a winner), each with its evidence",
        "ゲームを公平にする(値が ±0.05 以内、または両方の勝率が 50% ± 5 ポイント以内、勝者のない対局 10% 以下)最小の数値の変更を探し、それぞれの根拠を示します",
    ),
    SuggestGoals => ("Goals", "目標"),
    SuggestGoalsHover => ("What the suggested edits must reach", "提案する変更が満たすべき条件"),
    GoalEven => ("Even within ±", "互角の幅 ±"),
    GoalEvenHover => (
        "h's score and the first mover's within 50% ± these points (CPU games), or the game value for h within ± points / 100 (exact: ± 5 points is a value within ± 0.05) — the report's units",
        "h と先手の勝率が 50% ± このポイント以内(CPU 対局)、または h のゲーム値が ± ポイント/100 以内(厳密解: ±5 ポイントは値 ±0.05)— レポートと同じ単位",
    ),
    PointsSuffix => (" points", " ポイント"),
    GoalDraws => ("Without a winner at most (%)", "勝者のない対局の上限(%)"),
    GoalTurns => ("Games last at most (turns on average)", "対局の平均の長さの上限(ターン)"),
    GoalEveryCommand => ("Every command worth playing somewhere", "どのコマンドもどこかで打つ価値がある"),
    GoalSkill => ("Skill matters (random loses to the deepest CPU)", "実力が効く(ランダムが最強の CPU に負ける)"),
    SuggestProgress => ("Suggesting: {} games played · {} s", "提案を探索中: {} 局 · {} 秒"),
    Suggestions => ("Suggestions", "修正の提案"),
    SuggestNow => ("Now: {}", "現在: {}"),
    SuggestAlreadyFair => ("The file meets the goals already: no edit suggested.", "すでに目標を満たしています。変更の提案はありません。"),
    SuggestNoneFound => ("No edit tried meets the goals.", "試した変更はどれも目標を満たしません。"),
    SuggestNearest => ("Nearest:", "最も近いもの:"),
    SuggestTried => ("{} numbers editable, {} edited files solved in {} s", "変更できる数値 {} 個、変更したファイル {} 個を {} 秒で評価"),
    SuggestGaveUp => ("Gave up: {}", "打ち切り: {}"),
    ApplyEdit => ("Apply", "適用"),
    SuggestMixChanges => ("optimal play at the start: {}", "開始時の最適戦略の変化: {}"),
    ApplyEditHover => ("Apply these edits to the editor (one undo step)", "この変更をエディタに適用します(元に戻す 1 回で戻せます)"),
    SuggestApplied => ("Applied.", "適用しました。"),
    SkillStoppedEarly => (
        "Stopped after {} of {} games: its 99.9% interval was already clear of an even score.",
        "{} / {} 局で打ち切り: 99.9% 区間がすでに五分から離れていました。",
    ),
    SuggestRemeasuring => ("Measuring the edited text again…", "変更後のテキストを測り直しています…"),
    SuggestBefore => ("Before (the file)", "変更前(ファイル)"),
    SuggestAfterNow => ("After (measured again on the editor's text)", "変更後(エディタのテキストで測り直し)"),
    SuggestSameAsShown => ("The same as the suggestion's evidence.", "提案の根拠と同じ結果です。"),
    SuggestDiffersFromShown => (
        "Not the suggestion's evidence: the text has other changes too.",
        "提案の根拠と異なります: テキストに他の変更もあります。",
    ),
    ReportOutdated => ("The file has changed since this report: its figures are for the earlier text. Run it again for the text as it is.", "このレポートの後にファイルが変わりました。数値は変更前のテキストのものです。今のテキストで再実行してください。"),
    SuggestionsOutdated => ("The file has changed since these suggestions were found: they were measured on the earlier text.", "提案を求めた後にファイルが変わりました。提案は変更前のテキストで測ったものです。"),
    SuggestStale => ("The text changed: this edit no longer fits it.", "テキストが変わったため、この変更は適用できません。"),
    CancelledTheSectionsComputed => (
        "Cancelled — the sections computed so far are shown.",
        "中止しました — 計算済みの項目だけを表示しています。",
    ),
    RunAReportTo => (
        "Run a report to see what the rules do over many games: who wins, how long games last, which rules fire, which commands matter, whether skill matters, and which starting value is fair.",
        "多数の対局でルールが実際にどう働くかを調べます: 勝率、対局の長さ、発動するルール、重要なコマンド、実力差の影響、公平な初期値。",
    ),
    NotComputedYet => ("— not computed yet", "— 未計算"),
    Outcome => ("Outcome", "勝敗"),
    ColHWins => ("h wins", "h 勝ち"),
    ColCWins => ("c wins", "c 勝ち"),
    Draws => ("draws", "引き分け"),
    TurnLimit => ("turn limit", "ターン上限"),
    Errors => ("errors", "エラー"),
    AllGames => ("all games", "全局"),
    HFirst => ("h first", "h 先手"),
    CFirst => ("c first", "c 先手"),
    HSScoreA => ("h's score (a draw counts ½):", "h の得点率(引き分けは ½):"),
    FirstMoverAdvantage => ("First-mover advantage:", "先手の有利:"),
    Points => ("points", "ポイント"),
    Exact => ("exact:", "厳密:"),
    NotDecided => ("not decided", "未決定"),
    NoForcedWinProved => ("no forced win for h (proved within the plies below)", "h の必勝なし(下の手数内で証明)"),
    Length => ("Length", "対局の長さ"),
    ColGames => ("games", "局"),
    Decisions => ("Decisions", "選択"),
    CommandUseShareOf => (
        "Command use (share of each side's choices)",
        "コマンドの使用率(各側の選択に占める割合)",
    ),
    HRandom => ("h random", "h ランダム"),
    CRandom => ("c random", "c ランダム"),
    HCPU => ("h CPU", "h CPU"),
    CCPU => ("c CPU", "c CPU"),
    Line => ("line", "行"),
    Times => ("times", "回"),
    Rule => ("rule", "ルール"),
    CannotFire => ("cannot fire", "発動不能"),
    ProvedItFiresIn => (
        "Proved: it fires in no turn from any reachable position (the game is small enough to enumerate).",
        "証明済み: 到達可能なすべての局面のどの手番でも発動しません(全局面を列挙)。",
    ),
    ProvedNoValueThe => (
        "Proved: no value the states can ever take satisfies its conditions.",
        "証明済み: 状態が取りうるどの値でも条件が成り立ちません。",
    ),
    NeverFired => ("never fired", "未発動"),
    RestrictedPlay => ("Restricted play", "コマンド禁止"),
    TheSideSScore => (
        "The side's score when it may never use the command, and the change from the same games without the restriction.",
        "その側がコマンドを一切使えないときの得点率と、同じ対局を制限なしで行ったときからの変化。",
    ),
    Side => ("side", "側"),
    Without => ("without", "禁止"),
    Score => ("score", "得点率"),
    Change => ("change", "変化"),
    NoEffect => ("no effect", "影響なし"),
    Decisive => ("decisive", "決定的"),
    TrapCommand => ("a trap: banning {} raises {}'s score by {} points", "罠: {} を禁じると {} の勝率が {} ポイント上がる"),
    Skill => ("Skill", "実力差"),
    SkillMattersRandomLoses => (
        "Skill matters: random loses to the deepest search.",
        "実力が結果を左右します: ランダムは最も深い探索に負けます。",
    ),
    NoEvidenceThatSkill => (
        "Skill makes no difference of 10 points or more: random does as well as the deepest search.",
        "実力差は 10 ポイント未満です: ランダムでも最も深い探索と同等です。",
    ),
    RandomBeatsDeepest => (
        "Random play beats the deepest search: the CPU misjudges this game.",
        "ランダムが最も深い探索に勝っています: CPU がこのゲームを読み違えています。",
    ),
    SkillTooFewGames => (
        "Too few games to tell whether skill matters.",
        "実力が効くかどうかを判断するには対局数が足りません。",
    ),
    SkillAtMost => ("(at most: a pairing stops once its result is clear)", "(上限: 結果がはっきりした組み合わせはそこで打ち切り)"),
    SkillGamesHeader => (
        "sampled · {} games per pairing, {} for random vs the deepest",
        "抽出 · 組み合わせごとに {} 局、ランダム対最深は {} 局",
    ),
    OneGameRepeated => (
        "every game the same: no interval",
        "全局が同じ対局: 区間なし",
    ),
    SampledAllTheSame => (
        "{} games: each seating played one game over and over (deterministic players and rules)",
        "{} 局: 先手ごとに同じ対局の繰り返し(決定的なプレイヤーとルール)",
    ),
    SampledGamesDistinct => (
        "sampled · {} games, {} different",
        "抽出 · {} 局、うち異なる対局 {}",
    ),
    NoNetEffect => (
        "{} games ended differently, the score did not move: changes how games go, not who wins",
        "{} 局の結果が変わったが得点は動かず: 勝ち方は変わるが勝率は変わらない",
    ),
    DeeperCpusFirstMover => (
        "Deeper CPUs (+{} ply): first-mover advantage {} points over {} games per seating",
        "より深い CPU(+{} 手): 先手の有利 {} ポイント(各先手 {} 局)",
    ),
    DeeperCpusHScore => (
        "Deeper CPUs (+{} ply): h's score {} points from even over {} games",
        "より深い CPU(+{} 手): h の得点 五分から {} ポイント({} 局)",
    ),
    DepthAgrees => ("agrees (within 10 points)", "一致(10 ポイント以内)"),
    DepthUnclear => (
        "differs by more than 10 points, but too few games to tell",
        "10 ポイント以上の差があるが、対局数が少なく判断できません",
    ),
    DepthDisagrees => (
        "DISAGREES: the verdict depends on how deep the CPU looks",
        "不一致: 判定は CPU の読みの深さで変わります",
    ),
    Tension => ("Tension", "緊張感"),
    FairIntervalContains50 => ("Fair (interval contains 50%):", "公平(区間が 50% を含む):"),
    None => ("none", "なし"),
    HSScore => ("h's score", "h の得点率"),
    N95Interval => ("95% interval", "95% 区間"),
    TheMatchIsOver => ("The match is over.", "対戦は終わりました。"),
    WaitItIsNot => (
        "Wait: it is not your turn.",
        "お待ちください: まだあなたの番ではありません。",
    ),
    CIsNotEnabled => (
        "[{0}] is not enabled for {1} now.",
        "[{0}] は今 {1} には使えません。",
    ),
    Enables => ("enables", "使用可能にする"),
    TheOpponentSOwn => (
        " (the opponent's own rule, by itself)",
        "(相手側のルール・自動)",
    ),
    ByItself => (" (by itself)", "(自動)"),
    DistanceToWinTitle => ("Distance to win", "勝利までの距離"),
    Graph => ("Graph", "グラフ"),
    Tree => ("Tree", "ツリー"),
    CannotReachAWin => ("cannot reach a win", "は勝利に届かない"),
    TheTextHasErrors => (
        "The text has errors: showing the last version that compiled.",
        "テキストにエラーがあります。最後に通った版を表示しています。",
    ),
    NoRuleMakesA => (
        "No rule makes a side win (S.勝利 or O.敗北), so there is nothing to derive.",
        "勝利させるルール(S.勝利 / O.敗北)がないため、勝利評価条件はありません。",
    ),
    HoldsNowNotYet => (
        "○ holds now, × not yet; the number is the estimated own turns to make it hold \
         (h pursuing / c pursuing).",
        "○ 成立、× 未成立。数字は成立までの推定手数(h が目指す場合 / c が目指す場合)。",
    ),
    OutOfReachLegend => (
        "∞: the side cannot bring this about by its own moves (the opponent's moves may); \
         it matters only where it blocks a win.",
        "∞: その側の手では成立させられない条件(相手の手で成立することはある)。\
         勝利を阻むときだけ問題になります。",
    ),
    OutOfReachNotNeeded => ("∞ reached another way", "∞ 別の規則で達成"),
    OutOfReachOtherWay => ("∞ the win goes another way", "∞ 勝利は別の道で"),
    OutOfReachBlocks => ("∞ blocks {}'s win", "∞ {} の勝利を阻む"),
    CountsOnOpponent => (" · counts on the opponent: {}", " · 相手の手が前提: {}"),
    AssumesLegend => (
        "* the distance counts on a move of the opponent (a condition on its command, which \
         the search decides, not the distance); ○/× as each side meets its commands at its \
         next turn.",
        "* 相手の手を前提とした距離(相手のコマンドの条件は距離ではなく探索が決める)。\
         ○/× は各側が次の手番で迎えるコマンドの状態。",
    ),
    Excluded => ("excluded", "除外"),
    ExcludedTitle => ("Excluded", "除外したもの"),
    NoRuleMakesThis => (
        "no rule makes this hold (it holds or not from the start)",
        "これを成立させるルールはありません",
    ),
    MoreRulesShowAll => ("… {} more rules: show all", "… ほか {} 件のルール: すべて表示"),
    MoreVictoryRulesShowAll => (
        "… {} more victory rules: show all",
        "… ほか {} 件の勝利ルール: すべて表示",
    ),
    Fit => ("Fit", "全体表示"),
    DragToPanCtrl => (
        "Drag to pan, Ctrl+wheel to zoom; click a box to see its line.",
        "ドラッグで移動、Ctrl+ホイールで拡大縮小。箱をクリックでその行へ。",
    ),
    OpponentSOwnRule => ("  (opponent's own rule)", "(相手側のルール)"),
    ForOneSideOnly => (" ({} only)", "({}のみ)"),
    SpendsACondition => (
        " · each firing uses {1} of {0}",
        " · 1回ごとに {0} を {1} 消費",
    ),
    TheRulesHaveNot => (
        "The rules have not compiled yet.",
        "ルールはまだコンパイルされていません。",
    ),
    MatchOverAfterTurn => ("match over, after turn", "対戦終了、ターン"),
    MatchAfterTurn => ("match, after turn", "対戦中、ターン"),
    InitialPosition => ("initial position", "初期局面"),
    PlayWithTheKeys => ("Play with the keys", "キーで操作"),
    FindWinPath => ("Find win path", "勝ち筋を探す"),
    ReplayTheWinPath => ("Replay the win path", "勝ち筋を対戦で再生"),
    ReplayNextStep => ("Replay: next step", "再生: 次の手"),
    RunTheBalanceReport => ("Run the balance report", "バランスレポートを作成"),
    ShowTheMatchPanel => ("Show the match panel", "対戦パネルを表示"),
    Layout => ("Layout", "レイアウト"),
    Depth => ("Depth", "深さ"),
    Plies => (" plies", " 手"),
    FromTheMatchPosition => ("from the match position", "対戦中の局面から"),
    TheShortestWin => ("the shortest win", "最短の勝ち筋"),
    AForcedWin => ("a forced win", "必勝手順"),
    TheGameValue => ("the game value", "ゲームの値"),
    Searching => ("Searching…", "探索中…"),
    SearchCancelled => ("Search cancelled.", "探索を中止しました。"),
    PressFindWinPath => (
        "Press \"Find win path\" (F7) to search for the commands by which h wins.",
        "「勝ち筋を探す」(F7) で h が勝つコマンド列を探します。",
    ),
    TheRulesChangedSince => (
        "The rules changed since this search; search again.",
        "この探索の後にルールが変わりました。もう一度探してください。",
    ),
    FromTheStart => ("from the start", "初期局面から"),
    PliesUpTo => ("plies", "手まで"),
    SuggestDeeper => (
        "deeper CPUs ({}): {}",
        "一手深い CPU({}): {}",
    ),
    ShortestWinForH => ("Shortest win for h:", "h の最短の勝ち筋:"),
    WinForHNotProvedShortest => (
        "A win for h in {} plies (found by a search guided by the derived distance; not proved shortest: none within {} plies, the search for shorter ones gave up — {})",
        "h の勝ち筋 {} 手(導出した距離で導く探索で発見。最短とは未証明: {} 手以内にはなし、より短い勝ち筋の探索は打ち切り — {})",
    ),
    PliesUnit => ("plies", "手"),
    ReplayInMatch => ("Replay in match", "対戦で再生"),
    Command => ("command", "コマンド"),
    StatesAfterTheStep => ("states after the step", "その後の状態"),
    NoWinForH => (
        "No win for h within this depth, even with c cooperating (proved: every position within it was searched).",
        "この深さでは h の勝ち筋はありません(c が協力しても。深さ内の全局面を探索して証明)。",
    ),
    NoWinForHAtAll => (
        "No win for h at all (proved: all {} reachable positions searched).",
        "h の勝ち筋はまったくありません(到達可能な全 {} 局面を探索して証明)。",
    ),
    ShortestWinGaveUp => (
        "Shortest win: gave up at ply {} ({}); no win exists within {} plies.",
        "最短の勝ち筋: {} 手目で打ち切り({})。{} 手以内の勝ち筋はありません。",
    ),
    BudgetPositions => (
        "memory budget: {} positions held",
        "メモリ上限: {} 局面を保持",
    ),
    BudgetSystemMemory => (
        "the system's memory: more was refused after {} positions",
        "システムのメモリ: {} 局面の後、確保できませんでした",
    ),
    BudgetChance => (
        "chance budget: {} outcomes resolved",
        "乱数上限: {} 通りの結果を展開",
    ),
    BudgetNodes => ("node budget: {} positions searched", "ノード上限: {} 局面を探索"),
    BudgetCancelled => ("cancelled", "中止"),
    GameValueForH => ("Game value for h:", "h から見たゲームの値:"),
    Win1Loss1 => (
        "win +1, loss −1, draw or endless 0; both sides play the mixed strategies below.",
        "勝ち +1、負け −1、引き分け・終わらない 0。両者が下の混合戦略を使う場合。",
    ),
    Exploitability => ("exploitability", "搾取可能性"),
    ValueAllPositions => (
        "all {} reachable positions solved",
        "到達可能な全 {} 局面を解いた",
    ),
    ValuePositionLimit => (
        "{0} positions solved: the game has more than the limit of {1}, so {2} positions past it are estimated by the derived evaluation",
        "{0} 局面を解いた。上限 {1} 局面を超えるため、その先の {2} 局面は導出評価による推定",
    ),
    ValueBoundLimit => (
        "{0} positions solved (every state within ±{1} of its start); {2} positions past that bound are estimated by the derived evaluation",
        "{0} 局面を解いた(各状態が初期値 ±{1} の範囲)。範囲外の {2} 局面は導出評価による推定",
    ),
    Positions => ("positions", "局面"),
    Frontier => ("frontier", "境界局面"),
    ForcedWinYesH => (
        "Forced win: yes — h wins against every reply within {} plies",
        "必勝: あり — h はどんな応手にも {} 手以内に勝てる",
    ),
    FirstMove => ("First move:", "初手:"),
    SomeMovesHadToo => (
        "Some moves had too many chance outcomes: the proof covers sampled outcomes.",
        "乱数の結果が多すぎる手があり、証明は抽出した結果についてのものです。",
    ),
    WinningStrategyHS => (
        "Winning strategy (h's move against every reply)",
        "必勝戦略(どの応手にも対する h の手)",
    ),
    ForcedWinNoneWithin => (
        "Forced win: none within {} plies",
        "必勝: {} 手以内にはなし",
    ),
    ForcedWinUndecidedThe => (
        "Forced win: undecided — gave up ({}).",
        "必勝: 未確定 — 打ち切り({})。",
    ),
    ForcedWinNoneWithinGaveUp => (
        "Forced win: none within {} plies (proved); undecided beyond — gave up ({}).",
        "必勝: {} 手以内にはなし(証明済み)。それより先は未確定 — 打ち切り({})。",
    ),
    TheseRulesUseRand => (
        "These rules use rand(a,b): the path may count on favourable outcomes; a replay can \
         go otherwise.",
        "このルールは rand(a,b) を使います。勝ち筋は有利な結果を前提にすることがあり、\
         再生では違う展開になることがあります。",
    ),
    LayoutWrite => ("Write: the editor and one view", "書く: エディタとビュー"),
    LayoutPlay => ("Play: the match panel wide", "遊ぶ: 対戦パネルを広く"),
    LayoutAll => (
        "All: everything at its default size",
        "すべて: 既定の大きさ",
    ),
    SampledGames => ("sampled ({} games, 95% interval)", "標本({} 局、95% 区間)"),
    GamesProgress => ("{} / {} games · {} s", "{} / {} 局 · {} 秒"),
    DoneIn => ("Done in {} s.", "{} 秒で完了。"),
    ForcedWinFor => ("{} has a forced win", "{} の必勝"),
    GameValueOf => ("game value {} for h", "h から見たゲームの値 {}"),
    LengthSummary => (
        "mean {} turns · median {} · p90 {}",
        "平均 {} ターン · 中央値 {} · 90% 点 {}",
    ),
    BranchingSummary => (
        "{} enabled commands per choice · {} of choices have more than one option",
        "選択 1 回あたり有効なコマンド {} 個 · 選択肢が 2 つ以上ある選択 {}",
    ),
    LinesNeverFired => (
        "{} line(s) never fired; \"cannot fire\" is proved, not sampled.",
        "{} 行が一度も発動しませんでした。「発動不能」は証明済み(標本ではありません)。",
    ),
    TensionSummary => (
        "lead changes {} per game · drama {} points · decisiveness {}",
        "リードの交代 1 局あたり {} 回 · 逆転の大きさ {} 点 · 決着の早さ {}",
    ),
    LineColumn => ("Ln {}, Col {}", "{} 行、{} 桁"),
    SweepThisValue => ("Sweep this value ({})", "この値をスイープ({})"),
    SweepHint => (
        "Right-click a number in the initial line (!:) or a constant's definition to sweep it in a balance report.",
        "初期値の行(!:)の数値や定数の定義を右クリックすると、バランスレポートでその値をスイープできます。",
    ),
    ReportRuleErrors => (
        "Rule errors — {} of {} games ended in a rule error; they count in no score, and a figure they decide (more than one game in twenty) is not computed. First: {}",
        "ルールエラー — {} / {} 局がルールエラーで終わりました。得点には数えず、それが 20 局に 1 局を超える数値は計算しません。最初: {}",
    ),
    ReportForfeits => (
        "Forfeits — {} of {} games were lost by a player that failed. First: {}",
        "反則負け — {} / {} 局はプレイヤーの不具合による負けです。最初: {}",
    ),
    ScoreNotComputed => (
        "h's score and the first-mover advantage: not computed — {} of {} games ended in a rule error",
        "h の得点と先手の有利: 計算しません — {} / {} 局がルールエラーで終了",
    ),
    OneError => ("{} error", "エラー {} 件"),
    NErrors => ("{} errors", "エラー {} 件"),
    OneWarning => ("{} warning", "警告 {} 件"),
    NWarnings => ("{} warnings", "警告 {} 件"),
    ProblemCounts => ("{}, {}", "{}、{}"),
    Definition => ("definition", "定義"),
    InitialValue => ("initial value", "初期値"),
    Read => ("read", "読む"),
    Write => ("write", "書く"),
    Condition => ("condition", "条件"),
    Enable => ("enable", "使える"),
    Disable => ("disable", "使えない"),
    Key => ("key", "キー"),
    Macro => ("macro", "マクロ"),
    NoStateCommandMacro => (
        "No state, command, macro, constant or key under the cursor.",
        "カーソルの位置に状態・コマンド・マクロ・定数・キーがありません。",
    ),
    NoQuickFixOn => (
        "No quick fix on this line.",
        "この行にはクイックフィックスがありません。",
    ),
    GoToDefinitionF12 => ("Go to definition (F12)", "定義へ移動(F12)"),
    FindAllUsesShift => ("Find all uses (Shift+F12)", "すべての使用箇所(Shift+F12)"),
    RenameF2 => ("Rename… (F2)", "名前の変更…(F2)"),
    FixColon => ("Fix:", "修正:"),
    ChooseEnterTabAccept => (
        "↑↓ choose · Enter/Tab accept · Esc close",
        "↑↓ 選択 · Enter/Tab 決定 · Esc 閉じる",
    ),
    NewName => ("New name", "新しい名前"),
    Rename => ("Rename", "変更"),
    RuleBuilderTitle => ("Rule builder", "ルールビルダー"),
    WhenAllOfThese => ("When all of these hold", "次の条件がすべて成り立つとき"),
    Comparison => ("comparison", "比較"),
    Value => ("value", "値"),
    Not => ("not", "否定"),
    OpponentS => ("opponent's", "相手の"),
    AsWritten => ("as written", "そのまま"),
    AddCommand => ("+ command", "+ コマンド"),
    AddComparison => ("+ comparison", "+ 比較"),
    Text => ("+ text", "+ 自由入力"),
    Then => ("then", "ならば"),
    Operation => ("operation", "操作"),
    EnableOffDisable => ("enable (off: disable)", "使える(外すと使えない)"),
    ChangeAState => ("+ change a state", "+ 状態を変える"),
    SwitchACommand => ("+ switch a command", "+ コマンドの可否"),
    Win => ("+ win", "+ 勝利"),
    IfAndOnlyIf => (
        "if and only if (::) — the effects are undone when the conditions stop holding",
        "必要十分(::)— 条件が成り立たなくなると効果を戻す",
    ),
    MirrorLeftRight => ("mirror left/right (&{ })", "左右対称(&{ })"),
    ChooseANameFor => (
        "Choose a name for every command and state.",
        "コマンドと状態の名前をすべて選んでください。",
    ),
    ValidLine => ("valid line", "正しい行です"),
    InsertBelowTheCursor => ("Insert below the cursor", "カーソルの下に挿入"),
    ReplaceTheLine => ("Replace the line", "この行を置き換える"),
    ReadTheCursorS => ("Read the cursor's line", "カーソルの行を読み込む"),
    UsesOf => ("Uses of {} ({})", "{} の使用箇所({})"),
    RenameTitle => ("Rename {}", "{} の名前を変更"),
    RenamePlaces => ("{} places on {} lines: {}", "{} 箇所({} 行: {})"),
    MirroredTwin => ("and its mirrored twin {} → {}", "対称の相方も {} → {}"),
    RenameTypeName => ("Type the new name: {0} places on {1} lines will change.", "新しい名前を入力してください({1} 行の {0} 箇所が変わります)。"),
    SearchDied => ("the search stopped unexpectedly", "探索が予期せず止まりました"),
    CpuSearchDied => ("the CPU's search stopped unexpectedly", "CPU の探索が予期せず止まりました"),
    SuggestRejected => ("{} edited file(s) rejected for breaking the design (a victory rule that could no longer decide a game, a new warning, every game without a winner, games less than half or more than twice as long, an effect taken to nothing) — hover for examples", "{} 件の変更はデザインを壊すため除外(勝利ルールが決着をつけられなくなる・新しい警告・全試合が勝者なし・試合の長さが半分未満か2倍超・効果が0になる)— ポイントで例"),
    TreeDecidedH => ("Decided: h won — the rows show the final position", "決着: h の勝ち — 各行は最後の局面です"),
    TreeDecidedC => ("Decided: c won — the rows show the final position", "決着: c の勝ち — 各行は最後の局面です"),
    TreeDecidedDraw => ("Decided: a draw — the rows show the final position", "決着: 引き分け — 各行は最後の局面です"),
    CpuTimedOut => ("It stopped at its time limit, {} ms (P), before depth S{}: on a slower or busier machine it may choose otherwise. A node budget (N) repeats its moves exactly.", "思考時間の上限 {} ms(P)で深さ S{} まで読めずに止まりました。遅い・混んだマシンでは別の手になることがあります。ノード数(N)を決めると毎回同じ手になります。"),
    SamePlayerAs => ("The same players on the command line:", "コマンドラインで同じプレイヤー:"),
    NodeBudgetHover => ("Positions the CPU may search for a move (0: no budget, the time P alone). With a budget its moves are the same on every machine.", "1 手に探索してよい局面数(0 は上限なし、時間 P だけ)。決めると、どのマシンでも同じ手を指します。"),
    CpuLastSearch => ("CPU's last move: {} positions in {} ({} M/s)", "CPU の前の手: {} 局面を {} で探索({} M/s)"),
    ExactBuilding => ("building the exact table… {} s", "完全な表を作成中… {} 秒"),
    ExactUnavailable => ("no exact table ({}); playing by search", "完全な表は作れません({})。探索で指します"),
    LearnedEvaluation => ("learned evaluation (kumite train)", "学習した評価 (kumite train)"),
    LearnedHover => (
        "The same search, valuing the positions at its horizon by the evaluation `kumite train FILE` learned from self-play for this file (FILE.trained.json next to it; the bundled examples come with theirs)",
        "同じ探索で、読みの先の局面を `kumite train FILE` が自己対戦から学習した評価(ファイルと同じ場所の FILE.trained.json。同梱サンプルには付属)で評価する",
    ),
    LearnedFrom => (
        "learned from {} self-play games, {} positions (log loss {} against the derived evaluation's {})",
        "自己対戦 {} 局・{} 局面から学習(対数損失 {}、導出評価のみでは {})",
    ),
    LearnedMissing => ("not available: {}; playing with the derived evaluation", "使えません: {}。導出した評価で指します"),
    LearnedNever => (
        "not learned yet for this file: Learn now below, or `kumite train` on the command line; playing with the derived evaluation",
        "このファイルはまだ学習していません。下の「今すぐ学習」か、コマンドラインの `kumite train` で学習できます。導出した評価で指します",
    ),
    LearnNow => ("Learn now", "今すぐ学習"),
    LearnNowHover => (
        "Plays {} games of the CPU against itself on every core and writes {} next to the rule file (as `kumite train` does); the learned evaluation is then used",
        "CPU 同士の対局を全コアで {} 局行い、ルールファイルの隣に {} を書き出します(`kumite train` と同じ)。学習した評価がそのまま使われます",
    ),
    LearnSaveFirst => (
        "Save the rules first: the learned evaluation is written next to the file",
        "先にルールを保存してください。学習した評価はファイルの隣に書き出します",
    ),
    Learning => (
        "learning {} from self-play… {} of {} games ({} s)",
        "{} を自己対戦で学習中… {} / {} 局({} 秒)",
    ),
    LearnFitting => (
        "learning {}: games played, fitting the evaluation to them… ({} s)",
        "{} を学習中: 対局を終え、評価を当てはめています…({} 秒)",
    ),
    LearnCancel => ("Cancel", "中止"),
    LearnCancelled => ("learning cancelled: nothing written", "学習を中止しました(何も書き出していません)"),
    LearnFailed => ("learning gave nothing: {}", "学習できませんでした: {}"),
    LearnWrote => ("learned in {} s and wrote {}", "{} 秒で学習し {} を書き出しました"),
    ReportCannotStart => ("cannot start the report: {}", "レポートを開始できません: {}"),
    ReportDied => ("the report stopped unexpectedly", "レポートが予期せず止まりました"),
    CompareWith => ("Compare with…", "比較…"),
    CompareHover => (
        "Report the editor's rules (A) and another version (B) with the same players, seed and games, side by side: each difference A − B with its 95% interval (as `kumite report A --against B`)",
        "エディタのルール(A)と別の版(B)を同じプレイヤー・シード・対局数でレポートし、並べて示します。差 A − B と 95% 区間つき(`kumite report A --against B` と同じ)",
    ),
    CompareSaved => ("The saved version", "保存済みの版"),
    CompareFile => ("Another file…", "別のファイル…"),
    CompareNoSaved => ("The rules are not saved yet: there is no saved version to compare with", "ルールはまだ保存されていません。比較する保存済みの版がありません"),
    CompareHasErrors => ("{} does not compile: {}", "{} はコンパイルできません: {}"),
    CompareTitle => ("Comparison — A: {0}  ·  B: {1}", "比較 — A: {0} ・ B: {1}"),
    CompareExplain => (
        "A − B with its 95% interval (the two reports' games are separate samples); DIFFERS: the interval leaves out 0",
        "A − B とその 95% 区間(2 つのレポートの対局は別々の標本)。「差あり」: 区間が 0 を含まない",
    ),
    CompareRunning => ("A: {0} · B: {1}", "A: {0} ・ B: {1}"),
    CompareMeasure => ("Measure", "項目"),
    CompareDiffers => ("DIFFERS", "差あり"),
    CompareMore => (
        "{} more measures: no clear difference",
        "他 {} 項目: はっきりした差なし",
    ),
    ComparePlayersDiffer => (
        "The two files' CPUs differ (each report's default players are its own file's CPU): the differences also measure the CPUs",
        "2 つのファイルの CPU 設定が異なります(既定のプレイヤーは各ファイルの CPU): 差には CPU の違いも含まれます",
    ),
    CompareExact => ("exact", "厳密"),
    CompareNoInterval => ("no interval", "区間なし"),
    CompareOnlyOne => ("only in one", "片方のみ"),
    CompareSame => ("the same", "同じ"),
    CompareChanged => ("changed", "変化"),
    CompareTurns => (" turns", " ターン"),
    PtsSuffix => (" pts", " pt"),
    WForcedWinH => ("forced win for h", "h の必勝"),
    WForcedWinC => ("forced win for c", "c の必勝"),
    WSolved => ("solved", "厳密に解けた"),
    WNoForcedWin => ("no forced win", "必勝なし"),
    WUndecided => ("undecided", "未決着"),
    WSkillMatters => ("skill matters", "実力差あり"),
    WRandomBetter => ("random better", "ランダムが上"),
    WNoDifference => ("no difference", "差なし"),
    WTooFewGames => ("too few games", "対局数不足"),
    WNeverFired => ("never fired", "発動せず"),
    WCannotFire => ("cannot fire", "発動不能"),
    WFires => ("fires", "発動"),
    PathDialogCompare => ("Compare with which rule file?", "どのルールファイルと比較しますか?"),
    MHScore => ("h's score", "h の勝率"),
    MFirstMover => ("first-mover advantage", "先手の有利"),
    MNoWinner => ("games without a winner", "勝者のない対局"),
    MRuleErrorGames => ("games ended by a rule error", "ルールエラーで終わった対局"),
    MForfeitGames => ("games won by a forfeit", "反則負けによる勝ち"),
    MHScoreDeeper => ("h's score, deeper CPUs", "h の勝率(深い CPU)"),
    MFirstMoverDeeper => ("first-mover advantage, deeper CPUs", "先手の有利(深い CPU)"),
    MExactVerdict => ("exact verdict", "厳密な判定"),
    MExactValue => ("exact game value for h", "h の厳密なゲーム値"),
    MMeanTurns => ("mean turns", "平均ターン数"),
    MMedianTurns => ("median turns", "ターン数の中央値"),
    MP90Turns => ("90th percentile of turns", "ターン数の 90 パーセンタイル"),
    MLeadChanges => ("lead changes per game", "1 局あたりのリード交代"),
    MDrama => ("drama (worst deficit of the winner)", "逆転度(勝者の最大劣勢)"),
    MDecisiveness => ("decisiveness", "決着の早さ"),
    MBranching => ("commands enabled per choice", "選択時の有効コマンド数"),
    MChoiceShare => ("choices with more than one command", "2 つ以上から選ぶ手番"),
    MCommandUse => ("{0} plays [{1}]", "{0} が [{1}] を使う"),
    MRuleFires => ("line {0}: games it fires in — {1}", "{0} 行: 発動した対局 — {1}"),
    MRestricted => ("{0} never plays [{1}]: score change", "{0} が [{1}] を使わない: 勝率の変化"),
    MSkill => ("{0} against {1}: {0}'s score", "{0} 対 {1}: {0} の勝率"),
    MSkillVerdict => ("skill verdict", "実力差の判定"),
    MSweepFair => ("fair values of {}", "{} の公平な値"),
    MSweepScore => ("h's score at {0} = {1}", "{0} = {1} での h の勝率"),
}

/// The text of `key` in `lang`.
pub fn tr(lang: Lang, key: T) -> &'static str {
    let (en, ja) = text(key);
    match lang {
        Lang::En => en,
        Lang::Ja => ja,
    }
}

/// Why there is no learned evaluation, in the studio's language.
pub fn no_learned(lang: Lang, why: &crate::program::NoLearned) -> String {
    use crate::program::NoLearned as N;
    if lang == Lang::En {
        return why.to_string();
    }
    match why {
        N::NotRead => "このルールの学習済み評価は読み込まれていません: `kumite train FILE` を実行してください".into(),
        N::Simultaneous => "同時手番のゲームです: CPU は局所ゲームグラフの混合戦略で指し、学習済み評価では変わりません（`kumite train` は交互手番のゲーム用です）".into(),
        N::NotSaved => "ルールが保存されていません: 保存して `kumite train FILE` を実行してください".into(),
        N::NotFound { file, learned } => format!("{file} の学習済み評価がありません（{learned} が見つかりません）: `kumite train {file}` を実行してください"),
        N::Unreadable { learned, why } => format!("{learned} を読めません: {why}"),
        N::OtherRules { learned, file } => format!("{learned} は {file} の今のルールとは別のルールで学習されました（数・ルール・名前のどれかが変わりました）: `kumite train {file}` をもう一度実行してください"),
        N::OtherFeatures { learned, file } => format!("{learned} は別の特徴量で学習されました（別の版の kumite）: `kumite train {file}` をもう一度実行してください"),
    }
}

/// The text of `key` in `lang` with `{}` replaced by `arg`.
pub fn trf(lang: Lang, key: T, arg: impl std::fmt::Display) -> String {
    tr(lang, key).replacen("{}", &arg.to_string(), 1)
}

/// The text of `key` in `lang` with its placeholders filled from `args`: `{}` takes the next
/// argument, `{N}` the N-th (so a translation can put them in another order).
pub fn trn(lang: Lang, key: T, args: &[&dyn std::fmt::Display]) -> String {
    let text = tr(lang, key);
    let mut out = String::with_capacity(text.len() + 16);
    let mut next = 0;
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let close = after
            .find('}')
            .filter(|&c| after[..c].bytes().all(|b| b.is_ascii_digit()));
        match close {
            Some(c) => {
                let index = if c == 0 {
                    next += 1;
                    next - 1
                } else {
                    after[..c].parse().unwrap_or(usize::MAX)
                };
                match args.get(index) {
                    Some(a) => out.push_str(&a.to_string()),
                    None => out.push_str(&rest[open..open + c + 2]),
                }
                rest = &after[c + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn why_there_is_no_learned_evaluation_is_said_in_either_language() {
        use crate::program::NoLearned;
        let why = NoLearned::OtherRules {
            learned: "rules/karate.trained.json".into(),
            file: "rules/karate.kmt".into(),
        };
        // English is the command line's wording, word for word.
        assert_eq!(no_learned(Lang::En, &why), why.to_string());
        let ja = no_learned(Lang::Ja, &why);
        assert!(ja.contains("別のルールで学習されました"), "{ja}");
        assert!(ja.contains("`kumite train rules/karate.kmt`"), "{ja}");
        assert!(ja.starts_with("rules/karate.trained.json は"), "{ja}");
        for why in [
            NoLearned::NotRead,
            NoLearned::Simultaneous,
            NoLearned::NotSaved,
            NoLearned::NotFound {
                file: "a.kmt".into(),
                learned: "a.trained.json".into(),
            },
        ] {
            let ja = no_learned(Lang::Ja, &why);
            assert!(!ja.is_empty() && ja != why.to_string(), "{ja}");
        }
    }

    #[test]
    fn placeholders_in_order_and_by_position() {
        assert_eq!(
            trn(Lang::En, T::RenamePlaces, &[&3, &2, &"4, 5"]),
            "3 places on 2 lines: 4, 5"
        );
        assert_eq!(
            trn(Lang::Ja, T::RenameTypeName, &[&7, &3]),
            "新しい名前を入力してください(3 行の 7 箇所が変わります)。"
        );
        // A missing argument leaves its placeholder visible rather than panicking.
        assert_eq!(
            trn(Lang::En, T::RenameTypeName, &[&7]),
            "Type the new name: 7 places on {1} lines will change."
        );
        assert_eq!(trf(Lang::Ja, T::SampledGames, 40), "標本(40 局、95% 区間)");
    }

    #[test]
    fn every_key_has_both_languages_with_the_same_placeholders() {
        let mut n = 0;
        for key in ALL {
            let (en, ja) = text(*key);
            assert!(!en.is_empty() && !ja.is_empty(), "{key:?}");
            fn holes(s: &str) -> Vec<String> {
                let mut v: Vec<String> = s
                    .split('{')
                    .skip(1)
                    .filter_map(|rest| rest.split_once('}').map(|(inside, _)| inside.to_string()))
                    .collect();
                v.sort();
                v
            }
            assert_eq!(holes(en), holes(ja), "{key:?}: {en} / {ja}");
            n += 1;
        }
        assert!(n > 300, "{n}");
    }
}
