//! `perftriage --help` teaches: the board is the default, with examples; each command's help lists
//! its own options (not the board's) and one example; `perftriage man` lists every command.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

fn perftriage(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_perftriage")).args(args).output().unwrap();
    assert!(out.status.success(), "perftriage {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The commands a help text lists under `Commands:` (clap's own `help` left out).
fn commands_in(help: &str) -> Vec<String> {
    let listed = help.lines().skip_while(|l| *l != "Commands:").skip(1).take_while(|l| !l.is_empty());
    let names = listed.filter_map(|l| l.strip_prefix("  ")?.split_whitespace().next().map(str::to_string));
    names.filter(|n| n != "help").collect()
}

/// Every command path below the top level, `campaign start` included, depth first.
fn every_command() -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let mut todo: Vec<Vec<String>> =
        commands_in(&perftriage(&["--help"])).into_iter().map(|c| vec![c]).collect();
    while let Some(path) = todo.pop() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        for sub in commands_in(&perftriage(&args)) {
            todo.push([path.clone(), vec![sub]].concat());
        }
        found.push(path);
    }
    found
}

#[test]
fn the_top_help_says_the_board_is_the_default_and_shows_three_examples() {
    let help = perftriage(&["--help"]);
    assert!(help.contains("With no command, perftriage opens the board"), "{help}");
    let examples = help.lines().skip_while(|l| *l != "Examples:").skip(1);
    let shown: Vec<&str> = examples.filter(|l| l.trim_start().starts_with("perftriage")).collect();
    assert_eq!(shown.len(), 3, "{help}");
    assert!(shown[0].trim().starts_with("perftriage  "), "the first example is the board alone: {shown:?}");
}

#[test]
fn each_commands_help_has_its_own_example_and_not_the_boards_options() {
    let commands = every_command();
    assert!(commands.len() >= 30, "{commands:?}");
    for path in commands {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let help = perftriage(&args);
        let example = format!("Example:\n  perftriage {}", path.join(" "));
        assert!(help.contains(&example), "`{}` has no example of itself:\n{help}", path.join(" "));
        assert!(!help.contains("--theme"), "`{}` lists the board's --theme:\n{help}", path.join(" "));
        if path != ["gpu"] {
            assert!(!help.contains("--gpu-replay"), "`{}` lists --gpu-replay:\n{help}", path.join(" "));
        }
    }
}

#[test]
fn the_man_page_lists_every_command() {
    let page = perftriage(&["man"]);
    assert!(page.starts_with(".ie") || page.contains(".TH perftriage"), "not roff:\n{page}");
    for name in commands_in(&perftriage(&["--help"])) {
        assert!(page.contains(&format!("perftriage\\-{name}(1)")), "the page lacks `{name}`:\n{page}");
    }
}

#[test]
fn man_out_writes_a_page_per_command() {
    let dir = tempfile::tempdir().unwrap();
    perftriage(&["man", "--out", dir.path().to_str().unwrap()]);
    for path in every_command() {
        let page = dir.path().join(format!("perftriage-{}.1", path.join("-")));
        let text = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        assert!(text.contains(".SH EXAMPLES") || text.contains("Example"), "{}:\n{text}", page.display());
    }
}
