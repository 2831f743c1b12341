//! Text from data (a commit subject, an agent name, a reason typed on the command line) as every
//! view shows it, board and headless alike: decoded as container output is (escape sequences
//! gone whole, with their parameters), control, bidi and zero-width characters removed, lines
//! joined by a space.

use super::{Decoder, Output, Stream};

/// `text` cleaned for display (see the module's doc).
pub fn display_text(text: &str) -> String {
    let (mut decoder, mut out) = (Decoder::uncapped(Stream::Stdout), Output::default());
    decoder.feed(text.as_bytes(), &mut out);
    decoder.finish(&mut out);
    let joined = out.lines.iter().map(|l| l.text.as_str()).collect::<Vec<_>>().join(" ");
    joined.chars().filter(|&c| !invisible(c)).collect()
}

/// Whether nothing of `text` shows once cleaned.
pub fn is_blank(text: &str) -> bool {
    display_text(text).trim().is_empty()
}

/// Characters that take no room: zero-width spaces and joiners, word joiners, the byte-order
/// mark, a soft hyphen.
fn invisible(c: char) -> bool {
    matches!(c, '\u{200B}'..='\u{200D}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}' | '\u{00AD}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_bidi_and_invisible_characters_are_gone_and_the_rest_is_kept() {
        assert_eq!(display_text("gpt-5\u{1b}[31m"), "gpt-5");
        assert_eq!(display_text("fix \u{202E}txt.exe"), "fix txt.exe");
        assert_eq!(display_text("a\u{1b}]52;c;aGk=\u{7}b"), "ab");
        assert_eq!(display_text("two\nlines"), "two lines");
        assert_eq!(display_text("café ✓"), "café ✓");
        assert!(is_blank("\u{200B}") && is_blank("\u{1b}[2J") && is_blank(" \t") && !is_blank("x"));
    }
}
