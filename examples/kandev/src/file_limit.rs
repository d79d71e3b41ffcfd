//! The MCP listener's connection cap under the process's open-file limit.
//!
//! At start `serve --http` and `gateway` raise the soft `RLIMIT_NOFILE` to
//! the hard limit, then cap the MCP listener at
//! `min(--max-connections, limit - reserve)`, where the reserve is what the
//! process holds besides MCP connections: the descriptors open at start,
//! the control listener's connections and whatever else this command uses
//! (see [`Uses::reserve`]). So a saturated MCP port fills its own share and
//! answers 503 past it, and the control API still gets its connections,
//! whatever the limit. A limit that leaves no room at all is an error at
//! start, naming the limit and the reserve.

use mcp_profiles_serve::http::{Limits, NoRoomForConnections, fit_to_file_limit};

use crate::plugins::MAX_CONCURRENT_CALLS;

/// SQLite (`serve --db`): its one connection holds the database, its `-wal`
/// and `-shm` files, and briefly the directory it syncs.
pub const SQLITE: u64 = 4;

/// Redis (`gateway --store`): the command connection and the change feed's,
/// each of which may hold a second socket while it reconnects.
pub const REDIS: u64 = 4;

/// The plugin backend (`serve --plugin-backend`): a connection per call in
/// flight, at most [`MAX_CONCURRENT_CALLS`] of them with no idle pool, and
/// four for the resolver's sockets and files when the URL names a host.
pub const PLUGIN_BACKEND: u64 = MAX_CONCURRENT_CALLS as u64 + 4;

/// Always: the MCP and control listeners (2), the one connection each
/// accepts past its cap only to answer 503 and close (2), and 4 to spare
/// (a log file opened by the environment, a descriptor the count missed).
pub const SLACK: u64 = 8;

/// What a command holds descriptors for besides MCP connections.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Uses {
    /// The control listener (`--control`), at most
    /// [`control::limits`](crate::control::limits) connections (32).
    pub control: bool,
    /// A SQLite database (`serve --db`).
    pub sqlite: bool,
    /// A Redis store (`gateway --store`).
    pub redis: bool,
    /// A plugin backend (`serve --plugin-backend`).
    pub plugin_backend: bool,
}

impl Uses {
    /// The descriptors set aside for all of it: [`SLACK`], plus the control
    /// listener's cap, [`SQLITE`], [`REDIS`] and [`PLUGIN_BACKEND`] for
    /// what is used. What is open at start comes on top (see [`fit`]).
    pub fn reserve(&self) -> u64 {
        let control = crate::control::limits().max_connections() as u64;
        [
            (true, SLACK),
            (self.control, control),
            (self.sqlite, SQLITE),
            (self.redis, REDIS),
            (self.plugin_backend, PLUGIN_BACKEND),
        ]
        .into_iter()
        .filter_map(|(used, count)| used.then_some(count))
        .sum()
    }
}

/// Raises the soft open-file limit to the hard one and fits `limits` (the
/// MCP listener's) under it, with what `uses` reserved (see
/// [`fit_to_file_limit`]). Call it at start, before the listeners, the
/// database or the store are opened: their descriptors are in the
/// reserve, not in the count of what is open.
///
/// # Errors
///
/// When the limit cannot be read, or leaves no room for a connection.
pub fn fit(limits: Limits, uses: &Uses) -> Result<Limits, String> {
    fit_to_file_limit(limits, uses.reserve(), &uses.describe()).map_err(|error| error.to_string())
}

/// `limits` capped at `min(max_connections, file_limit - reserve)`, the
/// reserve being `open` (descriptors open at start) plus
/// [`uses.reserve()`](Uses::reserve).
///
/// # Errors
///
/// When `file_limit` is not above that reserve.
pub fn fit_within(
    limits: Limits,
    file_limit: u64,
    open: u64,
    uses: &Uses,
) -> Result<Limits, NoRoomForConnections> {
    limits.within_file_limit(file_limit, open.saturating_add(uses.reserve()))
}

impl Uses {
    /// What the reserve is for, e.g. "the control listener, SQLite and slack".
    fn describe(&self) -> String {
        let used: Vec<&str> = [
            (self.control, "the control listener"),
            (self.sqlite, "SQLite"),
            (self.redis, "Redis"),
            (self.plugin_backend, "the plugin backend"),
            (true, "listeners and slack"),
        ]
        .into_iter()
        .filter_map(|(used, what)| used.then_some(what))
        .collect();
        used.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cap(asked: usize, file_limit: u64, open: u64, uses: &Uses) -> Option<usize> {
        let limits = Limits::default().with_max_connections(asked);
        fit_within(limits, file_limit, open, uses)
            .ok()
            .map(|limits| limits.max_connections())
    }

    const SERVE_WITH_CONTROL: Uses = Uses {
        control: true,
        sqlite: false,
        redis: false,
        plugin_backend: false,
    };

    #[test]
    fn the_reserve_adds_what_each_command_uses() {
        assert_eq!(Uses::default().reserve(), SLACK);
        assert_eq!(SERVE_WITH_CONTROL.reserve(), 32 + SLACK);
        let serve_everything = Uses {
            control: true,
            sqlite: true,
            plugin_backend: true,
            redis: false,
        };
        assert_eq!(serve_everything.reserve(), 32 + 4 + 20 + 8);
        let gateway_on_redis = Uses {
            control: true,
            redis: true,
            ..Uses::default()
        };
        assert_eq!(gateway_on_redis.reserve(), 32 + 4 + 8);
    }

    #[test]
    fn the_cap_is_what_the_limit_leaves_when_that_is_less() {
        // 128 - (10 open + 40 reserved).
        assert_eq!(cap(512, 128, 10, &SERVE_WITH_CONTROL), Some(78));
        assert_eq!(cap(512, 1024, 10, &SERVE_WITH_CONTROL), Some(512));
        assert_eq!(cap(64, 128, 10, &SERVE_WITH_CONTROL), Some(64));
        assert_eq!(cap(512, u64::MAX, 10, &SERVE_WITH_CONTROL), Some(512));
    }

    #[test]
    fn a_limit_within_the_reserve_is_refused() {
        assert_eq!(cap(512, 50, 10, &SERVE_WITH_CONTROL), None);
        assert_eq!(cap(512, 40, 10, &SERVE_WITH_CONTROL), None);
        assert_eq!(cap(512, 51, 10, &SERVE_WITH_CONTROL), Some(1));
        // A count that overflows is a reserve nothing fits under.
        assert_eq!(cap(512, u64::MAX, u64::MAX, &SERVE_WITH_CONTROL), None);
    }

    #[test]
    fn the_reserve_is_described_by_what_it_covers() {
        assert_eq!(
            SERVE_WITH_CONTROL.describe(),
            "the control listener, listeners and slack"
        );
    }
}
