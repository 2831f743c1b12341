//! The fix menu (`f`) and the bulk recipe chooser (`F`).

use super::{hints, popup};
use crate::app::{BulkPicker, FixMenu, KeyMap, KeyMode};
use crate::ui::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

pub fn render(frame: &mut Frame, area: Rect, menu: &FixMenu, keymap: &KeyMap, theme: &Theme) {
    let mut lines = vec![Line::styled(
        format!("{} {} failed with {}", menu.short, menu.variant.name(), menu.category),
        theme.dim,
    )];
    match &menu.offers {
        None => lines.push(Line::styled("probing the image for applicable fixes…", theme.dim)),
        Some(Err(why)) => lines.push(Line::styled(format!("cannot probe the image: {why}"), theme.error)),
        Some(Ok(_)) if menu.shown().is_empty() => {
            let why = hints::key(keymap, KeyMode::FixMenu, crate::app::Action::ShowWhy);
            lines.push(Line::styled(
                format!("no fix applies here ({why} shows why each one does not)"),
                theme.warn,
            ))
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
    lines.push(hints::line(keymap, KeyMode::FixMenu, theme));
    let body = Paragraph::new(lines.clone()).wrap(Wrap { trim: false });
    popup(
        frame,
        area,
        (110, super::cells(lines.len()) + 3),
        Span::styled(" Fix ", theme.header),
        theme.accent,
        body,
    );
}

pub fn render_bulk(frame: &mut Frame, area: Rect, picker: &BulkPicker, keymap: &KeyMap, theme: &Theme) {
    let BulkPicker { shorts, recipes, selected } = picker;
    let mut lines =
        vec![Line::styled(format!("{} commit(s): {}", shorts.len(), shorts.join(" ")), theme.dim)];
    for (i, (id, title)) in recipes.iter().enumerate() {
        let style = if i == *selected { theme.selected } else { theme.text };
        lines.push(Line::from(vec![
            Span::styled(format!("  {id:<28}"), style),
            Span::styled(title.clone(), theme.dim),
        ]));
    }
    lines.push(hints::line(keymap, KeyMode::BulkPicker, theme));
    let body = Paragraph::new(lines.clone()).wrap(Wrap { trim: false });
    let title = Span::styled(" Bulk fix ", theme.header);
    popup(frame, area, (110, super::cells(lines.len()) + 4), title, theme.accent, body);
}
