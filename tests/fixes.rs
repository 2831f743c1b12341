//! Fix recipes against the real engine: each failure image fails with its signature, the matching
//! recipe is suggested, applied and verified, and the re-run succeeds with the fix recorded.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

mod common;

use common::engine::{engine, ensure_images, perftriage, result, run, runtime, setup, text};
use perftriage::fixes::RecipeBook;

const SERVING: &str = "python benchmarks/benchmark_serving.py --model facebook/opt-125m --num-prompts 5";

#[test]
fn embedded_recipes_load_and_bad_files_are_named() {
    let book = RecipeBook::embedded().unwrap();
    for id in [
        "aimv2_exist_ok",
        "numpy_lt_2",
        "fa_utils_inject",
        "transformers_4_44_2",
        "lm_format_enforcer_upgrade",
        "transformers_pin_lt_4_46",
        "pyairports_git",
        "outlines_pin",
        "transformers_cleanup",
        "tokenizers_range",
    ] {
        assert!(book.get(id).is_some(), "{id}");
    }
    let bad = "[[recipe]]\nid = \"x\"\ntitle = \"t\"\nanswers = []\nsteps = [[\"rm\", \"{home}\"]]\nverify = [\"true\"]\n";
    let err = RecipeBook::parse(bad, "mine.toml").unwrap_err().to_string();
    assert!(err.contains("mine.toml") && err.contains("line 2") && err.contains("{home}"), "{err}");
    let typo = "[[recipe]]\nid = \"x\"\ntitle = \"t\"\nanswerz = []\nsteps = []\nverify = [\"true\"]\n";
    let err = RecipeBook::parse(typo, "mine.toml").unwrap_err().to_string();
    assert!(err.contains("line 4") && err.contains("answerz"), "{err}");
}

#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn each_failure_image_is_fixed_verified_and_rerun_with_the_fix_recorded() {
    let rt = runtime();
    let Some(engine) = engine(&rt) else { return };
    ensure_images(&rt, &engine);
    for (image, category, recipe) in [
        ("aimv2", "aimv2", "aimv2_exist_ok"),
        ("numpy2", "numpy2", "numpy_lt_2"),
        ("fa_utils", "fa_utils", "fa_utils_inject"),
    ] {
        let s = setup(&format!("perftriage-test/vllm:{image}"), SERVING, "");
        assert_eq!(run(&s, "human").status.code(), Some(3), "{image} fails first");
        let listed = text(&perftriage(&s, &["fix", "list", &s.short]));
        assert!(listed.contains(category) && listed.contains(recipe), "{image}: {listed}");
        let out = perftriage(&s, &["fix", "apply", &s.short, "--variant", "human", "--recipe", recipe]);
        assert_eq!(out.status.code(), Some(0), "{image}: {}", text(&out));
        assert!(text(&out).contains(&format!("{recipe}: verified")), "{image}: {}", text(&out));
        let r = result(&s, "human");
        assert_eq!(r["status"], "success", "{image}: {r:#}");
        assert_eq!(r["perftriage"]["fixes"], serde_json::json!([recipe]), "{image}");
        let status = perftriage(&s, &["status", "--json"]);
        let rec: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
        assert_eq!(rec["variants"]["human"]["fixes"], serde_json::json!([recipe]), "status carries the fix");
        let report = text(&perftriage(&s, &["report"]));
        assert!(
            report.contains("Measured in modified environments")
                && report.contains(&format!("| human | {recipe} |")),
            "{report}"
        );
    }
}

/// A fix committed again to its tag from the template image (its first commit's record lost in a
/// crash: a campaign applies it again on resume) removes the image the tag named before: no
/// untagged image is left behind.
#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn a_fix_committed_again_to_its_tag_leaves_no_untagged_image() {
    let rt = runtime();
    let Some(engine) = engine(&rt) else { return };
    ensure_images(&rt, &engine);
    let s = setup("perftriage-test/vllm:aimv2", SERVING, "");
    let apply =
        ["fix", "apply", &s.short, "--variant", "human", "--recipe", "aimv2_exist_ok", "--commit-image"];
    let id_of = |tag: &str| common::engine::docker(&["image", "inspect", "-f", "{{.Id}}", tag]);
    let out = perftriage(&s, &apply);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let tag = text(&out).split_whitespace().find(|w| w.starts_with("perftriage-fixed")).unwrap().to_string();
    let first = id_of(&tag);
    std::fs::remove_file(s.root.join("ws/triage.json")).unwrap();
    let out = perftriage(&s, &apply);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_ne!(id_of(&tag), first, "committed again, from the template image");
    let gone = std::process::Command::new("docker").args(["image", "inspect", &first]).output().unwrap();
    assert!(!gone.status.success(), "the image {first} the tag named before is removed");
}

#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn a_committed_fixed_image_runs_clean_and_a_second_apply_changes_nothing() {
    let rt = runtime();
    let Some(engine) = engine(&rt) else { return };
    ensure_images(&rt, &engine);
    let s = setup("perftriage-test/vllm:aimv2", SERVING, "");
    let out = perftriage(
        &s,
        &["fix", "apply", &s.short, "--variant", "human", "--recipe", "aimv2_exist_ok", "--commit-image"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let fixed = common::engine::fixed_tag(&s, perftriage::dataset::Variant::Human, Some("perftriage-fixed"));
    assert!(rt.block_on(engine.has_image(&fixed)).unwrap(), "{fixed} committed");
    // A fresh container of the fixed image: the run uses it from now on and runs clean.
    let out = run(&s, "human");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let r = result(&s, "human");
    assert_eq!(r["perftriage"]["image"], fixed.as_str());
    assert_eq!(r["perftriage"]["fixes"], serde_json::json!(["aimv2_exist_ok"]));
    let again = perftriage(
        &s,
        &["fix", "apply", &s.short, "--variant", "human", "--recipe", "aimv2_exist_ok", "--commit-image"],
    );
    assert_eq!(again.status.code(), Some(0));
    assert!(text(&again).contains("already applied"), "{}", text(&again));
}

#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn a_failing_verify_is_reported_and_recorded() {
    let rt = runtime();
    let Some(engine) = engine(&rt) else { return };
    ensure_images(&rt, &engine);
    let s = setup("perftriage-test/vllm:numpy2", SERVING, "");
    let recipes = s.root.join("my-recipes.toml");
    std::fs::write(&recipes, "[[recipe]]\nid = \"noop\"\ntitle = \"does nothing\"\nanswers = [\"numpy2\"]\nsteps = [[\"echo\", \"trying\"]]\nverify = [\"{python}\", \"-c\", \"import numpy\"]\n").unwrap();
    let config = std::fs::read_to_string(&s.config).unwrap();
    std::fs::write(&s.config, format!("recipes = \"{}\"\n{config}", recipes.display())).unwrap();
    let out = perftriage(&s, &["fix", "apply", &s.short, "--variant", "human", "--recipe", "noop"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(text(&out).contains("verify FAILED") && text(&out).contains("NumPy 2.2.6"), "{}", text(&out));
    let triage: serde_json::Value =
        serde_json::from_slice(&std::fs::read(s.root.join("ws/triage.json")).unwrap()).unwrap();
    let entry = &triage["commits"][&s.short][0];
    assert_eq!(entry["outcome"], "failed");
    assert!(std::path::Path::new(entry["log"].as_str().unwrap()).exists(), "the output is kept");
}

/// The fa_utils confirm names the commit the file is read at: the parent for a baseline image
/// (the PR commit was named before, while the parent was used).
#[test]
fn an_injected_file_is_previewed_from_the_commit_it_is_copied_from() {
    let book = perftriage::fixes::RecipeBook::embedded().unwrap();
    let recipe = book.recipes.iter().find(|r| r.id == "fa_utils_inject").unwrap();
    let commit = perftriage::dataset::load_embedded()
        .unwrap()
        .commits
        .into_iter()
        .find(|c| c.short == "35fad35a")
        .unwrap();
    let parent = commit.parent.clone().unwrap();
    for (variant, source) in [
        (perftriage::dataset::Variant::Baseline, parent.clone()),
        (perftriage::dataset::Variant::Human, commit.full.clone()),
    ] {
        let job = perftriage::jobs::fix::FixJob::new(
            &commit,
            variant,
            "img".into(),
            None,
            None,
            std::path::Path::new("/w"),
        );
        let vars = perftriage::fixes::Vars {
            vllm_dir: "/v".into(),
            python: "python3".into(),
            site_packages: "/s".into(),
            commit: commit.full.clone(),
            parent: parent.clone(),
            args: String::new(),
        };
        let facts = perftriage::fixes::Facts { vars, vllm_version: None, has_mllama: false };
        let steps = perftriage::jobs::fix::preview(recipe, &facts, &job.source_commit);
        assert_eq!(
            steps[0],
            format!(
                "copy vllm/vllm_flash_attn/fa_utils.py from the vLLM checkout at {source} into /v/vllm_flash_attn"
            ),
            "{variant:?}"
        );
    }
}

/// A recipe for aimv2 whose one step prints a token in two pieces around an escape sequence and a
/// first line, then waits for `/tmp/go` (made by the test) before it ends; its verify is that file.
/// What it prints is not in its own text (`$x`, `%s`), which the transcript echoes.
const LEAKY: &str = r#"
[[recipe]]
id = "leaky"
title = "Print a token, then wait"
answers = ["aimv2"]
steps = [["sh", "-c", "printf 'login hf_SEC\\033[1mR%sabc123 ok\\n' ET; x=first; echo \"$x line\"; while [ ! -e /tmp/go ]; do sleep 0.1; done; y=done; echo \"step $y\""]]
verify = ["test", "-e", "/tmp/go"]
"#;

#[test]
#[cfg_attr(not(has_docker), ignore = "needs a Docker engine and busybox-static")]
fn a_headless_fix_streams_each_step_as_it_runs_and_its_stdout_holds_no_token() {
    let rt = runtime();
    let Some(engine) = engine(&rt) else { return };
    ensure_images(&rt, &engine);
    let s = setup("perftriage-test/vllm:aimv2", SERVING, "");
    let recipes = s.root.join("recipes.toml");
    std::fs::write(&recipes, LEAKY).unwrap();
    let config = std::fs::read_to_string(&s.config).unwrap();
    std::fs::write(&s.config, format!("recipes = \"{}\"\n{config}", recipes.display())).unwrap();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_perftriage"))
        .args(["--config", s.config.to_str().unwrap(), "--workspace", s.root.join("ws").to_str().unwrap()])
        .args(["fix", "apply", &s.short, "--variant", "human", "--recipe", "leaky", "--commit-image"])
        .env("HF_TOKEN", "hf_SECRETabc123")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let child = common::wait::Watched::new(child);
    // Killed on a failure, it would leave its fix container behind: removed however this ends.
    let _fix_container = FixContainerRemoved(format!("perftriage-fix-{}", s.short));
    // The step cannot end before the file exists: its first line on stdout is streamed.
    common::wait::holds(
        "the step's first line before the step ends",
        60,
        || child.stdout().contains("first line"),
        || format!("stdout:\n{}\nstderr:\n{}", child.stdout(), child.stderr()),
    );
    let fix = common::engine::docker(&["ps", "-q", "--filter", &format!("name=perftriage-fix-{}", s.short)]);
    assert!(!child.stdout().contains("step done"), "the step still runs: {}", child.stdout());
    common::engine::docker(&["exec", &fix, "touch", "/tmp/go"]);
    let (status, stdout, stderr) = child.finish();
    assert_eq!(status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("step done") && stdout.contains("login [REDACTED] ok"), "{stdout}");
    for text in [&stdout, &stderr] {
        assert!(!text.contains("SECRETabc") && !text.contains("RETabc123"), "a token printed: {text}");
    }
    let log = std::fs::read_dir(s.root.join("ws/fixes")).unwrap().next().unwrap().unwrap().path();
    let kept = String::from_utf8_lossy(&std::fs::read(log).unwrap()).into_owned();
    assert!(kept.contains("[REDACTED]") && !kept.contains("SECRETabc"), "the kept output: {kept}");
}

/// The fix containers of one commit (by name), removed when the test ends.
struct FixContainerRemoved(String);

impl Drop for FixContainerRemoved {
    fn drop(&mut self) {
        let filter = format!("name={}", self.0);
        let ids = std::process::Command::new("docker").args(["ps", "-aq", "--filter", &filter]).output();
        for id in ids.map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default().lines() {
            let _ = std::process::Command::new("docker").args(["rm", "-f", id]).output();
        }
    }
}

#[test]
fn a_fix_step_is_shown_as_a_shell_would_read_it() {
    let text = r#"
[[recipe]]
id = "quoted"
title = "Quoting"
answers = ["numpy2"]
steps = [["sh", "-c", "for f in a b; do echo $f; done"], ["pip", "install", "numpy<2"], ["python3", "-c", "import vllm; print(1)"]]
verify = ["true"]
"#;
    let book = perftriage::fixes::RecipeBook::parse(text, "quoting.toml").unwrap();
    let vars = perftriage::fixes::Vars {
        vllm_dir: "/v".into(),
        python: "python3".into(),
        site_packages: "/s".into(),
        commit: "c".into(),
        parent: "p".into(),
        args: String::new(),
    };
    let facts = perftriage::fixes::Facts { vars, vllm_version: None, has_mllama: false };
    let steps = perftriage::jobs::fix::preview(book.get("quoted").unwrap(), &facts, "c");
    assert_eq!(
        steps,
        [
            "sh -c 'for f in a b; do echo $f; done'",
            "pip install 'numpy<2'",
            "python3 -c 'import vllm; print(1)'",
            "verify: true",
        ]
    );
}
