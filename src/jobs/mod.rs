//! Executors: one job = one container (a run, a fix probe, a fix), the log line path every job's
//! output takes, and the board's job service that turns effects into tasks and reports back.

pub mod build;
pub mod build_job;
pub mod campaign;
pub mod cell_document;
pub mod documents;
pub mod driver;
pub mod executor;
pub mod fix;
pub mod fixing;
pub mod fleet;
pub mod follow;
pub mod git;
pub mod images;
pub mod journal;
pub mod launches;
pub mod left_running;
pub mod lines;
pub mod logs;
pub mod orphans;
pub mod owners;
pub mod planned;
pub mod probe;
pub mod run;
pub mod service;
pub mod signals;
pub mod slurm;
