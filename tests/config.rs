//! Config and themes: partial overrides, and errors that name file, line and field.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

use perftriage::app::{Action, Key, KeyMode};
use perftriage::config::Config;
use perftriage::session::keymap;
use perftriage::ui::Theme;
use std::path::Path;

#[test]
fn keys_images_and_theme_override_defaults() {
    let text = "theme = \"light\"\n[images]\nhuman = \"mirror/vllm:{full}\"\n[keys]\nmark_skip = [\"x\", \"ctrl-k\"]\n";
    let config = Config::parse(text, Path::new("c.toml")).unwrap();
    assert_eq!(config.theme.as_deref(), Some("light"));
    assert_eq!(config.images.human, "mirror/vllm:{full}");
    assert_eq!(
        config.images.baseline, "anonymous/vllm-baseline:baseline-{parent12}",
        "unset fields keep defaults"
    );
    let keymap = keymap(&config, None).unwrap();
    assert_eq!(keymap.action(KeyMode::Board, Key::ch('x')), Some(Action::MarkSkip));
    assert_eq!(keymap.action(KeyMode::Board, Key::ctrl('k')), Some(Action::MarkSkip));
    assert_eq!(keymap.action(KeyMode::Board, Key::ch('z')), None);
    assert_eq!(keymap.action(KeyMode::Board, Key::ch('j')), Some(Action::Down), "other actions keep theirs");
    assert!(
        keymap.warnings.iter().any(|w| w.contains("`x`") && w.contains("cancel_run")),
        "{:?}",
        keymap.warnings
    );
}

#[test]
fn an_unknown_field_names_file_line_and_field() {
    let err = Config::parse("theme = \"default\"\n\n[images]\nhumn = \"x\"\n", Path::new("/etc/p.toml"))
        .unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("/etc/p.toml") && msg.contains("line 4") && msg.contains("humn"), "{msg}");
}

#[test]
fn an_unknown_action_or_key_is_named() {
    let bad = |text: &str| {
        let path = Path::new("k.toml");
        keymap(&Config::parse(text, path).unwrap(), Some(path)).unwrap_err().to_string()
    };
    let err = bad("[keys]\nmark_unfixabel = [\"u\"]\n");
    assert!(err.contains("k.toml") && err.contains("line 2") && err.contains("mark_unfixabel"), "{err}");
    let err = bad("[keys]\nquit = [\"hyper-q\"]\n");
    assert!(err.contains("hyper-q") && err.contains("quit"), "{err}");
    let err = bad("[keys.confirm]\nmark_skip = [\"s\"]\n");
    assert!(err.contains("mark_skip") && err.contains("confirm"), "{err}");
}

#[test]
fn every_embedded_theme_loads_and_a_bad_colour_is_named() {
    for name in Theme::names() {
        Theme::load(name).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let bad =
        std::fs::read_to_string("themes/default.toml").unwrap().replace("fg = \"green\"", "fg = \"grean\"");
    let err = Theme::parse(&bad, "mine.toml").unwrap_err().to_string();
    assert!(err.contains("mine.toml") && err.contains("roles.ok") && err.contains("grean"), "{err}");
    assert!(Theme::load("no-such-theme").unwrap_err().to_string().contains("default, light, monochrome"));
}

#[test]
fn a_build_knob_with_a_typo_is_named_and_overrides_parse() {
    let path = std::path::Path::new("build.toml");
    let err = perftriage::config::Config::parse("[build]\nmax_jbos = 3\n", path).unwrap_err().to_string();
    assert!(err.contains("unknown field `max_jbos`"), "{err}");
    let err = perftriage::config::Config::parse("[build.commits.abcd1234]\nnvcc_thread = 1\n", path)
        .unwrap_err()
        .to_string();
    assert!(err.contains("line 2") && err.contains("nvcc_thread"), "{err}");
    let text =
        "[build]\nmax_jobs = 8\nmemory_gb = 64.0\n[build.commits.abcd1234]\nmax_jobs = 4\npre = [\"true\"]\n";
    let config = perftriage::config::Config::parse(text, path).unwrap();
    assert_eq!(config.build.knobs.max_jobs, Some(8));
    assert_eq!(config.build.commits["abcd1234"].max_jobs, Some(4));
    assert_eq!(config.build.memory_limit(), Some(64 << 30));
}
