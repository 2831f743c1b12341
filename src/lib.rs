//! perftriage: a full-screen triage board for ISO-Bench vLLM 3-way benchmark runs.
//!
//! Layers, lowest first; a module imports only from its own layer or below, never in a cycle
//! (`tests/layers.rs` checks both):
//! 1. domain — `ids logs classify metrics dataset triage report fixes runs builds campaigns telemetry config files
//!    synthetic startup`
//! 2. adapters — `docker` (bollard), `gpu` (NVML, nvidia-smi, replay)
//! 3. `app` — model + update, pure; 4. `ui` — view, read-only
//! 5. `session` — loads config, dataset, results, workspace
//! 6. `jobs` — executors (run, fix), the log line path, the board's job service
//! 7. `cli` (headless commands) and `runtime` (event loop, terminal) — neither imports the other

pub mod agents;
pub mod app;
pub mod builds;
pub mod campaigns;
pub mod checked;
pub mod classify;
pub mod cli;
pub mod config;
pub mod dataset;
pub mod docker;
pub mod files;
pub mod fixes;
pub mod gpu;
pub mod ids;
pub mod jobs;
pub mod logs;
pub mod metrics;
pub mod report;
pub mod runs;
pub mod runtime;
pub mod session;
pub mod startup;
pub mod synthetic;
pub mod telemetry;
pub mod triage;
pub mod ui;
