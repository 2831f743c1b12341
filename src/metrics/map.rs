//! A record's numbers by canonical metric name, in name order: a sorted vector (a BTreeMap's first
//! node holds room for eleven: 7 MB over 20,000 records of three numbers), a JSON object on disk.

use litemap::LiteMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Metrics(LiteMap<String, f64>);

impl Metrics {
    pub fn new() -> Metrics {
        Metrics::default()
    }
}

impl std::ops::Deref for Metrics {
    type Target = LiteMap<String, f64>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for Metrics {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl FromIterator<(String, f64)> for Metrics {
    fn from_iter<I: IntoIterator<Item = (String, f64)>>(items: I) -> Metrics {
        Metrics(items.into_iter().collect())
    }
}

impl IntoIterator for Metrics {
    type Item = (String, f64);
    type IntoIter = <LiteMap<String, f64> as IntoIterator>::IntoIter;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a Metrics {
    type Item = (&'a String, &'a f64);
    type IntoIter = Box<dyn Iterator<Item = (&'a String, &'a f64)> + 'a>;
    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.0.iter())
    }
}

impl Extend<(String, f64)> for Metrics {
    fn extend<I: IntoIterator<Item = (String, f64)>>(&mut self, items: I) {
        for (name, value) in items {
            self.0.insert(name, value);
        }
    }
}

/// Always an object (LiteMap's own writes an empty one as a list).
impl Serialize for Metrics {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter())
    }
}

impl<'de> Deserialize<'de> for Metrics {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Metrics, D::Error> {
        LiteMap::deserialize(deserializer).map(Metrics)
    }
}
