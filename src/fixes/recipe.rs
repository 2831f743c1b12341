//! Loading recipes: unknown fields, unknown template variables, bad regexes and duplicate ids are
//! rejected with the file, line and field.

use serde::Deserialize;
use std::path::Path;

const EMBEDDED: &str = include_str!("recipes.toml");

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Check {
    #[serde(default)]
    pub file_exists: Vec<String>,
    #[serde(default)]
    pub file_absent: Vec<String>,
    pub vllm_version: Option<String>,
    pub mllama: Option<bool>,
}

/// A file taken from the vLLM checkout at the run's commit and uploaded into the container.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Inject {
    pub from: String,
    pub to: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recipe {
    pub id: String,
    pub title: String,
    pub answers: Vec<String>,
    #[serde(default)]
    pub check: Check,
    pub inject: Option<Inject>,
    pub steps: Vec<Vec<String>>,
    pub verify: Vec<String>,
    /// A regex whose match in the evidence line becomes `{args}`.
    pub args_from_evidence: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    recipe: Vec<Recipe>,
}

#[derive(Debug, thiserror::Error, PartialEq)]
#[error("invalid recipes {origin}: {message}")]
pub struct RecipeError {
    pub origin: String,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RecipeBook {
    pub recipes: Vec<Recipe>,
}

impl RecipeBook {
    pub fn embedded() -> Result<RecipeBook, RecipeError> {
        RecipeBook::parse(EMBEDDED, "src/fixes/recipes.toml")
    }

    /// The embedded recipes plus an operator's file (same id replaces).
    pub fn with_file(path: &Path) -> Result<RecipeBook, RecipeError> {
        let origin = path.display().to_string();
        // Recipes are a few KB: a bigger file is not one.
        let text = crate::files::read_named(path, 1 << 20)
            .map_err(|e| RecipeError { origin: origin.clone(), message: e.to_string() })?;
        let mut book = RecipeBook::embedded()?;
        for recipe in RecipeBook::parse(&text, &origin)?.recipes {
            book.recipes.retain(|r| r.id != recipe.id);
            book.recipes.push(recipe);
        }
        Ok(book)
    }

    pub fn parse(text: &str, origin: &str) -> Result<RecipeBook, RecipeError> {
        let error = |message: String| RecipeError { origin: origin.to_string(), message };
        let file: File = toml::from_str(text).map_err(|e| error(describe(text, &e)))?;
        let mut seen = std::collections::HashSet::new();
        for r in &file.recipe {
            if !seen.insert(r.id.clone()) {
                return Err(error(format!(
                    "line {}: recipe `{}` is defined twice",
                    line_of(text, &r.id),
                    r.id
                )));
            }
            let templates = r
                .steps
                .iter()
                .flatten()
                .chain(&r.verify)
                .chain(&r.check.file_exists)
                .chain(&r.check.file_absent);
            let inject = r.inject.iter().flat_map(|i| [&i.to]);
            for t in templates.chain(inject) {
                super::template::validate(t)
                    .map_err(|m| error(format!("line {}: recipe `{}`: {m}", line_of(text, &r.id), r.id)))?;
            }
            if let Some(re) = &r.args_from_evidence {
                regex::Regex::new(re)
                    .map_err(|e| error(format!("recipe `{}` field args_from_evidence: {e}", r.id)))?;
            }
            if r.verify.is_empty() {
                return Err(error(format!(
                    "line {}: recipe `{}`: verify must not be empty",
                    line_of(text, &r.id),
                    r.id
                )));
            }
        }
        Ok(RecipeBook { recipes: file.recipe })
    }

    pub fn get(&self, id: &str) -> Option<&Recipe> {
        self.recipes.iter().find(|r| r.id == id)
    }

    /// The id of the first recipe answering a failure category (a campaign's auto-fix).
    pub fn first_answering(&self, category: &str) -> Option<String> {
        self.answering(category).next().map(|r| r.id.clone())
    }

    /// Recipes answering a failure category, in file order.
    pub fn answering<'a>(&'a self, category: &'a str) -> impl Iterator<Item = &'a Recipe> + 'a {
        self.recipes.iter().filter(move |r| r.answers.iter().any(|a| a == category))
    }
}

fn line_of(text: &str, id: &str) -> usize {
    let needle = format!("\"{id}\"");
    text.lines().position(|l| l.contains(&needle)).map_or(0, |i| i + 1)
}

fn describe(text: &str, e: &toml::de::Error) -> String {
    match e.span() {
        Some(span) => format!(
            "line {}: {}",
            text[..span.start.min(text.len())].matches('\n').count() + 1,
            e.message().trim()
        ),
        None => e.message().trim().to_string(),
    }
}
