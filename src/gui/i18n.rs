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

/// A UI string.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum T {
    // Menus
    MenuFile,
    New,
    Open,
    Save,
    SaveAs,
    Recent,
    NoRecent,
    ClearRecent,
    Examples,
    ExportExpanded,
    Quit,
    MenuEdit,
    Undo,
    Redo,
    Find,
    ToggleComment,
    Indent,
    Outdent,
    MenuView,
    Theme,
    Light,
    Dark,
    Language,
    // Editor
    EditorLabel,
    FindLabel,
    FindNext,
    FindPrev,
    FindClose,
    MatchCase,
    NoMatches,
    MatchCount,
    LineCol,
    // Diagnostics
    DiagnosticsTitle,
    NoProblems,
    Checking,
    CheckedIn,
    ErrorsWarnings,
    ColCode,
    ColMessage,
    ColPosition,
    ColHelp,
    ReportTitle,
    ReportHint,
    // Expanded view
    ExpandedTitle,
    TabRules,
    TabInitial,
    TabKeys,
    TabAdvantage,
    ColOrigin,
    ColConditions,
    ColEffects,
    Stale,
    NoProgram,
    StateCol,
    SideH,
    SideC,
    CommandsEnabled,
    NoKeys,
    KeyCol,
    CommandCol,
    SettingsTitle,
    SetPeriod,
    SetDepth,
    SetThin,
    SetMistakes,
    SetMode,
    ModeAlternate,
    ModeSimultaneous,
    SetFirst,
    SetTurnLimit,
    WeightCol,
    AdvLineCol,
    NoAdvantage,
    ConstantsTitle,
    MacrosTitle,
    RulesCount,
    OriginHelp,
    // Files
    Untitled,
    ExampleSuffix,
    UnsavedTitle,
    UnsavedBody,
    SaveBtn,
    DiscardBtn,
    CancelBtn,
    OkBtn,
    PathDialogOpen,
    PathDialogSave,
    PathDialogExport,
    PathLabel,
    PathHint,
    NoPortal,
    RecoveryTitle,
    RecoveryBody,
    RecoverBtn,
    DiscardRecoveryBtn,
    ChangedOnDisk,
    ChangedOnDiskDirty,
    ReloadBtn,
    IgnoreBtn,
    ErrorTitle,
    OpenFailed,
    SaveFailed,
    Saved,
    Exported,
    FileFilter,
}

/// One of two texts written in place (the views of the match, the tree and the win path keep
/// their strings next to where they are shown; both languages are required by the signature).
pub fn pick<'a>(lang: Lang, en: &'a str, ja: &'a str) -> &'a str {
    match lang {
        Lang::En => en,
        Lang::Ja => ja,
    }
}

/// The text of `key` in `lang`.
pub fn tr(lang: Lang, key: T) -> &'static str {
    let (en, ja) = text(key);
    match lang {
        Lang::En => en,
        Lang::Ja => ja,
    }
}

/// The text of `key` in `lang` with `{}` replaced by `arg`.
pub fn trf(lang: Lang, key: T, arg: impl std::fmt::Display) -> String {
    tr(lang, key).replacen("{}", &arg.to_string(), 1)
}

fn text(key: T) -> (&'static str, &'static str) {
    use T::*;
    match key {
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
        CommandsEnabled => ("Commands enabled at the start", "最初に使えるコマンド"),
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
        OpenFailed => ("Could not open {}", "{} を開けませんでした"),
        SaveFailed => ("Could not save {}", "{} を保存できませんでした"),
        Saved => ("Saved {}", "{} を保存しました"),
        Exported => ("Exported {}", "{} に書き出しました"),
        FileFilter => ("Kumite rules", "Kumite ルール"),
    }
}
