//! What a measurement measured — a result's workload fingerprint. Two results are compared only
//! when their workloads agree; otherwise the difference is the reason they are not comparable.
//! Parts come from what a file records (the command it ran, the benchmark's own argument dump in
//! its output, the folder it came from, its GPU config); a part nothing records stays unknown.

use litemap::LiteMap;
use regex::Regex;
use serde::{Deserialize, Serialize};
use std::sync::{Arc, LazyLock};

/// The parts, in the order they are shown; each with its label.
pub const PARTS: [(&str, &str); 17] = [
    ("kind", "benchmark"),
    ("script", "script"),
    ("model", "model"),
    ("dataset", "dataset"),
    ("dataset_path", "dataset file"),
    ("prompts", "prompts"),
    ("input_len", "input len"),
    ("output_len", "output len"),
    ("request_rate", "request rate"),
    ("concurrency", "max concurrency"),
    ("tp", "tensor parallel"),
    ("flags", "other flags"),
    ("requests", "requests served"),
    ("input_tokens", "input tokens"),
    ("harness", "harness"),
    ("gpu", "GPU"),
    ("rewrite", "rewrite rules"),
];

/// Command-line flags → the part they set.
const FLAG_PARTS: &[(&str, &str)] = &[
    ("--model", "model"),
    ("--dataset-name", "dataset"),
    ("--dataset", "dataset"),
    ("--dataset-path", "dataset_path"),
    ("--num-prompts", "prompts"),
    ("--input-len", "input_len"),
    ("--random-input-len", "input_len"),
    ("--sonnet-input-len", "input_len"),
    ("--output-len", "output_len"),
    ("--random-output-len", "output_len"),
    ("--sonnet-output-len", "output_len"),
    ("--sharegpt-output-len", "output_len"),
    ("--request-rate", "request_rate"),
    ("--max-concurrency", "concurrency"),
    ("--tensor-parallel-size", "tp"),
    ("-tp", "tp"),
];

/// Flags that say where the client connects or how it prints, not what load it makes (`-m`
/// names the script, a part of its own).
const NOT_LOAD: &[&str] = &[
    "-m",
    "--host",
    "--port",
    "--base-url",
    "--endpoint",
    "--backend",
    "--save-result",
    "--result-dir",
    "--disable-tqdm",
];

/// The benchmark's own argument dump (`Namespace(...)`) names → the part they set.
const DUMP_PARTS: &[(&str, &str)] = &[
    ("model", "model"),
    ("dataset_name", "dataset"),
    ("dataset", "dataset"),
    ("dataset_path", "dataset_path"),
    ("num_prompts", "prompts"),
    ("input_len", "input_len"),
    ("random_input_len", "input_len"),
    ("sonnet_input_len", "input_len"),
    ("output_len", "output_len"),
    ("random_output_len", "output_len"),
    ("sonnet_output_len", "output_len"),
    ("request_rate", "request_rate"),
    ("max_concurrency", "concurrency"),
    ("tensor_parallel_size", "tp"),
];

/// A part two workloads do not share.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    pub label: &'static str,
    pub this: String,
    pub other: String,
    /// Known on one side only.
    pub one_sided: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Deserialize)]
#[serde(transparent)]
pub struct Workload {
    /// Shared until changed: every variant of every entry starts from its commit's workload, and
    /// the board and reports clone them by the thousand. A sorted list: a BTreeMap's first node
    /// holds room for eleven parts (528 bytes for the usual two, 16 MB over 30,000 records).
    parts: Arc<LiteMap<String, String>>,
}

/// A map, empty or not (LiteMap writes an empty one as a list).
impl Serialize for Workload {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.parts.iter())
    }
}

impl Workload {
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    pub fn get(&self, part: &str) -> Option<&str> {
        self.parts.get(part).map(String::as_str)
    }

    /// Set a part; empty values and `None` say nothing.
    pub fn set(&mut self, part: &str, value: impl Into<String>) {
        let value = value.into();
        let value = value.trim().trim_matches(['\'', '"']);
        if !value.is_empty() && value != "None" {
            Arc::make_mut(&mut self.parts).insert(part.to_string(), value.to_string());
        }
    }

    /// Parts `other` knows that this one does not.
    pub fn fill_from(&mut self, other: &Workload) {
        if self.parts.is_empty() {
            self.parts = other.parts.clone();
            return;
        }
        for (part, value) in other.parts.iter() {
            if !self.parts.contains_key(part) {
                Arc::make_mut(&mut self.parts).insert(part.clone(), value.clone());
            }
        }
    }

    /// The parts a command line says: script, kind and the load flags.
    pub fn from_command(command: &str) -> Workload {
        let mut w = Workload::default();
        let words: Vec<&str> = command.split_whitespace().map(|s| s.trim_matches(['"', '\''])).collect();
        w.set("kind", crate::dataset::BenchKind::from_command(Some(command)).name());
        if let Some(script) = script_of(&words) {
            w.set("script", script);
        }
        let mut flags = Vec::new();
        let mut i = 0;
        while i < words.len() {
            let (flag, inline) = words[i].split_once('=').map_or((words[i], None), |(f, v)| (f, Some(v)));
            i += 1;
            if !flag.starts_with('-') {
                continue;
            }
            let takes_value = inline.is_none() && words.get(i).is_some_and(|next| !next.starts_with("--"));
            let value = inline.map(str::to_string).or_else(|| takes_value.then(|| words[i].to_string()));
            i += usize::from(takes_value);
            w.flag(flag, value, &mut flags);
        }
        if !flags.is_empty() {
            flags.sort();
            w.set("flags", flags.join(" "));
        }
        w
    }

    fn flag(&mut self, flag: &str, value: Option<String>, others: &mut Vec<String>) {
        match FLAG_PARTS.iter().find(|(f, _)| *f == flag) {
            Some((_, "dataset_path")) => self.set("dataset_path", file_name(&value.unwrap_or_default())),
            Some((_, part)) => self.set(part, value.unwrap_or_default()),
            None if NOT_LOAD.contains(&flag) => {}
            None => others.push(value.map_or(flag.to_string(), |v| format!("{flag}={v}"))),
        }
    }

    /// The parts a benchmark's output says: its argument dump (`Namespace(…)`), else the
    /// command a harness printed before running it; from its result block, the requests
    /// served and the input tokens sent (the same workload sends the same tokens), and the kind
    /// of benchmark that block is (where nothing else says it).
    pub fn from_output(output: &str) -> Workload {
        let kind = || crate::metrics::parse::parse(output).ok().map(|p| p.kind.name());
        Workload::from_parsed_output(output, kind)
    }

    /// `from_output` where the output's result block was parsed already: `kind` names the kind
    /// of benchmark it is, where it is one (asked only where nothing else says the kind).
    pub fn from_parsed_output(output: &str, kind: impl FnOnce() -> Option<&'static str>) -> Workload {
        static RAN: LazyLock<Regex> = LazyLock::new(|| re(r"(?m)^Running [a-z ]*benchmark: (.*)$"));
        static SERVED: LazyLock<Regex> =
            LazyLock::new(|| re(r"(?m)^(Successful requests|Total input tokens): +(\d+)"));
        let mut w = Workload::from_dump(output);
        if let Some(ran) = RAN.captures_iter(output).last() {
            let mut command = Workload::from_command(&ran[1]);
            Arc::make_mut(&mut command.parts).remove("kind");
            w.fill_from(&command);
        }
        for line in SERVED.captures_iter(output) {
            let part = if &line[1] == "Successful requests" { "requests" } else { "input_tokens" };
            w.set(part, &line[2]);
        }
        if w.get("kind").is_none()
            && let Some(kind) = kind()
        {
            w.set("kind", kind);
        }
        w
    }

    fn from_dump(output: &str) -> Workload {
        static DUMP: LazyLock<Regex> = LazyLock::new(|| re(r"Namespace\((backend=[^\n]*)"));
        static ARG: LazyLock<Regex> = LazyLock::new(|| re(r"(\w+)=('[^']*'|[^,()]+)"));
        let mut w = Workload::default();
        let Some(dump) = DUMP.captures_iter(output).last() else { return w };
        for arg in ARG.captures_iter(&dump[1]) {
            if let Some((_, part)) = DUMP_PARTS.iter().find(|(name, _)| *name == &arg[1]) {
                let value = arg[2].trim_matches('\'');
                let value = if *part == "dataset_path" { file_name(value) } else { value.to_string() };
                if !w.parts.contains_key(*part) {
                    w.set(part, value);
                }
            }
        }
        w
    }

    /// Where the parts of two workloads differ, or one knows what the other does not:
    /// (label, this one's value, the other's), "unknown" for a part not known.
    pub fn differences(&self, other: &Workload) -> Vec<Difference> {
        let shown = |v: Option<&str>| v.unwrap_or("unknown").to_string();
        PARTS
            .iter()
            .filter(|(part, _)| self.get(part) != other.get(part))
            .map(|(part, label)| Difference {
                label,
                this: shown(self.get(part)),
                other: shown(other.get(part)),
                one_sided: self.get(part).is_none() || other.get(part).is_none(),
            })
            .collect()
    }

    /// Both from one harness (a pipeline that runs one command per commit for every variant).
    pub fn same_harness(&self, other: &Workload) -> bool {
        self.get("harness").is_some() && self.get("harness") == other.get("harness")
    }

    /// Each part with its label, unknown ones included.
    pub fn described(&self) -> Vec<(&'static str, String)> {
        PARTS.iter().map(|(part, label)| (*label, self.get(part).unwrap_or("unknown").to_string())).collect()
    }
}

fn re(pattern: &str) -> Regex {
    // Patterns are constants of this file; a typo is caught by its tests.
    Regex::new(pattern).unwrap_or_else(|e| panic!("workload pattern {pattern}: {e}"))
}

/// The benchmark script a command runs: `benchmark_serving.py`, `sglang.bench_serving`, `vllm bench serve`.
fn script_of(words: &[&str]) -> Option<String> {
    if let Some(at) = words.iter().position(|w| *w == "bench") {
        let what = words.get(at + 1).filter(|w| !w.starts_with('-'))?;
        return Some(format!("{} bench {what}", words.get(at.wrapping_sub(1)).unwrap_or(&"vllm")));
    }
    if let Some(at) = words.iter().position(|w| *w == "-m") {
        return words.get(at + 1).map(|m| m.to_string());
    }
    words.iter().find(|w| w.ends_with(".py")).map(|w| file_name(w))
}

fn file_name(path: &str) -> String {
    path.rsplit('/').next().unwrap_or(path).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_and_the_dump_of_the_same_run_agree() {
        let command = "python benchmarks/benchmark_serving.py --model ibm-ai-platform/Bamba-9B \
                       --dataset-name sonnet --dataset-path /x/benchmarks/sonnet.txt --num-prompts 100 \
                       --sonnet-input-len 256 --sonnet-output-len 64 --port 8000 --request-rate inf";
        let dump = "INFO Namespace(backend='vllm', base_url=None, host='127.0.0.1', port=8000, \
                    dataset_name='sonnet', dataset_path='/opt/vllm_baseline/benchmarks/sonnet.txt', \
                    max_concurrency=None, model='ibm-ai-platform/Bamba-9B', num_prompts=100, \
                    request_rate=inf, seed=0, sonnet_input_len=256, sonnet_output_len=64, sonnet_prefix_len=200)";
        let mut from_command = Workload::from_command(command);
        let from_dump = Workload::from_output(dump);
        Arc::make_mut(&mut from_command.parts).remove("kind");
        Arc::make_mut(&mut from_command.parts).remove("script");
        assert_eq!(from_command, from_dump);
        assert_eq!(from_dump.get("dataset_path"), Some("sonnet.txt"));
    }

    #[test]
    fn other_load_flags_are_kept_and_connection_flags_are_not() {
        let w = Workload::from_command(
            "python3 benchmarks/benchmark_latency.py --model m --tensor-parallel-size 4  --num-iters 20 \
             --batch-size 8 --input-len 128 --no-enable-prefix-caching --host h --port 1",
        );
        assert_eq!(w.get("script"), Some("benchmark_latency.py"));
        assert_eq!(w.get("kind"), Some("latency"));
        assert_eq!(w.get("tp"), Some("4"));
        assert_eq!(w.get("flags"), Some("--batch-size=8 --no-enable-prefix-caching --num-iters=20"));
        let sglang = Workload::from_command("python -m sglang.bench_serving --num-prompts 100 --x");
        assert_eq!((sglang.get("script"), sglang.get("flags")), (Some("sglang.bench_serving"), Some("--x")));
    }

    #[test]
    fn a_workload_is_written_and_read_as_a_map_empty_or_not() {
        assert_eq!(serde_json::to_string(&Workload::default()).unwrap(), "{}");
        let mut w = Workload::default();
        w.set("model", "m");
        w.set("harness", "h");
        assert_eq!(serde_json::to_string(&w).unwrap(), r#"{"harness":"h","model":"m"}"#);
        let back: Workload = serde_json::from_str(r#"{"model":"m","harness":"h"}"#).unwrap();
        assert_eq!(back, w, "read in any order");
        assert_eq!(serde_json::from_str::<Workload>("{}").unwrap(), Workload::default());
    }

    #[test]
    fn differences_name_both_sides_and_unknown_parts() {
        let a = Workload::from_command(
            "python benchmarks/benchmark_serving.py --model m --dataset-name sharegpt --num-prompts 1000",
        );
        let b = Workload::from_command(
            "python benchmarks/benchmark_serving.py --model m --dataset-name random --num-prompts 100 --random-input-len 256",
        );
        let diff: Vec<_> =
            a.differences(&b).into_iter().map(|d| (d.label, d.this, d.other, d.one_sided)).collect();
        assert_eq!(diff[0], ("dataset", "sharegpt".into(), "random".into(), false));
        assert_eq!(diff[1], ("prompts", "1000".into(), "100".into(), false));
        assert_eq!(diff[2], ("input len", "unknown".into(), "256".into(), true));
        assert!(a.differences(&a).is_empty());
    }
}
