//! The fix menu (`f`) and the bulk recipe chooser (`F`).

use super::centered;
use crate::app::FixMenu;
use crate::ui::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

pub fn render(frame: &mut Frame, area: Rect, menu: &FixMenu, theme: &Theme) {
    let mut lines = vec![Line::styled(
        format!("{} {} failed with {}", menu.short, menu.variant.name(), menu.category),
        theme.dim,
    )];
    match &menu.offers {
        None => lines.push(Line::styled("probing the image for applicable fixes…", theme.dim)),
        Some(Err(why)) => lines.push(Line::styled(format!("cannot probe the image: {why}"), theme.error)),
        Some(Ok(_)) if menu.shown().is_empty() => {
            lines.push(Line::styled("no fix applies here (w shows why each one does not)", theme.warn))
        }
        Some(Ok(_)) => {
            for (i, offer) in menu.shown().iter().enumerate() {
                let marker = if offer.suggested { "★" } else { " " };
                let style = if i == menu.selected { theme.selected } else { theme.text };
                lines.push(Line::from(vec![
                    Span::styled(format!("{marker} {:<28}", offer.id), style),
                    Span::styled(
                        offer.title.clone(),
                        if i == menu.selected { theme.selected } else { theme.dim },
                    ),
                ]));
                if let Some(why) = &offer.why_not {
                    lines.push(Line::styled(format!("    does not apply: {why}"), theme.warn));
                }
            }
        }
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        "Enter apply + re-run  c apply + commit fixed image  w why others are hidden  u mark unfixable  Esc close",
        theme.dim,
    ));
    let rect = centered(area, 110, lines.len() as u16 + 2);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.accent)
        .title(Span::styled(" Fix ", theme.header));
    frame.render_widget(Clear, rect);
    frame.render_widget(Paragraph::new(lines).block(block).wrap(Wrap { trim: false }), rect);
}

pub fn render_bulk(
    frame: &mut Frame,
    area: Rect,
    shorts: &[String],
    recipes: &[(String, String)],
    selected: usize,
    theme: &Theme,
) {
    let mut lines =
        vec![Line::styled(format!("{} commit(s): {}", shorts.len(), shorts.join(" ")), theme.dim)];
    for (i, (id, title)) in recipes.iter().enumerate() {
        let style = if i == selected { theme.selected } else { theme.text };
        lines.push(Line::from(vec![
            Span::styled(format!("  {id:<28}"), style),
            Span::styled(title.clone(), theme.dim),
        ]));
    }
    lines.push(Line::styled("Enter choose (a confirm follows)  any other key cancels", theme.dim));
    let rect = centered(area, 110, lines.len() as u16 + 4);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.accent)
        .title(Span::styled(" Bulk fix ", theme.header));
    frame.render_widget(Clear, rect);
    frame.render_widget(Paragraph::new(lines).block(block).wrap(Wrap { trim: false }), rect);
}
