//! SGR (colour) state, applied from `ESC [ … m` parameters. Anything else is ignored.

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Color {
    /// 0–15: the 16 ANSI colours; 16–255: the 256-colour cube and greys.
    Indexed(u8),
    Rgb(u8, u8, u8),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CellStyle {
    pub fg: Option<Color>,
    pub bg: Option<Color>,
    pub bold: bool,
    pub dim: bool,
    pub italic: bool,
    pub underline: bool,
    pub reversed: bool,
}

impl CellStyle {
    /// Apply one SGR parameter list (`1;36`, `38;5;208`, `0`, empty = reset).
    pub fn apply(&mut self, params: &[u16]) {
        if params.is_empty() {
            *self = CellStyle::default();
            return;
        }
        let mut i = 0;
        while i < params.len() {
            let p = params[i];
            match p {
                0 => *self = CellStyle::default(),
                1 => self.bold = true,
                2 => self.dim = true,
                3 => self.italic = true,
                4 => self.underline = true,
                7 => self.reversed = true,
                22 => (self.bold, self.dim) = (false, false),
                23 => self.italic = false,
                24 => self.underline = false,
                27 => self.reversed = false,
                30..=37 => self.fg = Some(Color::Indexed(low_byte(p - 30))),
                39 => self.fg = None,
                40..=47 => self.bg = Some(Color::Indexed(low_byte(p - 40))),
                49 => self.bg = None,
                90..=97 => self.fg = Some(Color::Indexed(low_byte(p - 90 + 8))),
                100..=107 => self.bg = Some(Color::Indexed(low_byte(p - 100 + 8))),
                38 | 48 => {
                    let (color, used) = extended(&params[i + 1..]);
                    if p == 38 {
                        self.fg = color
                    } else {
                        self.bg = color
                    }
                    i += used;
                }
                _ => {}
            }
            i += 1;
        }
    }
}

/// `5;N` or `2;R;G;B` after a 38/48; returns the colour and how many parameters it used.
fn extended(rest: &[u16]) -> (Option<Color>, usize) {
    let byte = |v: u16| u8::try_from(v).ok();
    match rest {
        [5, n, ..] => (byte(*n).map(Color::Indexed), 2),
        [2, r, g, b, ..] => (byte(*r).zip(byte(*g)).zip(byte(*b)).map(|((r, g), b)| Color::Rgb(r, g, b)), 4),
        _ => (None, rest.len()),
    }
}

/// A colour index already known to be below 256.
fn low_byte(n: u16) -> u8 {
    u8::try_from(n).unwrap_or(u8::MAX)
}
