//! Display rows derived once from an entry (and again when its triage changes), so drawing,
//! filtering and sorting never recompute strings.

use crate::classify::Disposition;
use crate::dataset::results::Stamp;
use crate::dataset::{BenchKind, CommitStatus};
use crate::dataset::{Entry, RunStatus, Variant};
use crate::ids::Short;
use crate::metrics;
use crate::triage::{Mark, TriageBook};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Column {
    Commit,
    Subject,
    Model,
    Kind,
    Gpus,
    Baseline,
    Human,
    Agent,
    /// The agent whose result fills the A column.
    AgentName,
    Category,
    Mark,
    /// The `[[hosts]]` engine of the commit's run in this session (shown only with hosts).
    Host,
    /// Agent vs human on the primary metric, or `≠` where they measured different workloads.
    Delta,
}

impl Column {
    pub const ALL: [Column; 12] = [
        Column::Commit,
        Column::Subject,
        Column::Model,
        Column::Kind,
        Column::Gpus,
        Column::Baseline,
        Column::Human,
        Column::Agent,
        Column::Delta,
        Column::AgentName,
        Column::Category,
        Column::Mark,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Column::Commit => "Commit",
            Column::Subject => "Subject",
            Column::Model => "Model",
            Column::Kind => "Kind",
            Column::Gpus => "GPU",
            Column::Baseline => "B",
            Column::Human => "H",
            Column::Agent => "A",
            Column::AgentName => "Agent",
            Column::Category => "Category",
            Column::Mark => "Mark",
            Column::Host => "Host",
            Column::Delta => "A vs H",
        }
    }

    pub fn next(self) -> Column {
        let i = Column::ALL.iter().position(|c| *c == self).unwrap_or(0);
        Column::ALL[(i + 1) % Column::ALL.len()]
    }
}

/// One variant cell: status glyph + word or primary metric.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    pub status: RunStatus,
    pub text: String,
    /// Sort key: status rank, then metric value.
    pub value: Option<f64>,
    /// A run is going on: the text is its phase and elapsed time.
    pub live: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub short: Short,
    pub subject: String,
    pub model: String,
    pub kind: BenchKind,
    pub gpus: String,
    pub cells: [Cell; 3],
    /// The agent whose result the A cell shows (empty: none named).
    pub agent: String,
    /// Every agent with a result for this commit, lower-case.
    pub agents: Vec<String>,
    pub category: String,
    pub disposition: Option<Disposition>,
    pub status: CommitStatus,
    pub mark: Option<Mark>,
    pub mark_text: String,
    /// Lower-case text the plain filter words search.
    pub haystack: String,
    /// Primary metric name of the commit, if any variant has one.
    pub primary: Option<String>,
    /// Where its run of this session went (`[[hosts]]`), else empty.
    pub host: String,
    /// Agent vs human: `+3.1%`, `≠` (not comparable), or empty; its value sorts.
    pub delta_text: String,
    pub delta: Option<f64>,
    /// Beats, similar, worse or undecided at ±2 %: by the confidence interval where both repeated,
    /// else the single runs' point estimate; none where repeats gave no interval.
    pub delta_verdict: Option<crate::metrics::Verdict>,
}

/// Agent vs human on the primary metric, as the A-vs-H column shows it, and its verdict.
fn delta_of(entry: &Entry) -> (String, Option<f64>, Option<crate::metrics::Verdict>) {
    let Some(pair) = crate::report::compare(entry).and_then(|c| c.pair("agent_vs_human").cloned()) else {
        return (String::new(), None, None);
    };
    let verdict = pair.verdict(crate::report::BOARD_BAND_PCT);
    match pair.pct {
        Some(pct) => (format!("{pct:+.1}%"), Some(pct), verdict),
        None if pair.measured && !pair.comparable => ("≠".into(), None, None),
        None => (String::new(), None, None),
    }
}

fn cell(entry: &Entry, variant: Variant, primary: Option<&str>, book: &TriageBook) -> Cell {
    let outcome = &entry.variant(variant).outcome;
    let value = primary.and_then(|m| outcome.metrics.get(m).copied());
    let detail = match (outcome.status, value, primary) {
        (RunStatus::Success, Some(v), Some(m)) => metrics::format_value(m, v),
        (status, _, _) => status.word().to_string(),
    };
    let text = match fixed_since_run(entry, variant, book) {
        true => "✚ fixed".to_string(),
        false => format!("{} {detail}", outcome.status.glyph()),
    };
    Cell { status: outcome.status, text, value, live: false }
}

/// Whether a fix took on the variant after its newest record: from the book, so a restart keeps it.
fn fixed_since_run(entry: &Entry, variant: Variant, book: &TriageBook) -> bool {
    let fixed = book.last_fix_at(&entry.commit.short, variant.name()).and_then(Stamp::parse);
    fixed.is_some_and(|fixed| entry.variant(variant).at.is_none_or(|ran| ran < fixed))
}

pub fn build_row(entry: &Entry, book: &TriageBook) -> Row {
    let c = &entry.commit;
    let primary = entry.primary_metric();
    let model = c.model.as_deref().unwrap_or("—");
    let model_short = model.rsplit('/').next().unwrap_or(model).to_string();
    let mark = book.mark(&c.short);
    let mark_text = match &mark {
        Some(Mark::Unfixable { .. }) => "⊠ unfixable".to_string(),
        Some(Mark::Skip) => "↷ skip".to_string(),
        None => String::new(),
    };
    let disposition = entry.verdict().map(|v| v.disposition);
    let category = entry.category().to_string();
    let (status, kind) = (entry.status(), c.kind());
    let (delta_text, delta, delta_verdict) = delta_of(entry);
    let haystack = [
        c.short.as_str(),
        c.subject.as_str(),
        model,
        kind.name(),
        category.as_str(),
        status.name(),
        mark.as_ref().map_or("", Mark::name),
        disposition.map_or("", Disposition::name),
    ]
    .join(" ")
    .to_lowercase();
    Row {
        short: c.short.clone(),
        subject: crate::logs::display_text(&c.subject),
        model: model_short,
        kind,
        gpus: c.gpu.clone().unwrap_or_else(|| "?".into()),
        cells: Variant::ALL.map(|v| cell(entry, v, primary, book)),
        agent: entry.variant(Variant::Agent).agent.clone().unwrap_or_default(),
        agents: entry.agents.keys().flatten().map(|a| a.to_lowercase()).collect(),
        category,
        disposition,
        status,
        mark,
        mark_text,
        haystack,
        primary: primary.map(str::to_string),
        host: String::new(),
        delta_text,
        delta,
        delta_verdict,
    }
}
