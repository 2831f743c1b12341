//! Agent-run folders (the ISO-Bench export's `<repo>/<short>/`): found below some folders by the
//! files they hold (`run_summary.json`, `model_patch.diff`), matched to commits by the human
//! commit their summary names (else the folder's name), several runs of a commit kept by time.

use crate::dataset::short_from_name;
use crate::ids::Short;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Debug, Default, Deserialize)]
struct Summary {
    meta: Option<Meta>,
    commits: Option<Commits>,
    agent: Option<AgentPart>,
}

#[derive(Debug, Default, Deserialize)]
struct Meta {
    agent: Option<String>,
    model: Option<String>,
    model_full: Option<String>,
    timestamp: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct Commits {
    human: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct AgentPart {
    status: Option<String>,
    duration_s: Option<f64>,
    time_to_first_edit_s: Option<f64>,
}

/// One agent run of one commit.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentRun {
    pub dir: PathBuf,
    pub short: Short,
    /// The agent as result folders name it (`trae_gpt5`), where the summary says.
    pub agent: Option<String>,
    /// The model's full name as the run recorded it (`gpt-5-2025-08-07`).
    pub model: Option<String>,
    /// When the run started, as its summary writes it.
    pub started: Option<String>,
    /// The summary's agent status (`success`, `error`, …).
    pub status: Option<String>,
    pub duration_s: Option<f64>,
    pub time_to_first_edit_s: Option<f64>,
    /// What was wrong with the folder's files, a line each.
    pub problems: Vec<String>,
}

impl AgentRun {
    pub fn patch(&self) -> Option<PathBuf> {
        Some(self.dir.join("model_patch.diff")).filter(|p| p.is_file())
    }

    pub fn trajectory(&self) -> Option<PathBuf> {
        Some(self.dir.join("trajectory.json")).filter(|p| p.is_file())
    }

    /// The prompt the agent was given: `task.txt`.
    pub fn task_file(&self) -> Option<PathBuf> {
        Some(self.dir.join("task.txt")).filter(|p| p.is_file())
    }
}

/// Every run found, by commit, oldest first; and folders that name no commit.
#[derive(Debug, Default)]
pub struct AgentRuns {
    pub by_commit: BTreeMap<Short, Vec<AgentRun>>,
    pub warnings: Vec<String>,
}

impl AgentRuns {
    /// The newest run of a commit.
    pub fn newest(&self, short: &str) -> Option<&AgentRun> {
        self.by_commit.get(short)?.last()
    }
}

/// The agent-run folders below `dirs` (recursively; links followed once).
pub fn find(dirs: &[PathBuf]) -> AgentRuns {
    let mut runs = AgentRuns::default();
    let mut seen = std::collections::HashSet::new();
    let mut stack: Vec<PathBuf> = dirs.to_vec();
    while let Some(dir) = stack.pop() {
        let Ok(real) = dir.canonicalize() else {
            runs.warnings.push(format!("{}: cannot read directory", dir.display()));
            continue;
        };
        if !seen.insert(real) {
            continue;
        }
        if is_run_folder(&dir) {
            match read_run(&dir) {
                Some(run) => runs.by_commit.entry(run.short.clone()).or_default().push(run),
                None => runs.warnings.push(format!("{}: an agent run that names no commit", dir.display())),
            }
        }
        stack.extend(subfolders(&dir));
    }
    for list in runs.by_commit.values_mut() {
        list.sort_by(|a, b| a.started.cmp(&b.started).then_with(|| a.dir.cmp(&b.dir)));
    }
    runs
}

fn subfolders(dir: &Path) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(dir).into_iter().flatten().flatten();
    entries.map(|e| e.path()).filter(|p| p.is_dir()).collect()
}

fn is_run_folder(dir: &Path) -> bool {
    dir.join("run_summary.json").is_file() || dir.join("model_patch.diff").is_file()
}

/// A folder's run; `None` when neither its summary nor its name says which commit.
fn read_run(dir: &Path) -> Option<AgentRun> {
    let mut problems = Vec::new();
    let summary = read_summary(dir, &mut problems);
    let named = summary.commits.as_ref().and_then(|c| c.human.as_deref()).and_then(short_from_name);
    let short = named.or_else(|| short_from_name(dir.file_name()?.to_str()?))?;
    let meta = summary.meta.unwrap_or_default();
    let agent_part = summary.agent.unwrap_or_else(|| {
        problems.push(format!("{}: run_summary.json has no agent section", dir.display()));
        AgentPart::default()
    });
    Some(AgentRun {
        dir: dir.to_path_buf(),
        short: short.into(),
        agent: meta.agent.as_deref().map(|a| agent_name(a, meta.model.as_deref())),
        model: meta.model_full.or(meta.model),
        started: meta.timestamp,
        status: agent_part.status,
        duration_s: agent_part.duration_s,
        time_to_first_edit_s: agent_part.time_to_first_edit_s,
        problems,
    })
}

fn read_summary(dir: &Path, problems: &mut Vec<String>) -> Summary {
    let path = dir.join("run_summary.json");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(_) if !path.exists() => return Summary::default(),
        Err(e) => {
            problems.push(format!("{}: cannot read: {e}", path.display()));
            return Summary::default();
        }
    };
    serde_json::from_str(&text).unwrap_or_else(|e| {
        problems.push(format!("{}: not a run summary: {e}", path.display()));
        Summary::default()
    })
}

/// The agent as result folders name it: the agent, then its model without punctuation or a
/// vendor prefix (`trae` + `gpt-5` → `trae_gpt5`, + `claude-sonnet-4-5` → `trae_sonnet45`).
pub fn agent_name(agent: &str, model: Option<&str>) -> String {
    // Names come from hostile fields: escapes go whole before anything is kept.
    let agent: String = crate::logs::display_text(agent)
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || "_-".contains(*c))
        .collect();
    let model: String =
        crate::logs::display_text(model.unwrap_or("")).chars().filter(char::is_ascii_alphanumeric).collect();
    let model = model.to_ascii_lowercase();
    let model = model.strip_prefix("claude").unwrap_or(&model);
    if model.is_empty() { agent.to_string() } else { format!("{agent}_{model}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_agent_name_built_from_hostile_fields_keeps_no_escape_fragment() {
        assert_eq!(agent_name("trae\u{1b}[0m", Some("gpt-5\u{1b}[31m")), "trae_gpt5");
        assert_eq!(agent_name("a b;rm", None), "abrm");
    }
}
