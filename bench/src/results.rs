//! Summaries of timed rounds and the machine-readable results a timed
//! harness leaves in `target/bench-results/<bench>.json`.

use std::path::PathBuf;

/// Median of `samples` (the mean of the middle two for an even count).
pub fn median(samples: &[f64]) -> f64 {
    assert!(!samples.is_empty(), "the median of no samples");
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let middle = sorted.len() / 2;
    if sorted.len().is_multiple_of(2) {
        (sorted[middle - 1] + sorted[middle]) / 2.0
    } else {
        sorted[middle]
    }
}

/// Smallest and largest of `samples`.
pub fn spread(samples: &[f64]) -> (f64, f64) {
    let min = samples.iter().copied().fold(f64::INFINITY, f64::min);
    let max = samples.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (min, max)
}

/// `target/bench-results`: under `CARGO_TARGET_DIR` when set, else the
/// workspace's `target`.
pub fn results_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../target")));
    target.join("bench-results")
}

/// Writes `results` to `target/bench-results/<bench>.json`; its path.
pub fn write_results(bench: &str, results: &serde_json::Value) -> std::io::Result<PathBuf> {
    let dir = results_dir();
    std::fs::create_dir_all(&dir)?;
    let path = dir.join(format!("{bench}.json"));
    let text = serde_json::to_string_pretty(results).map_err(std::io::Error::other)?;
    std::fs::write(&path, text + "\n")?;
    Ok(path)
}
