//! Headless `patch SHORT --variant agent|human [--json]` and `trajectory SHORT [--json]`: what
//! the agent and the human changed, and how the agent's own run went. Exit 0; 2 when there is no
//! such commit, patch or run (the reason on stderr).

use crate::agents::{self, AgentRun, Trajectory};
use crate::dataset::Variant;
use crate::session::Context;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;
use std::process::ExitCode;

/// Lines of the task prompt shown.
const TASK_LINES: usize = 5;

pub fn patch(ctx: &Context, short: &str, variant: Variant, json: bool) -> anyhow::Result<ExitCode> {
    let Some(entry) = ctx.find(short) else { return Ok(ExitCode::from(2)) };
    let runs = ctx.agent_runs();
    let patch = match agents::patch(&entry.commit, variant, &runs, &ctx.config.runs) {
        Ok(patch) => patch,
        Err(why) => {
            super::out::err(&format!("perftriage: {why}"));
            return Ok(ExitCode::from(2));
        }
    };
    let mut out = super::out::stdout();
    if json {
        let row = PatchRow { variant: variant.name(), source: &patch.source, stats: &patch.stats };
        writeln!(out, "{}", super::out::json(&row)?)?;
    } else {
        out.write_all(patch.text.as_bytes())?;
    }
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}

#[derive(Serialize)]
struct PatchRow<'a> {
    variant: &'static str,
    source: &'a str,
    #[serde(flatten)]
    stats: &'a agents::DiffStats,
}

pub fn trajectory(ctx: &Context, short: &str, json: bool) -> anyhow::Result<ExitCode> {
    let Some(entry) = ctx.find(short) else { return Ok(ExitCode::from(2)) };
    let runs = ctx.agent_runs();
    let Some(run) = runs.newest(&entry.commit.short) else {
        let dirs: Vec<String> = ctx.trajectory_dirs.iter().map(|d| d.display().to_string()).collect();
        super::out::err(&format!(
            "perftriage: no agent run of {short} under --trajectories [{}]",
            dirs.join(", ")
        ));
        return Ok(ExitCode::from(2));
    };
    let row = TrajectoryRow::of(run);
    let mut out = super::out::stdout();
    if json {
        writeln!(out, "{}", super::out::json(&row)?)?;
    } else {
        for line in row.lines() {
            writeln!(out, "{line}")?;
        }
    }
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}

/// `trajectory --json`: null where the run did not record it.
#[derive(Debug, Serialize)]
pub struct TrajectoryRow {
    pub short: String,
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
    /// What could not be read, a line each.
    pub problems: Vec<String>,
}

impl TrajectoryRow {
    pub fn of(run: &AgentRun) -> TrajectoryRow {
        let mut problems = run.problems.clone();
        let trajectory = run
            .trajectory()
            .and_then(|path| agents::trajectory::read(&path).map_err(|e| problems.push(e.to_string())).ok());
        let t = trajectory.as_ref();
        TrajectoryRow {
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
            problems,
        }
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
                or_none(self.final_message.as_deref().map(agents::trajectory::first_line))
            ),
        ];
        lines.extend(self.task.iter().flatten().map(|l| format!("task: {l}")));
        lines.extend(self.problems.iter().map(|p| format!("problem: {p}")));
        lines
    }
}

/// The task prompt's first lines: `task.txt`, else the trajectory's `task`.
fn task_lines(run: &AgentRun, trajectory: Option<&Trajectory>) -> Option<Vec<String>> {
    let from_file = run.task_file().and_then(|p| std::fs::read_to_string(p).ok());
    let text = from_file.or_else(|| trajectory?.task.clone())?;
    Some(text.lines().filter(|l| !l.trim().is_empty()).take(TASK_LINES).map(str::to_string).collect())
}

/// The report's patch rows: a row per commit with at least one patch known.
pub fn patch_rows(entries: &[crate::dataset::Entry], ctx: &Context) -> Vec<crate::report::PatchRow> {
    let runs = ctx.agent_runs();
    let stats = |entry: &crate::dataset::Entry, v: Variant| {
        agents::patch(&entry.commit, v, &runs, &ctx.config.runs).ok().map(|p| p.stats)
    };
    let mut rows = Vec::new();
    for entry in entries {
        let (human, agent) = (stats(entry, Variant::Human), stats(entry, Variant::Agent));
        if human.is_none() && agent.is_none() {
            continue;
        }
        let shared = human.as_ref().zip(agent.as_ref()).map(|(h, a)| h.shared_paths(a).len());
        rows.push(crate::report::PatchRow {
            commit: entry.commit.short.clone(),
            human_files: human.map(|h| h.files.len()),
            agent_files: agent.map(|a| a.files.len()),
            shared_files: shared,
        });
    }
    rows
}
