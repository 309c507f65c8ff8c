//! The bundled Japanese fonts, compiled into the binary so the studio looks the same on every
//! machine (no system-font fallback).

use egui::{FontData, FontDefinitions, FontFamily};
use std::sync::Arc;

/// Noto Sans CJK JP (subset): the proportional UI font.
pub const PROPORTIONAL: &[u8] = include_bytes!("../../assets/fonts/NotoSansJP-Kumite.otf");
/// Noto Sans Mono CJK JP (subset): the editor and table font.
pub const MONOSPACE: &[u8] = include_bytes!("../../assets/fonts/NotoSansMonoJP-Kumite.otf");

/// egui's fonts with the Japanese faces in front: the Noto faces cover ASCII and every JIS X 0208
/// character, so Latin and Japanese text share one face and one baseline; egui's own fonts stay
/// behind them for the icon glyphs egui draws (arrows, check marks).
pub fn definitions() -> FontDefinitions {
    let mut fonts = FontDefinitions::default();
    fonts.font_data.insert(
        "NotoSansJP-Kumite".into(),
        Arc::new(FontData::from_static(PROPORTIONAL)),
    );
    fonts.font_data.insert(
        "NotoSansMonoJP-Kumite".into(),
        Arc::new(FontData::from_static(MONOSPACE)),
    );
    fonts
        .families
        .entry(FontFamily::Proportional)
        .or_default()
        .insert(0, "NotoSansJP-Kumite".into());
    fonts
        .families
        .entry(FontFamily::Monospace)
        .or_default()
        .insert(0, "NotoSansMonoJP-Kumite".into());
    fonts
}

/// Installs [`definitions`] in `ctx`.
pub fn install(ctx: &egui::Context) {
    ctx.set_fonts(definitions());
}
