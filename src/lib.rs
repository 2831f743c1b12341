//! perftriage: a full-screen triage board for ISO-Bench vLLM 3-way benchmark runs.
//!
//! Dependency rule: `ui` → `app` → domain (`dataset`, `logs`, `metrics`, `classify`, `triage`, `report`);
//! only `runtime` and `main` know everything. Domain and `app` never touch the terminal or tokio.

pub mod app;
pub mod classify;
pub mod config;
pub mod dataset;
pub mod docker;
pub mod fixes;
pub mod gpu;
pub mod logs;
pub mod metrics;
pub mod report;
pub mod runs;
pub mod runtime;
pub mod synthetic;
pub mod triage;
pub mod ui;
