//! An agent's own run, from its `trajectory.json`: read as a stream with only what is shown kept
//! (a step's messages, often most of the file, are skipped as they are parsed), so a 50 MB
//! trajectory costs its parse, not its size in memory.

use serde::Deserialize;
use serde::de::IgnoredAny;
use std::collections::BTreeMap;
use std::path::Path;

/// Files larger than this are not read (a clear line says so).
pub const MAX_BYTES: u64 = 512 << 20;

#[derive(Debug, Default, Deserialize)]
struct File {
    task: Option<String>,
    model: Option<String>,
    #[serde(default)]
    llm_interactions: Vec<IgnoredAny>,
    #[serde(default)]
    agent_steps: Vec<RawStep>,
    final_result: Option<String>,
    execution_time: Option<f64>,
}

#[derive(Debug, Default, Deserialize)]
struct RawStep {
    step_number: Option<u64>,
    timestamp: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<ToolCall>>,
    #[serde(default)]
    tool_results: Option<Vec<ToolResult>>,
    llm_response: Option<Response>,
    error: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct ToolCall {
    name: Option<String>,
    arguments: Option<serde_json::Value>,
}

#[derive(Debug, Default, Deserialize)]
struct ToolResult {
    result: Option<String>,
    error: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct Response {
    content: Option<String>,
}

/// One step as the run pane lists it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Step {
    pub number: u64,
    pub at: Option<String>,
    /// The tools it called, in order (`-` for a step that called none).
    pub tool: String,
    /// The first line of its first call's input (the command, the file), else of its reply.
    pub input: String,
    /// The first line of its first result, or its error.
    pub result: String,
}

/// What a trajectory says of the run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Trajectory {
    pub model: Option<String>,
    pub task: Option<String>,
    pub steps: Vec<Step>,
    pub llm_calls: usize,
    pub tool_calls: BTreeMap<String, usize>,
    pub final_message: Option<String>,
    pub execution_s: Option<f64>,
}

#[derive(Debug, thiserror::Error)]
pub enum TrajectoryError {
    #[error("{path}: cannot read: {source}")]
    Read { path: String, source: std::io::Error },
    #[error("{path}: {bytes} bytes, more than the {MAX_BYTES} read")]
    TooLarge { path: String, bytes: u64 },
    #[error("{path}: not a trajectory: {source}")]
    Json { path: String, source: serde_json::Error },
}

pub fn read(path: &Path) -> Result<Trajectory, TrajectoryError> {
    let shown = path.display().to_string();
    let read_error = |source| TrajectoryError::Read { path: shown.clone(), source };
    let file = std::fs::File::open(path).map_err(read_error)?;
    let bytes = file.metadata().map_err(read_error)?.len();
    if bytes > MAX_BYTES {
        return Err(TrajectoryError::TooLarge { path: shown, bytes });
    }
    let raw: File = serde_json::from_reader(std::io::BufReader::with_capacity(1 << 20, file))
        .map_err(|source| TrajectoryError::Json { path: shown, source })?;
    Ok(summarise(raw))
}

fn summarise(raw: File) -> Trajectory {
    let mut tool_calls = BTreeMap::new();
    for call in raw.agent_steps.iter().flat_map(|s| s.tool_calls.iter().flatten()) {
        *tool_calls.entry(call.name.clone().unwrap_or_else(|| "?".into())).or_insert(0) += 1;
    }
    let mut replies = raw.agent_steps.iter().rev().filter_map(|s| s.llm_response.as_ref()?.content.as_ref());
    let last_reply = replies.find(|c| !c.trim().is_empty()).cloned();
    let final_message = raw.final_result.filter(|m| !m.trim().is_empty()).or(last_reply);
    let steps = raw.agent_steps.into_iter().enumerate().map(|(i, s)| step(i, s)).collect();
    Trajectory {
        model: raw.model,
        task: raw.task,
        steps,
        llm_calls: raw.llm_interactions.len(),
        tool_calls,
        final_message,
        execution_s: raw.execution_time,
    }
}

fn step(index: usize, raw: RawStep) -> Step {
    let calls = raw.tool_calls.unwrap_or_default();
    let names: Vec<&str> = calls.iter().map(|c| c.name.as_deref().unwrap_or("?")).collect();
    let tool = if names.is_empty() { "-".to_string() } else { names.join(",") };
    let reply = raw.llm_response.and_then(|r| r.content).unwrap_or_default();
    let input = calls.first().and_then(|c| c.arguments.as_ref()).map_or(reply, argument_text);
    let results = raw.tool_results.unwrap_or_default();
    let first = results.first().map(|r| r.error.clone().filter(|e| !e.is_empty()).or(r.result.clone()));
    let result = raw.error.or(first.flatten()).unwrap_or_default();
    Step {
        number: raw.step_number.unwrap_or(index as u64 + 1),
        at: raw.timestamp,
        tool,
        input: first_line_within(&input, STEP_LINE),
        result: first_line_within(&result, STEP_LINE),
    }
}

/// A call's input in a line: its command and path (an editor's `create x.py`), else its
/// first string argument, else its JSON.
fn argument_text(arguments: &serde_json::Value) -> String {
    let named = |keys: &[&str]| keys.iter().find_map(|k| arguments.get(k)?.as_str());
    match (named(&["command", "query"]), named(&["path", "file_path"])) {
        (Some(command), Some(path)) => format!("{command} {path}"),
        (Some(text), None) | (None, Some(text)) => text.to_string(),
        (None, None) => arguments.as_str().map_or_else(|| arguments.to_string(), str::to_string),
    }
}

/// What a step keeps of its input and result line: enough for the worktree's paths to be made
/// relative before the line is cut to what is shown (`SHOWN_LINE`).
const STEP_LINE: usize = 4096;

/// The characters of a line shown.
pub const SHOWN_LINE: usize = 200;

/// The first non-empty line, at most `SHOWN_LINE` characters.
pub fn first_line(text: &str) -> String {
    first_line_within(text, SHOWN_LINE)
}

fn first_line_within(text: &str, max: usize) -> String {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    line.chars().take(max).collect()
}
