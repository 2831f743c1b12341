//! The run confirm: what each planned run will do, where it goes (`o`: the `[[hosts]]` host) and
//! how many benchmark runs it makes against one server start (`+`).

use crate::app::{AppState, Confirm, ConfirmAction, JobError, Level, Mode};
use crate::dataset::Variant;
use crate::ids::Short;
use crate::runs::Repeat;
use crate::runs::auto::{AUTO_MAX, AUTO_MIN};

/// The plans came back: confirm the runs that can run, saying exactly what each will do.
pub(super) fn planned(
    state: &mut AppState,
    short: Short,
    plans: Vec<(Variant, Result<Vec<String>, JobError>)>,
) {
    if state.mode != Mode::Planning(short.clone()) {
        return; // given up with Esc while it was being planned
    }
    state.mode = Mode::Normal;
    let mut preview = Vec::new();
    let mut runnable = Vec::new();
    for (variant, plan) in plans {
        match plan {
            Ok(lines) => {
                runnable.push(variant);
                preview.extend(lines);
                preview.extend(removed_image_line(state, &short, variant));
            }
            Err(why) => preview.push(format!("{} {}: cannot run: {why}", variant.letter(), variant.name())),
        }
    }
    if runnable.is_empty() {
        return state.notify(Level::Error, preview.join("; "));
    }
    preview.push(format!("{} run(s) at a time; the rest queue in this order", state.runs.concurrency.max(1)));
    if let Some(target) = &state.runs.slurm {
        preview.push(format!(
            "Slurm: each run a batch job on {target} asking for the commit's GPUs; its payload is \
             perftriage's own run on the node; x cancels it with scancel"
        ));
    } else if !state.runs.hosts.is_empty() {
        preview.push(host_line(&state.runs.hosts, None));
    }
    preview.push(repeat_line(state.runs.repeat));
    let names: Vec<&str> = runnable.iter().map(|v| v.name()).collect();
    let title = format!("Run {} of {short}?", names.join(", "));
    let action =
        ConfirmAction::StartRuns { short, variants: runnable, host: None, repeat: state.runs.repeat };
    state.mode = Mode::Confirm(Confirm::new(title, preview, action));
}

/// Why a variant whose fixed image was removed runs in another one (named in its plan's lines).
fn removed_image_line(state: &AppState, short: &str, variant: Variant) -> Option<String> {
    let gone = state.board.book.removed_fixed_image(short, variant.name())?;
    Some(format!("  {}: its fixed image {gone} was removed, so it runs in the image above", variant.name()))
}

const HOST_LINE: &str = "host: ";
const REPEAT_LINE: &str = "benchmark runs: ";
/// What `+` steps through in a run confirm.
const REPEATS: [Repeat; 5] =
    [Repeat::Times(1), Repeat::Times(3), Repeat::Times(5), Repeat::Times(10), Repeat::Auto { max: AUTO_MAX }];

fn repeat_line(repeat: Repeat) -> String {
    let what = match repeat {
        Repeat::Times(1) => "a single run: the 3-way verdict is a ±2% band".to_string(),
        Repeat::Times(n) => {
            format!("{n} against one server start: means with a 95% interval, judged at ±2% and ±5%")
        }
        Repeat::Auto { max } => format!(
            "auto: a warm-up, then {AUTO_MIN} to {max} against one server start, more while the 95% \
             interval against the pair partner's recorded runs crosses ±2% or ±5%"
        ),
    };
    format!("{REPEAT_LINE}{what}; +: more")
}

/// `+` in a run confirm: the next repeat (1, 3, 5, 10, auto, then 1 again).
pub fn next_repeat(confirm: &mut Confirm) {
    let ConfirmAction::StartRuns { repeat, .. } = &mut confirm.action else { return };
    let at = REPEATS.iter().position(|r| r == repeat);
    *repeat = at.and_then(|i| REPEATS.get(i + 1)).copied().unwrap_or(REPEATS[0]);
    let line = repeat_line(*repeat);
    if let Some(shown) = confirm.preview.iter_mut().find(|l| l.starts_with(REPEAT_LINE)) {
        *shown = line;
    }
}

/// Where the runs will go, and how the hosts stand now.
fn host_line(hosts: &[crate::runs::HostSlot], chosen: Option<&str>) -> String {
    let now: Vec<String> = hosts.iter().map(crate::runs::HostSlot::summary).collect();
    let now = now.join(", ");
    match chosen {
        None => format!(
            "{HOST_LINE}placed when it starts on one with a free slot and its GPUs (now: {now}); o: choose"
        ),
        Some(name) => format!(
            "{HOST_LINE}{name}, chosen here: its slots and GPUs are not checked (now: {now}); o: next"
        ),
    }
}

/// `o` in a run confirm: the next `[[hosts]]` host, and after the last, placement again.
pub fn next_host(confirm: &mut Confirm, hosts: &[crate::runs::HostSlot]) {
    let ConfirmAction::StartRuns { host, .. } = &mut confirm.action else { return };
    if hosts.is_empty() {
        return;
    }
    let at = host.as_ref().and_then(|h| hosts.iter().position(|s| &s.name == h));
    *host = match at {
        None => Some(hosts[0].name.clone()),
        Some(i) => hosts.get(i + 1).map(|s| s.name.clone()),
    };
    let line = host_line(hosts, host.as_deref());
    if let Some(shown) = confirm.preview.iter_mut().find(|l| l.starts_with(HOST_LINE)) {
        *shown = line;
    }
}
