//! Top line: the view tabs with their counts, the active filter and sort, runs, workspace state.
//! What does not fit is left out whole, least needed first; nothing is cut mid-word.

use crate::app::{AppState, DockerStatus, View};
use crate::ui::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// A part of the header and how much it is needed: at a narrow width the least needed go first.
struct Piece {
    keep: Keep,
    span: Span<'static>,
}

/// How much a piece is needed, least first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Keep {
    Spare,
    Useful,
    Wanted,
    Needed,
    /// The name and the view tabs: never left out.
    Always,
}

fn piece(keep: Keep, text: String, style: ratatui::style::Style) -> Piece {
    Piece { keep, span: Span::styled(text, style) }
}

pub fn render(frame: &mut Frame, area: Rect, state: &AppState, theme: &Theme) {
    let mut pieces = vec![piece(Keep::Always, "perftriage ".into(), theme.accent)];
    for (i, view) in View::ALL.iter().enumerate() {
        let label = format!(" {} {} ", view.title(), state.board.view_counts[i]);
        let style = if *view == state.board.view { theme.tab_active } else { theme.text };
        pieces.push(piece(Keep::Always, label, style));
    }
    pieces.extend(loading_piece(state, theme));
    pieces.extend(board_pieces(state, theme));
    pieces.extend(runtime_pieces(state, theme));
    let width = usize::from(area.width);
    let mut spans: Vec<Span> = fit(pieces, width).into_iter().map(|p| p.span).collect();
    gpu_reason(state, &mut spans, width, theme);
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn width_of(pieces: &[Piece]) -> usize {
    pieces.iter().map(|p| p.span.width()).sum()
}

/// The pieces that fit in `width`, the least needed (the rightmost of them) left out first.
fn fit(mut pieces: Vec<Piece>, width: usize) -> Vec<Piece> {
    while width_of(&pieces) > width {
        let least = pieces.iter().enumerate().filter(|(_, p)| p.keep != Keep::Always).min_by_key(|(i, p)| {
            // The rightmost among equals goes first.
            (p.keep, std::cmp::Reverse(*i))
        });
        let Some((i, _)) = least else { break };
        pieces.remove(i);
    }
    pieces
}

/// While the result files are read: how many of how many, and how fast.
fn loading_piece(state: &AppState, theme: &Theme) -> Option<Piece> {
    let p = state.board.loading?;
    let text = match p.total {
        0 => "  finding result files…".to_string(),
        total => format!("  reading results {}/{total} ({:.0} files/s)…", p.read, p.files_per_second()),
    };
    Some(piece(Keep::Needed, text, theme.warn))
}

/// Sort, agent and filter (naming a filter field that does not exist).
fn board_pieces(state: &AppState, theme: &Theme) -> Vec<Piece> {
    let board = &state.board;
    let arrow = if board.sort_reverse { "↑" } else { "↓" };
    let mut pieces = vec![piece(Keep::Spare, format!("  sort:{}{arrow}", board.sort.title()), theme.dim)];
    if let Some(agent) = &board.agent {
        pieces.push(piece(Keep::Wanted, format!("  agent:{agent}"), theme.accent));
    }
    if board.query.is_empty() {
        return pieces;
    }
    pieces.push(piece(Keep::Needed, format!("  filter:{}", board.query.text), theme.accent));
    pieces.push(piece(Keep::Wanted, format!(" ({} shown)", board.visible.len()), theme.dim));
    if let Some(warning) = board.query.unknown_field_warning() {
        pieces.push(piece(Keep::Needed, format!("  {warning}"), theme.warn));
    }
    pieces
}

/// Runs, Docker, GPUs and the workspace.
fn runtime_pieces(state: &AppState, theme: &Theme) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let running = state.runs.list.iter().filter(|r| r.is_active()).count();
    let queued = state.runs.queue.len();
    if running + queued > 0 {
        pieces.push(piece(Keep::Needed, format!("  runs: {running} running, {queued} queued"), theme.accent));
    }
    if let Some(campaign) = &state.session.campaign {
        pieces.push(piece(Keep::Needed, format!("  {}", campaign.headline), theme.accent));
    }
    pieces.extend(host_piece(state, theme));
    pieces.push(match &state.runs.docker {
        DockerStatus::Connecting => piece(Keep::Spare, "  Docker: connecting…".into(), theme.dim),
        DockerStatus::Connected(d) => piece(Keep::Spare, format!("  Docker: connected ({d})"), theme.dim),
        DockerStatus::Unreachable(why) => {
            piece(Keep::Needed, format!("  Docker: unreachable: {why}"), theme.warn)
        }
    });
    if state.gpu.unavailable.is_some() {
        pieces.push(piece(Keep::Useful, GPU_UNAVAILABLE.into(), theme.dim));
    }
    for (on, word) in [(state.session.read_only, "  READ-ONLY"), (state.session.unsaved, "  UNSAVED")] {
        if on {
            pieces.push(piece(Keep::Always, word.into(), theme.warn));
        }
    }
    pieces
}

const GPU_UNAVAILABLE: &str = "  GPU: unavailable";

/// The reason the GPUs are unavailable, after their word, in the room the rest left: whole words,
/// `…` where it stops short (the GPU pane, `p`, has all of it).
fn gpu_reason(state: &AppState, spans: &mut Vec<Span<'static>>, width: usize, theme: &Theme) {
    let Some(why) = &state.gpu.unavailable else { return };
    let Some(at) = spans.iter().position(|s| s.content == GPU_UNAVAILABLE) else { return };
    let room = width.saturating_sub(spans.iter().map(Span::width).sum());
    if let Some(words) = whole_words(why, room.saturating_sub(3)) {
        spans.insert(at + 1, Span::styled(format!(" — {words}"), theme.dim));
    }
}

/// As many of `text`'s words as fit in `width` columns, `…` after them where some are left out;
/// `None` where not even the first fits.
pub fn whole_words(text: &str, width: usize) -> Option<String> {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if Span::raw(text.as_str()).width() <= width {
        return Some(text);
    }
    let mut out = String::new();
    for word in text.split(' ') {
        let next = if out.is_empty() { word.to_string() } else { format!("{out} {word}") };
        if Span::raw(next.as_str()).width() + 1 > width {
            break;
        }
        out = next;
    }
    (!out.is_empty()).then(|| format!("{out}…"))
}

/// `hosts: local ●1/2 gpu2 ●0/1 8gpu gone ✗` — each `[[hosts]]` engine: runs of its slots and
/// GPUs when it answers, a cross when it does not (in the warning colour when one is down).
fn host_piece(state: &AppState, theme: &Theme) -> Option<Piece> {
    let hosts = &state.runs.hosts;
    if hosts.is_empty() {
        return None;
    }
    let listed: Vec<String> = hosts.iter().map(|h| h.summary()).collect();
    let style = if hosts.iter().any(|h| h.down.is_some()) { theme.warn } else { theme.dim };
    Some(piece(Keep::Wanted, format!("  hosts: {}", listed.join(" ")), style))
}
