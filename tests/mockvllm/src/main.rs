//! A multi-call stand-in for the parts of a vLLM image perftriage drives, for images built
//! `FROM scratch` in tests: `python3` (api_server, benchmark scripts, `-c` probes, `-m pip`),
//! `pip`, and `vllm`. Failure signatures come from files in the image, so fixes that edit those
//! files really fix the run: an `ovis.py` without `exist_ok=True` (aimv2), a NumPy 2.x
//! `numpy/version.py`, a `vllm_flash_attn/` directory without `fa_utils.py`, transformers 4.48
//! (no `LogitsWarper`) under an lm-format-enforcer before 0.10.

mod bench;
mod night;
mod packages;
mod probes;
mod server;

use std::process::ExitCode;

pub const VLLM_DIR: &str = "/usr/local/lib/python3.12/dist-packages/vllm";
pub const SITE: &str = "/usr/local/lib/python3.12/dist-packages";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let program = args.first().map(|a| a.rsplit('/').next().unwrap_or(a).to_string()).unwrap_or_default();
    let rest: Vec<&str> = args.iter().skip(1).map(String::as_str).collect();
    match program.as_str() {
        "pip" | "pip3" => probes::pip(&rest),
        "vllm" => vllm_cli(&rest),
        _ => python(&rest),
    }
}

fn python(args: &[&str]) -> ExitCode {
    match args {
        ["-m", "vllm.entrypoints.openai.api_server", rest @ ..] => server::run(rest),
        ["-m", "pip", rest @ ..] => probes::pip(rest),
        ["-c", code, ..] => probes::code(code),
        [script, rest @ ..] if script.ends_with("benchmark_serving.py") => bench::serving(rest),
        [script, rest @ ..] if script.ends_with("benchmark_latency.py") => bench::latency(rest),
        [script, rest @ ..] if script.ends_with("benchmark_throughput.py") => bench::throughput(rest),
        ["--version"] => {
            println!("Python 3.12.3");
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("mock python3: unsupported arguments {args:?}");
            ExitCode::from(2)
        }
    }
}

fn vllm_cli(args: &[&str]) -> ExitCode {
    match args {
        ["serve", model, rest @ ..] => {
            let mut all = vec!["--model", model];
            all.extend_from_slice(rest);
            server::run(&all)
        }
        ["bench", "serve", rest @ ..] => bench::serving(rest),
        ["bench", "latency", rest @ ..] => bench::latency(rest),
        ["bench", "throughput", rest @ ..] => bench::throughput(rest),
        _ => {
            eprintln!("usage: vllm [-h] [-v] {{chat,complete,serve,bench}} ...");
            ExitCode::from(2)
        }
    }
}

/// The value after `--name` (or `--name=value`).
pub fn flag<'a>(args: &[&'a str], name: &str) -> Option<&'a str> {
    let prefix = format!("{name}=");
    args.iter().enumerate().find_map(|(i, a)| {
        if *a == name { args.get(i + 1).copied() } else { a.strip_prefix(prefix.as_str()) }
    })
}

/// vLLM's log prefix: `INFO 07-24 13:15:43 [file.py:123] `.
pub fn log(level: &str, file: &str, message: &str) {
    println!("{level} 07-24 13:15:43 [{file}] {message}");
}

/// The text after `<name> =` in the image's `vllm/__init__.py` (so an agent's patch can change
/// how the mock performs).
pub fn knob_text(name: &str) -> Option<String> {
    let init = std::fs::read_to_string(format!("{VLLM_DIR}/__init__.py")).ok()?;
    let value = init.lines().find_map(|l| l.strip_prefix(name)?.trim_start().strip_prefix('='));
    value.map(|v| v.trim().to_string())
}

/// A knob that is one number.
pub fn knob(name: &str) -> Option<f64> {
    knob_text(name)?.parse().ok()
}
