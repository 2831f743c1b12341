//! The benchmark command, rewritten to run inside the container against the server there.
//! Rules (documented in README "Runs"):
//! 1. leading `VAR=value` words become environment variables;
//! 2. `python`/`python3 [./]benchmarks/X.py` → `python3 /opt/perftriage/benchmarks/X.py` (the commit's own
//!    scripts, uploaded from the configured vLLM checkout); `vllm bench …` is kept;
//! 3. serving: `--host 127.0.0.1 --port 8000` replace any host/port/base-url; server-only flags are
//!    stripped (they configure the server, not the client); `--dataset-name sharegpt` becomes
//!    `random` (with `--random-input-len 256 --random-output-len 64` unless given) and
//!    `--dataset`/`--dataset-path` are dropped, unless a dataset path is configured; `--num-prompts 100`
//!    is added when absent;
//! 4. throughput/latency/prefix caching run as written (after rules 1–2).

use crate::dataset::BenchKind;

/// The rules above, named in every result of ours: a change to them changes the workload.
pub const RULES: &str = "perftriage 1";

/// Flags that configure the server; each with whether it takes a value.
const SERVER_ONLY: &[(&str, bool)] = &[
    ("--tensor-parallel-size", true),
    ("-tp", true),
    ("--dtype", true),
    ("--max-model-len", true),
    ("--gpu-memory-utilization", true),
    ("--enforce-eager", false),
    ("--trust-remote-code", false),
    ("--enable-prefix-caching", false),
    ("--enable-chunked-prefill", false),
    ("--max-num-batched-tokens", true),
    ("--kv-cache-dtype", true),
    ("--quantization", true),
    ("--use-v2-block-manager", false),
    ("--multi-step", false),
    ("--num-scheduler-steps", true),
    ("--speculative-model", true),
    ("--num-speculative-tokens", true),
    ("--guided-decoding-backend", true),
    ("--async-engine", false),
];
const TARGET_FLAGS: &[&str] = &["--host", "--port", "--base-url"];
pub const SCRIPTS_DIR: &str = "/opt/perftriage/benchmarks";

/// Leading `VAR=value` words, and the rest.
pub fn split_env(command: &str) -> (Vec<String>, Vec<String>) {
    let words: Vec<String> = command.split_whitespace().map(|w| w.trim_matches('"').to_string()).collect();
    let n = words.iter().take_while(|w| w.split_once('=').is_some_and(|(k, _)| is_env_name(k))).count();
    (words[..n].to_vec(), words[n..].to_vec())
}

fn is_env_name(k: &str) -> bool {
    !k.is_empty() && k.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// The argv to exec in the container, and the environment it needs.
pub fn benchmark_argv(
    command: &str,
    kind: BenchKind,
    dataset_path: Option<&str>,
) -> (Vec<String>, Vec<String>) {
    let (env, words) = split_env(command);
    let mut argv = script_argv(words);
    if kind == BenchKind::Serving {
        argv = serving_args(&argv, dataset_path);
    }
    (argv, env)
}

fn script_argv(words: Vec<String>) -> Vec<String> {
    let Some(first) = words.first() else { return words };
    if first.starts_with("python") {
        let mut out = vec!["python3".to_string()];
        for (i, w) in words.iter().enumerate().skip(1) {
            if i == 1 && w.ends_with(".py") {
                let name = w.rsplit('/').next().unwrap_or(w);
                out.push(format!("{SCRIPTS_DIR}/{name}"));
            } else {
                out.push(w.clone());
            }
        }
        return out;
    }
    words
}

fn serving_args(argv: &[String], dataset_path: Option<&str>) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut has_prompts = false;
    let mut random = false;
    while i < argv.len() {
        let word = argv[i].as_str();
        let (name, inline) = word.split_once('=').map_or((word, false), |(n, _)| (n, true));
        let takes_value =
            |flag: &str| SERVER_ONLY.iter().any(|(f, v)| *f == flag && *v) || TARGET_FLAGS.contains(&flag);
        if SERVER_ONLY.iter().any(|(f, _)| *f == name) || TARGET_FLAGS.contains(&name) {
            i += if takes_value(name) && !inline { 2 } else { 1 };
            continue;
        }
        if dataset_path.is_none() && (name == "--dataset" || name == "--dataset-path") {
            i += if inline { 1 } else { 2 };
            continue;
        }
        if name == "--dataset-name" && dataset_path.is_none() {
            let value = if inline {
                word.split_once('=').map(|(_, v)| v)
            } else {
                argv.get(i + 1).map(String::as_str)
            };
            if value.is_some_and(|v| v == "sharegpt" || v == "sonnet") {
                random = true;
                i += if inline { 1 } else { 2 };
                continue;
            }
        }
        has_prompts |= name == "--num-prompts";
        out.push(argv[i].clone());
        i += 1;
    }
    if random {
        out.extend(["--dataset-name", "random"].map(String::from));
        if !out.iter().any(|w| w == "--random-input-len") {
            out.extend(["--random-input-len", "256", "--random-output-len", "64"].map(String::from));
        }
    }
    if let Some(path) = dataset_path
        && !out.iter().any(|w| w == "--dataset-path" || w == "--dataset")
    {
        out.extend(["--dataset-path".to_string(), path.to_string()]);
    }
    if !has_prompts {
        out.extend(["--num-prompts", "100"].map(String::from));
    }
    out.extend(["--host", "127.0.0.1", "--port", "8000"].map(String::from));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serving_commands_are_pointed_at_the_container_server() {
        let (argv, env) = benchmark_argv(
            "VLLM_USE_V1=1 python benchmarks/benchmark_serving.py --model m/M --dtype float16 --tensor-parallel-size 4 --dataset-name sharegpt --dataset ShareGPT.json --port 9000",
            BenchKind::Serving,
            None,
        );
        assert_eq!(env, ["VLLM_USE_V1=1"]);
        assert_eq!(
            argv.join(" "),
            "python3 /opt/perftriage/benchmarks/benchmark_serving.py --model m/M --dataset-name random --random-input-len 256 --random-output-len 64 --num-prompts 100 --host 127.0.0.1 --port 8000"
        );
    }

    #[test]
    fn offline_commands_keep_their_flags_and_vllm_bench_is_kept() {
        let (argv, _) = benchmark_argv(
            "python3 benchmarks/benchmark_latency.py --model m --tensor-parallel-size 2 --input-len 1000",
            BenchKind::Latency,
            None,
        );
        assert_eq!(
            argv.join(" "),
            "python3 /opt/perftriage/benchmarks/benchmark_latency.py --model m --tensor-parallel-size 2 --input-len 1000"
        );
        let (argv, _) = benchmark_argv(
            "vllm bench serve --model m --num-prompts 5 --base-url=http://x:1",
            BenchKind::Serving,
            Some("/data/s.json"),
        );
        assert_eq!(
            argv.join(" "),
            "vllm bench serve --model m --num-prompts 5 --dataset-path /data/s.json --host 127.0.0.1 --port 8000"
        );
    }
}
