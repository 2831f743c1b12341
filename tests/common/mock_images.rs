//! The mock vLLM's `FROM scratch` images, `perftriage-test/vllm:{ok,aimv2,numpy2,fa_utils,logitswarper}`: the
//! static mock binary, busybox, and files that reproduce real failure signatures. Built once per
//! test process (and by `.ci/run`'s preparation), under the image lock.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use perftriage::docker::{Engine, tar_of};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

pub const IMAGES: &[&str] = &["ok", "aimv2", "numpy2", "fa_utils", "logitswarper"];
static BUILT: Mutex<bool> = Mutex::new(false);

pub fn mock_binary() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = root.join("target/mock");
    let status = Command::new(env!("CARGO"))
        .args([
            "build",
            "-q",
            "-p",
            "mockvllm",
            "--release",
            "--target",
            "x86_64-unknown-linux-gnu",
            "--target-dir",
        ])
        .arg(&target)
        // The checkout's path remapped: every checkout builds the same binary, so its images
        // are the same images (no rebuild, nothing left dangling).
        .env(
            "RUSTFLAGS",
            format!("-C target-feature=+crt-static --remap-path-prefix={}=/src", root.display()),
        )
        // `.ci/run` compiles the workspace through clippy's driver: not the mock, whose binary
        // (and so whose images) would then differ between CI and a plain `cargo nextest run`.
        .env_remove("RUSTC_WORKSPACE_WRAPPER")
        .current_dir(root)
        .status()
        .unwrap();
    assert!(status.success(), "building the static mock failed");
    target.join("x86_64-unknown-linux-gnu/release/mockvllm")
}

const SITE: &str = "usr/local/lib/python3.12/dist-packages";

/// A `FROM scratch` image's build context: busybox, the mock as `python3`/`pip`/`vllm`, and
/// `files` (paths under the site-packages, their text), labelled `perftriage.test=<label>`.
pub fn image_context(label: &str, mock: &[u8], busybox: &[u8], files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let dockerfile = format!(
        "FROM scratch\nCOPY bin/busybox /bin/busybox\nCOPY mockvllm /usr/local/bin/mockvllm\nCOPY {SITE}/ /{SITE}/\n\
         RUN [\"/bin/busybox\", \"--install\", \"-s\", \"/bin\"]\n\
         RUN [\"/bin/sh\", \"-c\", \"mkdir -p /usr/bin /tmp && for n in python3 python pip pip3 vllm; do ln -s /usr/local/bin/mockvllm /usr/bin/$n; done\"]\n\
         ENV PATH=/usr/local/bin:/usr/bin:/bin\nLABEL perftriage.test={label}\n"
    );
    let site: Vec<(String, &[u8])> =
        files.iter().map(|(p, t)| (format!("{SITE}/{p}"), t.as_slice())).collect();
    let mut entries: Vec<(&str, &[u8], u32)> = vec![
        ("Dockerfile", dockerfile.as_bytes(), 0o644),
        ("bin/busybox", busybox, 0o755),
        ("mockvllm", mock, 0o755),
    ];
    entries.extend(site.iter().map(|(p, t)| (p.as_str(), *t, 0o644)));
    tar_of(&entries).unwrap()
}

/// The site-packages of a flavour's image.
fn flavour_files(flavour: &str) -> Vec<(String, Vec<u8>)> {
    let ovis = if flavour == "aimv2" {
        "AutoConfig.register(\"aimv2\", AIMv2Config)\n"
    } else {
        "AutoConfig.register(\"aimv2\", AIMv2Config, exist_ok=True)\n"
    };
    let numpy = if flavour == "numpy2" { "2.2.6" } else { "1.26.4" };
    let mut files = vec![
        file("vllm/transformers_utils/configs/ovis.py", ovis),
        version("numpy", numpy),
        file("vllm/__init__.py", "__version__ = '0.9.2.dev0+mock'\n"),
        file("vllm/vllm_flash_attn/__init__.py", ""),
    ];
    if flavour != "fa_utils" {
        files.push(file(
            "vllm/vllm_flash_attn/fa_utils.py",
            "def flash_attn_supports_fp8():\n    return False\n",
        ));
    }
    // transformers 4.48 (no LogitsWarper) under an lm-format-enforcer that still imports it.
    if flavour == "logitswarper" {
        files.extend([version("transformers", "4.48.3"), version("lm_format_enforcer", "0.9.8")]);
    }
    files
}

pub fn file(path: &str, text: &str) -> (String, Vec<u8>) {
    (path.to_string(), text.as_bytes().to_vec())
}

/// A package as the mock's pip keeps it: `<name>/version.py`.
pub fn version(name: &str, version: &str) -> (String, Vec<u8>) {
    file(&format!("{name}/version.py"), &format!("version = \"{version}\"\n"))
}

/// The image id a tag names, if it names one.
pub fn image_id(tag: &str) -> Option<String> {
    let out = Command::new("docker").args(["image", "inspect", "-f", "{{.Id}}", tag]).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Build `perftriage-test/vllm:{ok,aimv2,numpy2,fa_utils,logitswarper}` once per test binary.
pub fn ensure_images(rt: &tokio::runtime::Runtime, engine: &Engine) {
    let mut built = BUILT.lock().unwrap_or_else(|p| p.into_inner());
    if *built {
        return;
    }
    // One test process builds them at a time: two at once on a machine without them made two
    // images of each tag, and the replaced one stayed (dangling) while a test of the other ran it.
    let _held = super::real::lock_image("perftriage-test/vllm");
    let mock = std::fs::read(mock_binary()).unwrap();
    let busybox = std::fs::read("/bin/busybox").unwrap();
    for flavour in IMAGES {
        let tag = format!("perftriage-test/vllm:{flavour}");
        let before = image_id(&tag);
        rt.block_on(engine.build(&tag, image_context(flavour, &mock, &busybox, &flavour_files(flavour))))
            .unwrap();
        // Another checkout's mock differs: the image it replaced would be left dangling.
        if let Some(old) = before.filter(|old| image_id(&tag).as_ref() != Some(old)) {
            let _ = Command::new("docker").args(["rmi", &old]).output(); // in use by a running test: kept
        }
    }
    *built = true;
}
