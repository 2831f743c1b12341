//! The `/` query: plain words and field terms (`cat:aimv2 status:failed model:llama kind:serving
//! gpu:4 mark:unfixable disp:fixable agent:codex`), each negatable with `!`; all terms must hold.

use super::rows::Row;

/// The field names of `field_named`, as the operator is told them.
const FIELDS: &str = "cat status model kind gpu mark disp agent";

#[derive(Debug, Clone, PartialEq, Eq)]
enum Field {
    Any,
    Category,
    Status,
    Model,
    Kind,
    Gpu,
    Mark,
    Disposition,
    Agent,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Term {
    field: Field,
    needle: String,
    negated: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Query {
    pub text: String,
    terms: Vec<Term>,
    /// `name:` prefixes that name no field; those words are searched as plain text.
    pub unknown_fields: Vec<String>,
}

impl Query {
    pub fn parse(text: &str) -> Query {
        let terms = text.split_whitespace().filter_map(parse_term).collect();
        let unknown_fields = text
            .split_whitespace()
            .filter_map(|w| w.trim_start_matches('!').split_once(':'))
            .filter(|(name, _)| !name.is_empty() && field_named(name).is_none())
            .map(|(name, _)| name.to_string())
            .collect();
        Query { text: text.to_string(), terms, unknown_fields }
    }

    /// What to tell the operator about field names that name no field, with the known ones.
    pub fn unknown_field_warning(&self) -> Option<String> {
        let name = self.unknown_fields.first()?;
        Some(format!("no field `{name}:` (searched as text; fields: {FIELDS})"))
    }

    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    pub fn matches(&self, row: &Row) -> bool {
        self.terms.iter().all(|t| t.holds(row) != t.negated)
    }
}

fn parse_term(word: &str) -> Option<Term> {
    let (negated, word) = match word.strip_prefix('!') {
        Some(rest) => (true, rest),
        None => (false, word),
    };
    // An unknown `name:` is searched as plain text rather than dropped.
    let (field, needle) = match word.split_once(':').and_then(|(n, v)| Some((field_named(n)?, v))) {
        Some(pair) => pair,
        None => (Field::Any, word),
    };
    (!needle.is_empty()).then(|| Term { field, needle: needle.to_lowercase(), negated })
}

fn field_named(name: &str) -> Option<Field> {
    Some(match name.to_ascii_lowercase().as_str() {
        "cat" | "category" => Field::Category,
        "status" => Field::Status,
        "model" => Field::Model,
        "kind" => Field::Kind,
        "gpu" | "gpus" => Field::Gpu,
        "mark" => Field::Mark,
        "disp" | "disposition" => Field::Disposition,
        "agent" => Field::Agent,
        _ => return None,
    })
}

fn contains(haystack: &str, needle: &str) -> bool {
    haystack.to_lowercase().contains(needle)
}

impl Term {
    fn holds(&self, row: &Row) -> bool {
        match self.field {
            Field::Any => row.haystack.contains(&self.needle),
            Field::Category => contains(&row.category, &self.needle),
            Field::Status => row.status.name().starts_with(&self.needle),
            Field::Model => contains(&row.model, &self.needle),
            Field::Kind => row.kind.name().starts_with(&self.needle),
            Field::Gpu => contains(&row.gpus, &self.needle),
            Field::Mark => row.mark.as_ref().is_some_and(|m| m.name().starts_with(&self.needle)),
            Field::Disposition => row.disposition.is_some_and(|d| d.name().contains(&self.needle)),
            // Agent names share prefixes (codex, codex_cli): the whole name must match.
            Field::Agent => row.agents.contains(&self.needle),
        }
    }
}
