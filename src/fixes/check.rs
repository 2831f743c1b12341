//! Whether a recipe applies to a container, from facts the runtime probed.

use super::{Recipe, Vars};

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facts {
    pub vars: Vars,
    pub vllm_version: Option<String>,
    pub has_mllama: bool,
}

/// The check of a recipe that does not hold in this container.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotApplicable {
    #[error("none of {} exists", .0.join(", "))]
    NoneExists(Vec<String>),
    /// A check path made of the failure's evidence (`{args}`) where the evidence names none.
    #[error("its check needs a path the failure's evidence names, and it names none ({0})")]
    NoPathInEvidence(String),
    #[error("{0} exists")]
    Exists(String),
    #[error("this vLLM {} mllama", if *.0 { "has" } else { "has no" })]
    Mllama(bool),
    #[error("vLLM {version} is outside {range}")]
    Version { version: String, range: String },
}

/// `Ok` when every check holds, else why not.
pub fn applicable(
    recipe: &Recipe,
    facts: &Facts,
    exists: impl Fn(&str) -> bool,
) -> Result<(), NotApplicable> {
    let c = &recipe.check;
    if !c.file_exists.is_empty() {
        if let Some(template) = c.file_exists.iter().find(|p| facts.vars.render(p).trim().is_empty()) {
            return Err(NotApplicable::NoPathInEvidence(template.clone()));
        }
        let paths: Vec<String> = c.file_exists.iter().map(|p| facts.vars.render(p)).collect();
        if !paths.iter().any(|p| exists(p)) {
            return Err(NotApplicable::NoneExists(paths));
        }
    }
    if let Some(path) = c.file_absent.iter().map(|p| facts.vars.render(p)).find(|p| exists(p)) {
        return Err(NotApplicable::Exists(path));
    }
    if c.mllama.is_some_and(|want| want != facts.has_mllama) {
        return Err(NotApplicable::Mllama(facts.has_mllama));
    }
    if let Some(range) = &c.vllm_version {
        let version = facts.vllm_version.as_deref().unwrap_or("");
        if !version_in_range(version, range) {
            return Err(NotApplicable::Version { version: version.to_string(), range: range.clone() });
        }
    }
    Ok(())
}

fn numbers(v: &str) -> Vec<u64> {
    v.split(['.', '+', '-'])
        .map_while(|p| p.chars().take_while(char::is_ascii_digit).collect::<String>().parse().ok())
        .collect()
}

/// `">=0.4,<0.9"` against `0.5.3.post1`; an unknown version is in no range.
pub fn version_in_range(version: &str, range: &str) -> bool {
    let v = numbers(version);
    if v.is_empty() {
        return false;
    }
    range.split(',').map(str::trim).all(|bound| {
        let (op, rest) = ["<=", ">=", "==", "<", ">"]
            .iter()
            .find_map(|op| bound.strip_prefix(op).map(|r| (*op, r)))
            .unwrap_or(("==", bound));
        let b = numbers(rest);
        let ord = v
            .iter()
            .chain(std::iter::repeat(&0))
            .take(b.len().max(v.len()))
            .cmp(b.iter().chain(std::iter::repeat(&0)).take(b.len().max(v.len())));
        match op {
            "<" => ord.is_lt(),
            "<=" => ord.is_le(),
            ">" => ord.is_gt(),
            ">=" => ord.is_ge(),
            _ => ord.is_eq(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        assert!(version_in_range("0.5.3.post1", ">=0.4,<0.9"));
        assert!(!version_in_range("0.9.2rc2.dev58+ga6d795d59", "<0.9"));
        assert!(version_in_range("0.8.5.dev42+g3cd91dc95", "<0.9"));
        assert!(!version_in_range("", "<0.9"));
        assert!(version_in_range("0.10.1", ">0.9"));
    }

    #[test]
    fn a_check_path_from_evidence_that_names_none_says_so_not_none_of_exists() {
        let book = crate::fixes::RecipeBook::embedded().unwrap();
        let recipe = book.get("git_lock_remove").unwrap();
        let vars = crate::fixes::Vars {
            vllm_dir: "/v".into(),
            python: "python3".into(),
            site_packages: "/s".into(),
            commit: "c".into(),
            parent: "p".into(),
            args: String::new(),
        };
        let facts = Facts { vars, vllm_version: None, has_mllama: false };
        let why = applicable(recipe, &facts, |_| false).unwrap_err().to_string();
        assert_eq!(why, "its check needs a path the failure's evidence names, and it names none ({args})");
    }
}
