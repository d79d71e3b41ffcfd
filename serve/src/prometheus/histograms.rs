//! The recorder's histograms: fixed buckets of plain atomic counts.
//!
//! The exporter's own histogram keeps every sample in a lock-free queue
//! under an epoch pin and sorts them into buckets when scraped, about 190
//! instructions per sample on the call path (BENCHMARKS.md, "Metrics").
//! Ours finds the bucket when the sample is recorded, from at most 12
//! bounds, and adds one to it: a scrape reads the counts as they are. The
//! bounds are fixed when the recorder is built, which is all a Prometheus
//! histogram can use anyway.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use metrics::{HistogramFn, Key, KeyName, SharedString};
use metrics_exporter_prometheus::formatting::{
    sanitize_description, sanitize_label_key, sanitize_label_value, sanitize_metric_name,
};

/// Every histogram of the recorder, by key, and their descriptions.
#[derive(Debug)]
pub(super) struct Histograms {
    bounds: &'static [f64],
    series: RwLock<BTreeMap<Key, Arc<Buckets>>>,
    help: RwLock<HashMap<String, SharedString>>,
}

/// One series: a count per bucket (the last past every bound) and the sum.
#[derive(Debug)]
pub(super) struct Buckets {
    bounds: &'static [f64],
    counts: Box<[AtomicU64]>,
    /// The sum of the samples, as `f64` bits.
    sum: AtomicU64,
}

impl HistogramFn for Buckets {
    #[inline]
    fn record(&self, value: f64) {
        let bucket = self
            .bounds
            .iter()
            .position(|bound| value <= *bound)
            .unwrap_or(self.bounds.len());
        self.counts[bucket].fetch_add(1, Ordering::Relaxed);
        // Uncontended on a call's own path: one compare-and-swap.
        let _ = self
            .sum
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |sum| {
                Some((f64::from_bits(sum) + value).to_bits())
            });
    }
}

impl Histograms {
    /// No series yet; each will have buckets with these upper `bounds`
    /// (ascending).
    pub(super) fn new(bounds: &'static [f64]) -> Self {
        Histograms {
            bounds,
            series: RwLock::default(),
            help: RwLock::default(),
        }
    }

    /// The series of `key`, made on first use.
    pub(super) fn series(&self, key: &Key) -> Arc<Buckets> {
        if let Some(found) = read(&self.series).get(key) {
            return Arc::clone(found);
        }
        let mut series = self.series.write().unwrap_or_else(|e| e.into_inner());
        Arc::clone(series.entry(key.clone()).or_insert_with(|| {
            Arc::new(Buckets {
                bounds: self.bounds,
                counts: (0..=self.bounds.len()).map(|_| AtomicU64::new(0)).collect(),
                sum: AtomicU64::new(0f64.to_bits()),
            })
        }))
    }

    /// Keeps `description` for the histograms named `name`.
    pub(super) fn describe(&self, name: &KeyName, description: SharedString) {
        let mut help = self.help.write().unwrap_or_else(|e| e.into_inner());
        help.insert(name.as_str().to_owned(), description);
    }

    /// Every series in the Prometheus text format, a name's series together
    /// under its `# HELP` and `# TYPE` lines. `+Inf` and `_count` are the
    /// sum of the bucket counts read, so they always agree.
    pub(super) fn render(&self, out: &mut String) {
        let help = read(&self.help);
        let mut named: Option<String> = None;
        for (key, buckets) in read(&self.series).iter() {
            let name = sanitize_metric_name(key.name());
            if named.as_deref() != Some(name.as_str()) {
                if let Some(description) = help.get(key.name()) {
                    let _ = writeln!(out, "# HELP {name} {}", sanitize_description(description));
                }
                let _ = writeln!(out, "# TYPE {name} histogram");
                named = Some(name.clone());
            }
            let labels: String = key
                .labels()
                .map(|label| {
                    format!(
                        "{}=\"{}\",",
                        sanitize_label_key(label.key()),
                        sanitize_label_value(label.value())
                    )
                })
                .collect();
            let mut count = 0;
            for (bound, bucket) in buckets.bounds.iter().zip(buckets.counts.iter()) {
                count += bucket.load(Ordering::Relaxed);
                let _ = writeln!(out, "{name}_bucket{{{labels}le=\"{bound}\"}} {count}");
            }
            count += buckets.counts[buckets.bounds.len()].load(Ordering::Relaxed);
            let _ = writeln!(out, "{name}_bucket{{{labels}le=\"+Inf\"}} {count}");
            let sum = f64::from_bits(buckets.sum.load(Ordering::Relaxed));
            let labels = labels.trim_end_matches(',');
            let braces = |labels: &str| {
                if labels.is_empty() {
                    String::new()
                } else {
                    format!("{{{labels}}}")
                }
            };
            let _ = writeln!(out, "{name}_sum{} {sum}", braces(labels));
            let _ = writeln!(out, "{name}_count{} {count}", braces(labels));
        }
    }
}

fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_counts_in_its_bucket_and_every_one_above() {
        static BOUNDS: [f64; 3] = [0.001, 0.01, 0.1];
        let histograms = Histograms::new(&BOUNDS);
        let key = Key::from_parts("call_seconds", vec![metrics::Label::new("tool", "a\"b")]);
        let series = histograms.series(&key);
        for value in [0.0005, 0.001, 0.05, 7.0] {
            series.record(value);
        }
        histograms.describe(&KeyName::from("call_seconds"), "How long.".into());
        let mut text = String::new();
        histograms.render(&mut text);
        assert_eq!(
            text,
            "# HELP call_seconds How long.\n\
             # TYPE call_seconds histogram\n\
             call_seconds_bucket{tool=\"a\\\"b\",le=\"0.001\"} 2\n\
             call_seconds_bucket{tool=\"a\\\"b\",le=\"0.01\"} 2\n\
             call_seconds_bucket{tool=\"a\\\"b\",le=\"0.1\"} 3\n\
             call_seconds_bucket{tool=\"a\\\"b\",le=\"+Inf\"} 4\n\
             call_seconds_sum{tool=\"a\\\"b\"} 7.0515\n\
             call_seconds_count{tool=\"a\\\"b\"} 4\n"
        );
    }
}
