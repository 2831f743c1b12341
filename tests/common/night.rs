//! The public archive's night replayed on the mock engine (issue 58): each (commit, variant) fails
//! as its newest archive record says, as perftriage reads it (`status --json` of the archive):
//! - the categories a recipe answers, as state in the image that the recipe's commands change
//!   (`night.txt`'s `state`: the mock checks the package or file at start);
//! - infrastructure failures (the rule table's `infra_retry`) once or twice, then not again;
//! - an image the archive could not pull (`manifest_unknown`): absent from a real registry, so the
//!   daemon says `manifest unknown` (the baseline and the agent share it, so both lack it);
//! - everything else always, with the archive's evidence line.
//!
//! A commit of the archive becomes two commits of the checkout: its parent, whose `benchmarks/`
//! carry the baseline's and the agent's lines, and its own, carrying the human's.

use super::engine::{Setup, setup};
use super::mock_images::{file, image_context, mock_binary, version};
use super::registry::Registry;
use perftriage::classify::{Classifier, Disposition};
use perftriage::fixes::RecipeBook;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

pub const VARIANTS: [&str; 3] = ["baseline", "human", "agent"];
const SERVING: &str = "python benchmarks/benchmark_serving.py --model facebook/opt-125m --dataset-name sharegpt --num-prompts 5";

/// The failures the mock reproduces as state a recipe changes.
const STATES: &[&str] = &[
    "numpy2",
    "aimv2",
    "fa_utils",
    "logitswarper",
    "tf_broken_import",
    "tf_utils_missing",
    "pyairports",
    "pandas_missing",
];

/// Failures of the benchmark rather than of the server's start.
const BENCH: &[&str] = &[
    "timeout",
    "bench_script_mismatch",
    "arg_required",
    "unrecognized_args",
    "float_parse",
    "script_missing",
    "no_metrics",
    "broken_pipe",
];

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum How {
    Ok,
    State,
    /// Fails at the server's start: the first N runs, or always for 0.
    Server(u32),
    Bench(u32),
    Missing,
}

#[derive(Debug, Clone)]
pub struct Cell {
    /// The archive measured it.
    pub measured: bool,
    pub category: String,
    pub how: How,
    pub evidence: String,
}

/// An archive commit: its short hash there and its three cells.
#[derive(Debug, Clone)]
pub struct ArchiveCommit {
    pub archive: String,
    pub cells: [Cell; 3],
}

/// Each line of `status --json` over the archive as its night.
pub fn read_status(text: &str) -> Vec<ArchiveCommit> {
    let classifier = Classifier::embedded().unwrap();
    let mut commits: Vec<ArchiveCommit> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|row| ArchiveCommit {
            archive: row["short"].as_str().unwrap().to_string(),
            cells: VARIANTS.map(|v| cell_of(&row["variants"][v], &classifier)),
        })
        .collect();
    for commit in &mut commits {
        // The baseline and the agent run in one image: missing for one, missing for both.
        if commit.cells[0].how == How::Missing || commit.cells[2].how == How::Missing {
            let missing = [&commit.cells[0], &commit.cells[2]].into_iter().find(|c| c.how == How::Missing);
            let missing = missing.unwrap().clone();
            (commit.cells[0], commit.cells[2]) = (missing.clone(), missing);
        }
    }
    commits
}

fn cell_of(record: &serde_json::Value, classifier: &Classifier) -> Cell {
    let measured = record["status"] == "ok";
    let ok = Cell { measured, category: "ok".into(), how: How::Ok, evidence: String::new() };
    let failed = record["status"] != "ok" && record["category"].is_string() || record["status"] == "fail";
    if record.is_null() || !failed {
        return ok;
    }
    // A failure no rule names: its server prints the archive's words and exits, which
    // perftriage reads as the server crashing.
    let category = record["category"].as_str().unwrap_or("server_crash").to_string();
    let said = record["evidence"].as_str().or(record["error"].as_str()).unwrap_or("failed");
    let evidence = said.replace(['\n', '\r'], " ");
    let disposition = classifier.rule(&category).map(|r| r.disposition);
    let how = match (category.as_str(), disposition) {
        ("manifest_unknown", _) => How::Missing,
        (c, _) if STATES.contains(&c) => How::State,
        (c, Some(Disposition::InfraRetry)) => stage(c, transient_runs(c)),
        (c, _) => stage(c, 0),
    };
    Cell { measured, category, how, evidence }
}

fn stage(category: &str, times: u32) -> How {
    if BENCH.contains(&category) { How::Bench(times) } else { How::Server(times) }
}

/// How many runs an infrastructure failure lasts: a full disk or a broken pipe once, a missing
/// wheel or a server that would not start twice (both retries).
fn transient_runs(category: &str) -> u32 {
    if matches!(category, "wheel_404" | "server_timeout") { 2 } else { 1 }
}

/// How a cell should end after one unattended campaign with `--auto-fix --retries RETRIES`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fate {
    Measured,
    Fixed(String),
    Retried(u32),
    Left(String),
}

pub fn fate(cell: &Cell, recipes: &RecipeBook, retries: u32) -> Fate {
    match &cell.how {
        How::Ok => Fate::Measured,
        How::State => match recipes.first_answering(&cell.category) {
            Some(recipe) => Fate::Fixed(recipe),
            None => Fate::Left(cell.category.clone()),
        },
        How::Server(n) | How::Bench(n) if *n > 0 && *n <= retries => Fate::Retried(*n),
        _ => Fate::Left(cell.category.clone()),
    }
}

/// The commits one campaign should make usable: every variant measured, fixed or retried.
pub fn expected(commits: &[ArchiveCommit], retries: u32) -> usize {
    let recipes = RecipeBook::embedded().unwrap();
    let usable = |c: &&ArchiveCommit| {
        c.cells.iter().all(|cell| !matches!(fate(cell, &recipes, retries), Fate::Left(_)))
    };
    commits.iter().filter(usable).count()
}

/// The commits the archive itself measured three ways.
pub fn usable_before(commits: &[ArchiveCommit]) -> usize {
    commits.iter().filter(|c| c.cells.iter().all(|cell| cell.measured)).count()
}

/// A `night.txt` line.
fn line(variant: &str, cell: &Cell) -> String {
    let (how, times) = match &cell.how {
        How::Ok | How::Missing => ("ok", 0),
        How::State => ("state", 0),
        How::Server(n) => ("server", *n),
        How::Bench(n) => ("bench", *n),
    };
    format!("{variant} {} {how} {times} {}\n", cell.category, cell.evidence)
}

/// The site-packages of an image holding `states` broken, everything else whole.
fn site_files(states: &BTreeSet<&str>) -> Vec<(String, Vec<u8>)> {
    let mut files: BTreeMap<String, Vec<u8>> = [
        file("vllm/__init__.py", "__version__ = '0.9.2.dev0+mock'\n"),
        file(
            "vllm/transformers_utils/configs/ovis.py",
            "AutoConfig.register(\"aimv2\", AIMv2Config, exist_ok=True)\n",
        ),
        file("vllm/vllm_flash_attn/__init__.py", ""),
        file("vllm/vllm_flash_attn/fa_utils.py", "def flash_attn_supports_fp8():\n    return False\n"),
        file("transformers/utils/__init__.py", ""),
        version("numpy", "1.26.4"),
        version("transformers", "4.44.2"),
        version("lm_format_enforcer", "0.10.11"),
        version("outlines", "0.0.46"),
        version("pyairports", "1.0.0"),
        version("aiohttp", "1.0.0"),
        version("pandas", "1.0.0"),
        version("datasets", "1.0.0"),
    ]
    .into_iter()
    .collect();
    for state in states {
        broken(&mut files, state);
    }
    files.into_iter().collect()
}

/// The image's files as the archive's failure `state` left them.
fn broken(files: &mut BTreeMap<String, Vec<u8>>, state: &str) {
    let mut put = |(path, text): (String, Vec<u8>)| files.insert(path, text);
    match state {
        "numpy2" => put(version("numpy", "2.2.6")),
        "aimv2" => put(file(
            "vllm/transformers_utils/configs/ovis.py",
            "AutoConfig.register(\"aimv2\", AIMv2Config)\n",
        )),
        "logitswarper" => {
            put(version("transformers", "4.48.3"));
            put(version("lm_format_enforcer", "0.9.8"))
        }
        "tf_broken_import" => put(file("~ransformers-4.44.2.dist-info/METADATA", "Name: transformers\n")),
        "pyairports" => put(version("pyairports", "0.0.1")),
        _ => None,
    };
    let gone = match state {
        "fa_utils" => "vllm/vllm_flash_attn/fa_utils.py",
        "tf_utils_missing" => "transformers/utils/__init__.py",
        "pandas_missing" => "pandas/version.py",
        _ => return,
    };
    files.remove(gone);
}

/// The images of sets of broken states, each built once (under the image lock).
struct StateImages {
    rt: tokio::runtime::Runtime,
    engine: perftriage::docker::Engine,
    mock: Vec<u8>,
    busybox: Vec<u8>,
    built: BTreeMap<String, String>,
}

impl StateImages {
    fn new() -> StateImages {
        let rt = super::engine::runtime();
        let engine = rt.block_on(perftriage::docker::Engine::connect()).unwrap();
        let (mock, busybox) = (std::fs::read(mock_binary()).unwrap(), std::fs::read("/bin/busybox").unwrap());
        StateImages { rt, engine, mock, busybox, built: BTreeMap::new() }
    }

    /// The image holding `states` broken: its tag.
    fn of(&mut self, states: &BTreeSet<&str>) -> String {
        let key = if states.is_empty() {
            "whole".into()
        } else {
            states.iter().copied().collect::<Vec<_>>().join("-")
        };
        if let Some(tag) = self.built.get(&key) {
            return tag.clone();
        }
        let tag = format!("perftriage-test/night:{key}");
        let context = image_context(&format!("night-{key}"), &self.mock, &self.busybox, &site_files(states));
        let _held = super::real::lock_image("perftriage-test/night");
        let before = super::mock_images::image_id(&tag);
        self.rt.block_on(self.engine.build(&tag, context)).unwrap();
        // Another mock's image of the tag, not left dangling.
        if let Some(old) = before.filter(|old| super::mock_images::image_id(&tag).as_ref() != Some(old)) {
            let _ = Command::new("docker").args(["rmi", &old]).output();
        }
        self.built.insert(key, tag.clone());
        tag
    }
}

fn states_of<'a>(cells: &[&'a Cell]) -> BTreeSet<&'a str> {
    cells.iter().filter(|c| c.how == How::State).map(|c| c.category.as_str()).collect()
}

/// A replayable night: the workspace, its commits (the checkout's shorts, in the archive's
/// order) and the registry its images come from.
pub struct Night {
    pub setup: Setup,
    pub shorts: Vec<String>,
    pub registry: Registry,
}

/// The dataset, checkout, agent patches, images and config of `commits`' night.
pub fn night(commits: &[ArchiveCommit]) -> Night {
    let registry = Registry::start();
    let images = format!("{}/night/vllm", registry.host);
    let mut s = setup("perftriage-test/vllm:ok", SERVING, "hf_cache = \"HF\"");
    let hf = s.root.join("hf");
    // Its `night` folder says a night is replayed: the mock's server waits for its scripts.
    std::fs::create_dir_all(hf.join("night")).unwrap();
    let config =
        std::fs::read_to_string(&s.config).unwrap().replace("\"HF\"", &format!("\"{}\"", hf.display()));
    let config = config
        .replace("human = \"perftriage-test/vllm:ok\"", &format!("human = \"{images}:{{full}}\""))
        .replace(
            "baseline = \"perftriage-test/vllm:ok\"",
            &format!("baseline = \"{images}:baseline-{{parent12}}\""),
        );
    std::fs::write(&s.config, config).unwrap();
    let (rows, shorts) = commit_all(&mut s, commits, &images);
    std::fs::write(s.root.join("dataset.jsonl"), rows).unwrap();
    Night { setup: s, shorts, registry }
}

/// Two checkout commits per archive commit, its dataset row, agent patch and images.
fn commit_all(s: &mut Setup, commits: &[ArchiveCommit], images: &str) -> (String, Vec<String>) {
    let template: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(s.root.join("dataset.jsonl")).unwrap().lines().next().unwrap(),
    )
    .unwrap();
    let (repo, mut built) = (s.root.join("vllm"), StateImages::new());
    let (mut rows, mut shorts) = (String::new(), Vec::new());
    for (i, commit) in commits.iter().enumerate() {
        let [baseline, human, agent] = &commit.cells;
        let head = format!("commit {}\n", commit.archive);
        let parent =
            checkout_commit(&repo, &format!("{head}{}{}", line("baseline", baseline), line("agent", agent)));
        let full = checkout_commit(&repo, &format!("{head}{}", line("human", human)));
        let short = full[..8].to_string();
        let mut row = template.clone();
        (row["short"], row["full"], row["parent"]) =
            (short.clone().into(), full.clone().into(), parent.clone().into());
        row["item_id"] = format!("vllm_core-{i}").into();
        row["subject"] = format!("ISO-Bench {} replayed", commit.archive).into();
        rows.push_str(&format!("{row}\n"));
        let patch = "--- a/vllm/__init__.py\n+++ b/vllm/__init__.py\n@@ -1 +1 @@\n-__version__ = '0.9.2.dev0+mock'\n+__version__ = '0.9.2.dev0+agent'\n";
        std::fs::write(s.root.join("patches").join(format!("{short}.patch")), patch).unwrap();
        if baseline.how != How::Missing {
            tag(&built.of(&states_of(&[baseline, agent])), &format!("{images}:baseline-{}", &parent[..12]));
        }
        if human.how != How::Missing {
            tag(&built.of(&states_of(&[human])), &format!("{images}:{full}"));
        }
        s.owns(&short);
        s.owns(&parent[..8]);
        shorts.push(short);
    }
    (rows, shorts)
}

fn tag(image: &str, name: &str) {
    super::engine::docker(&["tag", image, name]);
}

/// A commit on the checkout whose `benchmarks/night.txt` is `night`; its full hash.
fn checkout_commit(repo: &Path, night: &str) -> String {
    let git = |args: &[&str]| {
        let out = Command::new("git").arg("-C").arg(repo).args(args).output().unwrap();
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    std::fs::write(repo.join("benchmarks/night.txt"), night).unwrap();
    git(&["add", "-A"]);
    git(&["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", night.lines().next().unwrap()]);
    git(&["rev-parse", "HEAD"])
}

/// Where the campaign's `status --json` differs from each cell's fate: empty when the night
/// ended as it should. The runs a kill `lost` (in flight when the driver died, with neither
/// container nor result after it: run again) are not counted.
pub fn mismatches(
    commits: &[ArchiveCommit],
    shorts: &[String],
    status: &serde_json::Value,
    (retries, lost): (u32, &[String]),
) -> Vec<String> {
    let recipes = RecipeBook::embedded().unwrap();
    let cells = status["cells"].as_array().cloned().unwrap_or_default();
    let mut wrong = Vec::new();
    for (commit, short) in commits.iter().zip(shorts) {
        for (variant, cell) in VARIANTS.iter().zip(&commit.cells) {
            let row = cells.iter().find(|c| c["short"] == short.as_str() && c["variant"] == *variant);
            let Some(row) = row else {
                wrong.push(format!("{short} {variant}: no cell"));
                continue;
            };
            let fate = fate(cell, &recipes, retries);
            if let Some(why) = differs(&fate, row, lost) {
                wrong.push(format!("{} ({short}) {variant}: {fate:?} expected, {why}", commit.archive));
            }
        }
    }
    wrong
}

fn differs(fate: &Fate, row: &serde_json::Value, lost: &[String]) -> Option<String> {
    let (state, category) = (row["state"].as_str().unwrap_or(""), row["category"].as_str().unwrap_or(""));
    let counted = |run: &&serde_json::Value| !run.as_str().is_some_and(|id| lost.iter().any(|i| i == id));
    let runs = row["runs"].as_array().map_or(0, |runs| runs.iter().filter(counted).count());
    let fixes: Vec<&str> = row["fixes"].as_array().into_iter().flatten().filter_map(|f| f.as_str()).collect();
    let ok = match fate {
        Fate::Measured => state == "ok" && runs == 1,
        Fate::Fixed(recipe) => state == "ok" && (fixes.contains(&recipe.as_str()) || runs == 1),
        Fate::Retried(n) => state == "ok" && runs == *n as usize + 1,
        Fate::Left(expected) => state == "left" && category == expected,
    };
    (!ok).then(|| format!("{state} {category} after {runs} run(s), fixes {fixes:?}"))
}

/// The run ids the journal says were launched more than once.
pub fn launched_twice(journal: &str) -> Vec<String> {
    let mut seen = BTreeMap::<String, usize>::new();
    for event in journal.lines().filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok()) {
        if event["event"] == "launched" {
            *seen.entry(event["run_id"].to_string()).or_default() += 1;
        }
    }
    seen.into_iter().filter(|(_, n)| *n > 1).map(|(id, _)| id).collect()
}
