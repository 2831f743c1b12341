//! CLI entry: parse arguments, then run the board or a headless command. Exit codes: 0 ok,
//! 1 runtime error, 2 usage.

mod args;

use args::{CampaignCommand, Cli, Command, FixCommand, ImageCommand, SlurmCommand};
use clap::Parser;
use perftriage::cli::{headless, inspect};
use perftriage::runtime;
use perftriage::session::{Context, Options};
use perftriage::ui::Theme;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    perftriage::startup::mark("main");
    // An arena per core, before any thread starts: glibc's eight per core each keep their freed
    // memory resident (24 MB of 124 at `status` over 10,000 commits).
    malloc_arenas::cap(std::thread::available_parallelism().map_or(2, |n| n.get()));
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
            perftriage::cli::out::err(&format!("perftriage: error: {}", causes(&e)));
            // A config that cannot be used is a usage error, as the README's exit codes say.
            let usage = e.chain().any(|c| c.downcast_ref::<perftriage::config::ConfigError>().is_some());
            ExitCode::from(if usage { 2 } else { 1 })
        }
    }
}

/// An error and its causes, each said once: most errors put their cause in their own message,
/// and `{e:#}` would then say it twice.
fn causes(e: &anyhow::Error) -> String {
    let mut said = String::new();
    for cause in e.chain().map(ToString::to_string) {
        if !said.contains(&cause) {
            if !said.is_empty() {
                said.push_str(": ");
            }
            said.push_str(&cause);
        }
    }
    said
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    if let Some(command) = &cli.command
        && let Some(code) = standalone(command, cli.config.as_deref())?
    {
        return Ok(code);
    }
    let (options, command) = cli.split();
    let Some(command) = command else {
        // The board reads the result files while it draws; every other command needs them first.
        perftriage::runtime::lowly_rayon();
        let compiling =
            || perftriage::classify::SharedClassifier::embedded_after(compile_after_the_first_frame);
        return board(Context::board_head(&options, compiling)?, options.theme, options.gpu_replay);
    };
    let ctx = match &command {
        Command::Status { json: true, agent } => {
            match headless::status_json_cached(&options, agent.as_deref())? {
                headless::StatusJson::Printed(code) => return Ok(code),
                headless::StatusJson::Loaded(ctx) => *ctx,
            }
        }
        _ => Context::load(&options)?,
    };
    let code = dispatch(&ctx, &options, command);
    // The process ends here: freeing 10,000 commits' entries one by one took 7% of `status`.
    std::mem::forget(ctx);
    code
}

/// The board's rules compile once its first frame is drawn, at the lowest priority: on two cores
/// the compile beside the start made the main thread wait for a core.
fn compile_after_the_first_frame() {
    runtime::lower_this_thread();
    perftriage::startup::after_first_frame(std::time::Duration::from_millis(100));
}

/// A command that reads the dataset, the results and the workspace.
fn dispatch(ctx: &Context, options: &Options, command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::Status { json, agent } => headless::status(ctx, json, agent.as_deref()),
        Command::Report { format, agent, campaign } => {
            headless::report(ctx, format, agent.as_deref(), campaign.as_deref())
        }
        Command::Mark(args) => headless::mark(ctx, &args.short, args.change.change()),
        Command::Gpu { once, json, interval, replay } => {
            let replay = replay.as_deref().or(options.gpu_replay.as_deref());
            perftriage::cli::gpu::gpu_cli(replay, &ctx.workspace, once, json, interval)
        }
        Command::Fix(command) => fix(ctx, command),
        Command::Image(command) => image(ctx, command),
        Command::Build { short, max_jobs, nvcc_threads, timeout, plan } => {
            let changes = perftriage::builds::KnobSet {
                max_jobs,
                nvcc_threads,
                timeout_s: timeout,
                ..Default::default()
            };
            perftriage::cli::build::build_cli(ctx, &short, &changes, plan)
        }
        Command::Hosts { json } => perftriage::cli::hosts::hosts_cli(ctx, json),
        Command::Patch { short, variant, json } => {
            perftriage::cli::agents::patch(ctx, &short, variant_of(&variant), json)
        }
        Command::Trajectory { short, json } => perftriage::cli::agents::trajectory(ctx, &short, json),
        Command::Slurm(command) => slurm(ctx, command),
        Command::Campaign(command) => campaign(ctx, command),
        Command::Run { short, variant, json, host, repeat } => {
            let how = perftriage::cli::run::How { json, host: host.as_deref(), repeat };
            perftriage::cli::run::run(ctx, &short, variant_of(&variant), &how)
        }
        // The ones that need none of it (`run` answers them before loading anything).
        command => Ok(standalone(&command, options.config.as_deref())?.unwrap_or(ExitCode::from(2))),
    }
}

/// `perftriage fix …`.
fn fix(ctx: &Context, command: FixCommand) -> anyhow::Result<ExitCode> {
    use perftriage::cli::fix;
    match command {
        FixCommand::List { short } => fix::list(ctx, short.as_deref()),
        FixCommand::Apply { short, variant, recipe, commit_image, host } => {
            fix::apply_cli(ctx, &short, variant_of(&variant), &recipe, commit_image, host.as_deref())
        }
    }
}

/// `perftriage image …`.
fn image(ctx: &Context, command: ImageCommand) -> anyhow::Result<ExitCode> {
    use perftriage::cli::image;
    match command {
        ImageCommand::Push { short, variant } => image::push(ctx, &short, variant_of(&variant)),
        ImageCommand::Pull { short, variant } => image::pull(ctx, &short, variant_of(&variant)),
        ImageCommand::List { json } => image::list(ctx, json),
        ImageCommand::Rm { image } => image::rm(ctx, &image),
    }
}

/// `perftriage campaign …`.
fn campaign(ctx: &Context, command: CampaignCommand) -> anyhow::Result<ExitCode> {
    use perftriage::cli::campaign;
    match command {
        CampaignCommand::Start {
            commits,
            filter,
            failing,
            variants,
            repeat,
            auto_fix,
            retries,
            retry_wait,
            concurrency,
            slurm,
            name,
            rerun_failed,
            notify,
        } => {
            let policy = perftriage::campaigns::Policy { auto_fix, retries, retry_wait_s: retry_wait };
            let args = campaign::StartArgs {
                commits,
                filter,
                failing,
                variants,
                repeat,
                policy,
                concurrency,
                slurm,
                name,
                rerun_failed,
                notify,
            };
            campaign::start(ctx, &args)
        }
        CampaignCommand::List { json } => campaign::list(ctx, json),
        CampaignCommand::Status { name, json, csv } => {
            let form = match (json, csv) {
                (true, _) => campaign::Form::Json,
                (_, true) => campaign::Form::Csv,
                _ => campaign::Form::Text,
            };
            campaign::status(ctx, name.as_deref(), form)
        }
        CampaignCommand::Resume { name, notify } => campaign::resume(ctx, &name, notify.as_deref()),
        CampaignCommand::Pause { name } => campaign::stop(ctx, &name, false),
        CampaignCommand::Cancel { name, run: None } => campaign::stop(ctx, &name, true),
        CampaignCommand::Cancel { name, run: Some(run) } => campaign::cancel_run(ctx, &name, &run.into()),
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

/// Commands that need no dataset or workspace (the config only for its `[gates]`, which
/// `classify` and `metrics` judge by); `None` for the others.
fn standalone(command: &Command, config: Option<&std::path::Path>) -> anyhow::Result<Option<ExitCode>> {
    if matches!(command, Command::Classify { .. } | Command::Metrics { .. }) {
        perftriage::metrics::gates::configure(perftriage::config::Config::load(config)?.0.gates);
    }
    Ok(Some(match command {
        Command::Classify { files, json } => inspect::classify(
            &std::sync::Arc::new(perftriage::classify::Classifier::embedded()?),
            files,
            *json,
        )?,
        Command::Metrics { files, json } => inspect::metrics(files, *json)?,
        Command::Ingest { file, spool, search } => {
            inspect::ingest(file, spool, search, perftriage::logs::Redactor::from_env())?
        }
        Command::Man { out } => {
            args::man(out.as_deref())?;
            ExitCode::SUCCESS
        }
        Command::SynthLog { lines, out } => {
            perftriage::synthetic::write_vllm_log(out, *lines)?;
            ExitCode::SUCCESS
        }
        Command::Synth { commits, files_per_commit, out } => {
            let dataset = perftriage::synthetic::generate(out, *commits, *files_per_commit)?;
            let results = out.join("results");
            perftriage::cli::out::lines([
                format!("dataset: {}", dataset.display()),
                format!("results: {}", results.display()),
            ])?;
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
        | Command::Campaign(_)
        | Command::Fix(_)
        | Command::Image(_)
        | Command::Gpu { .. } => {
            return Ok(None);
        }
    }))
}

fn board(
    (ctx, reader): (Context, perftriage::session::ResultsReader),
    theme_arg: Option<String>,
    gpu_replay: Option<PathBuf>,
) -> anyhow::Result<ExitCode> {
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
    // Stopped by a signal: 128 + its number, as the headless commands end.
    Ok(match runtime::run_tui((ctx, reader), &theme, gpu_replay)? {
        Some(signal) => ExitCode::from(128 + signal),
        None => ExitCode::SUCCESS,
    })
}
