//! Paired measurements: both sides of a comparison in one process run.
//!
//! A comparison measured minutes apart reads the machine's drift as a
//! difference (dispatch once read anywhere from 1.02× to 1.26×). Here both
//! sides get the same warm-up, then alternate in short batches, A B, B A,
//! A B, ..., so whatever the machine does meanwhile hits both alike; each
//! pair of batches gives one ratio, and the report is the median ratio with
//! its spread.
//!
//! ```no_run
//! use std::hint::black_box;
//! use mcp_profiles_bench::paired::{Pairing, Side};
//!
//! let mut sum = 0u64;
//! let mut other = 0u64;
//! let comparison = Pairing::from_env().compare(
//!     "adding",
//!     Side::new("ours", |n| (0..n).for_each(|i| sum = black_box(sum + i))),
//!     Side::new("theirs", |n| (0..n).for_each(|i| other = black_box(other ^ i))),
//! );
//! println!("{comparison}");
//! ```

use std::fmt;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::results::{Spread, env_usize};

/// How a comparison is run: pairs, batch length, warm-up.
#[derive(Clone, Copy, Debug)]
pub struct Pairing {
    /// Pairs of batches (each gives one ratio).
    pub pairs: usize,
    /// Target length of one batch of one side.
    pub batch: Duration,
    /// Warm-up of each side before the first pair.
    pub warm_up: Duration,
}

impl Default for Pairing {
    fn default() -> Self {
        Pairing {
            pairs: 21,
            batch: Duration::from_millis(40),
            warm_up: Duration::from_millis(300),
        }
    }
}

/// One side of a comparison: runs its operation `n` times per call.
pub struct Side<'a> {
    name: &'static str,
    run: Box<dyn FnMut(u64) + 'a>,
}

impl<'a> Side<'a> {
    /// A side called `name` whose closure runs the operation `n` times.
    pub fn new(name: &'static str, run: impl FnMut(u64) + 'a) -> Self {
        Side {
            name,
            run: Box::new(run),
        }
    }

    /// A side whose operation is the future `op` makes, awaited `n` times
    /// in a row on `runtime` per batch; an error stops the bench.
    pub fn awaiting<T, E: fmt::Debug, F: std::future::Future<Output = Result<T, E>>>(
        name: &'static str,
        runtime: &'a tokio::runtime::Runtime,
        mut op: impl FnMut() -> F + 'a,
    ) -> Self {
        Side::new(name, move |n| {
            runtime.block_on(async {
                for _ in 0..n {
                    std::hint::black_box(op().await.expect("the operation succeeds"));
                }
            })
        })
    }

    fn time(&mut self, n: u64) -> Duration {
        let start = Instant::now();
        (self.run)(n);
        start.elapsed()
    }

    /// Iterations that fill about `target`, found by doubling.
    fn calibrate(&mut self, target: Duration) -> u64 {
        let mut n = 1;
        loop {
            let took = self.time(n);
            if took >= target / 4 || n >= 1 << 40 {
                let per = took.as_secs_f64() / n as f64;
                return ((target.as_secs_f64() / per.max(1e-12)) as u64).max(1);
            }
            n *= 2;
        }
    }
}

/// The outcome of one comparison.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    /// What was compared (e.g. `dispatch`).
    pub name: String,
    /// Size label (e.g. the number of tools), empty when there is one size.
    pub size: String,
    /// Side A's name.
    pub a: &'static str,
    /// Side B's name.
    pub b: &'static str,
    /// Median time per operation of A over its batches, in nanoseconds.
    pub a_ns: f64,
    /// Median time per operation of B over its batches, in nanoseconds.
    pub b_ns: f64,
    /// Median of the per-pair ratios A / B.
    pub ratio: f64,
    /// Smallest per-pair ratio.
    pub ratio_min: f64,
    /// Largest per-pair ratio.
    pub ratio_max: f64,
    /// Pairs measured.
    pub pairs: usize,
    /// Operations per batch (both sides run the same number).
    pub batch_ops: u64,
}

impl Pairing {
    /// The default pairing, with `PAIRS` (at least 5) and `BATCH_MS` from
    /// the environment when set.
    pub fn from_env() -> Self {
        let mut pairing = Pairing::default();
        pairing.pairs = env_usize("PAIRS", pairing.pairs).max(5);
        let batch_ms = env_usize("BATCH_MS", pairing.batch.as_millis() as usize);
        pairing.batch = Duration::from_millis(batch_ms.max(1) as u64);
        pairing
    }

    /// Runs `a` and `b` interleaved and returns their paired comparison.
    pub fn compare(&self, name: &str, mut a: Side<'_>, mut b: Side<'_>) -> Comparison {
        // Same warm-up for both, alternating, before anything is counted.
        let warm_until = Instant::now() + self.warm_up;
        while Instant::now() < warm_until {
            a.time(64);
            b.time(64);
        }
        // Both sides run the same count per batch, sized on the slower one,
        // so neither batch is too short to time.
        let n = a.calibrate(self.batch).min(b.calibrate(self.batch));
        let (mut a_ns, mut b_ns, mut ratios) = (vec![], vec![], vec![]);
        for pair in 0..self.pairs {
            let (ta, tb) = if pair % 2 == 0 {
                let ta = a.time(n);
                (ta, b.time(n))
            } else {
                let tb = b.time(n);
                (a.time(n), tb)
            };
            a_ns.push(ta.as_nanos() as f64 / n as f64);
            b_ns.push(tb.as_nanos() as f64 / n as f64);
            ratios.push(ta.as_secs_f64() / tb.as_secs_f64());
        }
        let ratio = Spread::of(&ratios);
        Comparison {
            name: name.to_owned(),
            size: String::new(),
            a: a.name,
            b: b.name,
            a_ns: Spread::of(&a_ns).median,
            b_ns: Spread::of(&b_ns).median,
            ratio: ratio.median,
            ratio_min: ratio.min,
            ratio_max: ratio.max,
            pairs: self.pairs,
            batch_ops: n,
        }
    }
}

impl Comparison {
    /// A comparison of one-shot operations: `pairs` holds each pair's time
    /// of A and of B, one operation each (what cannot be repeated, such as
    /// a first use, is timed once per pair).
    pub fn of_single_runs(
        name: &str,
        (a, b): (&'static str, &'static str),
        pairs: &[(Duration, Duration)],
    ) -> Comparison {
        let nanos = |time: Duration| time.as_nanos() as f64;
        let a_ns: Vec<f64> = pairs.iter().map(|(a, _)| nanos(*a)).collect();
        let b_ns: Vec<f64> = pairs.iter().map(|(_, b)| nanos(*b)).collect();
        let ratios: Vec<f64> = pairs
            .iter()
            .map(|(a, b)| a.as_secs_f64() / b.as_secs_f64())
            .collect();
        let ratio = Spread::of(&ratios);
        Comparison {
            name: name.to_owned(),
            size: String::new(),
            a,
            b,
            a_ns: Spread::of(&a_ns).median,
            b_ns: Spread::of(&b_ns).median,
            ratio: ratio.median,
            ratio_min: ratio.min,
            ratio_max: ratio.max,
            pairs: pairs.len(),
            batch_ops: 1,
        }
    }

    /// The same comparison labelled with a size.
    pub fn sized(mut self, size: impl fmt::Display) -> Self {
        self.size = size.to_string();
        self
    }
}

impl fmt::Display for Comparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:<12} {:>7}  {:<24} {:>11}   {:<24} {:>11}   ratio {:.3} ({:.3}..{:.3}, {} pairs)",
            self.name,
            self.size,
            self.a,
            nanos(self.a_ns),
            self.b,
            nanos(self.b_ns),
            self.ratio,
            self.ratio_min,
            self.ratio_max,
            self.pairs
        )
    }
}

fn nanos(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}
