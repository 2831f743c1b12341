//! What the agent and the human changed, and how the agent's own run went: unified diffs read
//! for their files and lines, agent-run folders (`--trajectories`) and their trajectories.

pub mod diff;
pub mod document;
pub mod runs;
pub mod source;
pub mod summary;
pub mod trajectory;

pub use diff::{DiffError, DiffStats, FileChange};
pub use runs::{AgentRun, AgentRuns};
pub use source::{Patch, SourceError, patch};
pub use summary::RunSummary;
pub use trajectory::{Step, Trajectory, TrajectoryError};
