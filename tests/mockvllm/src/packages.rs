//! The image's Python packages as the mock keeps them: `<site>/<name>/version.py` holds
//! `version = "X"`. `pip install SPEC` writes the newest version it knows that meets the spec, so a
//! recipe's real `pip install 'numpy<2'` or `transformers==4.44.2` changes what the next start sees.

use crate::SITE;

/// The versions the mock's index has of a package, oldest first (others: `1.0.0` only).
fn known(name: &str) -> &'static [&'static str] {
    match name {
        "numpy" => &["1.26.4", "2.2.6"],
        "transformers" => &["4.40.2", "4.44.2", "4.45.2", "4.48.3"],
        "lm_format_enforcer" => &["0.9.8", "0.10.11"],
        "outlines" => &["0.0.34", "0.0.46"],
        _ => &["1.0.0"],
    }
}

/// The installed version of `name` (its import name: `-` read as `_`).
pub fn installed(name: &str) -> Option<String> {
    let text = std::fs::read_to_string(format!("{SITE}/{}/version.py", import_name(name))).ok()?;
    let start = text.find("version = \"")? + "version = \"".len();
    let end = text[start..].find('"')? + start;
    Some(text[start..end].to_string())
}

fn import_name(name: &str) -> String {
    name.to_ascii_lowercase().replace('-', "_")
}

/// `1.26.4` → `[1, 26, 4]`, for comparing.
pub fn parts(version: &str) -> Vec<u64> {
    version
        .split('.')
        .map(|p| p.chars().take_while(char::is_ascii_digit).collect::<String>().parse().unwrap_or(0))
        .collect()
}

/// Whether `version` meets one constraint (`<2`, `>=4.40.0`, `==4.44.2`).
fn meets(version: &str, constraint: &str) -> bool {
    let ops = ["==", ">=", "<=", "<", ">"];
    let Some(op) = ops.iter().find(|op| constraint.starts_with(**op)) else { return true };
    let (have, want) = (parts(version), parts(&constraint[op.len()..]));
    match *op {
        "==" => have == want,
        ">=" => have >= want,
        "<=" => have <= want,
        "<" => have < want,
        _ => have > want,
    }
}

/// `transformers>=4.40.0,<4.46.0` → (`transformers`, [`>=4.40.0`, `<4.46.0`]); a
/// `git+https://…/pyairports.git` spec → (`pyairports`, []).
fn split_spec(spec: &str) -> (String, Vec<String>) {
    let spec = spec.trim_matches(['\'', '"']);
    if let Some(url) = spec.strip_prefix("git+") {
        let name = url.trim_end_matches(".git").rsplit('/').next().unwrap_or(url);
        return (import_name(name), Vec::new());
    }
    let at = spec.find(['<', '>', '=']).unwrap_or(spec.len());
    let constraints = spec[at..].split(',').filter(|c| !c.is_empty()).map(str::to_string).collect();
    (import_name(&spec[..at]), constraints)
}

/// Install the newest known version meeting `spec`; the line pip prints, or its error.
pub fn install(spec: &str) -> Result<String, String> {
    let (name, constraints) = split_spec(spec);
    let version = known(&name).iter().rev().find(|v| constraints.iter().all(|c| meets(v, c)));
    let Some(version) = version else {
        return Err(format!("ERROR: No matching distribution found for {spec}"));
    };
    if installed(&name).as_deref() == Some(*version) {
        return Ok(format!("Requirement already satisfied: {name}=={version}"));
    }
    let dir = format!("{SITE}/{name}");
    std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(format!("{dir}/version.py"), format!("version = \"{version}\"\n")))
        .and_then(|()| whole(&name, &dir))
        .map_err(|e| format!("ERROR: could not install {name}: {e}"))?;
    Ok(format!("Successfully installed {name}-{version}"))
}

/// The parts of a package the mock looks for beside its version: transformers' `utils`.
fn whole(name: &str, dir: &str) -> std::io::Result<()> {
    match name {
        "transformers" => std::fs::create_dir_all(format!("{dir}/utils"))
            .and_then(|()| std::fs::write(format!("{dir}/utils/__init__.py"), "")),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_picks_the_newest_known_version_that_meets_it() {
        let pick = |spec: &str| {
            let (name, constraints) = split_spec(spec);
            known(&name).iter().rev().find(|v| constraints.iter().all(|c| meets(v, c))).copied()
        };
        assert_eq!(pick("numpy<2"), Some("1.26.4"));
        assert_eq!(pick("'transformers==4.44.2'"), Some("4.44.2"));
        assert_eq!(pick("transformers>=4.40.0,<4.46.0"), Some("4.45.2"));
        assert_eq!(pick("transformers>=4.45"), Some("4.48.3"));
        assert_eq!(pick("lm-format-enforcer"), Some("0.10.11"));
        assert_eq!(pick("transformers==9"), None);
        assert_eq!(split_spec("git+https://github.com/NICTA/pyairports.git").0, "pyairports");
    }
}
