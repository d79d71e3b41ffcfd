//! What the serving layer counts, through the
//! [`metrics`](https://docs.rs/metrics) facade (feature `metrics`, which
//! also turns on the core's): requests of the multi-agent routers, their
//! refusals, and the health of a shared store.
//!
//! Principals appear as a label only when the store opts in
//! ([`ProfileStore::with_principal_metrics`](crate::ProfileStore::with_principal_metrics)):
//! every principal is a series of its own, so a deployment with many
//! (OAuth subjects, say) keeps the label off. Handles are registered once
//! (the fixed-label ones on first use, a principal's with its grant), so a
//! request costs an atomic add. Without the feature every function here is
//! empty.

#[cfg(feature = "metrics")]
use std::sync::OnceLock;

#[cfg(feature = "metrics")]
use metrics::Counter;
#[cfg(all(feature = "metrics", feature = "redis"))]
use metrics::Gauge;

use crate::identity::Grant;

/// The names of the serving layer's series.
#[cfg(feature = "metrics")]
pub mod names {
    /// Counter of requests a multi-agent router admitted, labelled
    /// `principal` only when the store opts in.
    pub const AGENT_REQUESTS: &str = "mcp_profiles_agent_requests_total";
    /// Counter of requests a bearer-token router refused before MCP, by
    /// `reason`: `unknown_token` (401), `store_unavailable` (503).
    pub const HTTP_REFUSALS: &str = "mcp_profiles_http_refusals_total";
    /// Counter of requests an OAuth router refused before MCP, by
    /// `reason`: the token's (`missing`, `malformed`, `expired`,
    /// `bad_signature`, ... — [`TokenError::reason`](crate::oauth::TokenError::reason)),
    /// `no_profile` (403), `insufficient_scope` (403, step-up),
    /// `body_too_large` (413, a call whose tool could need a step-up),
    /// `store_unavailable` (503).
    pub const OAUTH_REFUSALS: &str = "mcp_profiles_oauth_refusals_total";
    /// Gauge: 1 while the shared store (Redis) answers, 0 once it is lost.
    pub const STORE_UP: &str = "mcp_profiles_store_up";
    /// Counter of requests admitted while the shared store had been out of
    /// reach past the grace period: their MCP requests are refused.
    pub const STORE_GRACE_REFUSALS: &str = "mcp_profiles_store_grace_refusals_total";
    /// Counter of versions skipped on the change feed (each makes the
    /// instance read that principal again).
    pub const STORE_FEED_GAPS: &str = "mcp_profiles_store_feed_gaps_total";
    /// Counter of reloads after reconnecting to the shared store, by
    /// `result`: `ok`, `failed`.
    pub const STORE_RELOADS: &str = "mcp_profiles_store_reloads_total";
    /// Counter of connections to the shared store lost.
    pub const STORE_DISCONNECTS: &str = "mcp_profiles_store_disconnects_total";
}

/// Why a bearer-token request was refused.
#[derive(Clone, Copy)]
pub(crate) enum HttpRefusal {
    UnknownToken,
    StoreUnavailable,
}

/// The fixed-label handles, registered on first use.
#[cfg(feature = "metrics")]
struct Handles {
    requests: Counter,
    http_refusals: [Counter; 2],
    grace_refusals: Counter,
    #[cfg(feature = "redis")]
    store: StoreHandles,
}

/// The shared store's handles.
#[cfg(all(feature = "metrics", feature = "redis"))]
struct StoreHandles {
    up: Gauge,
    feed_gaps: Counter,
    reloads: [Counter; 2],
    disconnects: Counter,
}

#[cfg(feature = "metrics")]
impl Handles {
    fn get() -> &'static Handles {
        static HANDLES: OnceLock<Handles> = OnceLock::new();
        HANDLES.get_or_init(|| {
            use names::*;
            describe();
            Handles {
                requests: metrics::counter!(AGENT_REQUESTS),
                http_refusals: ["unknown_token", "store_unavailable"]
                    .map(|reason| metrics::counter!(HTTP_REFUSALS, "reason" => reason)),
                grace_refusals: metrics::counter!(STORE_GRACE_REFUSALS),
                #[cfg(feature = "redis")]
                store: StoreHandles {
                    up: metrics::gauge!(STORE_UP),
                    feed_gaps: metrics::counter!(STORE_FEED_GAPS),
                    reloads: ["ok", "failed"]
                        .map(|result| metrics::counter!(STORE_RELOADS, "result" => result)),
                    disconnects: metrics::counter!(STORE_DISCONNECTS),
                },
            }
        })
    }
}

#[cfg(feature = "metrics")]
fn describe() {
    use names::*;
    metrics::describe_counter!(AGENT_REQUESTS, "Requests a multi-agent router admitted");
    metrics::describe_counter!(
        HTTP_REFUSALS,
        "Requests a bearer-token router refused, by reason"
    );
    metrics::describe_counter!(
        OAUTH_REFUSALS,
        "Requests an OAuth router refused, by reason"
    );
    metrics::describe_gauge!(STORE_UP, "1 while the shared profile store answers");
    metrics::describe_counter!(
        STORE_GRACE_REFUSALS,
        "Requests admitted while the shared store was out of reach past the grace period"
    );
    metrics::describe_counter!(STORE_FEED_GAPS, "Versions skipped on the change feed");
    metrics::describe_counter!(
        STORE_RELOADS,
        "Reloads after reconnecting to the shared store, by result"
    );
    metrics::describe_counter!(STORE_DISCONNECTS, "Connections to the shared store lost");
}

/// Counts a request admitted with `grant`: under its principal's label
/// when `labelled`, else in the one unlabelled series.
#[inline]
pub(crate) fn admitted(grant: &Grant, labelled: bool) {
    #[cfg(feature = "metrics")]
    {
        if labelled {
            grant
                .meter()
                .get_or_init(|| {
                    let principal = grant.principal().name().to_owned();
                    metrics::counter!(names::AGENT_REQUESTS, "principal" => principal)
                })
                .increment(1);
        } else {
            Handles::get().requests.increment(1);
        }
    }
    #[cfg(not(feature = "metrics"))]
    let _ = (grant, labelled);
}

/// Counts a bearer-token request refused before MCP.
#[inline]
pub(crate) fn http_refused(reason: HttpRefusal) {
    #[cfg(feature = "metrics")]
    Handles::get().http_refusals[reason as usize].increment(1);
    #[cfg(not(feature = "metrics"))]
    let _ = reason;
}

/// Counts an OAuth request refused before MCP, for `reason` (a fixed,
/// snake_case name).
#[cfg(feature = "oauth")]
#[inline]
pub(crate) fn oauth_refused(reason: &'static str) {
    #[cfg(feature = "metrics")]
    metrics::counter!(names::OAUTH_REFUSALS, "reason" => reason).increment(1);
    #[cfg(not(feature = "metrics"))]
    let _ = reason;
}

/// Counts a request admitted while the store refuses to serve.
#[cfg(feature = "metrics")]
#[inline]
pub(crate) fn grace_refused() {
    #[cfg(feature = "metrics")]
    Handles::get().grace_refusals.increment(1);
}

/// The shared store answers (`true`) or was lost.
#[cfg(feature = "redis")]
#[inline]
pub(crate) fn store_up(up: bool) {
    #[cfg(feature = "metrics")]
    {
        let store = &Handles::get().store;
        store.up.set(if up { 1.0 } else { 0.0 });
        if !up {
            store.disconnects.increment(1);
        }
    }
    #[cfg(not(feature = "metrics"))]
    let _ = up;
}

/// Counts a gap on the change feed.
#[cfg(feature = "redis")]
#[inline]
pub(crate) fn feed_gap() {
    #[cfg(feature = "metrics")]
    Handles::get().store.feed_gaps.increment(1);
}

/// Counts a reload after reconnecting.
#[cfg(feature = "redis")]
#[inline]
pub(crate) fn reload(ok: bool) {
    #[cfg(feature = "metrics")]
    Handles::get().store.reloads[usize::from(!ok)].increment(1);
    #[cfg(not(feature = "metrics"))]
    let _ = ok;
}

/// A span naming the principal whose agent a store change replaces; the
/// core's replacement span is its child. `None` without the feature.
#[inline]
pub(crate) fn agent_span(principal: &str) -> Option<tracing::span::EnteredSpan> {
    #[cfg(feature = "metrics")]
    return Some(tracing::info_span!("mcp_profiles.agent", principal).entered());
    #[cfg(not(feature = "metrics"))]
    {
        let _ = principal;
        None
    }
}

/// Records `principal` in the current span (the core's `tools/list` or
/// `tools/call` span, while it resolves the request's profile).
#[cfg(feature = "metrics")]
#[inline]
pub(crate) fn record_principal(principal: &crate::Principal) {
    tracing::Span::current().record("principal", principal.name());
}
