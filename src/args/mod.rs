//! The command line: what `perftriage --help` lists, as clap reads it.

mod groups;

pub(crate) use groups::{CampaignCommand, FixCommand, ImageCommand, SlurmCommand};

use clap::{Args, CommandFactory, Parser, Subcommand};
use perftriage::ids::Short;
use perftriage::report::ReportFormat;
use perftriage::session::Options;
use perftriage::triage::Change;
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "perftriage",
    version,
    about = "Triage board for ISO-Bench vLLM 3-way benchmark runs",
    long_about = "Triage board for ISO-Bench vLLM 3-way benchmark runs.\n\nWith no command, perftriage opens \
                  the board: every commit with its status and failure category, logs, fixes and runs from the \
                  keyboard (? lists the keys). The commands below give scripts the same truth.",
    after_help = "Examples:\n  \
                  perftriage                                   # the board on the embedded 96 commits\n  \
                  perftriage --results ../archive status --json   # one JSON object a commit\n  \
                  perftriage campaign start --filter status:failed --auto-fix --retries 2"
)]
pub(crate) struct Cli {
    /// Config file (default: $XDG_CONFIG_HOME/perftriage/config.toml).
    #[arg(long, global = true, help_heading = "Data and workspace (every command)")]
    pub(crate) config: Option<PathBuf>,
    /// Dataset JSONL in the embedded schema (default: the embedded 96 ISO-Bench commits).
    #[arg(long, global = true, help_heading = "Data and workspace (every command)")]
    pub(crate) dataset: Option<PathBuf>,
    /// Directory of ISO-Bench result files, read recursively (repeatable).
    #[arg(long, global = true, help_heading = "Data and workspace (every command)")]
    pub(crate) results: Vec<PathBuf>,
    /// Directory of agent runs (run_summary.json, model_patch.diff, trajectory.json per commit
    /// folder), read recursively (repeatable).
    #[arg(long, global = true, help_heading = "Data and workspace (every command)")]
    pub(crate) trajectories: Vec<PathBuf>,
    /// Workspace directory for triage state (default: the platform data dir).
    #[arg(long, global = true, help_heading = "Data and workspace (every command)")]
    pub(crate) workspace: Option<PathBuf>,
    /// The board's GPU pane: recorded GPU samples (JSON lines) instead of NVML, for demos and tests.
    #[arg(long)]
    pub(crate) gpu_replay: Option<PathBuf>,
    /// Print every load warning, not one line per kind; `status` also says how it read the result
    /// files and where its time went.
    #[arg(long, global = true, help_heading = "Data and workspace (every command)")]
    pub(crate) verbose: bool,
    /// The board's theme: default, light, monochrome, or a path to a theme TOML file.
    #[arg(long)]
    pub(crate) theme: Option<String>,
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
}

impl Cli {
    /// The options every command reads, and the command.
    pub(crate) fn split(self) -> (Options, Option<Command>) {
        let options = Options {
            config: self.config,
            dataset: self.dataset,
            results: self.results,
            trajectories: self.trajectories,
            workspace: self.workspace,
            theme: self.theme,
            gpu_replay: self.gpu_replay,
            verbose: self.verbose,
        };
        (options, self.command)
    }
}

#[derive(Subcommand)]
pub(crate) enum Command {
    /// One line (or, with --json, one JSON object) per commit.
    #[command(after_help = "Example:\n  perftriage status --json --results ../archive | jq -r .short")]
    Status {
        #[arg(long)]
        json: bool,
        /// Fill the agent variant with this agent's results (default: the newest of any agent).
        #[arg(long)]
        agent: Option<String>,
    },
    /// Counts by status, category, kind and GPU; 3-way outcomes; the unfixable list.
    #[command(after_help = "Example:\n  perftriage report --format csv --campaign night > night.csv")]
    Report {
        #[arg(long, value_enum, default_value = "md")]
        format: ReportFormat,
        /// Fill the agent variant with this agent's results (default: the newest of any agent).
        #[arg(long)]
        agent: Option<String>,
        /// The campaign whose outcome it gives (default: the workspace's newest).
        #[arg(long)]
        campaign: Option<String>,
    },
    /// Classify plain logs or result JSON files: category, disposition, fixes, evidence.
    #[command(after_help = "Example:\n  perftriage classify server.log benchmark_result.json --json")]
    Classify {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Parse benchmark metrics from plain logs or result JSON files.
    #[command(after_help = "Example:\n  perftriage metrics benchmark.log")]
    Metrics {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// A commit's patch: the agent's (its run folder, else `[runs] patches`) or the human's
    /// (`git diff parent commit` in `[runs] vllm_repo`). Exit 0, 2 no such commit or patch.
    #[command(after_help = "Example:\n  perftriage patch 22dd9c27 --variant agent --json")]
    Patch {
        short: Short,
        #[arg(long, value_parser = ["human", "agent"])]
        variant: String,
        /// Files with their added and removed lines instead of the diff.
        #[arg(long)]
        json: bool,
    },
    /// How the agent's own run of a commit went: model, status, duration, steps, tool calls.
    #[command(after_help = "Example:\n  perftriage trajectory 22dd9c27")]
    Trajectory {
        short: Short,
        #[arg(long)]
        json: bool,
    },
    /// Run one variant of a commit in Docker; logs on stdout. Exit 0 ok, 3 run failed, 1 tool error.
    #[command(after_help = "Example:\n  perftriage run 22dd9c27 --variant human --repeat auto:8")]
    Run {
        short: Short,
        #[arg(long, value_parser = ["baseline", "human", "agent"])]
        variant: String,
        #[arg(long)]
        json: bool,
        /// A `[[hosts]]` name; without it a host with room is chosen (or DOCKER_HOST's engine).
        #[arg(long)]
        host: Option<String>,
        /// Run the benchmark N times against one server start: the result holds the means and
        /// each run's values, and 3-way deltas get a 95 % confidence interval (default `[runs] repeat`).
        /// `auto[:MAX]`: 3 runs, then more (up to MAX, default 10) while the interval against the
        /// pair's recorded samples crosses ±2 % or ±5 %; a warm-up run (`[runs] warmup`) first.
        #[arg(long)]
        repeat: Option<perftriage::runs::Repeat>,
    },
    /// Build the baseline image from source at the parent (`[build]` knobs); log on stdout,
    /// progress on stderr. Exit 0 built, 3 build failed, 1 tool error.
    #[command(after_help = "Example:\n  perftriage build 22dd9c27 --plan")]
    Build {
        short: Short,
        /// Compiler jobs at once (MAX_JOBS, at least 1); default from `[build]`, else the daemon's memory.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        max_jobs: Option<u32>,
        /// nvcc threads per job (at least 1).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        nvcc_threads: Option<u32>,
        /// Seconds before the build is stopped and its container removed (at least 1).
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
        timeout: Option<u64>,
        /// Print the exact steps, the image and the expected time and disk; build nothing.
        #[arg(long)]
        plan: bool,
    },
    /// The Docker hosts (`[[hosts]]`, else DOCKER_HOST): each connected and probed for GPUs.
    /// Exit 0 every host answered, 3 one did not.
    #[command(after_help = "Example:\n  perftriage hosts --json")]
    Hosts {
        #[arg(long)]
        json: bool,
    },
    /// Runs as Slurm jobs (`[slurm]`): the batch script, submit (and follow), cancel.
    #[command(subcommand)]
    #[command(after_help = "Example:\n  perftriage slurm submit 22dd9c27 --variant baseline --wait")]
    Slurm(SlurmCommand),
    /// Many commits × variants, run one after the other with a policy, resumable from its journal.
    #[command(subcommand)]
    #[command(
        after_help = "Example:\n  perftriage campaign start --filter status:failed --auto-fix --retries 2"
    )]
    Campaign(CampaignCommand),
    /// GPU telemetry (NVML, else nvidia-smi, else --gpu-replay). Exit 1 when no GPU can be read.
    #[command(after_help = "Example:\n  perftriage gpu --once --json")]
    Gpu {
        #[arg(long)]
        once: bool,
        #[arg(long)]
        json: bool,
        #[arg(long, default_value_t = 1000)]
        interval: u64,
        /// Recorded GPU samples (JSON lines) instead of NVML.
        #[arg(long = "gpu-replay", value_name = "FILE")]
        replay: Option<PathBuf>,
    },
    /// Known fixes: list them (for a commit: the ones its failures suggest) or apply one.
    #[command(subcommand)]
    #[command(
        after_help = "Example:\n  perftriage fix apply 22dd9c27 --variant baseline --recipe numpy_lt_2 --commit-image"
    )]
    Fix(FixCommand),
    /// Fixed images and a registry: push a variant's fixed image (`[registry]`), pull it back by digest.
    #[command(subcommand)]
    #[command(after_help = "Example:\n  perftriage image list")]
    Image(ImageCommand),
    /// Record a triage decision for a commit.
    #[command(after_help = "Example:\n  perftriage mark 22dd9c27 --unfixable \"needs a CUDA 12.4 build\"")]
    Mark(MarkArgs),
    /// The manual page (roff) on stdout, or with --out one page per command in DIR.
    #[command(after_help = "Example:\n  perftriage man | man -l -")]
    Man {
        /// Write perftriage.1 and a page per command (perftriage-status.1, …) into this folder.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Write a synthetic vLLM log of N lines (benchmarks).
    #[command(hide = true)]
    SynthLog {
        #[arg(long, default_value_t = 10_000_000)]
        lines: usize,
        out: PathBuf,
    },
    /// Ingest a log file into a LogStore (spool + ring) and report the rate (benchmarks).
    #[command(hide = true)]
    Ingest {
        file: PathBuf,
        #[arg(long)]
        spool: PathBuf,
        /// Then search the whole spool for this regex (case-insensitive; repeat for more).
        #[arg(long)]
        search: Vec<String>,
    },
    /// Write a synthetic workload (dataset + result files) for benchmarks.
    #[command(hide = true)]
    Synth {
        #[arg(long, default_value_t = 10_000)]
        commits: usize,
        #[arg(long, default_value_t = 3)]
        files_per_commit: usize,
        out: PathBuf,
    },
}

#[derive(Args)]
pub(crate) struct MarkArgs {
    /// Commit short hash.
    pub(crate) short: Short,
    #[command(flatten)]
    pub(crate) change: ChangeArgs,
}

/// Exactly one triage change.
#[derive(Args)]
#[group(required = true, multiple = false)]
pub(crate) struct ChangeArgs {
    /// Mark unfixable, with the reason.
    #[arg(long, value_name = "REASON")]
    pub(crate) unfixable: Option<String>,
    #[arg(long)]
    pub(crate) skip: bool,
    #[arg(long)]
    pub(crate) clear: bool,
    #[arg(long, value_name = "TEXT")]
    pub(crate) note: Option<String>,
}

impl ChangeArgs {
    pub(crate) fn change(&self) -> Change {
        match (&self.unfixable, &self.note) {
            (Some(reason), _) => Change::Unfixable { reason: reason.clone() },
            (_, Some(text)) => Change::Note { text: text.clone() },
            _ if self.skip => Change::Skip,
            _ => Change::Clear,
        }
    }
}

/// `perftriage man`: the manual page generated from these definitions, on stdout or (with a
/// folder) one page per command.
pub(crate) fn man(out: Option<&std::path::Path>) -> std::io::Result<()> {
    let command = Cli::command();
    match out {
        Some(dir) => clap_mangen::generate_to(command, dir),
        None => clap_mangen::Man::new(command).render(&mut std::io::stdout().lock()),
    }
}
