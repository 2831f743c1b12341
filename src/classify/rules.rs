//! Loading and compiling the signature table; errors name the file, line and field.

use super::prefilter::Prefilter;
use regex::{Regex, RegexBuilder};
use regex_automata::meta;
use regex_syntax::hir::Hir;
use serde::{Deserialize, Serialize};

const EMBEDDED_RULES: &str = include_str!("rules.toml");

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Disposition {
    FixableInContainer,
    InfraRetry,
    ImageMissing,
    AgentFailure,
    UnfixableHere,
    NeedsLook,
}

impl Disposition {
    pub fn name(self) -> &'static str {
        match self {
            Disposition::FixableInContainer => "fixable_in_container",
            Disposition::InfraRetry => "infra_retry",
            Disposition::ImageMissing => "image_missing",
            Disposition::AgentFailure => "agent_failure",
            Disposition::UnfixableHere => "unfixable_here",
            Disposition::NeedsLook => "needs_look",
        }
    }

    /// Worth another attempt from this box: a fix exists or the failure was infrastructure.
    pub fn is_fixable(self) -> bool {
        matches!(self, Disposition::FixableInContainer | Disposition::InfraRetry)
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    pub id: String,
    pub title: String,
    pub patterns: Vec<String>,
    pub disposition: Disposition,
    #[serde(default)]
    pub fixes: Vec<String>,
    pub explain: String,
    /// A symptom many causes share (`no_metrics`, `build_failed`): any specific rule that
    /// matched the same text names the failure instead, wherever its line is.
    #[serde(default)]
    pub generic: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Noise {
    patterns: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleFile {
    noise: Noise,
    rule: Vec<Rule>,
}

#[derive(Debug, thiserror::Error)]
pub enum ClassifyError {
    #[error("{origin}: {message}")]
    Parse { origin: String, message: String },
    #[error("{origin}: rule `{rule}` pattern `{pattern}` is not a valid regex: {message}")]
    Pattern { origin: String, rule: String, pattern: String, message: String },
}

/// Compiled rules: one RegexSet over every pattern, mapped back to the owning rule.
#[derive(Debug, Clone)]
pub struct Classifier {
    rules: Vec<Rule>,
    /// Every rule pattern in one alternation: finds candidate lines when `rule_literals` cannot.
    any: Alternation,
    /// The rules' literals: only lines holding one reach `set`.
    rule_literals: Prefilter,
    set: PatternSet,
    owner: Vec<usize>,
    noise_literals: Prefilter,
    noise: PatternSet,
}

impl Classifier {
    pub fn embedded() -> Result<Classifier, ClassifyError> {
        Classifier::from_toml(EMBEDDED_RULES, "src/classify/rules.toml")
    }

    pub fn from_toml(text: &str, origin: &str) -> Result<Classifier, ClassifyError> {
        let mut file: RuleFile = toml::from_str(text)
            .map_err(|e| ClassifyError::Parse { origin: origin.into(), message: e.to_string() })?;
        // A rule's index is its priority: the generic ones go last, in their table order.
        file.rule.sort_by_key(|rule| rule.generic);
        // Each pattern parsed once, here: the set and the prefilter take the trees (each one
        // compiled alone took a third of the start; each parsed again by both, more of it).
        let parse = |rule: &str, pattern: &String| {
            regex_syntax::parse(pattern).map_err(|e| ClassifyError::Pattern {
                origin: origin.into(),
                rule: rule.into(),
                pattern: pattern.clone(),
                message: e.to_string(),
            })
        };
        let (mut patterns, mut trees, mut owner) = (Vec::new(), Vec::new(), Vec::new());
        for (index, rule) in file.rule.iter().enumerate() {
            for pattern in &rule.patterns {
                trees.push(parse(&rule.id, pattern)?);
                patterns.push(pattern.clone());
                owner.push(index);
            }
        }
        let noise_trees: Vec<Hir> =
            file.noise.patterns.iter().map(|p| parse("noise", p)).collect::<Result<_, _>>()?;
        let set = PatternSet::new(&trees).map_err(|e| culprit(&file.rule, origin, &e))?;
        let noise = PatternSet::new(&noise_trees).map_err(|e| ClassifyError::Pattern {
            origin: origin.into(),
            rule: "noise".into(),
            pattern: "<set>".into(),
            message: e.to_string(),
        })?;
        Ok(Classifier {
            any: Alternation::of(&patterns),
            rule_literals: Prefilter::of(&trees),
            set,
            noise_literals: Prefilter::of(&noise_trees),
            noise,
            rules: file.rule,
            owner,
        })
    }

    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    pub fn rule(&self, id: &str) -> Option<&Rule> {
        self.rules.iter().find(|r| r.id == id)
    }

    /// Where each line that may match a rule has something to match, ascending: the rules'
    /// literals where every rule has some, else the rules' own alternation's matches.
    pub(super) fn candidates(&self, text: &str) -> Vec<usize> {
        self.rule_literals.starts(text).unwrap_or_else(|| match self.any.compiled() {
            Some(any) => any.find_iter(text).map(|m| m.start()).collect(),
            None => line_starts(text),
        })
    }

    /// Where each line that may be noise has something to match, ascending (every line start
    /// when some noise pattern has no literal).
    pub(super) fn noise_candidates(&self, text: &str) -> Vec<usize> {
        self.noise_literals.starts(text).unwrap_or_else(|| line_starts(text))
    }

    /// Whether `line` is noise and whether a rule matches it, by the regexes alone (no prefilter).
    #[cfg(test)]
    pub(super) fn by_regexes_alone(&self, line: &str) -> (bool, bool) {
        (self.noise.is_match(line), self.set.is_match(line))
    }

    /// Whether `line` may match a rule (it holds one of their literals).
    pub(super) fn may_match(&self, line: &str) -> bool {
        self.rule_literals.may_match(line)
    }

    /// Noise lines (REPORT.md §4.1) are dropped before matching and dimmed in log panes.
    pub fn is_noise(&self, line: &str) -> bool {
        self.noise_literals.may_match(line) && self.noise.is_match(line)
    }

    /// Indices of the rules with a pattern matching `line`, ascending (priority order).
    pub(super) fn matching_rules(&self, line: &str) -> impl Iterator<Item = usize> + '_ {
        let mut rules: Vec<usize> = self.set.matches(line).map(|p| self.owner[p]).collect();
        rules.dedup();
        rules.into_iter()
    }
}

/// Where each line of `text` starts.
fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0).chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1)).collect()
}

/// Patterns in one automaton, asked which of them match a line (what `regex::RegexSet` does),
/// built without a literal prefilter of its own: it only sees lines the classifier's prefilter
/// passed, and building one took a fifth of every start.
#[derive(Debug, Clone)]
struct PatternSet(meta::Regex);

impl PatternSet {
    fn new(patterns: &[Hir]) -> Result<PatternSet, Box<meta::BuildError>> {
        // As `RegexSetBuilder` configures it (every pattern that matches is reported), less the prefilter.
        let config = meta::Config::new()
            .match_kind(regex_automata::MatchKind::All)
            .utf8_empty(true)
            .auto_prefilter(false)
            .nfa_size_limit(Some(64 << 20))
            .hybrid_cache_capacity(2 << 20)
            .which_captures(regex_automata::nfa::thompson::WhichCaptures::None);
        meta::Builder::new().configure(config).build_many_from_hir(patterns).map(PatternSet).map_err(Box::new)
    }

    fn is_match(&self, line: &str) -> bool {
        self.0.is_match(line)
    }

    /// The indices of the patterns matching `line`, ascending.
    fn matches(&self, line: &str) -> impl Iterator<Item = usize> {
        let mut set = regex_automata::PatternSet::new(self.0.pattern_len());
        self.0.which_overlapping_matches(&regex_automata::Input::new(line), &mut set);
        let found: Vec<usize> = set.iter().map(|p| p.as_usize()).collect();
        found.into_iter()
    }
}

/// The rule whose pattern keeps the set from compiling (too big, say), found by compiling each
/// one alone: only on this error path.
fn culprit(rules: &[Rule], origin: &str, error: &meta::BuildError) -> ClassifyError {
    for rule in rules {
        for pattern in &rule.patterns {
            if let Err(e) = RegexBuilder::new(pattern).size_limit(64 << 20).build() {
                let (rule, pattern, message) = (rule.id.clone(), pattern.clone(), e.to_string());
                return ClassifyError::Pattern { origin: origin.into(), rule, pattern, message };
            }
        }
    }
    let (rule, pattern, message) = ("<all>".into(), "<set>".into(), error.to_string());
    ClassifyError::Pattern { origin: origin.into(), rule, pattern, message }
}

/// The rules' alternation, compiled the first time it is needed: with a literal in every rule
/// it never is, and compiling it took part of every start.
#[derive(Debug, Clone)]
struct Alternation {
    source: String,
    compiled: std::sync::OnceLock<Option<Regex>>,
}

impl Alternation {
    fn of(patterns: &[String]) -> Alternation {
        let source = patterns.iter().map(|p| format!("(?:{p})")).collect::<Vec<_>>().join("|");
        Alternation { source, compiled: std::sync::OnceLock::new() }
    }

    /// `None` where it does not compile within the limits: every line is then a candidate.
    fn compiled(&self) -> Option<&Regex> {
        let build =
            || RegexBuilder::new(&self.source).size_limit(64 << 20).dfa_size_limit(64 << 20).build().ok();
        self.compiled.get_or_init(build).as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ranges of the widest class in `hir`.
    fn widest_class(hir: &regex_syntax::hir::Hir) -> usize {
        use regex_syntax::hir::{Class, HirKind};
        match hir.kind() {
            HirKind::Class(Class::Unicode(class)) => class.ranges().len(),
            HirKind::Class(Class::Bytes(class)) => class.ranges().len(),
            HirKind::Capture(capture) => widest_class(&capture.sub),
            HirKind::Repetition(repetition) => widest_class(&repetition.sub),
            HirKind::Concat(parts) | HirKind::Alternation(parts) => {
                parts.iter().map(widest_class).max().unwrap_or(0)
            }
            HirKind::Empty | HirKind::Literal(_) | HirKind::Look(_) => 0,
        }
    }

    #[test]
    fn the_embedded_rules_spell_no_unicode_class_of_many_ranges() {
        let file: RuleFile = toml::from_str(EMBEDDED_RULES).unwrap();
        let patterns = file.rule.iter().flat_map(|r| &r.patterns).chain(&file.noise.patterns);
        for pattern in patterns {
            let ranges = widest_class(&regex_syntax::parse(pattern).unwrap());
            // \s is 10 ranges, \S 11, [^'] 2; \d is 71, \w 796.
            assert!(ranges <= 16, "{pattern}: a class of {ranges} ranges (spell it in ASCII)");
        }
    }

    fn rules(patterns: &[&str]) -> Result<Classifier, ClassifyError> {
        let rule = |(i, p): (usize, &&str)| {
            format!(
                "[[rule]]\nid = \"r{i}\"\ntitle = \"t\"\npatterns = ['{p}']\ndisposition = \"needs_look\"\nexplain = \"e\"\n"
            )
        };
        let body: String = patterns.iter().enumerate().map(rule).collect();
        Classifier::from_toml(&format!("[noise]\npatterns = []\n{body}"), "my-rules.toml")
    }

    /// Every pattern that matches a line is reported, as `regex::RegexSet` reports them, the
    /// one that starts later and the one nested in another's match too.
    #[test]
    fn the_pattern_set_reports_every_pattern_matching_a_line_in_order() {
        let patterns: Vec<String> = ["Error", "rror: x", "x+$", "absent"].map(String::from).into();
        let trees: Vec<Hir> = patterns.iter().map(|p| regex_syntax::parse(p).unwrap()).collect();
        let set = PatternSet::new(&trees).unwrap();
        assert_eq!(set.matches("RuntimeError: xx").collect::<Vec<_>>(), [0, 1, 2]);
        let regex_set = regex::RegexSet::new(&patterns).unwrap();
        assert_eq!(regex_set.matches("RuntimeError: xx").into_iter().collect::<Vec<_>>(), [0, 1, 2]);
        assert!(set.is_match("x") && !set.is_match("none"));
    }

    /// A pattern that does not parse is named with its rule (patterns are parsed, not compiled
    /// one by one).
    #[test]
    fn a_bad_pattern_is_named_with_its_rule() {
        let Err(e) = rules(&["fine", "(unclosed"]) else { panic!("a bad pattern was taken") };
        let said = e.to_string();
        assert!(
            said.starts_with("my-rules.toml: rule `r1` pattern `(unclosed` is not a valid regex"),
            "{said}"
        );
    }

    /// A rule without a literal (case-insensitive) makes candidates come from the rules'
    /// alternation, compiled when first needed; the verdict is the same.
    #[test]
    fn a_rule_without_a_literal_still_finds_its_line() {
        let classifier = rules(&["(?i)oomkilled", "Segfault"]).unwrap();
        assert!(classifier.any.compiled.get().is_none(), "not compiled before it is needed");
        let verdict = classifier.classify("start\nprocess OOMKilled\nend\n").unwrap();
        assert_eq!((verdict.category.as_str(), verdict.line), ("r0", 2));
        assert!(classifier.any.compiled.get().is_some_and(Option::is_some), "compiled once needed");
    }
}
