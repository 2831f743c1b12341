//! The build tier's environment: the real Debian base with Debian's `cmake`, `ninja-build` and
//! `g++`, the Python build backend from PyPI, and a real C/C++ source distribution from PyPI
//! (ninja 1.13.2: CMake + Ninja through scikit-build-core, ~40 C++ files) kept in the image, its
//! hash checked. The tests unpack it into a git checkout as the "parent" the tool archives.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use super::real::{base, lock_image};
use perftriage::docker::{Engine, tar_of};
use std::path::Path;
use std::process::Command;

const SDIST_URL: &str = "https://files.pythonhosted.org/packages/ac/92/410b7917d16ab54c04b05cc32b9284803671d91cf79d33be6009c28d4ea8/ninja-1.13.2.tar.gz";
const SDIST_SHA256: &str = "525bfa3fc88aa30a4467df270fd5be6f9fcae8061d54d4df74ea1dc5abd5a975";
pub const SDIST_IN_IMAGE: &str = "/opt/sdist/ninja-1.13.2.tar.gz";
/// What the build step's pip needs already there (`--no-build-isolation`, as vLLM's recipe).
pub const BUILD_DEPS: &[&str] = &["scikit-build-core", "setuptools_scm", "hatch-fancy-pypi-readme"];

fn dockerfile(base: &str) -> String {
    format!(
        "FROM {base}\n\
         COPY ca.crt /etc/ssl/certs/ca-certificates.crt\n\
         ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt PIP_BREAK_SYSTEM_PACKAGES=1 PIP_ROOT_USER_ACTION=ignore \
         PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 PIP_PROGRESS_BAR=off\n\
         RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends cmake ninja-build g++ >/dev/null\n\
         RUN pip install -q {deps}\n\
         RUN mkdir -p /opt/sdist && python3 -c \"import urllib.request; urllib.request.urlretrieve('{SDIST_URL}', '{SDIST_IN_IMAGE}')\" \
         && echo '{SDIST_SHA256}  {SDIST_IN_IMAGE}' | sha256sum -c -\n\
         LABEL perftriage.test=build-env\n",
        deps = BUILD_DEPS.join(" ")
    )
}

/// `perftriage-real/build:<hash>`, built when its recipe changed.
pub fn image(rt: &tokio::runtime::Runtime, engine: &Engine) -> Option<String> {
    let base = base(rt, engine)?;
    let docker = dockerfile(&base);
    let tag = format!("perftriage-real/build:{}", super::real::hash_of(&[docker.as_bytes()]));
    let _held = lock_image(&tag);
    if rt.block_on(engine.has_image(&tag)).unwrap() {
        return Some(tag);
    }
    let ca = std::fs::read("/etc/ssl/certs/ca-certificates.crt").unwrap();
    let context = tar_of(&[("Dockerfile", docker.as_bytes(), 0o644), ("ca.crt", &ca, 0o644)]).unwrap();
    rt.block_on(engine.build(&tag, context)).unwrap_or_else(|e| panic!("building {tag}: {e}"));
    Some(tag)
}

/// The sdist unpacked from the image into `dir` (its top folder stripped).
pub fn unpack_sdist(image: &str, dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let script = format!(
        "set -o pipefail; docker run --rm --entrypoint cat {image} {SDIST_IN_IMAGE} | tar xz --strip-components=1 -C {}",
        dir.display()
    );
    let out = Command::new("bash").args(["-c", &script]).output().unwrap();
    assert!(out.status.success(), "unpacking the sdist: {}", String::from_utf8_lossy(&out.stderr));
}
