//! Commits joined with result records as the records are read: each record is classified on its
//! reading thread and applied here in file order, so time and memory grow with the records, not
//! their square, and no record's text is held once it is classified.

use super::digests::{CacheFile, DigestCache, FileDigest, Line};
use super::results::{self, Digested, FoundFile, LoadWarning, ResultSet};
use super::{Commit, Entry};
use crate::classify::{Classifier, Verdict};
use crate::ids::Short;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

/// How far a load has got: files read of those found (how many of them unchanged since the
/// digest cache saw them), and for how long; whether the entries came whole from the joined
/// cache.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Progress {
    pub read: usize,
    pub total: usize,
    pub cached: usize,
    pub seconds: f64,
    pub joined: bool,
}

impl Progress {
    pub fn files_per_second(&self) -> f64 {
        if self.seconds > 0.0 { self.read as f64 / self.seconds } else { 0.0 }
    }
}

/// A chunk of result files, its records classified.
pub struct Part {
    records: Vec<Digested>,
    notes: Vec<(String, String)>,
    warnings: Vec<LoadWarning>,
    /// Each file's line in the next digest cache, in file order.
    lines: Vec<Line>,
}

impl Part {
    fn with_capacity(files: usize) -> Part {
        let (records, lines) = (Vec::with_capacity(files), Vec::with_capacity(files));
        Part { records, notes: Vec::new(), warnings: Vec::new(), lines }
    }

    fn digest(set: ResultSet, classifier: &Classifier) -> Part {
        let mut part = Part::with_capacity(0);
        part.add(FileDigest::of(set, classifier));
        part
    }

    /// A chunk of files, each from the cache where it is unchanged, else read and digested.
    fn of_files(files: &[FoundFile], cache: &DigestCache, classifier: &Classifier) -> Part {
        let mut part = Part::with_capacity(files.len());
        for file in files {
            let (digest, line) = cache.digest(file, classifier);
            part.add(digest);
            part.lines.push(line);
        }
        part
    }

    fn add(&mut self, digest: FileDigest) {
        self.records.extend(digest.records);
        self.notes.extend(digest.notes);
        self.warnings.extend(digest.warnings);
    }
}

/// The entries being joined, and what they have to say.
#[derive(Default)]
pub struct Joiner {
    entries: Vec<Entry>,
    index: HashMap<Short, usize>,
    /// Files that could not be read or listed, in file order.
    unreadable: Vec<String>,
    /// Records and notes of commits the dataset does not have.
    unknown: Vec<String>,
    unknown_notes: Vec<String>,
}

impl Joiner {
    pub fn new(commits: Vec<Commit>, classifier: &Classifier) -> Joiner {
        use rayon::prelude::*;
        let verdicts = Verdicts::of(&commits, classifier);
        let classify = |text: &str| verdicts.get(text).unwrap_or_else(|| classifier.classify(text));
        let entries: Vec<Entry> = commits.into_par_iter().map(|c| Entry::new(c, &classify)).collect();
        let index = entries.iter().enumerate().map(|(i, e)| (e.commit.short.clone(), i)).collect();
        Joiner { entries, index, unreadable: Vec::new(), unknown: Vec::new(), unknown_notes: Vec::new() }
    }

    pub fn take(&mut self, part: Part) {
        self.unreadable.extend(part.warnings.iter().map(ToString::to_string));
        for digested in part.records {
            match self.index.get(digested.record.short.as_str()) {
                Some(&i) => self.entries[i].take(digested),
                None => self.unknown.push(format!(
                    "{}: commit {} is not in the dataset",
                    digested.record.outcome.source.as_deref().unwrap_or("?"),
                    digested.record.short
                )),
            }
        }
        for (short, note) in part.notes {
            match self.index.get(short.as_str()) {
                Some(&i) => self.entries[i].notes.push(note),
                None => self.unknown_notes.push(format!("{note}: commit {short} is not in the dataset")),
            }
        }
    }

    /// The entries, and the warnings: unreadable files first, then records of unknown commits.
    pub fn finish(mut self) -> (Vec<Entry>, Vec<String>) {
        self.entries.iter_mut().for_each(Entry::settle);
        let mut warnings = self.unreadable;
        warnings.append(&mut self.unknown);
        warnings.append(&mut self.unknown_notes);
        (self.entries, warnings)
    }
}

/// The verdict of each distinct text of a dataset's commits, each classified once, on every core:
/// a dataset's failures repeat a few messages (the board's first 256 commits took 5–19 ms
/// classified text by text).
struct Verdicts(HashMap<String, Option<Verdict>>);

impl Verdicts {
    fn of(commits: &[Commit], classifier: &Classifier) -> Verdicts {
        use rayon::prelude::*;
        let texts: HashSet<String> = commits.iter().flat_map(Entry::classified_texts).collect();
        let classified = texts.into_par_iter().map(|text| {
            let verdict = classifier.classify(&text);
            (text, verdict)
        });
        Verdicts(classified.collect())
    }

    /// `None`: a text not classified here.
    fn get(&self, text: &str) -> Option<Option<Verdict>> {
        self.0.get(text).cloned()
    }
}

/// The commits as entries with nothing classified or joined: the board's first rows, drawn while
/// the rules compile (on this thread: the reading pool runs at the lowest priority).
pub fn unclassified(commits: Vec<Commit>) -> Vec<Entry> {
    commits.into_iter().map(Entry::unclassified).collect()
}

/// Join commits with result files already read. Records for unknown commits become warnings.
pub fn join(commits: Vec<Commit>, results: ResultSet, classifier: &Classifier) -> (Vec<Entry>, Vec<String>) {
    let mut joiner = Joiner::new(commits, classifier);
    joiner.take(Part::digest(results, classifier));
    joiner.finish()
}

/// Where a load reads result files, and what it keeps of them.
pub struct Sources<'a> {
    pub dirs: &'a [PathBuf],
    /// The digest cache to take unchanged files from and bring up to date.
    pub cache: Option<CacheFile>,
    /// Whether verdicts keep the lines around their evidence (the board shows them; no headless
    /// command prints them: 24 MB over 10,000 failures).
    pub contexts: bool,
    /// The files below `dirs`, where they were found already.
    pub found: Option<results::Found>,
}

impl<'a> Sources<'a> {
    /// The folders alone: no cache, verdicts with their contexts.
    pub fn dirs(dirs: &'a [PathBuf]) -> Sources<'a> {
        Sources { dirs, cache: None, contexts: true, found: None }
    }
}

/// Find, read and join the result files below `dirs` in one pass, on all cores, while `commits`
/// are made (a dataset's parse) and made entries on a thread of their own; files unchanged since
/// the digest cache at `cache` saw them are taken from it, and the cache is brought up to date.
/// `progress` hears once the files are found and after each chunk.
pub fn load(
    commits: impl FnOnce() -> Vec<Commit> + Send,
    sources: Sources,
    classifier: &Classifier,
    progress: &mut dyn FnMut(Progress),
) -> (Vec<Entry>, Vec<String>) {
    let Sources { dirs, cache, contexts, found } = sources;
    let started = std::time::Instant::now();
    std::thread::scope(|scope| {
        let making = scope.spawn(|| Joiner::new(commits(), classifier));
        let opening = scope.spawn(|| DigestCache::open(cache, contexts));
        let found = found.unwrap_or_else(|| results::find(dirs));
        let cache = opening.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        let problem = cache.problem().map(str::to_string);
        let listing = problem.into_iter().chain(found.warnings.iter().map(ToString::to_string)).collect();
        let mut joining = Joining { making: Some(making), listing, joiner: None, early: Vec::new() };
        let mut next = cache.next();
        let mut heard = Progress { total: found.files.len(), ..Progress::default() };
        progress(heard);
        let read = |files: &[FoundFile]| Part::of_files(files, &cache, classifier);
        results::stream(&found.files, &read, &mut |mut part, read| {
            heard.cached += next.push_chunk(std::mem::take(&mut part.lines));
            joining.take(part);
            progress(Progress { read, seconds: started.elapsed().as_secs_f64(), ..heard });
        });
        next.finish();
        let (entries, mut warnings) = joining.joined().finish();
        warnings.extend(cache.unread());
        (entries, warnings)
    })
}

/// Parts held while the entries are made; then the reading waits for them (files from the
/// digest cache come faster than a dataset's rows, and would all be held).
const EARLY_PARTS: usize = 4;

/// The join while its entries may still be being made: parts that come before them wait.
struct Joining<'scope> {
    making: Option<std::thread::ScopedJoinHandle<'scope, Joiner>>,
    /// What could not be listed: the first of the unreadable.
    listing: Vec<String>,
    joiner: Option<Joiner>,
    early: Vec<Part>,
}

impl Joining<'_> {
    fn take(&mut self, part: Part) {
        if self.making.as_ref().is_some_and(|m| m.is_finished()) || self.early.len() >= EARLY_PARTS {
            self.wait();
        }
        match &mut self.joiner {
            Some(joiner) => joiner.take(part),
            None => self.early.push(part),
        }
    }

    /// Wait for the entries, and take every part that came before them.
    fn wait(&mut self) {
        if let Some(making) = self.making.take() {
            let mut joiner = making.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            joiner.unreadable.append(&mut self.listing);
            self.early.drain(..).for_each(|part| joiner.take(part));
            self.joiner = Some(joiner);
        }
    }

    fn joined(mut self) -> Joiner {
        self.wait();
        self.joiner.unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_distinct_text_of_the_dataset_is_classified_once_as_it_would_be_alone() {
        let commits = crate::dataset::load_embedded().unwrap().commits;
        let classifier = Classifier::embedded().unwrap();
        let verdicts = Verdicts::of(&commits, &classifier);
        let texts: Vec<String> = commits.iter().flat_map(Entry::classified_texts).collect();
        assert!(
            verdicts.0.len() < texts.len() / 2,
            "96 commits' texts repeat: {} distinct",
            verdicts.0.len()
        );
        for text in &texts {
            assert_eq!(verdicts.get(text), Some(classifier.classify(text)), "{text}");
        }
        assert!(texts.iter().any(|t| verdicts.get(t).flatten().is_some()), "some of them name a failure");
    }

    /// The board's first rows: a failure not classified yet says so (`…`), never `unclassified`;
    /// the reader's join then names each as the rules do.
    #[test]
    fn a_failure_in_the_unclassified_head_is_pending_until_joined() {
        let commits = crate::dataset::load_embedded().unwrap().commits;
        let head = unclassified(commits.clone());
        let (joined, _) = join(commits, ResultSet::default(), &Classifier::embedded().unwrap());
        let failed = |e: &&Entry| e.status() == crate::dataset::CommitStatus::Failed;
        assert!(head.iter().filter(failed).count() > 10, "the embedded dataset has failures");
        for (pending, entry) in head.iter().zip(&joined).filter(|(e, _)| failed(e)) {
            assert_eq!(pending.category(), crate::classify::PENDING, "{}", pending.commit.short);
            assert_ne!(entry.category(), crate::classify::PENDING, "{}", entry.commit.short);
        }
        assert!(joined.iter().filter(failed).any(|e| e.category() != crate::classify::UNCLASSIFIED));
    }
}
