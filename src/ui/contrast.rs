//! WCAG contrast of a theme's roles, from the theme file alone. Named and indexed colours are
//! taken as xterm draws them; `reset` is the terminal's own colour for the theme's background
//! (`dark`: light grey on black, `light`: black on white); `reversed` swaps the two; `dim` is drawn
//! at two thirds of its strength over the background, as xterm draws faint text.

use ratatui::style::{Color, Modifier, Style};

type Rgb = (u8, u8, u8);

/// The terminal background a theme is made for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Background {
    #[default]
    Dark,
    Light,
}

impl Background {
    fn terminal(self) -> (Rgb, Rgb) {
        match self {
            Background::Dark => ((0xe5, 0xe5, 0xe5), (0, 0, 0)),
            Background::Light => ((0, 0, 0), (0xff, 0xff, 0xff)),
        }
    }
}

const ANSI: [Rgb; 16] = [
    (0x00, 0x00, 0x00),
    (0xcd, 0x00, 0x00),
    (0x00, 0xcd, 0x00),
    (0xcd, 0xcd, 0x00),
    (0x00, 0x00, 0xee),
    (0xcd, 0x00, 0xcd),
    (0x00, 0xcd, 0xcd),
    (0xe5, 0xe5, 0xe5),
    (0x7f, 0x7f, 0x7f),
    (0xff, 0x00, 0x00),
    (0x00, 0xff, 0x00),
    (0xff, 0xff, 0x00),
    (0x5c, 0x5c, 0xff),
    (0xff, 0x00, 0xff),
    (0x00, 0xff, 0xff),
    (0xff, 0xff, 0xff),
];

/// xterm's 256-colour palette: 16 ANSI, a 6×6×6 cube, 24 greys.
fn indexed(i: u8) -> Rgb {
    let level = |n: u8| if n == 0 { 0 } else { 55 + n * 40 };
    match i {
        0..=15 => ANSI[usize::from(i)],
        16..=231 => {
            let n = i - 16;
            (level(n / 36), level(n / 6 % 6), level(n % 6))
        }
        _ => {
            let g = 8 + (i - 232) * 10;
            (g, g, g)
        }
    }
}

fn rgb(colour: Color, default: Rgb) -> Rgb {
    use Color::*;
    let ansi = |i: usize| ANSI[i];
    match colour {
        Reset => default,
        Black => ansi(0),
        Red => ansi(1),
        Green => ansi(2),
        Yellow => ansi(3),
        Blue => ansi(4),
        Magenta => ansi(5),
        Cyan => ansi(6),
        Gray => ansi(7),
        DarkGray => ansi(8),
        LightRed => ansi(9),
        LightGreen => ansi(10),
        LightYellow => ansi(11),
        LightBlue => ansi(12),
        LightMagenta => ansi(13),
        LightCyan => ansi(14),
        White => ansi(15),
        Rgb(r, g, b) => (r, g, b),
        Indexed(i) => indexed(i),
    }
}

fn luminance((r, g, b): Rgb) -> f64 {
    let channel = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.03928 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
    };
    0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)
}

/// The colours a style is drawn in on this background: (text, cell).
pub fn drawn(style: Style, background: Background) -> (Rgb, Rgb) {
    let (term_fg, term_bg) = background.terminal();
    let mut fg = rgb(style.fg.unwrap_or(Color::Reset), term_fg);
    let mut bg = rgb(style.bg.unwrap_or(Color::Reset), term_bg);
    if style.add_modifier.contains(Modifier::REVERSED) {
        std::mem::swap(&mut fg, &mut bg);
    }
    if style.add_modifier.contains(Modifier::DIM) {
        let blend = |f: u8, b: u8| u8::try_from((u16::from(f) * 2 + u16::from(b)) / 3).unwrap_or(u8::MAX);
        fg = (blend(fg.0, bg.0), blend(fg.1, bg.1), blend(fg.2, bg.2));
    }
    (fg, bg)
}

/// The WCAG contrast ratio (1 to 21) a style's text has on its cell.
pub fn ratio(style: Style, background: Background) -> f64 {
    let (fg, bg) = drawn(style, background);
    let (a, b) = (luminance(fg), luminance(bg));
    (a.max(b) + 0.05) / (a.min(b) + 0.05)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn black_on_white_is_21_and_a_colour_on_itself_is_1() {
        let style = Style::default().fg(Color::Black).bg(Color::White);
        assert!((ratio(style, Background::Dark) - 21.0).abs() < 0.01);
        let same = Style::default().fg(Color::Cyan).bg(Color::Cyan);
        assert!((ratio(same, Background::Dark) - 1.0).abs() < 1e-9);
        assert_eq!(indexed(111), (0x87, 0xaf, 0xff));
        assert_eq!(indexed(244), (0x80, 0x80, 0x80));
    }
}
