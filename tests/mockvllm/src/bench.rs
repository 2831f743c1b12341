//! Benchmark scripts: the serving client really talks to the server and prints vLLM's result
//! block from what it measured; latency and throughput print their real output lines.

use crate::flag;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::ExitCode;
use std::time::{Duration, Instant};

struct Sample {
    ttft: f64,
    itls: Vec<f64>,
    total: f64,
    tokens: usize,
}

fn target(args: &[&str]) -> (String, u16) {
    if let Some(url) = flag(args, "--base-url") {
        let hostport = url.trim_start_matches("http://").trim_end_matches('/');
        let (host, port) = hostport.rsplit_once(':').unwrap_or((hostport, "8000"));
        return (host.to_string(), port.parse().unwrap_or(8000));
    }
    let host = flag(args, "--host").unwrap_or("127.0.0.1").to_string();
    (host, flag(args, "--port").and_then(|p| p.parse().ok()).unwrap_or(8000))
}

fn request(host: &str, port: u16, model: &str, tokens: usize) -> std::io::Result<Sample> {
    let started = Instant::now();
    let mut stream = TcpStream::connect((host, port))?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let body =
        format!("{{\"model\":\"{model}\",\"prompt\":\"hello\",\"max_tokens\":{tokens},\"stream\":true}}");
    write!(
        stream,
        "POST /v1/completions HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )?;
    let mut buf = [0u8; 4096];
    let (mut ttft, mut last, mut itls, mut seen) = (None, started, Vec::new(), 0usize);
    loop {
        let n = stream.read(&mut buf)?;
        if n == 0 {
            break;
        }
        let chunks = String::from_utf8_lossy(&buf[..n]).matches("\"text\"").count();
        if chunks > 0 {
            let now = Instant::now();
            match ttft {
                None => ttft = Some(now.duration_since(started).as_secs_f64() * 1000.0),
                Some(_) => itls.push(now.duration_since(last).as_secs_f64() * 1000.0 / chunks as f64),
            }
            last = now;
            seen += chunks;
        }
    }
    let total = started.elapsed().as_secs_f64() * 1000.0;
    Ok(Sample { ttft: ttft.unwrap_or(total), itls, total, tokens: seen })
}

fn stats(mut v: Vec<f64>) -> (f64, f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0, 0.0);
    }
    v.sort_by(f64::total_cmp);
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let pick = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    (mean, pick(0.5), pick(0.99))
}

pub fn serving(args: &[&str]) -> ExitCode {
    if let Some(code) = crate::night::fails_at("bench") {
        return code;
    }
    let (host, port) = target(args);
    let model = flag(args, "--model").unwrap_or("facebook/opt-125m");
    let prompts: usize = flag(args, "--num-prompts").and_then(|n| n.parse().ok()).unwrap_or(10);
    let out_len: usize = flag(args, "--random-output-len").and_then(|n| n.parse().ok()).unwrap_or(16).min(64);
    println!(
        "Namespace(backend='vllm', base_url=None, host='{host}', port={port}, model='{model}', num_prompts={prompts})"
    );
    println!("Starting initial single prompt test run...");
    let started = Instant::now();
    let mut samples = Vec::new();
    for _ in 0..prompts {
        match request(&host, port, model, out_len) {
            Ok(s) => samples.push(s),
            Err(e) => {
                println!("Traceback (most recent call last):");
                println!(
                    "aiohttp.client_exceptions.ClientConnectorError: Cannot connect to host {host}:{port} [{e}]"
                );
                return ExitCode::from(1);
            }
        }
    }
    let duration = started.elapsed().as_secs_f64();
    let tokens: usize = samples.iter().map(|s| s.tokens).sum();
    let (ttft, ttft_med, ttft_p99) = stats(samples.iter().map(|s| s.ttft).collect());
    let (itl, itl_med, itl_p99) = stats(samples.iter().flat_map(|s| s.itls.clone()).collect());
    let (mut tpot, tpot_med, tpot_p99) =
        stats(samples.iter().map(|s| (s.total - s.ttft) / (s.tokens.max(2) - 1) as f64).collect());
    if let Some(given) = given_tpot(args) {
        tpot = given;
    }
    let row = |label: &str, v: String| println!("{:<40} {v:<10}", format!("{label}:"));
    println!("============ Serving Benchmark Result ============");
    row("Successful requests", samples.len().to_string());
    row("Benchmark duration (s)", format!("{duration:.2}"));
    row("Total input tokens", (prompts * 5).to_string());
    row("Total generated tokens", tokens.to_string());
    row("Request throughput (req/s)", format!("{:.2}", samples.len() as f64 / duration));
    row("Output token throughput (tok/s)", format!("{:.2}", tokens as f64 / duration));
    row("Total Token throughput (tok/s)", format!("{:.2}", (tokens + prompts * 5) as f64 / duration));
    println!("---------------Time to First Token----------------");
    row("Mean TTFT (ms)", format!("{ttft:.2}"));
    row("Median TTFT (ms)", format!("{ttft_med:.2}"));
    row("P99 TTFT (ms)", format!("{ttft_p99:.2}"));
    println!("-----Time per Output Token (excl. 1st token)------");
    row("Mean TPOT (ms)", format!("{tpot:.2}"));
    row("Median TPOT (ms)", format!("{tpot_med:.2}"));
    row("P99 TPOT (ms)", format!("{tpot_p99:.2}"));
    println!("---------------Inter-token Latency----------------");
    row("Mean ITL (ms)", format!("{itl:.2}"));
    row("Median ITL (ms)", format!("{itl_med:.2}"));
    row("P99 ITL (ms)", format!("{itl_p99:.2}"));
    println!("==================================================");
    ExitCode::SUCCESS
}

/// The mean TPOT this run prints when it is given rather than timed: the knob `mock_tpot_ms`
/// (an agent's patch), else `--mock-tpot-ms`, a comma-separated list taken in turn by the runs of
/// one container (counted in a file of its own), so a test's samples no load can change.
fn given_tpot(args: &[&str]) -> Option<f64> {
    let list =
        crate::knob_text("mock_tpot_ms").or_else(|| flag(args, "--mock-tpot-ms").map(str::to_string))?;
    let values: Vec<f64> = list.split(',').filter_map(|v| v.trim().parse().ok()).collect();
    let counter = std::path::Path::new("/tmp/mock-bench-runs");
    let _ = std::fs::create_dir_all("/tmp");
    let run: usize = std::fs::read_to_string(counter).ok().and_then(|n| n.trim().parse().ok()).unwrap_or(0);
    let _ = std::fs::write(counter, (run + 1).to_string());
    values.get(run % values.len().max(1)).copied()
}

pub fn latency(args: &[&str]) -> ExitCode {
    if let Some(code) = crate::night::fails_at("bench") {
        return code;
    }
    println!("Namespace(model='{}', batch_size=8)", flag(args, "--model").unwrap_or("facebook/opt-125m"));
    for i in 0..3 {
        print!("Profiling iterations: {:>3}%|\r", i * 50);
    }
    println!();
    println!("Avg latency: 0.8215512847331411 seconds");
    for (p, v) in [(10, 0.8147), (25, 0.8175), (50, 0.8199), (75, 0.8227), (90, 0.8244), (99, 0.8536)] {
        println!("{p}% percentile latency: {v} seconds");
    }
    ExitCode::SUCCESS
}

pub fn throughput(args: &[&str]) -> ExitCode {
    if let Some(code) = crate::night::fails_at("bench") {
        return code;
    }
    println!("Namespace(model='{}', num_prompts=100)", flag(args, "--model").unwrap_or("facebook/opt-125m"));
    println!("Throughput: 50.08 requests/s, 19152.84 total tokens/s, 6410.83 output tokens/s");
    ExitCode::SUCCESS
}
