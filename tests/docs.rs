//! The docs are checked against the binary and the types: the README fits a screen, every link
//! resolves, `docs/keys.md` is the live default key map and `docs/usage.md` names every command,
//! `docs/config.md`'s reference lists every field the config types take, and `docs/board.svg` is
//! the board as the view draws it. `UPDATE_DOCS=1 cargo test --test docs` rewrites the generated
//! parts (the key table, the board picture).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::cast_possible_truncation)]

mod common;

use perftriage::app::{Action, KeyMap, KeyMode};
use ratatui::style::{Color, Modifier};
use std::path::{Path, PathBuf};

const BEGIN: &str =
    "<!-- actions: generated from the key map by tests/docs.rs (UPDATE_DOCS=1 cargo test --test docs) -->";
const END: &str = "<!-- /actions -->";

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn updating() -> bool {
    std::env::var_os("UPDATE_DOCS").is_some()
}

fn action_table() -> String {
    let keys = KeyMap::default();
    let mut out = format!(
        "{BEGIN}\n| mode | action (config name) | default keys | what it does |\n|---|---|---|---|\n"
    );
    for mode in KeyMode::ALL {
        for action in Action::all().filter(|a| mode.offers(*a)) {
            let names: Vec<String> = keys.keys_for(mode, action).iter().map(|k| format!("`{k}`")).collect();
            let shown = if names.is_empty() { "—".to_string() } else { names.join(" ") };
            let what = action.description().replace('|', "\\|");
            out.push_str(&format!("| {} | `{}` | {shown} | {what} |\n", mode.name(), action.name()));
        }
    }
    out + END
}

#[test]
fn the_keys_page_lists_every_action_with_its_default_keys() {
    let page = read("docs/keys.md");
    let (Some(start), Some(end)) = (page.find(BEGIN), page.find(END)) else {
        panic!("docs/keys.md has no generated action table; add the markers\n{BEGIN}\n{END}")
    };
    let (current, wanted) = (&page[start..end + END.len()], action_table());
    if current != wanted && updating() {
        std::fs::write("docs/keys.md", page.replace(current, &wanted)).unwrap();
        return;
    }
    assert_eq!(current, wanted, "docs/keys.md's table is out of date: UPDATE_DOCS=1 cargo test --test docs");
}

#[test]
fn the_usage_page_names_every_command() {
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_perftriage")).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    let usage = read("docs/usage.md");
    let commands = help.split("Commands:").nth(1).unwrap().split("\n\n").next().unwrap();
    let names: Vec<&str> =
        commands.lines().filter_map(|l| l.split_whitespace().next()).filter(|n| *n != "help").collect();
    assert!(names.len() >= 8, "{help}");
    let missing: Vec<&&str> = names.iter().filter(|n| !usage.contains(&format!("perftriage {n}"))).collect();
    assert!(missing.is_empty(), "docs/usage.md lacks {missing:?}");
}

#[test]
fn the_readme_fits_a_screen() {
    let readme = read("README.md");
    assert!(readme.lines().count() <= 200, "README.md has {} lines (at most 200)", readme.lines().count());
    let long: Vec<(usize, usize)> = readme
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.chars().count()))
        .filter(|(_, n)| *n > 120)
        .collect();
    assert!(long.is_empty(), "README.md lines over 120 characters (line, length): {long:?}");
    for wanted in ["cargo run --release", "cargo nextest run --locked", "docs/board.svg", "CHANGELOG.md"] {
        assert!(readme.contains(wanted), "README.md lacks {wanted}");
    }
}

/// The markdown files the docs are: the README, the changelog and `docs/`.
fn pages() -> Vec<PathBuf> {
    let mut out = vec![PathBuf::from("README.md"), PathBuf::from("CHANGELOG.md")];
    let docs = std::fs::read_dir("docs").unwrap().map(|e| e.unwrap().path());
    out.extend(docs.filter(|p| p.extension().is_some_and(|e| e == "md")));
    out
}

/// `## Runs (Docker)` → `runs-docker`, as GitHub makes a heading's anchor.
fn slug(heading: &str) -> String {
    let lower = heading.trim().to_lowercase();
    let kept: String =
        lower.chars().filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_')).collect();
    kept.replace(' ', "-")
}

fn anchors(page: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(page).unwrap();
    text.lines()
        .filter_map(|l| l.trim_start_matches('#').strip_prefix(' ').filter(|_| l.starts_with('#')))
        .map(slug)
        .collect()
}

/// Every `](target)` of a page that is not a web address.
fn local_links(text: &str) -> Vec<String> {
    let targets = text.split("](").skip(1).filter_map(|rest| rest.split(')').next());
    targets
        .filter(|t| !t.starts_with("http://") && !t.starts_with("https://") && !t.starts_with("mailto:"))
        .map(str::to_string)
        .collect()
}

#[test]
fn every_link_of_the_docs_resolves() {
    let mut broken = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for link in local_links(&text) {
            let (file, anchor) = link.split_once('#').unwrap_or((&link, ""));
            let target = if file.is_empty() { page.clone() } else { page.parent().unwrap().join(file) };
            let anchored = anchor.is_empty()
                || target.extension().is_none_or(|e| e != "md")
                || anchors(&target).contains(&anchor.to_string());
            if !target.exists() || !anchored {
                broken.push(format!("{}: {link}", page.display()));
            }
        }
    }
    assert!(broken.is_empty(), "broken links: {broken:#?}");
}

/// The fields a config table takes, as its type says when given one it does not know.
fn fields_of(table: &str) -> Option<Vec<String>> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.toml");
    std::fs::write(&path, format!("{table}\nnot_a_field_anywhere = 1\n")).unwrap();
    let err = perftriage::config::Config::load(Some(&path)).err()?.to_string();
    let listed = err.split("unknown field `not_a_field_anywhere`, expected").nth(1)?;
    Some(listed.split('`').skip(1).step_by(2).map(str::to_string).collect())
}

/// Every field of the config, `table.field` below the top level, found from the types themselves.
fn config_fields() -> Vec<String> {
    let top = fields_of("").unwrap();
    let mut out = Vec::new();
    for field in top {
        let nested = fields_of(&format!("[{field}]")).or_else(|| fields_of(&format!("[[{field}]]")));
        match nested {
            Some(inner) => out.extend(inner.into_iter().map(|f| format!("{field}.{f}"))),
            None => out.push(field),
        }
    }
    out
}

#[test]
fn the_config_reference_lists_every_field_with_its_default_and_range() {
    let fields = config_fields();
    assert!(fields.len() >= 50 && fields.contains(&"runs.concurrency".to_string()), "{fields:?}");
    let page = read("docs/config.md");
    let reference = page.split("## Reference").nth(1).expect("docs/config.md has a `## Reference` table");
    let row = |f: &str| reference.lines().find(|l| l.starts_with(&format!("| `{f}` |"))).map(str::to_string);
    let mut missing = Vec::new();
    for field in &fields {
        match row(field) {
            Some(r) if r.split('|').filter(|c| !c.trim().is_empty()).count() >= 4 => {}
            Some(r) => missing.push(format!("{field}: a cell is empty: {r}")),
            None => missing.push(format!("{field}: no row")),
        }
    }
    assert!(missing.is_empty(), "docs/config.md's reference: {missing:#?}");
}

/// A colour as the picture's palette has it (the default theme on a dark terminal).
fn hex(color: Option<Color>, fallback: &str) -> String {
    let named = |c: Color| match c {
        Color::Black => "#000000",
        Color::Red => "#cd3131",
        Color::Green => "#0dbc79",
        Color::Yellow => "#e5e510",
        Color::Blue => "#2472c8",
        Color::Magenta => "#bc3fbc",
        Color::Cyan => "#11a8cd",
        Color::Gray => "#b0b0b0",
        Color::DarkGray => "#666666",
        Color::LightRed => "#f14c4c",
        Color::LightGreen => "#23d18b",
        Color::LightYellow => "#f5f543",
        Color::LightBlue => "#3b8eea",
        Color::LightMagenta => "#d670d6",
        Color::LightCyan => "#29b8db",
        Color::White => "#e5e5e5",
        _ => "",
    };
    match color {
        Some(Color::Rgb(r, g, b)) => format!("#{r:02x}{g:02x}{b:02x}"),
        Some(Color::Indexed(i)) => indexed(i),
        Some(c) if !named(c).is_empty() => named(c).to_string(),
        _ => fallback.to_string(),
    }
}

/// xterm's 256-colour palette above the 16 named ones.
fn indexed(i: u8) -> String {
    match i {
        16..=231 => {
            let level = |v: u8| if v == 0 { 0 } else { 55 + 40 * v };
            let (r, g, b) = ((i - 16) / 36, (i - 16) / 6 % 6, (i - 16) % 6);
            format!("#{:02x}{:02x}{:02x}", level(r), level(g), level(b))
        }
        232..=255 => format!("#{0:02x}{0:02x}{0:02x}", 8 + 10 * (i - 232)),
        _ => "#b0b0b0".to_string(),
    }
}

/// The screen as SVG: a cell 8×16 px (DejaVu Sans Mono at 13.3 px advances 8), each run of one
/// style a `<tspan>` placed at its first cell, backgrounds as rects.
fn svg(buf: &ratatui::buffer::Buffer) -> String {
    let (w, h) = (buf.area.width, buf.area.height);
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"DejaVu Sans Mono, monospace\" font-size=\"13.3\">\n<rect width=\"100%\" height=\"100%\" fill=\"#1e1e1e\"/>\n",
        u32::from(w) * 8,
        u32::from(h) * 16
    );
    for y in 0..h {
        let cells: Vec<&ratatui::buffer::Cell> = (0..w).map(|x| &buf[(x, y)]).collect();
        for (x, cell) in cells.iter().enumerate() {
            if let Some(bg) = cell.style().bg.filter(|c| *c != Color::Reset) {
                out.push_str(&format!(
                    "<rect x=\"{}\" y=\"{}\" width=\"8\" height=\"16\" fill=\"{}\"/>\n",
                    x * 8,
                    u32::from(y) * 16,
                    hex(Some(bg), "")
                ));
            }
        }
        out.push_str(&format!(
            "<text y=\"{}\" xml:space=\"preserve\">{}</text>\n",
            u32::from(y) * 16 + 12,
            runs(&cells)
        ));
    }
    out + "</svg>\n"
}

/// A row's runs of one foreground and weight, blank runs left out.
fn runs(cells: &[&ratatui::buffer::Cell]) -> String {
    let look = |c: &ratatui::buffer::Cell| (c.style().fg, c.style().add_modifier.contains(Modifier::BOLD));
    let mut out = String::new();
    let mut start = 0;
    while start < cells.len() {
        let end = (start..cells.len()).find(|&i| look(cells[i]) != look(cells[start])).unwrap_or(cells.len());
        let text: String = cells[start..end].iter().map(|c| c.symbol()).collect();
        if !text.trim().is_empty() {
            let (fg, bold) = look(cells[start]);
            let weight = if bold { " font-weight=\"bold\"" } else { "" };
            let text = text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
            out.push_str(&format!(
                "<tspan x=\"{}\" fill=\"{}\"{weight}>{text}</tspan>",
                start * 8,
                hex(fg, "#d4d4d4")
            ));
        }
        start = end;
    }
    out
}

#[test]
fn the_readmes_picture_is_the_board_as_drawn() {
    let mut s = common::state();
    perftriage::app::update(&mut s, perftriage::app::Msg::Resize(160, 48));
    let theme = perftriage::ui::Theme::load("default").unwrap();
    let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(160, 48)).unwrap();
    term.draw(|f| perftriage::ui::view(f, &s, &theme)).unwrap();
    let wanted = svg(term.backend().buffer());
    let current = std::fs::read_to_string("docs/board.svg").unwrap_or_default();
    if current != wanted && updating() {
        std::fs::write("docs/board.svg", &wanted).unwrap();
        return;
    }
    assert!(
        current == wanted,
        "docs/board.svg is not the board as drawn: UPDATE_DOCS=1 cargo test --test docs"
    );
}
