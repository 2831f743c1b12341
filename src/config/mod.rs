//! Files → typed config. Embedded defaults, partial user overrides in TOML; a bad file is an error
//! that names the file, line and field. XDG paths come from `directories`.

mod hosts;

pub use hosts::{HostConfig, total_slots};

use crate::dataset::ImageTemplates;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Where fixed images go unless the config says `fixed_repo`.
pub const DEFAULT_FIXED_REPO: &str = "perftriage-fixed";

#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Theme name (`default`, `light`, `monochrome`) or a path to a theme TOML file.
    pub theme: Option<String>,
    pub workspace: Option<PathBuf>,
    pub dataset: Option<PathBuf>,
    pub results: Vec<PathBuf>,
    /// Agent-run folders (patches, run summaries, trajectories), read recursively.
    pub trajectories: Vec<PathBuf>,
    pub images: ImageTemplates,
    /// Runs: server template, GPUs, timeouts, vLLM checkout, patches (see `runs::RunConfig`).
    pub runs: crate::runs::RunConfig,
    /// Baseline builds: the recipe's knobs and per-commit overrides (see `builds::BuildConfig`).
    pub build: crate::builds::BuildConfig,
    /// The Docker engines runs may go to (none: the one `DOCKER_HOST` names, as before).
    pub hosts: Vec<HostConfig>,
    /// Slurm as the fleet engine: partition, account, the shared directory (see `runs::SlurmConfig`).
    pub slurm: crate::runs::SlurmConfig,
    /// More fix recipes (same schema as src/fixes/recipes.toml); a recipe with an existing id replaces it.
    pub recipes: Option<PathBuf>,
    /// Repository for fixed images committed by `fix apply --commit-image` (default `perftriage-fixed`).
    pub fixed_repo: Option<String>,
    /// Where fixed images are pushed to and pulled back from (`perftriage image push|pull`).
    pub registry: RegistryConfig,
    /// `[gates]`: the validity gates' bound on failed requests (see `metrics::gates::Limits`).
    pub gates: crate::metrics::gates::Limits,
    /// Decoded log lines kept in memory per open log (older ones are read back from the spool).
    #[serde(default, deserialize_with = "crate::checked::positive_option")]
    pub log_ring: Option<usize>,
    /// Action name → keys (board and log actions), or a mode's table (`[keys.confirm]`); app's key
    /// map binds the names.
    pub keys: KeysConfig,
    /// The line of each `[keys]` entry, for errors that name it.
    #[serde(skip)]
    pub key_lines: BTreeMap<String, usize>,
}

/// `[registry]`: the registry's host (`127.0.0.1:5000`, `ghcr.io/team`) and, when it needs them,
/// a user and the environment variable holding the password (never the password itself); without
/// them the docker CLI's `config.json` login for the host is used.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RegistryConfig {
    pub url: Option<String>,
    pub username: Option<String>,
    pub password_env: Option<String>,
}

/// One `[keys]` entry: an action's keys, or a whole mode's table of them.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum KeyEntry {
    Keys(Vec<String>),
    Mode(BTreeMap<String, Vec<String>>),
}

pub type KeysConfig = BTreeMap<String, KeyEntry>;

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("invalid config {path}: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error("config {path} is not a regular file (a FIFO or a device?): perftriage will not read it")]
    NotRegular { path: PathBuf },
    #[error("config {path} is over {MAX_CONFIG} bytes: not a config")]
    TooBig { path: PathBuf },
}

/// A config is a few KB; a bigger one is not a config.
const MAX_CONFIG: u64 = 1 << 20;

impl From<crate::files::RegularError> for ConfigError {
    fn from(e: crate::files::RegularError) -> ConfigError {
        use crate::files::RegularError as E;
        match e {
            E::Io { path, source } => ConfigError::Read { path, source },
            E::NotRegular { path } => ConfigError::NotRegular { path },
            E::TooBig { path, .. } => ConfigError::TooBig { path },
        }
    }
}

impl Config {
    /// `--config PATH` must exist; the default `$XDG_CONFIG_HOME/perftriage/config.toml` may not.
    pub fn load(explicit: Option<&Path>) -> Result<(Config, Option<PathBuf>), ConfigError> {
        let (path, required) = match explicit {
            Some(p) => (p.to_path_buf(), true),
            None => match default_config_path() {
                Some(p) => (p, false),
                None => return Ok((Config::default(), None)),
            },
        };
        match crate::files::read_named(&path, MAX_CONFIG).map_err(ConfigError::from) {
            Ok(text) => Ok((Config::parse(&text, &path)?, Some(path))),
            Err(ConfigError::Read { source, .. })
                if !required && source.kind() == std::io::ErrorKind::NotFound =>
            {
                Ok((Config::default(), None))
            }
            Err(e) => Err(e),
        }
    }

    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let mut config: Config = toml::from_str(text).map_err(|e| ConfigError::Invalid {
            path: path.to_path_buf(),
            message: describe_toml_error(text, &e),
        })?;
        config.key_lines = entry_lines(text);
        hosts::check(&config.hosts)
            .map_err(|e| ConfigError::Invalid { path: path.to_path_buf(), message: e.to_string() })?;
        Ok(config)
    }

    /// The repository fixed images are committed to.
    pub fn fixed_repo(&self) -> String {
        self.fixed_repo.clone().unwrap_or_else(|| DEFAULT_FIXED_REPO.into())
    }

    /// `line N: ` for a `[keys]` entry, when the file has it.
    pub fn key_line(&self, entry: &str) -> String {
        self.key_lines.get(entry).map(|n| format!("line {n}: ")).unwrap_or_default()
    }
}

/// `line N, column M: message` from a TOML error (its message names the field).
fn describe_toml_error(text: &str, error: &toml::de::Error) -> String {
    let message = error.message().trim().to_string();
    match error.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let line_start = before.rfind('\n').map_or(0, |i| i + 1);
            let column = before[line_start..].chars().count() + 1;
            // A value's error names its key, read off the line where the value stands.
            let key = before[line_start..].split_once('=').map(|(k, _)| k.trim().trim_matches('"'));
            let key = key.filter(|k| !k.is_empty()).map(|k| format!(" `{k}`")).unwrap_or_default();
            format!("line {line}, column {column}{key}: {message}")
        }
        None => message,
    }
}

/// Line number of every `name = …` assignment (the last one wins, as in TOML tables).
fn entry_lines(text: &str) -> BTreeMap<String, usize> {
    let mut lines = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        if let Some((name, _)) = line.split_once('=') {
            lines.insert(name.trim().trim_matches('"').to_string(), n + 1);
        }
    }
    lines
}

pub fn default_config_path() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "perftriage").map(|d| d.config_dir().join("config.toml"))
}

pub fn default_workspace() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "perftriage").map(|d| d.data_dir().to_path_buf())
}
