//! The README is checked against the binary: its action table is the live default key map
//! (`UPDATE_README=1 cargo test --test readme` rewrites it), and its usage block names every
//! subcommand the binary has.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::needless_pass_by_value
)]

use perftriage::app::{Action, KeyMap, KeyMode};

const BEGIN: &str = "<!-- actions: generated from the key map by tests/readme.rs (UPDATE_README=1 cargo test --test readme) -->";
const END: &str = "<!-- /actions -->";

fn action_table() -> String {
    let keys = KeyMap::default();
    let mut out = format!(
        "{BEGIN}\n| mode | action (config name) | default keys | what it does |\n|---|---|---|---|\n"
    );
    for mode in KeyMode::ALL {
        for action in Action::all().filter(|a| mode.offers(*a)) {
            let names: Vec<String> = keys.keys_for(mode, action).iter().map(|k| format!("`{k}`")).collect();
            let shown = if names.is_empty() { "—".to_string() } else { names.join(" ") };
            let what = action.description().replace('|', "\\|");
            out.push_str(&format!("| {} | `{}` | {shown} | {what} |\n", mode.name(), action.name()));
        }
    }
    out.push_str(END);
    out
}

#[test]
fn the_readme_lists_every_action_with_its_default_keys() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let (Some(start), Some(end)) = (readme.find(BEGIN), readme.find(END)) else {
        panic!("README.md has no generated action table; add the markers\n{BEGIN}\n{END}")
    };
    let current = &readme[start..end + END.len()];
    let wanted = action_table();
    if current != wanted && std::env::var_os("UPDATE_README").is_some() {
        std::fs::write("README.md", readme.replace(current, &wanted)).unwrap();
        return;
    }
    assert_eq!(
        current, wanted,
        "README's action table is out of date: UPDATE_README=1 cargo test --test readme"
    );
}

#[test]
fn the_readme_usage_names_every_subcommand() {
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_perftriage")).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    let readme = std::fs::read_to_string("README.md").unwrap();
    let commands = help.split("Commands:").nth(1).unwrap().split("\n\n").next().unwrap();
    let names: Vec<&str> =
        commands.lines().filter_map(|l| l.split_whitespace().next()).filter(|n| *n != "help").collect();
    assert!(names.len() >= 8, "{help}");
    let missing: Vec<&&str> = names.iter().filter(|n| !readme.contains(&format!("perftriage {n}"))).collect();
    assert!(missing.is_empty(), "README usage lacks {missing:?}");
}
