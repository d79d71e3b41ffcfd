//! What the timed harnesses share: summaries of repeated measurements and
//! the machine-readable results file each bench writes.

use std::path::PathBuf;

use serde::Serialize;

/// The median of a set of measurements and their range.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Spread {
    /// The median (the mean of the two middle values for an even count).
    pub median: f64,
    /// The smallest value.
    pub min: f64,
    /// The largest value.
    pub max: f64,
}

impl Spread {
    /// The spread of `values`; `NaN`s everywhere when there are none.
    pub fn of(values: &[f64]) -> Self {
        let mut sorted: Vec<f64> = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        if n == 0 {
            return Spread {
                median: f64::NAN,
                min: f64::NAN,
                max: f64::NAN,
            };
        }
        let median = if n % 2 == 1 {
            sorted[n / 2]
        } else {
            (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
        };
        Spread {
            median,
            min: sorted[0],
            max: sorted[n - 1],
        }
    }
}

/// The `q` quantile (0..=1) of `sorted` by nearest rank; `sorted` must be
/// sorted and not empty.
pub fn quantile<T: Copy>(sorted: &[T], q: f64) -> T {
    let rank = ((sorted.len() as f64 * q).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// An environment variable as a number, `default` when unset; a value that
/// is not one stops the bench with a message naming it.
pub fn env_usize(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Ok(value) => value
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}=`{value}` is not a whole number")),
        Err(_) => default,
    }
}

/// An environment variable as a comma-separated list, `default` when unset;
/// empty items are dropped.
pub fn env_list(name: &str, default: &str) -> Vec<String> {
    std::env::var(name)
        .unwrap_or_else(|_| default.to_owned())
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Writes `results` as pretty JSON to `target/bench-results/<bench>.json`
/// (under `CARGO_TARGET_DIR` when set) and returns the path.
pub fn write(bench: &str, results: &serde_json::Value) -> std::io::Result<PathBuf> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"));
    let dir = target.join("bench-results");
    std::fs::create_dir_all(&dir)?;
    let path = dir.join(format!("{bench}.json"));
    let text = serde_json::to_string_pretty(results).map_err(std::io::Error::other)?;
    std::fs::write(&path, text + "\n")?;
    Ok(path)
}
