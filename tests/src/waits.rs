//! How long tests wait: one place, so every harness agrees.

use std::time::Duration;

/// How long a test waits for something that must happen.
pub const LIMIT: Duration = Duration::from_secs(10);
/// How long a test listens to prove that nothing more arrives.
pub const QUIET: Duration = Duration::from_millis(500);
