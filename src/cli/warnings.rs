//! Load warnings for people: the same kind of warning (the same words once paths, commit ids
//! and parenthesised details are set aside) is one line with a count and an example;
//! `--verbose` lists every one.

use std::collections::BTreeMap;

/// Warnings on stderr: one line per kind, or every one with `--verbose`.
pub fn print(warnings: &[String], verbose: bool) {
    let lines = if verbose { warnings.to_vec() } else { summarise(warnings) };
    for w in &lines {
        super::out::err(&format!("perftriage: warning: {w}"));
    }
}

/// One line per kind, most frequent first: `37× verification run (…): error — … (e.g. <first>)`.
pub fn summarise(warnings: &[String]) -> Vec<String> {
    let mut kinds: BTreeMap<String, (usize, &String)> = BTreeMap::new();
    for w in warnings {
        kinds.entry(kind(w)).or_insert((0, w)).0 += 1;
    }
    let mut lines: Vec<(usize, String)> = kinds
        .into_iter()
        .map(|(kind, (n, example))| match n {
            1 => (n, example.clone()),
            _ => (n, format!("{n}× {kind} (e.g. {example})")),
        })
        .collect();
    lines.sort_by_key(|(n, _)| std::cmp::Reverse(*n));
    lines.into_iter().map(|(_, line)| line).collect()
}

/// A warning's words with the particulars taken out.
fn kind(warning: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    for word in warning.split(' ') {
        let particular = word.contains('/') || is_id(word.trim_matches(|c: char| !c.is_ascii_alphanumeric()));
        let opens = word.matches('(').count();
        let closes = word.matches(')').count();
        if depth == 0 && opens == 0 {
            out.push_str(if particular { "…" } else { word });
            out.push(' ');
        } else if depth == 0 {
            out.push_str("(…) ");
        }
        depth = (depth + opens).saturating_sub(closes);
    }
    out.trim_end().to_string()
}

fn is_id(word: &str) -> bool {
    word.len() >= 7 && word.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_of_one_kind_become_one_line_with_a_count_and_an_example() {
        let warnings: Vec<String> = vec![
            "verification run (meta-llama/Llama-3.1-8B, not comparable): error — a/b/1.json".into(),
            "verification run (deepseek-ai/DeepSeek-V3, not comparable): error — a/b/2.json".into(),
            "commit 2a9b0c1d is not in the dataset".into(),
            "a/b/x.json: invalid JSON: expected value at line 1".into(),
        ];
        let lines = summarise(&warnings);
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(
            lines[0].starts_with("2× verification run (…) error — …")
                && lines[0].contains("e.g. verification run (meta-llama"),
            "{lines:?}"
        );
        assert!(lines.contains(&"commit 2a9b0c1d is not in the dataset".to_string()));
    }
}
