//! `python3 -c …` probes and the `pip` shim. `pip install 'numpy<2'` or `transformers==4.44.2`
//! really rewrites the package's version file, so the failure is fixed the way it is on a real
//! image.

use crate::{SITE, VLLM_DIR, night, packages};
use std::process::ExitCode;

pub fn code(code: &str) -> ExitCode {
    if let Some(url) = code.split_once("urlopen(\"").and_then(|(_, rest)| rest.split_once('"')) {
        return urlopen(url.0);
    }
    if code.contains("fa_utils") {
        let path = format!("{VLLM_DIR}/vllm_flash_attn/fa_utils.py");
        if std::path::Path::new(&path).exists() {
            println!("OK");
            return ExitCode::SUCCESS;
        }
        eprintln!("ModuleNotFoundError: No module named 'vllm.vllm_flash_attn.fa_utils'");
        return ExitCode::from(1);
    }
    if code.contains("configs.ovis") {
        if aimv2_unregistered() {
            eprintln!("ValueError: 'aimv2' is already used by a Transformers config, pick another name.");
            return ExitCode::from(1);
        }
        return ExitCode::SUCCESS;
    }
    if let Some(outcome) = night_probe(code) {
        return outcome;
    }
    if code.contains("LogitsWarper") {
        if let Some(error) = logits_warper_missing() {
            eprintln!("{error}");
            return ExitCode::from(1);
        }
        return ExitCode::SUCCESS;
    }
    if code.contains("vllm.entrypoints.openai") {
        if let Some(error) = lm_format_enforcer_broken() {
            eprintln!("{error}");
            return ExitCode::from(1);
        }
        return ExitCode::SUCCESS;
    }
    if code.contains("find_spec('vllm')") {
        println!("{VLLM_DIR}\n0.9.2.dev0+mock");
        return ExitCode::SUCCESS;
    }
    if code.contains("import vllm") {
        if code.contains("__file__") {
            println!("{VLLM_DIR}");
        } else if code.contains("__version__") {
            println!("0.9.2.dev0+mock");
        }
        return ExitCode::SUCCESS;
    }
    if code.contains("numpy") {
        return match numpy_version().as_deref() {
            Some(v) if v.starts_with('2') => {
                eprintln!(
                    "A module that was compiled using NumPy 1.x cannot be run in\nNumPy {v} as it may crash."
                );
                ExitCode::from(1)
            }
            Some(v) => {
                println!("{v}");
                ExitCode::SUCCESS
            }
            None => ExitCode::SUCCESS,
        };
    }
    ExitCode::SUCCESS
}

/// The verify steps of the night's recipes: each imports what its fix repairs.
fn night_probe(code: &str) -> Option<ExitCode> {
    let broken = if code.contains("transformers.utils") {
        night::transformers_broken().then_some("ModuleNotFoundError: No module named 'transformers.utils'")
    } else if code.contains("pyairports") {
        let real = packages::installed("pyairports").is_some_and(|v| v != "0.0.1");
        (!real).then_some("ModuleNotFoundError: No module named 'pyairports.airports'")
    } else if code.contains("outlines.fsm") {
        night::pyairports_placeholder().then_some("ModuleNotFoundError: No module named 'pyairports'")
    } else if code.contains("import aiohttp, pandas, datasets") {
        night::state_broken("pandas_missing").then_some("ModuleNotFoundError: No module named 'pandas'")
    } else {
        return None;
    };
    Some(match broken {
        Some(error) => {
            eprintln!("{error}");
            ExitCode::from(1)
        }
        None => ExitCode::SUCCESS,
    })
}

/// `ovis.py` registers `aimv2` without `exist_ok=True`.
pub fn aimv2_unregistered() -> bool {
    let ovis = format!("{VLLM_DIR}/transformers_utils/configs/ovis.py");
    let text = std::fs::read_to_string(&ovis).unwrap_or_default();
    text.contains("AutoConfig.register(\"aimv2\", AIMv2Config)") && !text.contains("exist_ok=True")
}

pub fn numpy_version() -> Option<String> {
    packages::installed("numpy")
}

/// `from transformers.generation.logits_process import LogitsWarper` fails from transformers 4.48,
/// as transformers' own file says it (the archive's 6ce01f30 human).
pub fn logits_warper_missing() -> Option<String> {
    let version = packages::installed("transformers")?;
    (packages::parts(&version) >= packages::parts("4.48")).then(|| {
        let file = format!("{SITE}/transformers/generation/logits_process.py");
        format!("ImportError: cannot import name 'LogitsWarper' from 'transformers.generation.logits_process' ({file})")
    })
}

/// lm-format-enforcer before 0.10 imports `LogitsWarper`, which transformers 4.48 no longer has:
/// vLLM's api_server cannot be imported.
pub fn lm_format_enforcer_broken() -> Option<String> {
    let enforcer = packages::installed("lm_format_enforcer")?;
    let old = packages::parts(&enforcer) < packages::parts("0.10");
    logits_warper_missing().filter(|_| old)
}

pub fn pip(args: &[&str]) -> ExitCode {
    let packages: Vec<&str> = match args {
        ["install", rest @ ..] => rest.iter().copied().filter(|a| !a.starts_with('-')).collect(),
        ["--version"] => {
            println!("pip 24.0 from {SITE}/pip (python 3.12)");
            return ExitCode::SUCCESS;
        }
        _ => {
            println!("mock pip: nothing to do for {args:?}");
            return ExitCode::SUCCESS;
        }
    };
    for spec in &packages {
        match packages::install(spec) {
            Ok(line) => println!("{line}"),
            Err(line) => {
                eprintln!("{line}");
                return ExitCode::from(1);
            }
        }
    }
    ExitCode::SUCCESS
}

/// `urllib.request.urlopen(url)` of an `http://host:port/path`: exit 0 when it answers 200, as
/// Python's does (which raises on any other status or a refused connection).
fn urlopen(url: &str) -> ExitCode {
    use std::io::{Read, Write};
    let Some((authority, path)) = url.strip_prefix("http://").and_then(|u| u.split_once('/')) else {
        eprintln!("ValueError: unknown url type: {url:?}");
        return ExitCode::from(1);
    };
    let status = std::net::TcpStream::connect(authority).and_then(|mut stream| {
        write!(stream, "GET /{path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n")?;
        let mut head = [0u8; 12];
        stream.read_exact(&mut head)?;
        Ok(head)
    });
    match status {
        Ok(head) if head.ends_with(b" 200") => ExitCode::SUCCESS,
        Ok(head) => {
            eprintln!("urllib.error.HTTPError: {}", String::from_utf8_lossy(&head));
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("urllib.error.URLError: <urlopen error {e}>");
            ExitCode::from(1)
        }
    }
}
