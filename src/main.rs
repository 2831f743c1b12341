//! CLI entry: parse arguments, then run the board or a headless command. Exit codes: 0 ok,
//! 1 runtime error, 2 usage.

use clap::{Args, Parser, Subcommand};
use perftriage::cli::{headless, inspect};
use perftriage::report::ReportFormat;
use perftriage::runtime;
use perftriage::session::{Context, Options};
use perftriage::triage::Change;
use perftriage::ui::Theme;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "perftriage", version, about = "Triage board for ISO-Bench vLLM 3-way benchmark runs")]
struct Cli {
    /// Config file (default: $XDG_CONFIG_HOME/perftriage/config.toml).
    #[arg(long, global = true)]
    config: Option<PathBuf>,
    /// Dataset JSONL in the embedded schema (default: the embedded 96 ISO-Bench commits).
    #[arg(long, global = true)]
    dataset: Option<PathBuf>,
    /// Directory of ISO-Bench result files, read recursively (repeatable).
    #[arg(long, global = true)]
    results: Vec<PathBuf>,
    /// Directory of agent runs (run_summary.json, model_patch.diff, trajectory.json per commit
    /// folder), read recursively (repeatable).
    #[arg(long, global = true)]
    trajectories: Vec<PathBuf>,
    /// Workspace directory for triage state (default: the platform data dir).
    #[arg(long, global = true)]
    workspace: Option<PathBuf>,
    /// Recorded GPU samples (JSON lines) to use instead of NVML, for demos and tests.
    #[arg(long, global = true)]
    gpu_replay: Option<PathBuf>,
    /// Print every load warning, not one line per kind.
    #[arg(long, global = true)]
    verbose: bool,
    /// Theme: default, light, monochrome, or a path to a theme TOML file.
    #[arg(long, global = true)]
    theme: Option<String>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// One line (or, with --json, one JSON object) per commit.
    Status {
        #[arg(long)]
        json: bool,
        /// Fill the agent variant with this agent's results (default: the newest of any agent).
        #[arg(long)]
        agent: Option<String>,
    },
    /// Counts by status, category, kind and GPU; 3-way outcomes; the unfixable list.
    Report {
        #[arg(long, value_enum, default_value = "md")]
        format: ReportFormat,
        /// Fill the agent variant with this agent's results (default: the newest of any agent).
        #[arg(long)]
        agent: Option<String>,
    },
    /// Classify plain logs or result JSON files: category, disposition, fixes, evidence.
    Classify {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Parse benchmark metrics from plain logs or result JSON files.
    Metrics {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// A commit's patch: the agent's (its run folder, else `[runs] patches`) or the human's
    /// (`git diff parent commit` in `[runs] vllm_repo`). Exit 0, 2 no such commit or patch.
    Patch {
        short: String,
        #[arg(long, value_parser = ["human", "agent"])]
        variant: String,
        /// Files with their added and removed lines instead of the diff.
        #[arg(long)]
        json: bool,
    },
    /// How the agent's own run of a commit went: model, status, duration, steps, tool calls.
    Trajectory {
        short: String,
        #[arg(long)]
        json: bool,
    },
    /// Run one variant of a commit in Docker; logs on stdout. Exit 0 ok, 3 run failed, 1 tool error.
    Run {
        short: String,
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
    Build {
        short: String,
        /// Compiler jobs at once (MAX_JOBS); default from `[build]`, else the daemon's memory.
        #[arg(long)]
        max_jobs: Option<u32>,
        #[arg(long)]
        nvcc_threads: Option<u32>,
        /// Seconds before the build is stopped and its container removed.
        #[arg(long)]
        timeout: Option<u64>,
        /// Print the exact steps, the image and the expected time and disk; build nothing.
        #[arg(long)]
        plan: bool,
    },
    /// The Docker hosts (`[[hosts]]`, else DOCKER_HOST): each connected and probed for GPUs.
    /// Exit 0 every host answered, 3 one did not.
    Hosts {
        #[arg(long)]
        json: bool,
    },
    /// Runs as Slurm jobs (`[slurm]`): the batch script, submit (and follow), cancel.
    #[command(subcommand)]
    Slurm(SlurmCommand),
    /// GPU telemetry (NVML, else nvidia-smi, else --gpu-replay). Exit 1 when no GPU can be read.
    Gpu {
        #[arg(long)]
        once: bool,
        #[arg(long)]
        json: bool,
        #[arg(long, default_value_t = 1000)]
        interval: u64,
    },
    /// Known fixes: list them (for a commit: the ones its failures suggest) or apply one.
    #[command(subcommand)]
    Fix(FixCommand),
    /// Fixed images and a registry: push a variant's fixed image (`[registry]`), pull it back by digest.
    #[command(subcommand)]
    Image(ImageCommand),
    /// Record a triage decision for a commit.
    Mark(MarkArgs),
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

#[derive(Subcommand)]
enum FixCommand {
    /// All recipes, or the ones a commit's failures suggest.
    List { short: Option<String> },
    /// Apply a recipe in a container from the variant's image, verify it, then re-run the variant
    /// there (or, with --commit-image, save it as the variant's fixed image).
    Apply {
        short: String,
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
enum SlurmCommand {
    /// Print the batch script a run of this variant is submitted with.
    Script {
        short: String,
        #[arg(long, value_parser = ["baseline", "human", "agent"])]
        variant: String,
    },
    /// Submit the run; with --wait, follow it (state, its log) and read its result back.
    /// Exit 0 the run succeeded, 3 it failed, 1 tool error.
    Submit {
        short: String,
        #[arg(long, value_parser = ["baseline", "human", "agent"])]
        variant: String,
        #[arg(long)]
        wait: bool,
    },
    /// Cancel a job (scancel): its payload removes its container on the signal.
    Cancel { job: u64 },
}

#[derive(Subcommand)]
enum ImageCommand {
    /// Push the variant's fixed image to the registry; its digest is recorded.
    Push {
        short: String,
        #[arg(long, value_parser = ["baseline", "human", "agent"])]
        variant: String,
    },
    /// Pull the variant's pushed image back by its recorded digest, under its local name.
    Pull {
        short: String,
        #[arg(long, value_parser = ["baseline", "human", "agent"])]
        variant: String,
    },
}

#[derive(Args)]
struct MarkArgs {
    /// Commit short hash.
    short: String,
    #[command(flatten)]
    change: ChangeArgs,
}

/// Exactly one triage change.
#[derive(Args)]
#[group(required = true, multiple = false)]
struct ChangeArgs {
    /// Mark unfixable, with the reason.
    #[arg(long, value_name = "REASON")]
    unfixable: Option<String>,
    #[arg(long)]
    skip: bool,
    #[arg(long)]
    clear: bool,
    #[arg(long, value_name = "TEXT")]
    note: Option<String>,
}

impl ChangeArgs {
    fn change(&self) -> Change {
        match (&self.unfixable, &self.note) {
            (Some(reason), _) => Change::Unfixable { reason: reason.clone() },
            (_, Some(text)) => Change::Note { text: text.clone() },
            _ if self.skip => Change::Skip,
            _ => Change::Clear,
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        // `perftriage status | head` closes the pipe early; that is not an error.
        Err(e)
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            ExitCode::SUCCESS
        }
        Err(e) => {
            perftriage::cli::out::err(&format!("perftriage: error: {e:#}"));
            ExitCode::from(1)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    if let Some(command) = &cli.command
        && let Some(code) = standalone(command)?
    {
        return Ok(code);
    }
    let options = Options {
        config: cli.config,
        dataset: cli.dataset,
        results: cli.results,
        trajectories: cli.trajectories,
        workspace: cli.workspace,
        theme: cli.theme,
        gpu_replay: cli.gpu_replay,
        verbose: cli.verbose,
    };
    // The board reads the result files while it draws; every other command needs them first.
    let ctx = match cli.command {
        None => Context::without_results(&options)?,
        Some(_) => Context::load(&options)?,
    };
    match cli.command {
        Some(Command::Status { json, agent }) => headless::status(&ctx, json, agent.as_deref()),
        Some(Command::Report { format, agent }) => headless::report(&ctx, format, agent.as_deref()),
        Some(Command::Mark(args)) => headless::mark(&ctx, &args.short, args.change.change()),
        Some(Command::Gpu { once, json, interval }) => {
            perftriage::cli::gpu::gpu_cli(options.gpu_replay.as_deref(), &ctx.workspace, once, json, interval)
        }
        Some(Command::Fix(FixCommand::List { short })) => perftriage::cli::fix::list(&ctx, short.as_deref()),
        Some(Command::Fix(FixCommand::Apply { short, variant, recipe, commit_image, host })) => {
            perftriage::cli::fix::apply_cli(
                &ctx,
                &short,
                variant_of(&variant),
                &recipe,
                commit_image,
                host.as_deref(),
            )
        }
        Some(Command::Image(ImageCommand::Push { short, variant })) => {
            perftriage::cli::image::push(&ctx, &short, variant_of(&variant))
        }
        Some(Command::Image(ImageCommand::Pull { short, variant })) => {
            perftriage::cli::image::pull(&ctx, &short, variant_of(&variant))
        }
        Some(Command::Build { short, max_jobs, nvcc_threads, timeout, plan }) => {
            let changes = perftriage::builds::KnobSet {
                max_jobs,
                nvcc_threads,
                timeout_s: timeout,
                ..Default::default()
            };
            perftriage::cli::build::build_cli(&ctx, &short, &changes, plan)
        }
        Some(Command::Hosts { json }) => perftriage::cli::hosts::hosts_cli(&ctx, json),
        Some(Command::Patch { short, variant, json }) => {
            perftriage::cli::agents::patch(&ctx, &short, variant_of(&variant), json)
        }
        Some(Command::Trajectory { short, json }) => perftriage::cli::agents::trajectory(&ctx, &short, json),
        Some(Command::Slurm(command)) => slurm(&ctx, command),
        Some(Command::Run { short, variant, json, host, repeat }) => {
            let how = perftriage::cli::run::How { json, host: host.as_deref(), repeat };
            perftriage::cli::run::run(&ctx, &short, variant_of(&variant), &how)
        }
        Some(_) | None => board(ctx, options.theme, options.gpu_replay),
    }
}

/// `perftriage slurm …`.
fn slurm(ctx: &Context, command: SlurmCommand) -> anyhow::Result<ExitCode> {
    use perftriage::cli::slurm;
    match command {
        SlurmCommand::Script { short, variant } => slurm::script(ctx, &short, variant_of(&variant)),
        SlurmCommand::Submit { short, variant, wait } => {
            slurm::submit(ctx, &short, variant_of(&variant), wait)
        }
        SlurmCommand::Cancel { job } => slurm::cancel(job),
    }
}

/// A `--variant` clap already checked.
fn variant_of(name: &str) -> perftriage::dataset::Variant {
    perftriage::dataset::Variant::parse(name).unwrap_or(perftriage::dataset::Variant::Human)
}

/// Commands that need no dataset or workspace; `None` for the others.
fn standalone(command: &Command) -> anyhow::Result<Option<ExitCode>> {
    Ok(Some(match command {
        Command::Classify { files, json } => inspect::classify(
            &std::sync::Arc::new(perftriage::classify::Classifier::embedded()?),
            files,
            *json,
        )?,
        Command::Metrics { files, json } => inspect::metrics(files, *json)?,
        Command::Ingest { file, spool, search } => inspect::ingest(file, spool, search)?,
        Command::SynthLog { lines, out } => {
            perftriage::synthetic::write_vllm_log(out, *lines)?;
            ExitCode::SUCCESS
        }
        Command::Synth { commits, files_per_commit, out } => {
            let dataset = perftriage::synthetic::generate(out, *commits, *files_per_commit)?;
            println!("dataset: {}\nresults: {}", dataset.display(), out.join("results").display());
            ExitCode::SUCCESS
        }
        Command::Status { .. }
        | Command::Report { .. }
        | Command::Mark(_)
        | Command::Run { .. }
        | Command::Build { .. }
        | Command::Hosts { .. }
        | Command::Patch { .. }
        | Command::Trajectory { .. }
        | Command::Slurm(_)
        | Command::Fix(_)
        | Command::Image(_)
        | Command::Gpu { .. } => {
            return Ok(None);
        }
    }))
}

fn board(ctx: Context, theme_arg: Option<String>, gpu_replay: Option<PathBuf>) -> anyhow::Result<ExitCode> {
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        eprintln!(
            "perftriage: the board needs a terminal; for scripts use `perftriage status [--json]` or `perftriage report`"
        );
        return Ok(ExitCode::from(2));
    }
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let name = theme_arg
        .or_else(|| ctx.config.theme.clone())
        .unwrap_or_else(|| if no_color { "monochrome".into() } else { "default".into() });
    let theme = Theme::load(&name)?;
    runtime::run_tui(ctx, &theme, gpu_replay)?;
    Ok(ExitCode::SUCCESS)
}
