//! What the campaign benchmarks time: the journal's lines as they appear, Docker's own start and
//! death of each run's container, and perftriage's overhead per run between the two.
#![allow(clippy::cast_possible_truncation, clippy::cast_precision_loss, clippy::cast_sign_loss)]

use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::Path;
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

/// Journal events with the moment this process first saw each.
pub type Seen = Vec<(f64, serde_json::Value)>;

pub fn now_s() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs_f64()
}

/// `docker events` of our containers' starts and deaths, from now: (run id, event, unix seconds).
pub fn container_events(out: &Path) -> Command {
    let mut docker = Command::new("docker");
    let since = (now_s() as u64).to_string();
    docker.args(["events", "--since", &since, "--filter", "type=container", "--filter", "event=start"]);
    docker.args(["--filter", "event=die", "--filter", "label=perftriage.run"]);
    docker.args(["--format", "{{index .Actor.Attributes \"perftriage.run\"}} {{.Action}} {{.TimeNano}}"]);
    docker.stdout(std::fs::File::create(out).unwrap());
    docker
}

/// The journal's lines not seen before, stamped now; the lines it holds.
pub fn read_new(journal: &Path, seen: &mut Seen) -> Vec<String> {
    let Ok(file) = std::fs::File::open(journal) else { return Vec::new() };
    let at = now_s();
    let lines: Vec<String> = std::io::BufReader::new(file).lines().map_while(Result::ok).collect();
    for line in lines.iter().skip(seen.len()) {
        if let Ok(event) = serde_json::from_str(line) {
            seen.push((at, event));
        }
    }
    lines
}

/// Per run: (launched → finished as seen) − (container start → die), in milliseconds; and the
/// containers' summed time up, in seconds.
pub fn overheads(seen: &Seen, events: &Path) -> (Vec<f64>, f64) {
    let mut container: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for line in std::fs::read_to_string(events).unwrap().lines() {
        let parts: Vec<&str> = line.split(' ').collect();
        let at = parts[2].parse::<f64>().unwrap() / 1e9;
        let span = container.entry(parts[0].to_string()).or_insert((f64::NAN, f64::NAN));
        if parts[1] == "start" { span.0 = at } else { span.1 = at }
    }
    let when = |kind: &str| -> BTreeMap<String, f64> {
        let of = seen.iter().filter(|(_, e)| e["event"] == kind);
        of.map(|(at, e)| (e["run_id"].as_str().unwrap().to_string(), *at)).collect()
    };
    let (launched, finished) = (when("launched"), when("finished"));
    let up = |(up, down): &(f64, f64)| if up.is_finite() && down.is_finite() { down - up } else { 0.0 };
    let ran =
        launched.iter().filter_map(|(run, start)| Some((finished.get(run)? - start, container.get(run)?)));
    let overheads =
        ran.filter(|(_, span)| up(span) > 0.0).map(|(wall, span)| (wall - up(span)) * 1000.0).collect();
    (overheads, container.values().map(up).sum())
}

pub fn quantiles(what: &str, mut values: Vec<f64>, unit: &str) {
    if values.is_empty() {
        println!("{what}: no samples");
        return;
    }
    values.sort_by(f64::total_cmp);
    let at = |q: f64| values[((values.len() as f64 - 1.0) * q) as usize];
    let (p50, p99, max) = (at(0.5), at(0.99), at(1.0));
    println!(
        "{what}: {} samples, median {p50:.1} {unit}, p99 {p99:.1} {unit}, max {max:.1} {unit}",
        values.len()
    );
}
