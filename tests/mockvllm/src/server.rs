//! `python3 -m vllm.entrypoints.openai.api_server`: realistic startup lines, the failure
//! signatures the image's files call for, then `/health`, `/v1/models` and streaming
//! `/v1/completions` over plain HTTP/1.1.

use crate::{VLLM_DIR, flag, log, probes};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::ExitCode;
use std::time::Duration;

pub fn run(args: &[&str]) -> ExitCode {
    let model = flag(args, "--model").unwrap_or("facebook/opt-125m").to_string();
    let port: u16 = flag(args, "--port").and_then(|p| p.parse().ok()).unwrap_or(8000);
    let pause = Duration::from_millis(env_ms("MOCK_STARTUP_MS").unwrap_or(300));
    // The version its `vllm/__init__.py` says when the server starts: an agent's patch shows.
    let version = crate::knob_text("__version__").map(|v| v.trim_matches('\'').to_string());
    let version = version.unwrap_or_else(|| "0.9.2.dev0+mock".into());
    log("INFO", "api_server.py:1018", &format!("vLLM API server version {version}"));
    log("INFO", "api_server.py:1019", &format!("args: Namespace(model='{model}', port={port})"));
    // pacing: MOCK_FAIL_AFTER_MS delays the image's failure, as a real engine fails some way into its start
    std::thread::sleep(Duration::from_millis(env_ms("MOCK_FAIL_AFTER_MS").unwrap_or(0)));
    if let Some(code) = failure() {
        return code;
    }
    // pacing: the mock engine's simulated start (a third of MOCK_STARTUP_MS), not a test's wait
    std::thread::sleep(pause / 3);
    log(
        "INFO",
        "config.py:823",
        "This model supports multiple tasks: {'generate'}. Defaulting to 'generate'.",
    );
    log("INFO", "loader.py:458", "Loading weights took 0.31 seconds");
    // pacing: the mock engine's simulated start (a third of MOCK_STARTUP_MS), not a test's wait
    std::thread::sleep(pause / 3);
    for pct in [0, 25, 50, 75, 100] {
        print!(
            "Capturing CUDA graph shapes: {pct:>3}%|{:<10}| {}/67\r",
            "#".repeat(pct / 10),
            pct * 67 / 100
        );
    }
    println!();
    log("INFO", "gpu_model_runner.py:1686", "Graph capturing finished in 1 secs.");
    // pacing: the mock engine's simulated start (a third of MOCK_STARTUP_MS), not a test's wait
    std::thread::sleep(pause / 3);
    let listener = match TcpListener::bind(("0.0.0.0", port)) {
        Ok(l) => l,
        Err(e) => {
            println!(
                "ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', {port}): {e}"
            );
            return ExitCode::from(1);
        }
    };
    println!("INFO:     Started server process [1]");
    println!("INFO:     Waiting for application startup.");
    println!("INFO:     Application startup complete.");
    println!("INFO:     Uvicorn running on http://0.0.0.0:{port} (Press CTRL+C to quit)");
    for stream in listener.incoming().flatten() {
        let model = model.clone();
        std::thread::spawn(move || serve(stream, &model));
    }
    ExitCode::SUCCESS
}

/// The crash the image's files call for, printed the way vLLM prints it.
/// Milliseconds from the environment variable `name`.
fn env_ms(name: &str) -> Option<u64> {
    std::env::var(name).ok()?.parse().ok()
}

fn failure() -> Option<ExitCode> {
    // A replayed night's run fails only as its own archive record did.
    if crate::night::cell().is_some() {
        return crate::night::fails_at("server");
    }
    let ovis = format!("{VLLM_DIR}/transformers_utils/configs/ovis.py");
    if probes::aimv2_unregistered() {
        println!("Traceback (most recent call last):");
        println!("  File \"{ovis}\", line 76, in <module>");
        println!("    AutoConfig.register(\"aimv2\", AIMv2Config)");
        println!("ValueError: 'aimv2' is already used by a Transformers config, pick another name.");
        return Some(ExitCode::from(1));
    }
    if let Some(v) = probes::numpy_version().filter(|v| v.starts_with('2')) {
        println!("A module that was compiled using NumPy 1.x cannot be run in");
        println!("NumPy {v} as it may crash. To support both 1.x and 2.x");
        println!("versions of NumPy, modules must be compiled with NumPy 2.0.");
        println!("RuntimeError: Numpy is not available");
        return Some(ExitCode::from(1));
    }
    if let Some(error) = probes::lm_format_enforcer_broken() {
        println!("Traceback (most recent call last):");
        println!(
            "  File \"{VLLM_DIR}/model_executor/guided_decoding/lm_format_enforcer_decoding.py\", line 7, in <module>"
        );
        println!("    from lmformatenforcer.integrations.transformers import (");
        println!("{error}");
        return Some(ExitCode::from(1));
    }
    let fa_dir = format!("{VLLM_DIR}/vllm_flash_attn");
    if std::path::Path::new(&fa_dir).is_dir()
        && !std::path::Path::new(&format!("{fa_dir}/fa_utils.py")).exists()
    {
        log("ERROR", "core.py:387", "EngineCore hit an exception: Traceback (most recent call last):");
        log("ERROR", "core.py:387", "ModuleNotFoundError: No module named 'vllm.vllm_flash_attn.fa_utils'");
        return Some(ExitCode::from(1));
    }
    None
}

fn serve(mut stream: TcpStream, model: &str) {
    let Ok(clone) = stream.try_clone() else { return };
    let mut reader = BufReader::new(clone);
    let mut request = String::new();
    if reader.read_line(&mut request).is_err() {
        return;
    }
    let mut length = 0usize;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).is_err() || header.trim().is_empty() {
            break;
        }
        if let Some(v) = header.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0u8; length.min(1 << 20)];
    let _ = reader.read_exact(&mut body);
    let path = request.split_whitespace().nth(1).unwrap_or("/");
    let _ = match path {
        "/health" => respond(&mut stream, "200 OK", "application/json", ""),
        "/v1/models" => {
            let json =
                format!("{{\"object\":\"list\",\"data\":[{{\"id\":\"{model}\",\"object\":\"model\"}}]}}");
            respond(&mut stream, "200 OK", "application/json", &json)
        }
        "/v1/completions" => completions(&mut stream, &String::from_utf8_lossy(&body)),
        _ => respond(&mut stream, "404 Not Found", "application/json", "{\"detail\":\"Not Found\"}"),
    };
    println!(
        "INFO:     127.0.0.1:40000 - \"{} {path} HTTP/1.1\" 200 OK",
        request.split_whitespace().next().unwrap_or("GET")
    );
}

fn respond(stream: &mut TcpStream, status: &str, kind: &str, body: &str) -> std::io::Result<()> {
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// The pause between tokens: `mock_token_us` (default 1 ms) from the image's knobs.
fn token_pause() -> Duration {
    Duration::from_secs_f64(crate::knob("mock_token_us").unwrap_or(1000.0).max(0.0) / 1e6)
}

/// Server-sent events, a token every `token_pause`, then `[DONE]`; the connection closes the body.
fn completions(stream: &mut TcpStream, body: &str) -> std::io::Result<()> {
    let tokens = body
        .split("\"max_tokens\":")
        .nth(1)
        .and_then(|r| r.trim_start().split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(16)
        .min(256);
    write!(stream, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")?;
    let pause = token_pause();
    for i in 0..tokens {
        write!(stream, "data: {{\"choices\":[{{\"index\":0,\"text\":\" tok{i}\"}}]}}\n\n")?;
        stream.flush()?;
        // pacing: the mock's simulated time per token, not a test's wait
        std::thread::sleep(pause);
    }
    write!(stream, "data: [DONE]\n\n")
}
