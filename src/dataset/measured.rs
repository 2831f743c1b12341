//! The successful records an entry keeps for the older-pair search: one per kind (variant,
//! workload, which of the kind's primary metrics it has), the newest, and only what the search
//! needs of it, so months of re-runs cost a few hundred bytes a kind, not a record each.

use super::results::Stamp;
use super::{Variant, VariantState, Workload};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// A successful record, as much of it as the older-pair search needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    pub variant: Variant,
    #[serde(with = "super::results::exact_stamp")]
    pub at: Option<Stamp>,
    pub source: Option<Box<str>>,
    /// The workload, as JSON (one allocation, not a map's nodes): `workload()` reads it back.
    workload: Box<str>,
    /// A hash of the harness part: records of two harnesses never agree.
    pub harness: u64,
    /// The record's values of the primary metrics its commit's kind may compare on, and their
    /// repeats' values where it repeated.
    #[serde(with = "metric_names")]
    values: Box<[(&'static str, f64)]>,
    #[serde(with = "metric_names")]
    samples: Box<[Repeats]>,
}

/// A metric's values, one per repeat.
type Repeats = (&'static str, Box<[f64]>);

impl Measured {
    fn new(variant: Variant, state: &VariantState, candidates: &[&'static str]) -> Measured {
        let outcome = &state.outcome;
        let values = candidates.iter().filter_map(|&m| Some((m, *outcome.metrics.get(m)?))).collect();
        let repeated = |&m: &&'static str| Some((m, outcome.samples.get(m)?.clone().into_boxed_slice()));
        Measured {
            variant,
            at: state.at,
            source: outcome.source.as_deref().map(Box::from),
            workload: serde_json::to_string(&outcome.workload).unwrap_or_default().into_boxed_str(),
            harness: harness_hash(&outcome.workload),
            values,
            samples: candidates.iter().filter_map(repeated).collect(),
        }
    }

    pub fn workload(&self) -> Workload {
        serde_json::from_str(&self.workload).unwrap_or_default()
    }

    pub fn value(&self, metric: &str) -> Option<f64> {
        self.values.iter().find(|(m, _)| *m == metric).map(|(_, v)| *v)
    }

    pub fn samples(&self, metric: &str) -> &[f64] {
        self.samples.iter().find(|(m, _)| *m == metric).map_or(&[], |(_, s)| s)
    }

    /// Whether `other` stands for the same kind: one variant, workload and set of metrics.
    fn same_kind(&self, other: &Measured) -> bool {
        let names = |m: &Measured| m.values.iter().map(|(n, _)| *n).collect::<Vec<_>>();
        self.variant == other.variant && self.workload == other.workload && names(self) == names(other)
    }

    fn kind_hash(&self) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (self.variant, &self.workload, self.values.iter().map(|(n, _)| *n).collect::<Vec<_>>()).hash(&mut h);
        h.finish()
    }
}

/// The hash `Measured::harness` holds for a workload.
pub fn harness_hash(workload: &Workload) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    workload.get("harness").hash(&mut h);
    h.finish()
}

/// The kept records, in the order each kind was first met.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MeasuredSet {
    kept: Vec<Measured>,
    /// Kind hash → index into `kept` (a clash of two kinds keeps both, unindexed).
    index: HashMap<u64, usize>,
}

impl MeasuredSet {
    /// Whether every value and repeat kept is finite.
    pub fn finite(&self) -> bool {
        let finite = |m: &Measured| {
            let repeats = m.samples.iter().flat_map(|(_, s)| s.iter().copied());
            m.values.iter().map(|(_, v)| *v).chain(repeats).all(f64::is_finite)
        };
        self.kept.iter().all(finite)
    }

    /// Keep a successful record if it is the newest of its kind (the first on a tie).
    pub fn remember(&mut self, variant: Variant, state: &VariantState, candidates: &[&'static str]) {
        let new = Measured::new(variant, state, candidates);
        let hash = new.kind_hash();
        match self.index.get(&hash).map(|&i| (i, &self.kept[i])) {
            Some((_, held)) if held.same_kind(&new) && held.at >= new.at => {}
            Some((i, held)) if held.same_kind(&new) => self.kept[i] = new,
            Some(_) => self.kept.push(new),
            None => {
                self.index.insert(hash, self.kept.len());
                self.kept.push(new);
            }
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &Measured> {
        self.kept.iter()
    }

    pub fn len(&self) -> usize {
        self.kept.len()
    }

    pub fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }
}

/// Metric names read back as the candidates they were (a name no kind compares on does not read).
mod metric_names {
    use serde::de::{DeserializeOwned, Error};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<T: Serialize, S: Serializer>(
        named: &[(&'static str, T)],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        named.serialize(s)
    }

    /// Values by metric name.
    type Named<T> = Box<[(&'static str, T)]>;

    pub fn deserialize<'de, T: DeserializeOwned, D: Deserializer<'de>>(d: D) -> Result<Named<T>, D::Error> {
        let named = Vec::<(String, T)>::deserialize(d)?;
        let known = |name: &str| crate::dataset::BenchKind::known_metric(name);
        let interned = named.into_iter().map(|(name, value)| Some((known(&name)?, value)));
        interned
            .collect::<Option<_>>()
            .ok_or_else(|| D::Error::custom("a metric no benchmark kind compares on"))
    }
}
