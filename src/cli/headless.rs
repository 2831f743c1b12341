//! Headless commands: `status`, `report`, `mark`. Same loading and the same truth as the board.

use super::status_cache::{self, Key};
use crate::dataset::{Entry, Variant};
use crate::report::{self, ReportFormat};
use crate::session::Context;
use crate::triage::{Change, StoreError};
use anyhow::Result;
use std::borrow::Cow;
use std::io::Write;
use std::process::ExitCode;

/// The entries with `agent`'s results in the agent slot; an agent no result names is an error
/// that lists the ones there are.
/// Without `--agent` the loaded entries as they are (no copy: `status` over 10,000 commits).
fn entries_for<'a>(ctx: &'a Context, agent: Option<&str>) -> Result<Cow<'a, [Entry]>, ExitCode> {
    let Some(name) = agent else { return Ok(Cow::Borrowed(&ctx.entries)) };
    let known = crate::dataset::agent_names(&ctx.entries);
    if !known.contains(&name.to_string()) {
        let list: Vec<&str> = known.iter().map(|s| s.as_str()).collect();
        super::out::err(&format!(
            "perftriage: no results of agent {name:?}; agents with results: {}",
            if list.is_empty() { "none".to_string() } else { list.join(", ") }
        ));
        return Err(ExitCode::from(2));
    }
    let mut entries = ctx.entries.clone();
    entries.iter_mut().for_each(|e| e.select_agent(Some(name)));
    Ok(Cow::Owned(entries))
}

pub fn status(ctx: &Context, json: bool, agent: Option<&str>) -> Result<ExitCode> {
    let entries = match entries_for(ctx, agent) {
        Ok(entries) => entries,
        Err(code) => return Ok(code),
    };
    let book = read_book(ctx);
    if json {
        status_json(ctx, &entries, &book, agent)?
    } else {
        status_table(&entries, &book)?
    }
    crate::startup::mark("written");
    if ctx.verbose {
        reading(ctx);
        phases();
    }
    super::warnings::print(&ctx.warnings, ctx.verbose);
    Ok(ExitCode::SUCCESS)
}

/// Where the command's time went, phase by phase, on stderr.
fn phases() {
    if let Some(phases) = crate::startup::summary() {
        super::out::err(&format!("perftriage: where the time went: {phases}"));
    }
}

/// How the result files were read, on stderr.
fn reading(ctx: &Context) {
    let r = ctx.reading;
    if r.joined {
        let cache = crate::dataset::joined::path_in(&ctx.workspace);
        return super::out::err(&format!(
            "perftriage: {} result files unchanged since the joined cache ({}) was written; its entries read in {:.3} s",
            r.total,
            cache.display(),
            r.seconds
        ));
    }
    let cache = crate::dataset::digests::CacheFile::path_in(&ctx.workspace);
    super::out::err(&format!(
        "perftriage: {} result files read in {:.3} s, {} of them unchanged since the digest cache ({}) saw them",
        r.total,
        r.seconds,
        r.cached,
        cache.display()
    ));
}

/// A JSON line per commit, escaped as it is written; kept in the status cache where the entries
/// came whole from the joined cache.
fn status_json(
    ctx: &Context,
    entries: &[Entry],
    book: &crate::triage::TriageBook,
    agent: Option<&str>,
) -> std::io::Result<()> {
    let key = ctx.joined_inputs.as_ref().and_then(|inputs| Key::of(inputs, book, &ctx.images, agent));
    let mut cache =
        key.as_ref().map(|_| status_cache::Writing::start(&status_cache::path_in(&ctx.workspace)));
    let mut out = super::out::JsonLines::stdout();
    let record = |entry| report::status_record(entry, book, &ctx.images);
    out.lines_teed(entries, record, |lines| cache.iter_mut().for_each(|c| c.write(lines)))?;
    out.finish()?;
    if let (Some(cache), Some(key)) = (cache, key) {
        cache.finish(key, &ctx.warnings);
    }
    Ok(())
}

/// What `status --json` found before it read an entry.
pub enum StatusJson {
    /// The status cache's output, printed.
    Printed(ExitCode),
    /// No cache for it: the context, loaded, for `status`.
    Loaded(Box<Context>),
}

/// `status --json` from the status cache where it holds the output for these very inputs, book,
/// images and agent (nothing else is then read); else the context loaded, for `status`. A cache
/// that cannot be used is said on stderr.
pub fn status_json_cached(options: &crate::session::Options, agent: Option<&str>) -> Result<StatusJson> {
    let mut hit = None;
    let mut take = |ctx: &Context, inputs: &crate::dataset::joined::Inputs| {
        let workspace = ctx.read_workspace();
        let path = status_cache::path_in(&ctx.workspace);
        let key = Key::of(inputs, &workspace.book, &ctx.images, agent);
        match key.map(|key| status_cache::open(&path, &key)) {
            Some(Ok(Some(found))) => hit = Some((found, workspace)),
            Some(Err(e)) => super::out::err(&format!("perftriage: warning: {e}")),
            _ => {}
        }
        hit.is_some()
    };
    let (ctx, taken) = Context::load_or_take(options, &mut take)?;
    match hit.filter(|_| taken) {
        Some((hit, workspace)) => Ok(StatusJson::Printed(print_cached(&ctx, hit, &workspace)?)),
        None => Ok(StatusJson::Loaded(Box::new(ctx))),
    }
}

/// What the status cache held, then what `status` says after its output (the workspace's
/// messages first, as `status` says them: its book was read for the key).
fn print_cached(
    ctx: &Context,
    mut hit: status_cache::Hit,
    workspace: &crate::session::Workspace,
) -> Result<ExitCode> {
    super::warnings::print(&workspace.report.messages, true);
    let warnings = std::mem::take(&mut hit.warnings);
    hit.print(&mut std::io::stdout().lock())?;
    crate::startup::mark("written");
    if ctx.verbose {
        let cache = status_cache::path_in(&ctx.workspace);
        super::out::err(&format!(
            "perftriage: {} result files unchanged since the status cache ({}) was written; its output printed after {:.3} s",
            ctx.reading.total,
            cache.display(),
            ctx.reading.seconds
        ));
        phases();
    }
    super::warnings::print(&warnings, ctx.verbose);
    Ok(ExitCode::SUCCESS)
}

/// A line per commit for people, its text sanitised.
fn status_table(entries: &[Entry], book: &crate::triage::TriageBook) -> std::io::Result<()> {
    let mut out = super::out::stdout();
    let colour = super::out::colour_wanted();
    writeln!(
        out,
        "{:<8} {:<8} {:<5} {:<22} {:<10} SUBJECT",
        "COMMIT", "STATUS", "B H A", "CATEGORY", "MARK"
    )?;
    for entry in entries {
        let glyphs: Vec<String> = Variant::ALL
            .iter()
            .map(|v| {
                paint(entry.variant(*v).outcome.status.glyph(), entry.variant(*v).outcome.status, colour)
            })
            .collect();
        let mark = book.mark(&entry.commit.short).map_or("", |m| m.name());
        let subject: String = entry.commit.subject.chars().take(60).collect();
        let (short, status, category) = (&entry.commit.short, entry.status().name(), entry.category());
        writeln!(out, "{short:<8} {status:<8} {} {category:<22} {mark:<10} {subject}", glyphs.join(" "))?;
    }
    out.finish()
}

fn paint(glyph: &str, status: crate::dataset::RunStatus, colour: bool) -> String {
    use crate::dataset::RunStatus::*;
    let code = match status {
        Success => "32",
        Error => "31",
        Timeout => "35",
        Skipped => "34",
        NotRun => "2",
    };
    if colour { format!("\x1b[{code}m{glyph}\x1b[0m") } else { glyph.to_string() }
}

/// `report`: the dataset's counts and outcomes, and a campaign's (`campaign`, else the newest).
pub fn report(
    ctx: &Context,
    format: ReportFormat,
    agent: Option<&str>,
    campaign: Option<&str>,
) -> Result<ExitCode> {
    let name = match campaign_named(ctx, campaign) {
        Ok(name) => name,
        Err(code) => return Ok(code),
    };
    let entries = match entries_for(ctx, agent) {
        Ok(entries) => entries,
        Err(code) => return Ok(code),
    };
    let book = read_book(ctx);
    let mut built = report::build(&entries, &book);
    built.patches = super::agents::patch_rows(&entries, ctx);
    if let Some((outcome, cells)) = name.and_then(|name| campaign_outcome(ctx, &name)) {
        (built.campaign, built.campaign_cells) = (Some(outcome), cells);
    }
    let text = report::render(&built, &entries, format);
    let mut out = super::out::stdout();
    out.write_all(text.as_bytes())?;
    out.finish()?;
    super::warnings::print(&ctx.warnings, ctx.verbose);
    Ok(ExitCode::SUCCESS)
}

/// The campaign asked for (exit 2 when there is none by that name), else the newest, if any.
fn campaign_named(ctx: &Context, asked: Option<&str>) -> Result<Option<crate::ids::CampaignName>, ExitCode> {
    let Some(name) = asked.map(crate::ids::CampaignName::from) else {
        return Ok(crate::jobs::journal::newest(&ctx.workspace));
    };
    if name.is_plain() && crate::campaigns::CampaignSpec::journal_path(&ctx.workspace, &name).exists() {
        return Ok(Some(name));
    }
    let shown = crate::logs::display_text(name.as_str());
    super::out::err(&format!("perftriage: no campaign `{shown}` in this workspace"));
    Err(ExitCode::from(2))
}

/// The campaign's outcome and its cells; none with an unreadable journal (said).
fn campaign_outcome(
    ctx: &Context,
    name: &crate::ids::CampaignName,
) -> Option<((String, crate::campaigns::Outcome), Vec<crate::campaigns::MorningRow>)> {
    let read = crate::jobs::journal::Journal::of(&ctx.workspace, name).state().map_err(anyhow::Error::from);
    let cells = |state: &_| super::campaign::morning(ctx, state, &std::collections::HashMap::new());
    match read.and_then(|state| Ok((cells(&state)?, state))) {
        Ok((cells, state)) => {
            let outcome = crate::campaigns::outcome(&state, |s| super::campaign::usable(ctx, s));
            Some(((name.to_string(), outcome), cells))
        }
        Err(e) => {
            super::out::err(&format!("perftriage: campaign {name} left out of the report: {e}"));
            None
        }
    }
}

pub fn mark(ctx: &Context, short: &str, change: Change) -> Result<ExitCode> {
    let Some(entry) = ctx.find(short) else { return Ok(ExitCode::from(2)) };
    let short = entry.commit.short.clone();
    let mut workspace = match ctx.open_workspace(false) {
        Ok(w) => w,
        Err(e @ StoreError::Locked { .. }) => anyhow::bail!("{e}"),
        Err(e) => return Err(e.into()),
    };
    for m in &workspace.report.messages {
        super::out::err(&format!("perftriage: {m}"));
    }
    let summary = change.describe();
    if let Err(e) = workspace.book.apply(&short, change, crate::session::now_rfc3339()) {
        super::out::err(&format!("perftriage: {e}"));
        return Ok(ExitCode::from(2));
    }
    workspace.store.save(&workspace.book)?;
    let mut out = super::out::stdout();
    writeln!(out, "{short}: {summary} (saved to {})", workspace.store.path().display())?;
    Ok(ExitCode::SUCCESS)
}

fn read_book(ctx: &Context) -> crate::triage::TriageBook {
    let workspace = ctx.read_workspace();
    super::warnings::print(&workspace.report.messages, true);
    workspace.book
}
