//! `python3 -c …` probes and the `pip` shim. `pip install 'numpy<2'` really rewrites the
//! numpy version file, so the NumPy failure is fixed the way it is on a real image.

use crate::{SITE, VLLM_DIR};
use std::process::ExitCode;

pub fn code(code: &str) -> ExitCode {
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
        let ovis = format!("{VLLM_DIR}/transformers_utils/configs/ovis.py");
        let text = std::fs::read_to_string(&ovis).unwrap_or_default();
        if text.contains("AutoConfig.register(\"aimv2\", AIMv2Config)") && !text.contains("exist_ok=True") {
            eprintln!("ValueError: 'aimv2' is already used by a Transformers config, pick another name.");
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

pub fn numpy_version() -> Option<String> {
    let text = std::fs::read_to_string(format!("{SITE}/numpy/version.py")).ok()?;
    let start = text.find("version = \"")? + "version = \"".len();
    let end = text[start..].find('"')? + start;
    Some(text[start..end].to_string())
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
    for package in &packages {
        let name = package.trim_matches(['\'', '"']);
        if name.starts_with("numpy") && name.contains("<2") {
            let dir = format!("{SITE}/numpy");
            let written = std::fs::create_dir_all(&dir)
                .and_then(|_| std::fs::write(format!("{dir}/version.py"), "version = \"1.26.4\"\n"));
            if let Err(e) = written {
                eprintln!("ERROR: could not install numpy: {e}");
                return ExitCode::from(1);
            }
            println!("Successfully installed numpy-1.26.4");
        } else {
            println!("Requirement already satisfied: {name}");
        }
    }
    ExitCode::SUCCESS
}
