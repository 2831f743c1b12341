//! Headless commands: the same truth as the board, for scripts. One file per command; each
//! returns its exit code (0 ok, 1 runtime error, 2 usage, 3 a run or fix failed).

pub mod agents;
pub mod build;
pub mod campaign;
pub mod fix;
pub mod gpu;
pub mod headless;
pub mod hosts;
pub mod image;
pub mod inspect;
pub mod out;
pub mod run;
pub mod slurm;
pub mod status_cache;
pub mod warnings;

/// The runtime a headless command drives Docker with (two workers: this machine's size).
fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()
}
