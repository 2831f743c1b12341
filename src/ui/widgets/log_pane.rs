//! The log pane: the lines on screen only (any log size draws in the same time), container SGR
//! colours as styles, noise dimmed, search matches highlighted, follow/paused state in the title.

use crate::app::LogView;
use crate::logs::{CellStyle, Color as LogColor, DISPLAY_CAP, Line as LogLine};
use crate::ui::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

/// Draw `view`; `page_rows` is the scroll page the update uses, `focused` highlights the border.
/// A log view and how to draw it.
pub struct LogPaneProps<'a> {
    pub view: &'a LogView,
    /// Rows the model scrolls by (the pane's height as `AppState::log_rows` computes it).
    pub page_rows: usize,
    /// It takes the keys: its border is highlighted.
    pub focused: bool,
    /// The key that expands capped lines, for the hint on them.
    pub expand_key: String,
    /// Fix and build logs open behind this one, and the key that shows the next.
    pub behind: (usize, String),
}

pub fn render(frame: &mut Frame, area: Rect, props: &LogPaneProps, theme: &Theme) {
    let view = props.view;
    let rows = usize::from(area.height.saturating_sub(2)).max(1);
    let numbers = view.visible(rows, view.top_line(props.page_rows));
    let lines: Vec<Line> = numbers.iter().map(|&n| render_line(props, n, theme)).collect();
    let border = if props.focused { theme.accent } else { theme.border };
    let mut title = title(view, &numbers, theme);
    if props.behind.0 > 0 {
        let (n, key) = &props.behind;
        title.push_span(Span::styled(format!("+{n} more open ({key}: next) "), theme.accent));
    }
    let block = Block::default().borders(Borders::ALL).border_style(border).title(title);
    let mut paragraph = Paragraph::new(lines).block(block);
    if view.wrap {
        paragraph = paragraph.wrap(Wrap { trim: false });
    }
    frame.render_widget(paragraph, area);
}

/// The pane's state (following, paused, scrolled; for a document, where it is), what filters it,
/// then its name.
fn title<'a>(view: &'a LogView, shown: &[usize], theme: &Theme) -> Line<'a> {
    let state = if view.key.log.is_document() {
        let (first, last) =
            (shown.iter().min().map_or(0, |n| n + 1), shown.iter().max().map_or(0, |n| n + 1));
        Span::styled(format!(" {first}–{last} of {} ", view.ring.total()), theme.dim)
    } else if view.follow {
        Span::styled(if view.finished { " END " } else { " FOLLOW " }, theme.ok)
    } else {
        match (view.finished, view.new_while_paused) {
            (true, _) => Span::styled(" SCROLLED (G: end) ", theme.dim),
            (false, 0) => Span::styled(" PAUSED (G: follow) ", theme.warn),
            (false, n) => Span::styled(format!(" PAUSED +{n} new (G: follow) "), theme.warn),
        }
    };
    let mut spans = vec![state];
    if let Some(search) = &view.search {
        let more = if search.is_capped() { "+" } else { "" };
        let scanning = if search.spool_done { "" } else { ", searching the spool…" };
        let text = format!("/{} ({}{more} lines{scanning}) ", search.query, search.matches.len());
        spans.push(Span::styled(text, theme.accent));
    }
    if view.only_matches {
        spans.push(Span::styled("matches only ", theme.accent));
    }
    if let Some(level) = view.min_level {
        spans.push(Span::styled(format!("level≥{level:?} "), theme.accent));
    }
    if view.wrap {
        spans.push(Span::styled("wrap ", theme.dim));
    }
    spans.push(Span::styled(format!("{} ", view.title), theme.header));
    Line::from(spans)
}

fn render_line<'a>(props: &LogPaneProps<'a>, n: usize, theme: &Theme) -> Line<'a> {
    let view = props.view;
    let gutter = Span::styled(format!("{:>7} ", n + 1), theme.dim);
    let Some(line) = view.line(n) else {
        return Line::from(vec![gutter, Span::styled("… reading from the spool", theme.dim)]);
    };
    let ranges = view.search.as_ref().and_then(|s| s.matches.get(&n)).map_or(&[][..], Vec::as_slice);
    let current = view.search.as_ref().is_some_and(|s| s.current == Some(n));
    let mut spans = vec![if current { Span::styled(format!("{:>7}>", n + 1), theme.accent) } else { gutter }];
    // A capped line says so up front: its end is off screen.
    if let Some(full) = line.full_chars {
        spans.push(Span::styled(
            format!("[{full} chars, {DISPLAY_CAP} shown; {} expands] ", props.expand_key),
            theme.warn,
        ));
    }
    spans.extend(styled_spans(line, ranges, theme));
    Line::from(spans)
}

/// The line's style runs, cut again where search matches start and end.
fn styled_spans<'a>(line: &'a LogLine, ranges: &[(usize, usize)], theme: &Theme) -> Vec<Span<'a>> {
    let base = if line.noise { theme.dim } else { Style::default() };
    let highlight = theme.selected.add_modifier(Modifier::BOLD);
    let mut out = Vec::new();
    let mut offset = 0;
    for (style, text) in line.segments() {
        let style = base.patch(convert(style));
        let end = offset + text.len();
        let mut cursor = offset;
        for &(a, b) in ranges.iter().filter(|(a, b)| *b > offset && *a < end) {
            let (a, b) = (a.max(offset), b.min(end));
            if a > cursor {
                out.push(Span::styled(&line.text[cursor..a], style));
            }
            out.push(Span::styled(&line.text[a..b], highlight));
            cursor = b;
        }
        if cursor < end {
            out.push(Span::styled(&line.text[cursor..end], style));
        }
        offset = end;
    }
    out
}

fn color(c: LogColor) -> Color {
    match c {
        LogColor::Indexed(i) => Color::Indexed(i),
        LogColor::Rgb(r, g, b) => Color::Rgb(r, g, b),
    }
}

fn convert(s: CellStyle) -> Style {
    let mut style = Style::default();
    if let Some(fg) = s.fg {
        style = style.fg(color(fg));
    }
    if let Some(bg) = s.bg {
        style = style.bg(color(bg));
    }
    for (on, m) in [
        (s.bold, Modifier::BOLD),
        (s.dim, Modifier::DIM),
        (s.italic, Modifier::ITALIC),
        (s.underline, Modifier::UNDERLINED),
        (s.reversed, Modifier::REVERSED),
    ] {
        if on {
            style = style.add_modifier(m);
        }
    }
    style
}
