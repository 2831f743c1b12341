//! Themes: TOML files of colour roles (themes/*.toml), embedded; `--theme NAME|PATH`.

use super::contrast::Background;
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
        pub struct Theme { pub name: String, pub background: Background, $(pub $role: Style,)* }

        fn resolve(name: String, background: Background, specs: RoleSpecs) -> Result<Theme, (String, String)> {
            Ok(Theme { name, background, $($role: style(&specs.$role).map_err(|c| (format!("roles.{}", stringify!($role)), c.0))?,)* })
        }

        impl Theme {
            /// Every role with its name, for checks over all of them.
            pub fn roles(&self) -> Vec<(&'static str, Style)> {
                vec![$((stringify!($role), self.$role),)*]
            }
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
    /// The terminal background the theme is made for (`dark` unless said).
    #[serde(default)]
    background: Background,
    roles: RoleSpecs,
}

/// A theme that cannot be used; each message names the theme and what in it is wrong.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ThemeError {
    #[error("theme `{name}` is neither {known} nor a readable file: {reason}")]
    Unknown { name: String, known: String, reason: String },
    #[error("invalid theme {origin}: {message}")]
    Invalid { origin: String, message: String },
    #[error("invalid theme {origin}: {field}: `{colour}` is not a colour")]
    BadColour { origin: String, field: String, colour: String },
}

/// Text of a theme that names no colour.
#[derive(Debug)]
struct NotAColour(String);

fn color(text: &str) -> Result<Color, NotAColour> {
    text.parse::<Color>().map_err(|_| NotAColour(text.to_string()))
}

fn style(spec: &RoleSpec) -> Result<Style, NotAColour> {
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
    pub fn load(name_or_path: &str) -> Result<Theme, ThemeError> {
        if let Some((_, text)) = EMBEDDED.iter().find(|(n, _)| *n == name_or_path) {
            return Theme::parse(text, name_or_path);
        }
        let path = Path::new(name_or_path);
        let text = std::fs::read_to_string(path).map_err(|e| ThemeError::Unknown {
            name: name_or_path.into(),
            known: Theme::names().collect::<Vec<_>>().join(", "),
            reason: e.to_string(),
        })?;
        Theme::parse(&text, name_or_path)
    }

    pub fn parse(text: &str, origin: &str) -> Result<Theme, ThemeError> {
        let invalid = |message: String| ThemeError::Invalid { origin: origin.into(), message };
        let file: ThemeFile = toml::from_str(text).map_err(|e| invalid(e.to_string()))?;
        resolve(file.name, file.background, file.roles).map_err(|(field, colour)| ThemeError::BadColour {
            origin: origin.into(),
            field,
            colour,
        })
    }
}
