//! The commit table. Only the rows that fit are built, so 10,000 commits draw as fast as 96.

use super::status_style;
use crate::app::AppState;
use crate::app::rows::{Column, Row as BoardRow};
use crate::classify::Disposition;
use crate::triage::Mark;
use crate::ui::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, Wrap};

/// The short hash and the pick marker after it.
const COMMIT_WIDTH: u16 = 9;

/// Columns that fit at this width, with the host where there are `[[hosts]]`.
fn columns(width: u16, agents_named: bool, hosts: bool) -> Vec<(Column, Constraint)> {
    let mut cols = columns_of(width, agents_named);
    if hosts && width >= 110 {
        let at = cols.iter().position(|(c, _)| *c == Column::Gpus).map_or(2, |i| i + 1);
        cols.insert(at, (Column::Host, Constraint::Length(8)));
    }
    cols
}

/// Columns that fit at this width, with their constraints; the agent's name only where results
/// name agents.
fn columns_of(width: u16, agents_named: bool) -> Vec<(Column, Constraint)> {
    use Column::*;
    let cell = Constraint::Length(13);
    if width >= 150 {
        let mut wide = vec![
            (Commit, Constraint::Length(COMMIT_WIDTH)),
            (Subject, Constraint::Min(20)),
            (Model, Constraint::Length(16)),
            (Kind, Constraint::Length(10)),
            (Gpus, Constraint::Length(6)),
            (Baseline, cell),
            (Human, cell),
            (Agent, cell),
            (Delta, Constraint::Length(7)),
            (Category, Constraint::Length(18)),
            (Mark, Constraint::Length(12)),
        ];
        if agents_named {
            wide.insert(9, (AgentName, Constraint::Length(12)));
        }
        wide
    } else if width >= 110 {
        vec![
            (Commit, Constraint::Length(COMMIT_WIDTH)),
            (Subject, Constraint::Min(16)),
            (Model, Constraint::Length(14)),
            (Gpus, Constraint::Length(6)),
            (Baseline, cell),
            (Human, cell),
            (Agent, cell),
            (Delta, Constraint::Length(7)),
            (Category, Constraint::Length(16)),
            (Mark, Constraint::Length(12)),
        ]
    } else {
        vec![
            (Commit, Constraint::Length(COMMIT_WIDTH)),
            (Subject, Constraint::Min(8)),
            (Baseline, cell),
            (Human, cell),
            (Agent, cell),
            (Category, Constraint::Length(14)),
            (Mark, Constraint::Length(2)),
        ]
    }
}

/// One cell; on the selected row every cell takes the selected style, so no role's colour can
/// vanish into the selection's background.
fn cell<'a>(row: &'a BoardRow, column: Column, narrow_mark: bool, selected: bool, theme: &Theme) -> Cell<'a> {
    let text =
        |s: &'a str, style: Style| Cell::from(Span::styled(s, if selected { theme.selected } else { style }));
    match column {
        Column::Commit => text(&row.short, theme.accent),
        Column::Subject => text(&row.subject, theme.text),
        Column::Model => text(&row.model, theme.text),
        Column::Kind => text(row.kind.name(), theme.dim),
        Column::Gpus => text(&row.gpus, theme.dim),
        Column::AgentName => text(&row.agent, theme.dim),
        Column::Host => text(&row.host, theme.dim),
        Column::Delta => {
            let style = row.delta_verdict.map_or(theme.warn, |v| super::verdict_style(v, theme).0);
            text(&row.delta_text, style)
        }
        Column::Baseline | Column::Human | Column::Agent => {
            let c = &row.cells[column as usize - Column::Baseline as usize];
            text(&c.text, if c.live { theme.accent } else { status_style(c.status, theme) })
        }
        Column::Category => {
            let style = match row.disposition {
                Some(Disposition::UnfixableHere) => theme.unfixable,
                Some(d) if d.is_fixable() => theme.fixable,
                _ => theme.text,
            };
            text(&row.category, style)
        }
        Column::Mark => {
            let style =
                if matches!(row.mark, Some(Mark::Unfixable { .. })) { theme.unfixable } else { theme.skip };
            let shown =
                if narrow_mark { row.mark_text.split(' ').next().unwrap_or("") } else { &row.mark_text };
            text(shown, style)
        }
    }
}

/// The first visible row drawn, so that the selected one is on screen.
fn first_shown(area: Rect, state: &AppState) -> usize {
    let inner_height = usize::from(area.height.saturating_sub(3)).max(1);
    state.board.selected.saturating_sub(inner_height - 1)
}

/// The visible-row position drawn at terminal row `y` (below the border and column titles).
pub fn row_at(area: Rect, state: &AppState, y: u16) -> Option<usize> {
    let first_data = area.y + 2;
    let last = area.y + area.height.saturating_sub(1);
    if y < first_data || y >= last {
        return None;
    }
    let pos = first_shown(area, state) + usize::from(y - first_data);
    (pos < state.board.visible.len()).then_some(pos)
}

pub fn render(frame: &mut Frame, area: Rect, state: &AppState, theme: &Theme) {
    // With a log pane beside it, the border says which of the two takes the keys.
    let focused = state.logs.is_open() && state.focus == crate::app::Focus::Board;
    let border = if focused { theme.accent } else { theme.border };
    let block = Block::default().borders(Borders::ALL).border_style(border).title(Line::from(vec![
        Span::styled(format!(" {} ", state.board.view.title()), theme.header),
        Span::styled(format!("{}/{} ", state.board.visible.len(), state.board.entries.len()), theme.dim),
    ]));
    let inner_height = usize::from(area.height.saturating_sub(3)).max(1);
    if state.board.visible.is_empty() {
        // The filter's own mistake, if any, beside the result it explains.
        let why = state.board.query.unknown_field_warning().map(|w| format!(": {w}")).unwrap_or_default();
        let text = format!("No commits match{why}. Esc clears the filter; Tab changes the view.");
        frame.render_widget(
            Paragraph::new(text).style(theme.dim).wrap(Wrap { trim: true }).block(block),
            area,
        );
        return;
    }
    let offset = first_shown(area, state);
    let where_shown = !state.runs.hosts.is_empty() || state.runs.slurm.is_some();
    let cols = columns(area.width, state.board.agents_named, where_shown);
    let narrow_mark = area.width < 110;
    let rows = state.board.visible.iter().enumerate().skip(offset).take(inner_height).map(|(pos, &i)| {
        let row = &state.board.rows[i];
        let selected = pos == state.board.selected;
        let mut cells: Vec<Cell> =
            cols.iter().map(|(c, _)| cell(row, *c, narrow_mark, selected, theme)).collect();
        if state.board.picked.contains(&row.short) {
            let style = if selected { theme.selected } else { theme.warn };
            cells[0] = Cell::from(Span::styled(format!("{}•", row.short), style));
        }
        let table_row = Row::new(cells);
        if selected { table_row.style(theme.selected) } else { table_row }
    });
    let header = Row::new(cols.iter().map(|(c, _)| {
        let mark =
            if *c == state.board.sort { if state.board.sort_reverse { "↑" } else { "↓" } } else { "" };
        Cell::from(format!("{}{mark}", c.title()))
    }))
    .style(theme.header);
    let table = Table::new(rows, cols.iter().map(|(_, w)| *w)).header(header).block(block).column_spacing(1);
    frame.render_widget(table, area);
}
