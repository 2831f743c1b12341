//! Hostile input at the edges: ids from data never reach git as options, dataset values never
//! become paths outside the workspace or the patch folder.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

use perftriage::jobs::git::{self, GitError};
use std::path::Path;
use std::process::Command;

/// A git repository with `benchmarks/x.py` in one commit; its id.
fn repo(dir: &Path) -> String {
    let run = |args: &[&str]| {
        let out = Command::new("git").arg("-C").arg(dir).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    run(&["init", "-q"]);
    std::fs::create_dir_all(dir.join("benchmarks")).unwrap();
    std::fs::write(dir.join("benchmarks/x.py"), "print(1)\n").unwrap();
    run(&["add", "."]);
    run(&["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"]);
    run(&["rev-parse", "HEAD"])
}

fn block_on<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(f)
}

#[test]
fn a_revision_from_data_never_reaches_git_as_an_option() {
    let dir = tempfile::tempdir().unwrap();
    let head = repo(dir.path());
    let victim = dir.path().join("pwned");
    let hostile = format!("--output={}", victim.display());
    let err = block_on(git::archive(dir.path(), &hostile, "benchmarks", "p/")).unwrap_err();
    assert_eq!(err, GitError::NotACommit(hostile.clone()));
    assert!(matches!(
        block_on(git::show(dir.path(), &hostile, "benchmarks/x.py")),
        Err(GitError::NotACommit(_))
    ));
    assert!(!victim.exists(), "git wrote a file it was told to by the data");
    let tar = block_on(git::archive(dir.path(), &head, "benchmarks", "p/")).unwrap();
    assert!(String::from_utf8_lossy(&tar).contains("p/benchmarks/x.py"));
    assert_eq!(block_on(git::show(dir.path(), &head, "benchmarks/x.py")).unwrap(), b"print(1)\n");
    let missing = block_on(git::archive(dir.path(), "0123456789abcdef", "benchmarks", "p/")).unwrap_err();
    assert!(matches!(missing, GitError::Failed { .. }), "{missing}");
}

fn agent_plan(patches: &Path) -> Result<perftriage::runs::RunPlan, perftriage::runs::PlanError> {
    let commit = &perftriage::dataset::load_embedded().unwrap().commits[0];
    let config = perftriage::runs::RunConfig { patches: Some(patches.to_path_buf()), ..Default::default() };
    let images = perftriage::dataset::ImageTemplates::default();
    perftriage::runs::plan(
        commit,
        perftriage::dataset::Variant::Agent,
        &config,
        &images,
        Path::new("/ws"),
        &"r1".into(),
    )
}

#[test]
fn a_patch_that_links_out_of_the_patch_folder_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (patches, elsewhere) = (dir.path().join("patches"), dir.path().join("secret.txt"));
    std::fs::create_dir_all(&patches).unwrap();
    std::fs::write(&elsewhere, "not a patch").unwrap();
    let short = perftriage::dataset::load_embedded().unwrap().commits[0].short.clone();
    std::os::unix::fs::symlink(&elsewhere, patches.join(format!("{short}.patch"))).unwrap();
    let err = agent_plan(&patches).unwrap_err().to_string();
    assert!(err.contains("leads out of the patch folder"), "{err}");
    std::fs::remove_file(patches.join(format!("{short}.patch"))).unwrap();
    std::fs::write(patches.join(format!("{short}.diff")), "--- a/x\n+++ b/x\n").unwrap();
    assert!(agent_plan(&patches).unwrap().patch.unwrap().starts_with(patches.canonicalize().unwrap()));
}

#[test]
fn the_results_walk_survives_link_cycles_and_names_what_it_cannot_read() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("results");
    std::fs::create_dir_all(root.join("deep")).unwrap();
    std::fs::copy(
        "fixtures/results/isobench/claude_code/results/7c01f706_human_result.json",
        root.join("deep/7c01f706_human_result.json"),
    )
    .unwrap();
    std::os::unix::fs::symlink(".", root.join("x")).unwrap();
    std::os::unix::fs::symlink("..", root.join("deep/y")).unwrap();
    std::os::unix::fs::symlink("nowhere", root.join("dangling.json")).unwrap();
    std::os::unix::fs::symlink("loop", root.join("loop")).unwrap();
    // A walk round a link cycle would not return (or read the file again).
    let set = perftriage::dataset::results::read_dirs(std::slice::from_ref(&root));
    assert_eq!(set.files_read, 1, "each file once");
    let named: Vec<String> = set.warnings.iter().map(|w| w.path.display().to_string()).collect();
    assert!(
        named.iter().any(|p| p.ends_with("dangling.json")) && named.iter().any(|p| p.ends_with("loop")),
        "{named:?}"
    );
}

/// `perftriage classify --json FILE` (or `metrics`): its row.
fn inspected(command: &str, file: &Path) -> serde_json::Value {
    let out =
        Command::new(env!("CARGO_BIN_EXE_perftriage")).args([command, "--json"]).arg(file).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.lines().next().unwrap_or("{}")).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn a_line_longer_than_the_bound_is_read_in_marked_pieces_and_still_classified() {
    // 3 MiB of one line with a known failure signature in its middle (past the first MiB).
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("one-line.log");
    let line = format!(
        "{} ValueError: 'aimv2' is already used by a Transformers config {}",
        "x".repeat(3 << 19),
        "y".repeat(3 << 19)
    );
    std::fs::write(&log, &line).unwrap();
    let row = inspected("classify", &log);
    assert_eq!(row["category"], "aimv2", "{row:#}");
    assert!(row["cut"].as_str().is_some_and(|c| c.contains("read in pieces")), "{row:#}");
    let metrics = inspected("metrics", &log);
    assert!(metrics["cut"].is_string() && metrics["reason"].is_string(), "{metrics:#}");
}

#[test]
fn an_endless_run_of_nul_bytes_is_refused_at_once_with_a_clear_error() {
    for command in ["classify", "metrics"] {
        let row = inspected(command, Path::new("/dev/zero"));
        let error = row["error"].as_str().unwrap_or_default();
        assert!(
            error.starts_with("not a text log: ") && error.contains("from byte 0 are NUL"),
            "{command}: {row:#}"
        );
    }
}

#[test]
fn a_subject_with_bidi_and_escape_bytes_reaches_the_board_cleaned() {
    use perftriage::app::{AppState, Msg, update};
    let mut commits = perftriage::dataset::load_embedded().unwrap().commits;
    commits[0].subject = "safe \u{202E}exe.txt \u{1b}[31mred\u{1b}[0m \u{200B}end".into();
    let short = commits[0].short.clone();
    let classifier = perftriage::classify::Classifier::embedded().unwrap();
    let (entries, _) = perftriage::dataset::join(commits, Default::default(), &classifier);
    let mut s =
        AppState::new(entries, perftriage::triage::TriageBook::new(), perftriage::app::KeyMap::default());
    update(&mut s, Msg::Resize(160, 48));
    let theme = perftriage::ui::Theme::load("default").unwrap();
    let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(160, 48)).unwrap();
    term.draw(|f| perftriage::ui::view(f, &s, &theme)).unwrap();
    let screen: String = term.backend().buffer().content.iter().map(|c| c.symbol()).collect();
    assert!(screen.contains(&format!("{short}  safe exe.txt red end")), "the subject, cleaned: {screen}");
    assert!(!screen.contains(['\u{202E}', '\u{1b}', '\u{200B}']), "no bidi, escape or zero-width character");
}

#[test]
fn a_reason_or_note_that_is_blank_once_cleaned_is_refused() {
    let ws = tempfile::tempdir().unwrap();
    let mark = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_perftriage"))
            .args(["--workspace", ws.path().to_str().unwrap(), "mark", "7c01f706"])
            .args(args)
            .output()
            .unwrap()
    };
    assert_eq!(mark(&["--unfixable", "\u{200B}"]).status.code(), Some(2), "an invisible reason");
    assert_eq!(mark(&["--note", "\u{1b}[2J"]).status.code(), Some(2), "an escape that clears the screen");
    assert!(mark(&["--unfixable", "needs \u{1b}[31m2 GPUs"]).status.success());
    let book = std::fs::read_to_string(ws.path().join("triage.json")).unwrap();
    assert!(book.contains("needs 2 GPUs") && !book.contains("\\u001b"), "stored cleaned: {book}");
}
