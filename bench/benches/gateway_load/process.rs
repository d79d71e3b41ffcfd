//! What the bench reads of its own process and the machine (Linux
//! `/proc`), and how it reports durations.

use std::time::Duration;

use mcp_profiles_bench::results::quantile;
use serde_json::json;

/// A duration in milliseconds.
pub fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// p50, p99, max in ms, and how many (NaNs when none).
pub fn percentiles(mut samples: Vec<Duration>) -> serde_json::Value {
    samples.sort();
    if samples.is_empty() {
        return json!({"p50": f64::NAN, "p99": f64::NAN, "max": f64::NAN, "n": 0});
    }
    json!({
        "p50": ms(quantile(&samples, 0.5)),
        "p99": ms(quantile(&samples, 0.99)),
        "max": ms(samples[samples.len() - 1]),
        "n": samples.len(),
    })
}

/// This process's CPU time so far (user + system), from `/proc/self/stat`
/// (in clock ticks of 10 ms, Linux's `USER_HZ`).
pub fn cpu_time() -> Duration {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|stat| {
            // Fields after the command name (which may hold spaces).
            let rest = &stat[stat.rfind(')')? + 2..];
            let fields: Vec<&str> = rest.split(' ').collect();
            let ticks =
                fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
            Some(Duration::from_millis(ticks * 10))
        })
        .unwrap_or_default()
}

/// The machine's load average over the last minute.
pub fn load_average() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|text| text.split(' ').next()?.parse().ok())
        .unwrap_or(f64::NAN)
}

/// This process's resident set, in bytes.
pub fn rss() -> usize {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("VmRSS:"))
                .and_then(|kb| kb.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .map_or(0, |kb: usize| kb * 1024)
}
