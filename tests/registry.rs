//! Fixed images pushed to a real registry (Debian's `docker-registry`, started here on a free
//! 127.0.0.1 port) and pulled back by their recorded digest after the local copy is gone.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

mod common;

use common::engine::{docker, engine, ensure_images, perftriage, result, run, runtime, setup, text};

const SERVING: &str = "python benchmarks/benchmark_serving.py --model facebook/opt-125m --num-prompts 5";
use common::registry::Registry;

fn registry() -> Option<Registry> {
    Some(Registry::start())
}

#[test]
#[cfg_attr(not(has_registry), ignore = "needs Debian's docker-registry and a Docker engine")]
fn a_fixed_image_is_pushed_removed_pulled_back_by_digest_and_runs() {
    let rt = runtime();
    let Some(engine) = engine(&rt) else { return };
    let Some(registry) = registry() else { return };
    ensure_images(&rt, &engine);
    let s = setup("perftriage-test/vllm:aimv2", SERVING, &format!("[registry]\nurl = \"{}\"", registry.host));
    let short = s.short.clone();
    let nothing = perftriage(&s, &["image", "push", &short, "--variant", "human"]);
    assert_eq!(nothing.status.code(), Some(2), "no fixed image yet: {}", text(&nothing));
    let fix = ["fix", "apply", &short, "--variant", "human", "--recipe", "aimv2_exist_ok", "--commit-image"];
    assert_eq!(perftriage(&s, &fix).status.code(), Some(0));
    let pushed = perftriage(&s, &["image", "push", &short, "--variant", "human"]);
    assert_eq!(pushed.status.code(), Some(0), "{}", text(&pushed));
    let reference = String::from_utf8_lossy(&pushed.stdout).trim().to_string();
    assert!(reference.starts_with(&format!("{}/perftriage-fixed@sha256:", registry.host)), "{reference}");
    assert!(text(&pushed).contains("layer(s) done"), "progress: {}", text(&pushed));
    let triage = std::fs::read_to_string(s.root.join("ws/triage.json")).unwrap();
    assert!(triage.contains(&reference), "the digest is recorded: {triage}");
    // The registry serves the recorded digest, and that manifest is the one pushed.
    let digest = reference.rsplit_once('@').unwrap().1.to_string();
    let served = served_digest(&registry.host, &digest);
    assert_eq!(served, digest, "the registry serves the recorded digest");
    // The tag is then moved to another image: a pull by tag would bring that one back.
    let local = common::engine::fixed_tag(&s, perftriage::dataset::Variant::Human, Some("perftriage-fixed"));
    let remote = format!("{}/{local}", registry.host);
    let pushed_id = docker(&["image", "inspect", "-f", "{{.Id}}", &local]);
    docker(&["tag", "perftriage-test/vllm:ok", &remote]);
    docker(&["push", "-q", &remote]);
    assert_ne!(docker(&["image", "inspect", "-f", "{{.Id}}", &remote]), pushed_id);
    // The local copies go; the pull brings exactly the pushed image back under its local name.
    rt.block_on(engine.remove_image(&local)).unwrap();
    rt.block_on(engine.remove_image(&remote)).unwrap();
    assert!(!rt.block_on(engine.has_image(&local)).unwrap());
    let pulled = perftriage(&s, &["image", "pull", &short, "--variant", "human"]);
    assert_eq!(pulled.status.code(), Some(0), "{}", text(&pulled));
    assert_eq!(
        docker(&["image", "inspect", "-f", "{{.Id}}", &local]),
        pushed_id,
        "{local} is the pushed image"
    );
    let out = run(&s, "human");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(result(&s, "human")["perftriage"]["image"], local.as_str());
    // The pulled copy's registry name goes too (the setup removes the local tag).
    docker(&["rmi", &reference]);
}

/// The digest the registry's API answers for `perftriage-fixed@digest` (its
/// `Docker-Content-Digest` header), over plain HTTP on loopback.
fn served_digest(host: &str, digest: &str) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(host).unwrap();
    let accept = "application/vnd.docker.distribution.manifest.v2+json, application/vnd.oci.image.manifest.v1+json, application/vnd.oci.image.index.v1+json, application/vnd.docker.distribution.manifest.list.v2+json";
    let request = format!(
        "HEAD /v2/perftriage-fixed/manifests/{digest} HTTP/1.1\r\nHost: {host}\r\nAccept: {accept}\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let header = answer.lines().find_map(|l| {
        l.to_ascii_lowercase().strip_prefix("docker-content-digest:").map(|d| d.trim().to_string())
    });
    header.unwrap_or_else(|| panic!("no Docker-Content-Digest in {answer}"))
}

/// A run records the digest of the repository it ran from, else the image's id — never another
/// repository's digest of the same image: `perftriage-test/vllm:ok` pushed elsewhere (as the
/// test above does to move a tag) gains that repository's `RepoDigests` entry, and a campaign
/// test running beside it once recorded `127.0.0.1:…/perftriage-fixed@sha256:…` for a run in
/// `perftriage-test/vllm:ok`.
#[test]
#[cfg_attr(not(has_registry), ignore = "needs Debian's docker-registry and a Docker engine")]
fn a_runs_digest_is_its_own_repositorys_never_anothers() {
    let rt = runtime();
    let Some(engine) = engine(&rt) else { return };
    let Some(registry) = registry() else { return };
    ensure_images(&rt, &engine);
    let elsewhere = format!("{}/elsewhere:ok", registry.host);
    docker(&["tag", "perftriage-test/vllm:ok", &elsewhere]);
    docker(&["push", "-q", &elsewhere]);
    let digests = docker(&["image", "inspect", "-f", "{{json .RepoDigests}}", "perftriage-test/vllm:ok"]);
    assert!(digests.contains(&format!("{}/elsewhere@sha256:", registry.host)), "{digests}");
    let s = setup("perftriage-test/vllm:ok", SERVING, "");
    let out = run(&s, "human");
    docker(&["rmi", &elsewhere]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let id = docker(&["image", "inspect", "-f", "{{.Id}}", "perftriage-test/vllm:ok"]);
    assert_eq!(result(&s, "human")["perftriage"]["image_digest"], id.as_str());
}
