//! An image reference as Docker takes it (`repo/name:tag`, `name@sha256:…`): what a run, a fix or
//! a build ran in, never confused with a commit or a template that still holds `{short}`.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ImageRef(String);

super::string_identity!(ImageRef);

/// The repository an image reference names, as Docker's `RepoDigests` spell it: the tag and the
/// digest dropped, Docker Hub's `docker.io/` and `library/` too (`ubuntu:22.04` → `ubuntu`,
/// `127.0.0.1:5000/x/y:t` → `127.0.0.1:5000/x/y`).
pub fn repository(reference: &str) -> &str {
    let name = reference.split('@').next().unwrap_or(reference);
    let name = match name.rfind(':') {
        Some(colon) if !name[colon..].contains('/') => &name[..colon],
        _ => name,
    };
    let name = name.strip_prefix("docker.io/").unwrap_or(name);
    name.strip_prefix("library/").unwrap_or(name)
}

/// Why a text is not an image reference Docker takes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReferenceError {
    #[error("an image reference holds no whitespace or control character")]
    Whitespace,
    #[error("the repository name must be lower case")]
    UpperCase,
    #[error("a repository name is at most 255 characters")]
    TooLong,
    #[error("not an image reference Docker takes: [registry[:port]/]name[:tag][@digest]")]
    Grammar,
}

/// Check `text` against Docker's reference grammar (distribution/reference): lower-case path
/// components joined by `.`, `_`, `__` or dashes, an optional registry host with a port, a tag
/// of word characters, `.` and `-`, an optional digest.
pub fn check_reference(text: &str) -> Result<(), ReferenceError> {
    use std::sync::LazyLock;
    static GRAMMAR: LazyLock<regex::Regex> = LazyLock::new(|| {
        let domain_part = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
        let domain = format!(r"{domain_part}(?:\.{domain_part})*(?::[0-9]+)?");
        let path_part = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*";
        let name = format!(r"(?:{domain}/)?{path_part}(?:/{path_part})*");
        let tag = r"[\w][\w.-]{0,127}";
        let digest = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}";
        regex::Regex::new(&format!(r"^(?P<name>{name})(?::{tag})?(?:@{digest})?$"))
            .unwrap_or_else(|e| unreachable!("the reference grammar: {e}"))
    });
    if text.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(ReferenceError::Whitespace);
    }
    let Some(found) = GRAMMAR.captures(text) else {
        let lowered = text.to_lowercase();
        let upper = lowered != text && GRAMMAR.is_match(&lowered);
        return Err(if upper { ReferenceError::UpperCase } else { ReferenceError::Grammar });
    };
    if found.name("name").is_some_and(|n| n.as_str().len() > 255) {
        return Err(ReferenceError::TooLong);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_references_repository_drops_its_tag_digest_and_docker_hubs_prefixes() {
        for (reference, repo) in [
            ("ubuntu:22.04", "ubuntu"),
            ("docker.io/library/ubuntu:22.04", "ubuntu"),
            ("perftriage-test/vllm:ok", "perftriage-test/vllm"),
            ("127.0.0.1:5000/perftriage-fixed:4fb56914", "127.0.0.1:5000/perftriage-fixed"),
            ("127.0.0.1:5000/perftriage-fixed@sha256:db16", "127.0.0.1:5000/perftriage-fixed"),
            ("127.0.0.1:5000/x", "127.0.0.1:5000/x"),
        ] {
            assert_eq!(repository(reference), repo, "{reference}");
        }
    }

    #[test]
    fn references_docker_takes_pass_and_the_rest_say_why() {
        for good in [
            "anonymous/vllm-baseline:baseline-0123456789ab",
            "127.0.0.1:5000/perftriage-fixed/vllm:x",
            "perftriage-test/vllm:ok",
            "ubuntu",
            "a__b.c/d-e:1.0_x",
            "repo@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        ] {
            assert_eq!(check_reference(good), Ok(()), "{good}");
        }
        assert_eq!(check_reference("anonymous/vllm-baseline:abc\n#evil"), Err(ReferenceError::Whitespace));
        assert_eq!(check_reference("a b:c"), Err(ReferenceError::Whitespace));
        assert_eq!(check_reference("Upper/Case:x"), Err(ReferenceError::UpperCase));
        assert_eq!(check_reference("--privileged"), Err(ReferenceError::Grammar));
        assert_eq!(check_reference("repo:tag:more"), Err(ReferenceError::Grammar));
        assert_eq!(check_reference(""), Err(ReferenceError::Grammar));
    }
}
