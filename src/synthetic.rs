//! A synthetic workload for benchmarks: N commits cloned from the embedded dataset under fresh
//! hashes, plus per-role result files (mixed successes and failures with realistic raw output).

use crate::dataset::{self, Commit, Variant};
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};

const FAILURE_TAILS: &[&str] = &[
    "ValueError: 'aimv2' is already used by a Transformers config, pick another name.",
    "ImportError: cannot import name 'LogitsWarper' from 'transformers.generation.logits_process'",
    "[rank0]: ValueError: Unknown RoPE scaling type llama3",
    "docker: Error response from daemon: manifest for anonymous/vllm-baseline:baseline-a6d795d59304 not found: manifest unknown: manifest unknown",
    "ModuleNotFoundError: No module named 'vllm.vllm_flash_attn.fa_utils'",
];

/// `n` commits cloned round-robin from the embedded dataset, each under a fresh hash.
pub fn commits(n: usize) -> Result<Vec<Commit>, dataset::DatasetError> {
    let base = dataset::load_embedded()?.commits;
    Ok((0..n)
        .map(|i| {
            let mut commit = base[i % base.len()].clone();
            commit.full = format!("{i:08x}{}", &commit.full[8..]);
            commit.short = commit.full[..8].into();
            commit
        })
        .collect())
}

/// Write `out/dataset.jsonl` and `out/results/NNN/*.json`; returns the dataset path.
pub fn generate(out: &Path, commits: usize, files_per_commit: usize) -> std::io::Result<PathBuf> {
    let all = self::commits(commits).map_err(std::io::Error::other)?;
    let results = out.join("results");
    std::fs::create_dir_all(&results)?;
    let dataset_path = out.join("dataset.jsonl");
    let mut ds = std::io::BufWriter::new(std::fs::File::create(&dataset_path)?);
    let noise = "INFO 01-18 12:10:00 [metrics.py:455] Avg prompt throughput: 203.7 tokens/s\n".repeat(30);
    for (n, commit) in all.iter().enumerate() {
        serde_json::to_writer(&mut ds, commit)?;
        ds.write_all(b"\n")?;
        let shard = results.join(format!("{:03}", n / 500));
        std::fs::create_dir_all(&shard)?;
        for (k, variant) in Variant::ALL.iter().cycle().take(files_per_commit).enumerate() {
            let failed = (n + k) % 3 == 0;
            let tail = FAILURE_TAILS[(n + k) % FAILURE_TAILS.len()];
            let body = json!({
                "human_commit": commit.short, "human_commit_full": commit.full, "parent_commit": commit.parent,
                "model": commit.model, "status": if failed { "error" } else { "success" },
                "error": if failed { Some("Server crashed during startup") } else { None },
                "duration_s": 100.0 + n as f64,
                "metrics": if failed { json!({}) } else { json!({"ttft_mean_ms": 500.0 + (n % 97) as f64, "tpot_mean_ms": 20.0 + (n % 13) as f64, "output_token_throughput_tok_s": 3000.0}) },
                "raw_output": if failed { format!("{noise}Traceback (most recent call last):\n{tail}\nSERVER_CRASHED\n") } else { noise.clone() },
                "timestamp": format!("2026-01-18 12:{:02}:{:02}", (n / 60) % 60, n % 60),
            });
            let name = shard.join(format!("{}_{}_result.json", commit.short, variant.name()));
            std::fs::write(name, serde_json::to_vec(&body)?)?;
        }
    }
    ds.flush()?;
    Ok(dataset_path)
}

/// Typical vLLM server/benchmark output lines, cycled; a failure signature every 50,000 lines.
const LOG_LINES: &[&str] = &[
    "INFO 07-24 13:15:43 [loader.py:458] Loading weights took 3.21 seconds",
    "\x1b[1;36m(APIServer pid=996)\x1b[0;0m INFO 07-24 13:15:44 [api_server.py:1818] Starting vLLM API server 0 on http://0.0.0.0:8000",
    "INFO:     127.0.0.1:44458 - \"POST /v1/completions HTTP/1.1\" 200 OK",
    "INFO 01-14 15:08:18 metrics.py:455] Avg prompt throughput: 203.7 tokens/s, Avg generation throughput: 234.7 tokens/s, Running: 12 reqs",
    "Capturing CUDA graph shapes:  52%|█████▏    | 35/67 [00:42<00:37,  1.17s/it]",
    "WARNING 07-24 13:15:45 [config.py:1234] Possibly too large swap space. 4.00 GiB out of the 7.70 GiB total CPU memory is allocated",
    "DEBUG 07-24 13:15:46 [core.py:321] EngineCore loop iteration 123456 scheduled 64 tokens for 8 requests",
    "  0%|          | 0/100 [00:00<?, ?it/s]",
];

fn log_line(i: usize) -> &'static str {
    if i % 50_000 == 49_999 {
        "ValueError: 'aimv2' is already used by a Transformers config, pick another name."
    } else {
        LOG_LINES[i % LOG_LINES.len()]
    }
}

/// `lines` lines of realistic log output (about 100 bytes a line).
pub fn vllm_log(lines: usize) -> String {
    let mut out = String::with_capacity(lines * 110);
    for i in 0..lines {
        out.push_str(log_line(i));
        out.push('\n');
    }
    out
}

/// The same, streamed to a file (a 10-million-line log is about 1 GB).
pub fn write_vllm_log(path: &Path, lines: usize) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    for i in 0..lines {
        out.write_all(log_line(i).as_bytes())?;
        out.write_all(b"\n")?;
    }
    out.flush()
}
