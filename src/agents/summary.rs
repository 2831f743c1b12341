//! What an agent run comes to, as `trajectory` prints it and the board's run pane heads it:
//! agent, model, status, times, counts, the final message and the task's first lines.

use super::runs::AgentRun;
use super::trajectory::Trajectory;
use crate::ids::Short;
use serde::Serialize;
use std::collections::BTreeMap;

/// Lines of the task prompt shown.
const TASK_LINES: usize = 5;

/// `trajectory --json`: null where the run did not record it.
#[derive(Debug, Serialize)]
pub struct RunSummary {
    pub short: Short,
    pub source: String,
    pub agent: Option<String>,
    pub model: Option<String>,
    pub status: Option<String>,
    pub duration_s: Option<f64>,
    pub steps: Option<usize>,
    pub llm_calls: Option<usize>,
    pub tool_calls: Option<BTreeMap<String, usize>>,
    pub time_to_first_edit_s: Option<f64>,
    pub final_message: Option<String>,
    pub task: Option<Vec<String>>,
    /// The agent's working copy, as its task names it.
    pub worktree: Option<String>,
    /// What could not be read, a line each.
    pub problems: Vec<String>,
}

impl RunSummary {
    /// The run's summary, and its trajectory where it has one (read once, for its steps too).
    pub fn read(run: &AgentRun) -> (RunSummary, Option<Trajectory>) {
        let mut problems = run.problems.clone();
        let trajectory = run
            .trajectory()
            .and_then(|path| super::trajectory::read(&path).map_err(|e| problems.push(e.to_string())).ok());
        let t = trajectory.as_ref();
        let summary = RunSummary {
            short: run.short.clone(),
            source: run.dir.display().to_string(),
            agent: run.agent.clone(),
            model: run.model.clone().or_else(|| t?.model.clone()),
            status: run.status.clone(),
            duration_s: run.duration_s.or_else(|| t?.execution_s),
            steps: t.map(|t| t.steps.len()),
            llm_calls: t.map(|t| t.llm_calls),
            tool_calls: t.map(|t| t.tool_calls.clone()),
            time_to_first_edit_s: run.time_to_first_edit_s,
            final_message: t.and_then(|t| t.final_message.clone()),
            task: task_lines(run, t),
            worktree: None,
            problems,
        };
        let summary = RunSummary { worktree: summary.task.as_deref().and_then(worktree_of), ..summary };
        (summary, trajectory)
    }

    /// The plain form: a line a field, then what could not be read.
    pub fn lines(&self) -> Vec<String> {
        let or_none = |v: Option<String>| v.unwrap_or_else(|| "-".into());
        let secs = |v: Option<f64>| or_none(v.map(|s| format!("{s:.0} s")));
        let tools = self.tool_calls.as_ref().map(|t| {
            let mut by_count: Vec<_> = t.iter().collect();
            by_count.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            by_count.iter().map(|(tool, n)| format!("{tool} {n}")).collect::<Vec<_>>().join(", ")
        });
        let mut lines = vec![
            format!("{} {} ({})", self.short, or_none(self.agent.clone()), or_none(self.model.clone())),
            format!(
                "status: {}  duration: {}  first edit after: {}",
                or_none(self.status.clone()),
                secs(self.duration_s),
                secs(self.time_to_first_edit_s)
            ),
            format!(
                "steps: {}  LLM calls: {}  tools: {}",
                or_none(self.steps.map(|n| n.to_string())),
                or_none(self.llm_calls.map(|n| n.to_string())),
                or_none(tools)
            ),
            format!(
                "final message: {}",
                or_none(self.final_message.as_deref().map(super::trajectory::first_line))
            ),
        ];
        lines.extend(self.task.iter().flatten().map(|l| format!("task: {l}")));
        lines.extend(self.problems.iter().map(|p| format!("problem: {p}")));
        lines
    }
}

/// The agent's working copy as its task names it (`… a python code repository in the directory
/// /home/…/vllm_gpt5_rerun_9ed82e70.`).
fn worktree_of(task: &[String]) -> Option<String> {
    task.iter().find_map(|line| {
        let (_, rest) = line.split_once("in the directory ")?;
        let path = rest.split_whitespace().next()?.trim_end_matches('.');
        (path.len() > 1 && path.starts_with('/')).then(|| path.to_string())
    })
}

impl RunSummary {
    /// `text` with the worktree's paths made relative to it (`/…/wt/vllm/x.py` → `vllm/x.py`,
    /// the worktree itself → `.`).
    pub fn relative(&self, text: &str) -> String {
        match &self.worktree {
            Some(wt) => text.replace(&format!("{wt}/"), "").replace(wt.as_str(), "."),
            None => text.to_string(),
        }
    }
}

/// The task prompt's first lines: `task.txt`, else the trajectory's `task`.
fn task_lines(run: &AgentRun, trajectory: Option<&Trajectory>) -> Option<Vec<String>> {
    let from_file = run.task_file().and_then(|p| std::fs::read_to_string(p).ok());
    let text = from_file.or_else(|| trajectory?.task.clone())?;
    Some(text.lines().filter(|l| !l.trim().is_empty()).take(TASK_LINES).map(str::to_string).collect())
}
