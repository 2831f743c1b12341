//! Template variables in recipe argv: only these, each a whole value, never shell text.

pub const ALLOWED_VARIABLES: &[&str] = &["vllm_dir", "python", "site_packages", "commit", "parent", "args"];

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Vars {
    pub vllm_dir: String,
    pub python: String,
    pub site_packages: String,
    pub commit: String,
    pub parent: String,
    pub args: String,
}

/// A `{name}` outside the allowed set.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown template variable {{{name}}} (allowed: {})", ALLOWED_VARIABLES.join(", "))]
pub struct UnknownVariable {
    pub name: String,
}

/// Reject `{name}` for any name outside the allowed set.
pub fn validate(template: &str) -> Result<(), UnknownVariable> {
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else { return Ok(()) };
        let name = &after[..close];
        let is_identifier = !name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase() || c == '_');
        if is_identifier && !ALLOWED_VARIABLES.contains(&name) {
            return Err(UnknownVariable { name: name.to_string() });
        }
        rest = &after[close + 1..];
    }
    Ok(())
}

impl Vars {
    pub fn render(&self, template: &str) -> String {
        template
            .replace("{vllm_dir}", &self.vllm_dir)
            .replace("{python}", &self.python)
            .replace("{site_packages}", &self.site_packages)
            .replace("{commit}", &self.commit)
            .replace("{parent}", &self.parent)
            .replace("{args}", &self.args)
    }

    pub fn argv(&self, argv: &[String]) -> Vec<String> {
        argv.iter().map(|a| self.render(a)).collect()
    }
}
