//! The command groups below the top level: `fix`, `campaign`, `slurm` and `image`.

use clap::Subcommand;
use perftriage::ids::Short;

#[derive(Subcommand)]
pub(crate) enum FixCommand {
    /// All recipes, or the ones a commit's failures suggest.
    #[command(after_help = "Example:\n  perftriage fix list 22dd9c27")]
    List { short: Option<String> },
    /// Apply a recipe in a container from the variant's image, verify it, then re-run the variant
    /// there (or, with --commit-image, save it as the variant's fixed image).
    #[command(
        after_help = "Example:\n  perftriage fix apply 22dd9c27 --variant baseline --recipe numpy_lt_2 --commit-image"
    )]
    Apply {
        short: Short,
        #[arg(long, value_parser = ["baseline", "human", "agent"])]
        variant: String,
        #[arg(long)]
        recipe: String,
        #[arg(long)]
        commit_image: bool,
        /// A `[[hosts]]` name for the fix and its re-run (default: the host placement picks).
        #[arg(long)]
        host: Option<String>,
    },
}

#[derive(Subcommand)]
pub(crate) enum CampaignCommand {
    /// Start one: every (commit, variant) asked for, then the policy's fixes and retries.
    /// Exit 0 every run succeeded, 3 some were left failed, 2 a bad request, 1 a tool error.
    #[command(
        after_help = "Example:\n  perftriage campaign start --commits 22dd9c27,fc542144 --auto-fix --retries 2 --name night"
    )]
    Start {
        /// Short hashes, space- or comma-separated (default: every commit the filter shows).
        #[arg(long, num_args = 1..)]
        commits: Vec<String>,
        /// The board's filter language (`cat:numpy2`, `status:failed`, words).
        #[arg(long)]
        filter: Option<String>,
        /// Only the failing (commit, variant) cells among those asked.
        #[arg(long)]
        failing: bool,
        /// Only the cells campaign NAME left failed (instead of --commits, --filter, --failing, --variants).
        #[arg(long, value_name = "NAME", conflicts_with_all = ["commits", "filter", "failing"])]
        rerun_failed: Option<String>,
        /// When it ends (or is paused or cancelled), run `sh -c CMD` with its summary JSON on stdin.
        #[arg(long, value_name = "CMD")]
        notify: Option<String>,
        /// `baseline,human,agent` or `b,h,a`.
        #[arg(long, default_value = "b,h,a")]
        variants: String,
        /// Benchmark runs a server start, as `run --repeat` (default `[runs] repeat`).
        #[arg(long)]
        repeat: Option<perftriage::runs::Repeat>,
        /// A failure a known recipe answers is fixed (its image committed) and run again once.
        #[arg(long)]
        auto_fix: bool,
        /// Infrastructure failures (Docker lost, a pull that failed) are retried this many times.
        #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=10))]
        retries: u32,
        /// Seconds before the first retry; each next one waits twice as long, at most 600.
        #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=600))]
        retry_wait: u64,
        /// Runs at once (default: the `[[hosts]]` slots, 1 without hosts).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
        concurrency: Option<u32>,
        /// Runs go to Slurm (`[slurm]`) as batch jobs, followed again after a restart.
        #[arg(long)]
        slurm: bool,
        /// Its name, the folder of its journal (default: `campaign-<time>`).
        #[arg(long)]
        name: Option<String>,
    },
    /// Every campaign of the workspace, newest first: state, started, ended, cells ✓/✗, usable before → now.
    #[command(after_help = "Example:\n  perftriage campaign list --json")]
    List {
        #[arg(long)]
        json: bool,
    },
    /// How it stands (the newest campaign without a name): its outcome, then every cell's state,
    /// image and fixes, runs, time, result file and next step. Exit 0 none left failed, 3 some.
    #[command(after_help = "Example:\n  perftriage campaign status night --csv")]
    Status {
        name: Option<String>,
        #[arg(long, conflicts_with = "csv")]
        json: bool,
        /// One CSV line per (commit, variant), a header first.
        #[arg(long)]
        csv: bool,
    },
    /// Go on where it stopped: runs in flight picked up, finished ones never run twice.
    #[command(after_help = "Example:\n  perftriage campaign resume night")]
    Resume {
        name: String,
        /// When it ends (or is paused or cancelled), run `sh -c CMD` with its summary JSON on stdin.
        #[arg(long, value_name = "CMD")]
        notify: Option<String>,
    },
    /// Stop before its next step (`resume` goes on).
    #[command(after_help = "Example:\n  perftriage campaign pause night")]
    Pause { name: String },
    /// Stop for good before its next step; with `--run`, stop that one run only (its cell is left).
    #[command(after_help = "Example:\n  perftriage campaign cancel night --run <RUN>")]
    Cancel {
        name: String,
        /// A run of the campaign in flight (`campaign status` lists them).
        #[arg(long)]
        run: Option<String>,
    },
}

#[derive(Subcommand)]
pub(crate) enum SlurmCommand {
    /// Print the batch script a run of this variant is submitted with.
    #[command(after_help = "Example:\n  perftriage slurm script 22dd9c27 --variant agent")]
    Script {
        short: Short,
        #[arg(long, value_parser = ["baseline", "human", "agent"])]
        variant: String,
    },
    /// Submit the run; with --wait, follow it (state, its log) and read its result back.
    /// Exit 0 the run succeeded, 3 it failed, 1 tool error.
    #[command(after_help = "Example:\n  perftriage slurm submit 22dd9c27 --variant baseline --wait")]
    Submit {
        short: Short,
        #[arg(long, value_parser = ["baseline", "human", "agent"])]
        variant: String,
        #[arg(long)]
        wait: bool,
    },
    /// Cancel a job (scancel): its payload removes its container on the signal.
    #[command(after_help = "Example:\n  perftriage slurm cancel 4211")]
    Cancel { job: u64 },
}

#[derive(Subcommand)]
pub(crate) enum ImageCommand {
    /// Push the variant's fixed image to the registry; its digest is recorded.
    #[command(after_help = "Example:\n  perftriage image push 22dd9c27 --variant baseline")]
    Push {
        short: Short,
        #[arg(long, value_parser = ["baseline", "human", "agent"])]
        variant: String,
    },
    /// Pull the variant's pushed image back by its recorded digest, under its local name.
    #[command(after_help = "Example:\n  perftriage image pull 22dd9c27 --variant baseline")]
    Pull {
        short: Short,
        #[arg(long, value_parser = ["baseline", "human", "agent"])]
        variant: String,
    },
    /// List the fixed and built images here: size, when made, what runs in them, whose they are.
    #[command(after_help = "Example:\n  perftriage image list --json")]
    List {
        #[arg(long)]
        json: bool,
    },
    /// Remove a fixed image of this workspace (never another workspace's: it says whose).
    #[command(after_help = "Example:\n  perftriage image rm perftriage-fixed:baseline-0123456789ab-1a2b3c4d")]
    Rm { image: perftriage::ids::ImageRef },
}
