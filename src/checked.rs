//! Config values checked as they are read (`#[serde(deserialize_with = …)]`), so a bad one is refused
//! with its own line and column by the TOML reader, naming the range: a zero where zero makes no
//! sense, a negative, NaN or infinity, a Slurm setting outside its words, a relative directory,
//! an image reference Docker would not take.

use serde::de::{Deserialize, Deserializer, Error};
use std::fmt::Display;
use std::path::PathBuf;

/// A whole number of at least 1.
pub fn positive<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + PartialOrd + Default + Display,
{
    let value = T::deserialize(d)?;
    if value <= T::default() {
        return Err(D::Error::custom(format!("{value} is out of range: it must be at least 1")));
    }
    Ok(value)
}

/// `positive`, where the value may be left out.
pub fn positive_option<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + PartialOrd + Default + Display,
{
    positive(d).map(Some)
}

/// A whole number from 0 to 100.
pub fn at_most_100<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let value = u32::deserialize(d)?;
    if value > 100 {
        return Err(D::Error::custom(format!("{value} is out of range: it must be from 0 to 100")));
    }
    Ok(value)
}

/// A size in GiB: a finite number, 0 or more, at most 1 PiB.
pub fn gib<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    let value = f64::deserialize(d)?;
    if !value.is_finite() || !(0.0..=1_048_576.0).contains(&value) {
        return Err(D::Error::custom(format!("{value} is out of range: a size in GiB from 0 to 1048576")));
    }
    Ok(value)
}

/// `gib`, more than 0.
pub fn positive_gib<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    let value = gib(d)?;
    if value == 0.0 {
        return Err(D::Error::custom("0 is out of range: a size in GiB more than 0"));
    }
    Ok(value)
}

/// `positive_gib`, where the value may be left out.
pub fn positive_gib_option<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    positive_gib(d).map(Some)
}

/// An absolute directory that is not `/` and does not climb (`..`).
pub fn absolute_dir<'de, D: Deserializer<'de>>(d: D) -> Result<Option<PathBuf>, D::Error> {
    let dir = PathBuf::deserialize(d)?;
    let climbs = dir.components().any(|c| c == std::path::Component::ParentDir);
    if !dir.is_absolute() || dir.parent().is_none() || climbs {
        let why = "it must be an absolute directory other than / and without ..";
        return Err(D::Error::custom(format!("`{}`: {why}", dir.display())));
    }
    Ok(Some(dir))
}

/// A path that is not empty.
pub fn some_path<'de, D: Deserializer<'de>>(d: D) -> Result<Option<PathBuf>, D::Error> {
    let path = PathBuf::deserialize(d)?;
    if path.as_os_str().is_empty() {
        return Err(D::Error::custom("an empty path: leave the key out for the default"));
    }
    Ok(Some(path))
}

/// `gres` or `gpus`.
pub fn gpu_flag<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let flag = String::deserialize(d)?;
    if !matches!(flag.as_str(), "gres" | "gpus") {
        return Err(D::Error::custom(format!("`{flag}`: gres or gpus")));
    }
    Ok(Some(flag))
}

/// An image reference from the config, checked against Docker's grammar as it is read (so an
/// error names its own line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedImage(crate::ids::ImageRef);

impl CheckedImage {
    pub fn reference(&self) -> &crate::ids::ImageRef {
        &self.0
    }
}

/// Set in code (tests, the board): taken as given.
impl From<&str> for CheckedImage {
    fn from(text: &str) -> CheckedImage {
        CheckedImage(crate::ids::ImageRef::from(text))
    }
}

impl<'de> Deserialize<'de> for CheckedImage {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CheckedImage, D::Error> {
        let text = String::deserialize(d)?;
        crate::ids::check_reference(&text).map_err(|why| D::Error::custom(format!("{text:?}: {why}")))?;
        Ok(CheckedImage(crate::ids::ImageRef::from(text.as_str())))
    }
}

/// The sample values an image template is checked with.
const SAMPLES: [(&str, &str); 4] = [
    ("{full}", "0123456789abcdef0123456789abcdef01234567"),
    ("{parent}", "0123456789abcdef0123456789abcdef01234567"),
    ("{parent12}", "0123456789ab"),
    ("{short}", "01234567"),
];

/// An image template: only the known variables, and a reference Docker takes once they are filled.
pub fn image_template<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let template = String::deserialize(d)?;
    let filled = SAMPLES.iter().fold(template.clone(), |t, (var, value)| t.replace(var, value));
    if let Some(unknown) = filled.find('{').map(|i| &filled[i..]) {
        let unknown = unknown.split_inclusive('}').next().unwrap_or(unknown);
        return Err(D::Error::custom(format!(
            "{template:?}: `{unknown}` is no variable ({{full}}, {{short}}, {{parent}}, {{parent12}})"
        )));
    }
    crate::ids::check_reference(&filled).map_err(|why| D::Error::custom(format!("{template:?}: {why}")))?;
    Ok(template)
}

/// Words of a grammar: each must match `pattern` whole (what it is named in the error).
fn words<'de, D: Deserializer<'de>>(
    d: D,
    pattern: &str,
    what: &str,
) -> Result<Option<Vec<String>>, D::Error> {
    let words = Vec::<String>::deserialize(d)?;
    let grammar = regex::Regex::new(&format!("^(?:{pattern})$")).map_err(D::Error::custom)?;
    if let Some(bad) = words.iter().find(|w| !grammar.is_match(w)) {
        return Err(D::Error::custom(format!("{bad:?} is not {what}")));
    }
    Ok(Some(words))
}

/// Debian package names (the toolkit step's apt-get, and the CUDA path derived from them).
pub fn apt_packages<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    words(d, r"[a-z0-9][a-z0-9+.-]+", "a Debian package name ([a-z0-9][a-z0-9+.-]+)")
}

/// Python module names (the import check's `python3 -c 'import …'`).
pub fn python_modules<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    words(d, r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*", "a Python module name (a.b_c)")
}

/// `NAME=value` for the build's environment: a shell-safe name.
pub fn env_assignments<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    words(d, r"[A-Za-z_][A-Za-z0-9_]*=[^\n\r\x00]*", "NAME=value (a name of letters, digits and _)")
}

/// TORCH_CUDA_ARCH_LIST: architectures like `9.0`, `8.0;8.6+PTX`, `8.0 9.0`.
pub fn cuda_arch<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let arch = String::deserialize(d)?;
    if !is_cuda_arch(&arch) {
        return Err(D::Error::custom(format!(
            "{arch:?}: CUDA architectures are digits, letters, . + ; and spaces"
        )));
    }
    Ok(Some(arch))
}

/// Whether `arch` is a TORCH_CUDA_ARCH_LIST: digits, letters, `.`, `+`, `;` and spaces (empty:
/// none is set).
pub fn is_cuda_arch(arch: &str) -> bool {
    arch.chars().all(|c| c.is_ascii_alphanumeric() || ".+; ".contains(c))
}
