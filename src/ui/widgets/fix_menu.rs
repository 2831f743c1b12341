//! The fix menu (`f`) and the bulk recipe chooser (`F`).

use super::{hints, popup};
use crate::app::{BulkPicker, FixMenu, KeyMap, KeyMode, OfferGroup};
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
        Some(Ok(offers)) => {
            lines.extend(offer_lines(menu, theme));
            let hidden = offers.len() - menu.shown().len();
            if hidden > 0 {
                let why = hints::key(keymap, KeyMode::FixMenu, crate::app::Action::ShowWhy);
                lines.push(Line::styled(
                    format!("{why}: {hidden} more that do not apply here, and why"),
                    theme.dim,
                ));
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

/// The offers under their group's heading: what answers the failure, what else applies to the
/// image, and (with `w`) what does not apply and why.
fn offer_lines(menu: &FixMenu, theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let mut group = None;
    for (i, offer) in menu.shown().into_iter().enumerate() {
        let this = OfferGroup::of(offer);
        if group != Some(this) {
            group = Some(this);
            lines.push(Line::styled(heading(this, &menu.category), theme.header));
        }
        let selected = i == menu.selected;
        let style = if selected { theme.selected } else { theme.text };
        lines.push(Line::from(vec![
            Span::styled(format!("  {:<28}", offer.id), style),
            Span::styled(offer.title.clone(), if selected { theme.selected } else { theme.dim }),
        ]));
        if let Some(why) = &offer.why_not {
            lines.push(Line::styled(format!("    {why}"), theme.warn));
        }
    }
    lines
}

fn heading(group: OfferGroup, category: &str) -> String {
    match group {
        OfferGroup::Answers => format!("Answers {category}:"),
        OfferGroup::AlsoApplies => "Also applies to this image (answers another failure):".into(),
        OfferGroup::DoesNotApply => "Does not apply here:".into(),
    }
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
