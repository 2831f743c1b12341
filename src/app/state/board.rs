//! The board's part of the model: commits, their rows and triage book, sort, view, filter,
//! selection, the detail pane and the commits picked for a bulk fix.

use super::super::filter::Query;
use super::super::rows::{Column, Row, build_row};
use crate::dataset::results::Stamp;
use crate::dataset::{CommitStatus, Entry, Variant};
use crate::ids::Short;
use crate::triage::{Mark, TriageBook};
use std::collections::BTreeSet;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum View {
    All,
    Failed,
    Fixable,
    Unfixable,
    Done,
}

impl View {
    pub const ALL: [View; 5] = [View::All, View::Failed, View::Fixable, View::Unfixable, View::Done];

    pub fn title(self) -> &'static str {
        match self {
            View::All => "All",
            View::Failed => "Failed",
            View::Fixable => "Fixable",
            View::Unfixable => "Unfixable",
            View::Done => "Done",
        }
    }

    pub fn admits(self, entry: &Entry, row: &Row) -> bool {
        let status = entry.status();
        match self {
            View::All => true,
            View::Failed => status == CommitStatus::Failed,
            View::Fixable => {
                status == CommitStatus::Failed
                    && row.mark.is_none()
                    && entry.verdict().is_some_and(|v| v.disposition.is_fixable())
            }
            View::Unfixable => matches!(row.mark, Some(Mark::Unfixable { .. })),
            View::Done => status == CommitStatus::Done,
        }
    }
}

/// How the board was left: restored at the next start (`<workspace>/board.json`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BoardPrefs {
    pub sort: Column,
    pub sort_reverse: bool,
    pub view: View,
    pub filter: String,
    pub selected: Option<String>,
    #[serde(default)]
    pub agent: Option<String>,
}

#[derive(Debug, Clone)]
pub struct BoardState {
    pub entries: Vec<Entry>,
    pub rows: Vec<Row>,
    pub book: TriageBook,
    /// Entry indices in sort order; `visible` is this filtered by view and query.
    pub order: Vec<usize>,
    pub visible: Vec<usize>,
    pub view_counts: [usize; 5],
    pub selected: usize,
    pub view: View,
    pub query: Query,
    pub sort: Column,
    pub sort_reverse: bool,
    pub detail_open: bool,
    pub detail_scroll: u16,
    /// The furthest the detail pane scrolls, as last drawn.
    pub detail_limit: u16,
    /// Variants a fix is being applied to that re-run once it is verified.
    pub rerun_after_fix: BTreeSet<(Short, Variant)>,
    /// Commits picked with Space for a bulk fix.
    pub picked: BTreeSet<Short>,
    /// The agent whose results fill the A column; `None`: each commit's newest of any agent.
    pub agent: Option<String>,
    /// Whether any result names its agent (the board then shows an Agent column).
    pub agents_named: bool,
    /// While the result files are being read: how far it has got.
    pub loading: Option<crate::dataset::Progress>,
    /// The commit the board was left on, kept while the result files are read when the filter it
    /// was left with does not show it yet (the first rows' categories are not known before);
    /// selected once they are read, unless the selection moved meanwhile.
    pub wanted: Option<Short>,
    /// The detail pane's `patches:` line per commit; `None` while it is being read.
    pub patch_lines: std::collections::BTreeMap<Short, Option<String>>,
}

impl BoardState {
    pub fn new(entries: Vec<Entry>, book: TriageBook) -> BoardState {
        let rows = entries.iter().map(|e| build_row(e, &book)).collect();
        let agents_named = entries.iter().any(|e| e.agents.keys().any(Option::is_some));
        let mut board = BoardState {
            entries,
            rows,
            book,
            order: Vec::new(),
            visible: Vec::new(),
            view_counts: [0; 5],
            selected: 0,
            view: View::All,
            query: Query::default(),
            sort: Column::Commit,
            sort_reverse: false,
            detail_open: false,
            detail_scroll: 0,
            detail_limit: u16::MAX,
            rerun_after_fix: BTreeSet::new(),
            picked: BTreeSet::new(),
            agent: None,
            agents_named,
            loading: None,
            patch_lines: std::collections::BTreeMap::new(),
            wanted: None,
        };
        board.resort();
        board
    }

    /// Index into `entries` of the selected commit.
    pub fn selected_entry(&self) -> Option<usize> {
        self.visible.get(self.selected).copied()
    }

    /// The picked commits, else every commit the filter shows: what `F` and `C` act on.
    pub fn picked_or_shown(&self) -> Vec<Short> {
        if self.picked.is_empty() {
            self.visible.iter().map(|&i| self.entries[i].commit.short.clone()).collect()
        } else {
            self.picked.iter().cloned().collect()
        }
    }

    pub fn selected_short(&self) -> Option<&Short> {
        self.selected_entry().map(|i| &self.entries[i].commit.short)
    }

    pub fn entry_index(&self, short: &str) -> Option<usize> {
        self.entries.iter().position(|e| e.commit.short == short)
    }

    pub fn resort(&mut self) {
        let mut order: Vec<usize> = (0..self.entries.len()).collect();
        let rows = &self.rows;
        order.sort_by(|&a, &b| super::super::sort::compare(&rows[a], &rows[b], self.sort));
        if self.sort_reverse {
            order.reverse();
        }
        self.order = order;
        self.refilter();
    }

    /// Recompute the visible rows, keeping the selected commit selected where it still shows.
    pub fn refilter(&mut self) {
        let keep = self.selected_entry();
        let (entries, rows, query) = (&self.entries, &self.rows, &self.query);
        for (slot, view) in View::ALL.iter().enumerate() {
            self.view_counts[slot] =
                self.order.iter().filter(|&&i| view.admits(&entries[i], &rows[i])).count();
        }
        let view = self.view;
        self.visible = self
            .order
            .iter()
            .copied()
            .filter(|&i| view.admits(&entries[i], &rows[i]) && query.matches(&rows[i]))
            .collect();
        self.selected = keep.and_then(|k| self.visible.iter().position(|&i| i == k)).unwrap_or(0);
        self.clamp_selection();
    }

    pub fn clamp_selection(&mut self) {
        self.selected = self.selected.min(self.visible.len().saturating_sub(1));
    }

    pub fn prefs(&self) -> BoardPrefs {
        BoardPrefs {
            sort: self.sort,
            sort_reverse: self.sort_reverse,
            view: self.view,
            filter: self.query.text.clone(),
            selected: self.wanted.as_ref().or(self.selected_short()).map(ToString::to_string),
            agent: self.agent.clone(),
        }
    }

    /// Sort, view, filter, agent and selection as they were left; a commit or agent that is gone
    /// is let go.
    pub fn restore(&mut self, prefs: BoardPrefs) {
        (self.sort, self.sort_reverse, self.view) = (prefs.sort, prefs.sort_reverse, prefs.view);
        self.query = Query::parse(&prefs.filter);
        // While the results are read no agent is known yet: the choice waits for them.
        let known = |a: &String| self.loading.is_some() || self.known_agents().contains(a);
        if let Some(agent) = prefs.agent.filter(known) {
            self.agent = Some(agent);
            self.entries.iter_mut().for_each(|e| e.select_agent(self.agent.as_deref()));
            self.rebuild_rows();
        }
        self.resort();
        let Some(short) = prefs.selected else { return };
        match self.position_of(&short) {
            Some(pos) => self.selected = pos,
            None if self.loading.is_some() => self.wanted = Some(short.into()),
            None => {}
        }
    }

    /// The person's choice of row `pos` (within the visible rows): a commit kept from the last
    /// session (`wanted`) is let go.
    pub fn select(&mut self, pos: usize) {
        self.selected = pos.min(self.visible.len().saturating_sub(1));
        self.wanted = None;
    }

    /// Where `short` shows among the visible rows.
    pub fn position_of(&self, short: &str) -> Option<usize> {
        let index = self.entry_index(short)?;
        self.visible.iter().position(|&v| v == index)
    }

    /// The result files are read: their entries replace the dataset's, but for variants a run of
    /// this board finished meanwhile (newer than anything read). An agent chosen before that no
    /// result names is let go.
    pub fn results_loaded(&mut self, mut entries: Vec<Entry>) {
        self.loading = None;
        self.agents_named = entries.iter().any(|e| e.agents.keys().any(Option::is_some));
        let known = crate::dataset::agent_names(&entries).into_iter().any(|a| Some(a) == self.agent.as_ref());
        if !known {
            self.agent = None;
        }
        for (new, old) in entries.iter_mut().zip(&self.entries) {
            new.select_agent(self.agent.as_deref());
            for v in Variant::ALL {
                let ran = old.variant(v);
                if ran.loaded && ran.at > new.variant(v).at {
                    new.variants[v as usize] = ran.clone();
                }
            }
        }
        self.entries = entries;
        self.rebuild_rows();
        self.resort();
        if let Some(pos) = self.wanted.take().and_then(|short| self.position_of(&short)) {
            self.selected = pos;
        }
    }

    /// The commit variants whose recorded fixed image is `tag`, with their fixes:
    /// `7c01f706 human (numpy_lt_2)`.
    pub fn fixed_by(&self, tag: &str) -> Vec<String> {
        let fixes = |short: &str, v: Variant| self.book.fixes(short, v.name()).join(", ");
        let users = self.variants_fixed_by(tag).into_iter();
        users.map(|(short, v)| format!("{short} {} ({})", v.name(), fixes(&short, v))).collect()
    }

    /// The newest run in fixed image `tag`: of the variants that run in it, the latest result
    /// dated after the fix that made it.
    pub fn last_run_in(&self, tag: &str) -> Option<Stamp> {
        let users = self.variants_fixed_by(tag).into_iter();
        let runs = users.filter_map(|(short, v)| {
            let made = Stamp::parse(self.book.fixed_at(&short, v.name(), tag)?)?;
            let at = self.entries[self.entry_index(&short)?].variant(v).at?;
            (at >= made).then_some(at)
        });
        runs.max()
    }

    /// The commit variants that run in fixed image `tag`.
    pub fn variants_fixed_by(&self, tag: &str) -> Vec<(Short, Variant)> {
        let mut out = Vec::new();
        for entry in &self.entries {
            let short = &entry.commit.short;
            for v in Variant::ALL {
                if self.book.fixed_image(short, v.name()).as_deref() == Some(tag) {
                    out.push((short.clone(), v));
                }
            }
        }
        out
    }

    /// Every agent with a result for some commit, by name.
    pub fn known_agents(&self) -> Vec<String> {
        crate::dataset::agent_names(&self.entries).into_iter().cloned().collect()
    }

    /// Show the next agent in the A column: newest of any → each agent by name → newest of any.
    pub fn next_agent(&mut self) {
        let agents = self.known_agents();
        let at = self.agent.as_ref().and_then(|a| agents.iter().position(|n| n == a));
        self.agent = match at {
            None => agents.first().cloned(),
            Some(i) => agents.get(i + 1).cloned(),
        };
        for entry in &mut self.entries {
            entry.select_agent(self.agent.as_deref());
        }
        self.rebuild_rows();
        self.resort();
    }

    /// Every row again (the entries may be more than the rows: the dataset's rest was read).
    fn rebuild_rows(&mut self) {
        self.rows = self.entries.iter().map(|e| build_row(e, &self.book)).collect();
    }

    pub fn rebuild_row(&mut self, index: usize) {
        self.rows[index] = build_row(&self.entries[index], &self.book);
    }

    /// The unfixable reason to prefill from the board: the failure's category and evidence line.
    pub fn unfixable_reason(&self, short: &str) -> String {
        let verdict = self.entry_index(short).and_then(|i| self.entries[i].verdict());
        verdict.map(|v| format!("{}: {}", v.category, v.evidence)).unwrap_or_default()
    }

    /// The reason to prefill from the fix menu: the category and the rule's explanation.
    pub fn explained_reason(&self, short: &str, category: &str) -> String {
        let verdict = self.entry_index(short).and_then(|i| self.entries[i].verdict());
        match verdict.map(|v| v.explain.as_str()).filter(|e| !e.is_empty()) {
            Some(explain) => format!("{category}: {explain}"),
            None => category.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Left on a commit its filter shows only once its category is known: kept while the result
    /// files are read (and kept by a quit meanwhile), selected once they are.
    #[test]
    fn a_selection_the_unclassified_head_hides_is_kept_until_the_results_are_read() {
        let commits = crate::dataset::load_embedded().unwrap().commits;
        let classifier = crate::classify::Classifier::embedded().unwrap();
        let (joined, _) = crate::dataset::join(commits.clone(), Default::default(), &classifier);
        let named = |e: &&Entry| !["", crate::classify::UNCLASSIFIED, "skipped"].contains(&e.category());
        let target = joined.iter().rev().find(named).expect("a failure the rules name");
        let short = target.commit.short.to_string();
        let prefs = BoardPrefs {
            sort: Column::Commit,
            sort_reverse: false,
            view: View::All,
            filter: format!("cat:{}", target.category()),
            selected: Some(short.clone()),
            agent: None,
        };
        let mut board = BoardState::new(crate::dataset::unclassified(commits), TriageBook::new());
        board.loading = Some(crate::dataset::Progress::default());
        board.restore(prefs);
        assert_eq!(board.selected_short(), None, "no category is known yet");
        assert_eq!(board.prefs().selected, Some(short.clone()), "a quit now keeps it");
        board.results_loaded(joined);
        assert_eq!(board.selected_short().map(ToString::to_string), Some(short));
        assert_eq!(board.wanted, None);
    }
}
