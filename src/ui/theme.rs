//! Themes: TOML files of colour roles (themes/*.toml), embedded; `--theme NAME|PATH`.

use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;
use std::path::Path;

const EMBEDDED: &[(&str, &str)] = &[
    ("default", include_str!("../../themes/default.toml")),
    ("light", include_str!("../../themes/light.toml")),
    ("monochrome", include_str!("../../themes/monochrome.toml")),
];

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RoleSpec {
    fg: Option<String>,
    bg: Option<String>,
    #[serde(default)]
    bold: bool,
    #[serde(default)]
    dim: bool,
    #[serde(default)]
    reversed: bool,
    #[serde(default)]
    underline: bool,
}

macro_rules! roles {
    ($($role:ident),* $(,)?) => {
        #[derive(Debug, Deserialize)]
        #[serde(deny_unknown_fields)]
        struct RoleSpecs { $($role: RoleSpec,)* }

        /// Resolved styles, one per role.
        #[derive(Debug, Clone, PartialEq)]
        pub struct Theme { pub name: String, $(pub $role: Style,)* }

        fn resolve(name: String, specs: RoleSpecs) -> Result<Theme, String> {
            Ok(Theme { name, $($role: style(&specs.$role).map_err(|e| format!("roles.{}: {e}", stringify!($role)))?,)* })
        }
    };
}

roles!(
    text, dim, accent, header, border, selected, tab_active, ok, fail, timeout, skip, not_run, fixable,
    unfixable, warn, error, better, worse, tie,
);

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ThemeFile {
    name: String,
    roles: RoleSpecs,
}

fn color(text: &str) -> Result<Color, String> {
    text.parse::<Color>().map_err(|_| format!("`{text}` is not a colour"))
}

fn style(spec: &RoleSpec) -> Result<Style, String> {
    let mut s = Style::default();
    if let Some(fg) = &spec.fg {
        s = s.fg(color(fg)?);
    }
    if let Some(bg) = &spec.bg {
        s = s.bg(color(bg)?);
    }
    let flags = [
        (spec.bold, Modifier::BOLD),
        (spec.dim, Modifier::DIM),
        (spec.reversed, Modifier::REVERSED),
        (spec.underline, Modifier::UNDERLINED),
    ];
    for (on, m) in flags {
        if on {
            s = s.add_modifier(m);
        }
    }
    Ok(s)
}

impl Theme {
    pub fn names() -> impl Iterator<Item = &'static str> {
        EMBEDDED.iter().map(|(n, _)| *n)
    }

    /// An embedded theme by name, or a theme file by path.
    pub fn load(name_or_path: &str) -> Result<Theme, String> {
        if let Some((_, text)) = EMBEDDED.iter().find(|(n, _)| *n == name_or_path) {
            return Theme::parse(text, name_or_path);
        }
        let path = Path::new(name_or_path);
        let text = std::fs::read_to_string(path).map_err(|e| {
            let known: Vec<_> = Theme::names().collect();
            format!("theme `{name_or_path}` is neither {} nor a readable file: {e}", known.join(", "))
        })?;
        Theme::parse(&text, name_or_path)
    }

    pub fn parse(text: &str, origin: &str) -> Result<Theme, String> {
        let file: ThemeFile = toml::from_str(text).map_err(|e| format!("invalid theme {origin}: {e}"))?;
        resolve(file.name, file.roles).map_err(|e| format!("invalid theme {origin}: {e}"))
    }
}
