//! `d` and `t`: the selected commit's 3-way diff and its agent run, as documents in the log pane
//! (the board's whole body), with the pane's search and scrolling (Tab and S-Tab go from file
//! to file there). The detail pane's `patches:` line is asked for while the detail shows a commit.

use crate::agents::document::Layout;
use crate::app::{Action, AppState, Document, Effect, Focus, LogId, LogKey, LogView};
use crate::dataset::Variant;

/// From this width the two patches are side by side.
const SIDE_BY_SIDE: u16 = 140;
/// A log line's columns that are not text: the borders, the line-number gutter.
const CHROME: u16 = 2 + 8;

/// Open (or, pressed again, close) the selected commit's document.
pub fn open(state: &mut AppState, action: Action) -> Vec<Effect> {
    let Some(index) = state.board.selected_entry() else { return Vec::new() };
    let short = state.board.entries[index].commit.short.clone();
    let (log, variant) = if action == Action::PatchView {
        (LogId::Patches, Variant::Human)
    } else {
        (LogId::AgentRun, Variant::Agent)
    };
    let document = match log {
        LogId::Patches => Document::Patches(layout(state.session.size.0)),
        _ => Document::AgentRun,
    };
    let key = LogKey { short, variant, log };
    if state.logs.recorded.as_ref().is_some_and(|v| v.key == key) {
        state.logs.close();
        state.focus = Focus::Board;
        return Vec::new();
    }
    show(state, key, document)
}

pub fn show(state: &mut AppState, key: LogKey, document: Document) -> Vec<Effect> {
    let title = match &document {
        Document::Patches(_) => format!("{} — human and agent patches", key.short),
        Document::AgentRun => format!("{} — the agent's run", key.short),
        Document::CampaignCell(name) => {
            format!("{} {} in campaign {name} — runs, fixes, result", key.short, key.variant.name())
        }
    };
    let ring = state.logs.ring;
    let mut view = LogView::new(key.clone(), title, ring);
    view.follow = false;
    state.board.detail_open = false;
    state.logs.show(view);
    state.logs.document = Some(document.clone());
    state.focus = Focus::Log;
    vec![Effect::OpenDocument { key, document, ring }]
}

/// Side by side from 140 columns, each side half of what the pane has for text.
pub fn layout(width: u16) -> Layout {
    if width >= SIDE_BY_SIDE {
        Layout::SideBySide(usize::from((width - CHROME - 3) / 2))
    } else {
        Layout::Stacked
    }
}

/// After a resize: an open diff is laid out again for the new width, at the same line.
pub fn resized(state: &mut AppState) -> Vec<Effect> {
    let Some(view) = state.logs.recorded.as_ref().filter(|v| v.key.log == LogId::Patches) else {
        return Vec::new();
    };
    let document = Document::Patches(layout(state.session.size.0));
    if state.logs.document.as_ref() == Some(&document) {
        return Vec::new();
    }
    let (key, top) = (view.key.clone(), view.top);
    let effects = show(state, key, document);
    if let Some(view) = state.logs.recorded.as_mut() {
        view.top = top;
    }
    effects
}

/// While the detail pane shows a commit whose `patches:` line is not known, ask for it once.
pub fn ask_patch_line(state: &mut AppState) -> Vec<Effect> {
    if !state.board.detail_open {
        return Vec::new();
    }
    let Some(index) = state.board.selected_entry() else { return Vec::new() };
    let short = &state.board.entries[index].commit.short;
    if state.board.patch_lines.contains_key(short) {
        return Vec::new();
    }
    state.board.patch_lines.insert(short.clone(), None);
    vec![Effect::PatchLine(short.clone())]
}
