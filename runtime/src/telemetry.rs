//! What the core counts, through the [`metrics`](https://docs.rs/metrics)
//! facade (feature `metrics`): the application installs the recorder (a
//! Prometheus exporter, say) and these become its series.
//!
//! Every handle is registered once — the fixed-label ones on first use, a
//! compiled tool's when the first snapshot holding it is built, a runtime
//! tool's when its catalog is verified — so counting costs an atomic add
//! through the handle, never a lookup or an allocation. Install the
//! recorder before the first controller is made: a handle registered
//! before it counts into nothing.
//!
//! Without the feature the counting functions here are empty and the
//! per-tool handles and timers do not exist: a call takes exactly the path
//! it took before metrics existed (its layer, [`call`], is zero-sized).

#[cfg(feature = "metrics")]
use std::sync::OnceLock;

#[cfg(feature = "metrics")]
use rmcp::ErrorData;
#[cfg(feature = "metrics")]
use rmcp::model::CallToolResponse;
#[cfg(all(feature = "metrics", feature = "runtime-tools"))]
use rmcp::model::CallToolResult;

#[cfg(feature = "metrics")]
use metrics::{Counter, Gauge, Histogram};

mod call;
pub(crate) use call::{CallSpan, Meter, Meters};

/// A kind of list, as counted.
#[derive(Clone, Copy)]
pub(crate) enum List {
    Tools,
    Prompts,
    Resources,
    Groups,
}

/// The names of the core's series, for exporters' tests and dashboards.
#[cfg(feature = "metrics")]
pub mod names {
    /// Counter of replacements by `outcome`: `changed` (the visible tools,
    /// prompts or resources changed), `unchanged`, `refused` (an
    /// [`update`](crate::ProfileController::update) whose closure failed,
    /// or a catalog the presentation refused).
    pub const REPLACEMENTS: &str = "mcp_profiles_replacements_total";
    /// Counter of runtime catalog installations by `outcome`: `installed`,
    /// `unchanged`, `ignored_stale`, `refused`.
    pub const CATALOG_INSTALLS: &str = "mcp_profiles_catalog_installs_total";
    /// Counter of list_changed notifications sent, by `kind` (`tools`,
    /// `prompts`, `resources`).
    pub const LIST_CHANGED_DELIVERED: &str = "mcp_profiles_list_changed_delivered_total";
    /// Counter of list_changed notifications owed to a session that closed
    /// or whose peer failed before they were sent, by `kind`.
    pub const LIST_CHANGED_DROPPED: &str = "mcp_profiles_list_changed_dropped_total";
    /// Counter of `tools/call`s refused before any handler ran, by
    /// `reason`: `hidden` (not in the profile), `killed` (the operator's
    /// kill switch), `bad_arguments` (arguments that do not deserialize or
    /// do not match a runtime tool's schema).
    pub const CALLS_REFUSED: &str = "mcp_profiles_calls_refused_total";
    /// Counter of tool calls that ran, by `tool` (its canonical name) and
    /// `result` (`ok`, or `error` for a JSON-RPC error or a result marked
    /// `isError`).
    pub const TOOL_CALLS: &str = "mcp_profiles_tool_calls_total";
    /// Histogram of the seconds a tool call took, by `tool`.
    pub const TOOL_CALL_DURATION: &str = "mcp_profiles_tool_call_duration_seconds";
    /// Gauge of what hears list_changed now, by `era`: `2025` counts
    /// sessions opened with `initialize`, `2026` open
    /// `subscriptions/listen` streams.
    pub const LIVE_SESSIONS: &str = "mcp_profiles_live_sessions";
}

/// What a replacement did.
#[derive(Clone, Copy)]
pub(crate) enum Outcome {
    Changed,
    Unchanged,
    Refused,
}

/// Why a call was refused before a handler ran.
#[derive(Clone, Copy)]
#[cfg_attr(
    not(any(feature = "metrics", feature = "runtime-tools")),
    allow(dead_code, reason = "only metrics and runtime tools see bad arguments")
)]
pub(crate) enum Refusal {
    Hidden,
    Killed,
    BadArguments,
}

/// Which kind of target hears list_changed.
#[derive(Clone, Copy)]
pub(crate) enum Era {
    /// A 2025-era session (`initialize`).
    Session,
    /// A 2026-07-28 `subscriptions/listen` stream.
    Listen,
}

/// A runtime catalog installation's outcome, as counted.
#[cfg(feature = "runtime-tools")]
#[derive(Clone, Copy)]
pub(crate) enum Install {
    Installed,
    Unchanged,
    IgnoredStale,
    Refused,
}

/// The fixed-label handles, registered on first use.
#[cfg(feature = "metrics")]
struct Handles {
    replacements: [Counter; 3],
    #[cfg(feature = "runtime-tools")]
    installs: [Counter; 4],
    delivered: [Counter; 4],
    dropped: [Counter; 4],
    refused: [Counter; 3],
    sessions: [Gauge; 2],
}

#[cfg(feature = "metrics")]
impl Handles {
    fn get() -> &'static Handles {
        static HANDLES: OnceLock<Handles> = OnceLock::new();
        HANDLES.get_or_init(|| {
            // Calibrated here, not on the first call.
            let _ = clock();
            Handles::register()
        })
    }

    fn register() -> Handles {
        use names::*;
        describe();
        let kind = |name: &'static str| {
            ["tools", "prompts", "resources", "groups"]
                .map(|kind| metrics::counter!(name, "kind" => kind))
        };
        Handles {
            replacements: ["changed", "unchanged", "refused"]
                .map(|outcome| metrics::counter!(REPLACEMENTS, "outcome" => outcome)),
            #[cfg(feature = "runtime-tools")]
            installs: ["installed", "unchanged", "ignored_stale", "refused"]
                .map(|outcome| metrics::counter!(CATALOG_INSTALLS, "outcome" => outcome)),
            delivered: kind(LIST_CHANGED_DELIVERED),
            dropped: kind(LIST_CHANGED_DROPPED),
            refused: ["hidden", "killed", "bad_arguments"]
                .map(|reason| metrics::counter!(CALLS_REFUSED, "reason" => reason)),
            sessions: ["2025", "2026"].map(|era| metrics::gauge!(LIVE_SESSIONS, "era" => era)),
        }
    }
}

/// Describes every series to the recorder (help text and unit).
#[cfg(feature = "metrics")]
fn describe() {
    use names::*;
    metrics::describe_counter!(REPLACEMENTS, "Profile replacements by outcome");
    metrics::describe_counter!(CATALOG_INSTALLS, "Runtime catalog installations by outcome");
    metrics::describe_counter!(
        LIST_CHANGED_DELIVERED,
        "list_changed notifications sent, by kind"
    );
    metrics::describe_counter!(
        LIST_CHANGED_DROPPED,
        "list_changed notifications owed to a session that closed or failed, by kind"
    );
    metrics::describe_counter!(
        CALLS_REFUSED,
        "tools/call refused before any handler ran, by reason"
    );
    metrics::describe_counter!(TOOL_CALLS, "Tool calls that ran, by tool and result");
    metrics::describe_histogram!(
        TOOL_CALL_DURATION,
        metrics::Unit::Seconds,
        "Tool call duration, by tool"
    );
    metrics::describe_gauge!(
        LIVE_SESSIONS,
        "Sessions (2025) and listen streams (2026) that hear list_changed"
    );
}

/// Counts one replacement.
#[inline]
pub(crate) fn replacement(outcome: Outcome) {
    #[cfg(feature = "metrics")]
    Handles::get().replacements[outcome as usize].increment(1);
    #[cfg(not(feature = "metrics"))]
    let _ = outcome;
}

/// Counts one catalog installation.
#[cfg(feature = "runtime-tools")]
#[inline]
pub(crate) fn install(outcome: Install) {
    #[cfg(feature = "metrics")]
    Handles::get().installs[outcome as usize].increment(1);
    #[cfg(not(feature = "metrics"))]
    let _ = outcome;
}

/// Counts `count` list_changed notifications about `kind`, sent or
/// dropped.
#[inline]
pub(crate) fn list_changed(kind: List, delivered: bool, count: u64) {
    #[cfg(feature = "metrics")]
    if count > 0 {
        let handles = Handles::get();
        let counters = if delivered {
            &handles.delivered
        } else {
            &handles.dropped
        };
        counters[kind as usize].increment(count);
    }
    #[cfg(not(feature = "metrics"))]
    let _ = (kind, delivered, count);
}

/// Counts one refused call.
#[inline]
pub(crate) fn refused(reason: Refusal) {
    #[cfg(feature = "metrics")]
    Handles::get().refused[reason as usize].increment(1);
    #[cfg(not(feature = "metrics"))]
    let _ = reason;
}

/// A target of `era` started (`true`) or stopped hearing list_changed.
#[inline]
pub(crate) fn session(era: Era, open: bool) {
    #[cfg(feature = "metrics")]
    {
        let gauge = &Handles::get().sessions[era as usize];
        if open {
            gauge.increment(1.0);
        } else {
            gauge.decrement(1.0);
        }
    }
    #[cfg(not(feature = "metrics"))]
    let _ = (era, open);
}

/// Whether `response` is rmcp's answer to arguments that do not
/// deserialize: the handler never ran.
#[cfg(feature = "metrics")]
fn bad_arguments(response: &CallToolResponse) -> bool {
    let CallToolResponse::Complete(result) = response else {
        return false;
    };
    result.is_error == Some(true)
        && result.content.first().is_some_and(|content| {
            content
                .as_text()
                .is_some_and(|text| text.text.starts_with(crate::dispatch::BAD_ARGUMENTS_PREFIX))
        })
}

/// One tool's handles: its calls by result and their duration.
#[cfg(feature = "metrics")]
pub(crate) struct ToolMeter {
    ok: Counter,
    error: Counter,
    duration: Histogram,
}

#[cfg(feature = "metrics")]
impl ToolMeter {
    /// Registers the handles of the (runtime) tool called `name`.
    #[cfg(feature = "runtime-tools")]
    pub(crate) fn register(name: &str) -> Self {
        let _ = Handles::get(); // descriptions first
        let tool = metrics::SharedString::from(name.to_owned());
        ToolMeter {
            ok: metrics::counter!(names::TOOL_CALLS, "tool" => tool.clone(), "result" => "ok"),
            error: metrics::counter!(names::TOOL_CALLS, "tool" => tool.clone(), "result" => "error"),
            duration: metrics::histogram!(names::TOOL_CALL_DURATION, "tool" => tool),
        }
    }

    /// Registers the handles of a compiled tool, whose name lives as long
    /// as the process: the labels borrow it.
    pub(crate) fn register_static(name: &'static str) -> Self {
        let _ = Handles::get();
        ToolMeter {
            ok: metrics::counter!(names::TOOL_CALLS, "tool" => name, "result" => "ok"),
            error: metrics::counter!(names::TOOL_CALLS, "tool" => name, "result" => "error"),
            duration: metrics::histogram!(names::TOOL_CALL_DURATION, "tool" => name),
        }
    }

    /// Counts a compiled tool's call `started` then, by what its route
    /// answered, before [`as_router_answers`](crate::dispatch::as_router_answers)
    /// mends it (as the route's future answers, so the call's own body
    /// stays as it is without metrics): arguments that did not
    /// deserialize, as rmcp's error or as the error result it is mended
    /// into, are a refusal (the handler never ran), anything else a call,
    /// `ok` or `error`, with its duration.
    #[inline]
    pub(crate) fn finish(&self, started: Started, answer: &Result<CallToolResponse, ErrorData>) {
        let failed = match answer {
            Ok(CallToolResponse::Complete(result)) => result.is_error == Some(true),
            Ok(_) => false,
            Err(_) => true,
        };
        if failed
            && answer
                .as_ref()
                .map_or_else(crate::dispatch::is_bad_arguments, bad_arguments)
        {
            refused(Refusal::BadArguments);
            return;
        }
        self.record(started, failed);
    }

    /// Counts a runtime tool's call `started` then (its arguments were
    /// checked before).
    #[cfg(feature = "runtime-tools")]
    #[inline]
    pub(crate) fn finish_runtime(
        &self,
        started: Started,
        result: &Result<CallToolResult, ErrorData>,
    ) {
        self.record(
            started,
            result.as_ref().map_or(true, |r| r.is_error == Some(true)),
        );
    }

    fn record(&self, started: Started, failed: bool) {
        let clock = clock();
        let nanos = clock.delta_as_nanos(started.0, clock.raw());
        self.duration.record(nanos as f64 / 1e9);
        if failed {
            self.error.increment(1);
        } else {
            self.ok.increment(1);
        }
    }
}

/// The clock calls are timed with: the CPU's time-stamp counter where it
/// is invariant (a few instructions to read, where `Instant::now` and
/// `elapsed` cost about a hundred per call), else the OS's monotonic
/// clock. Calibrated once, when the first handles are registered.
#[cfg(feature = "metrics")]
fn clock() -> &'static quanta::Clock {
    static CLOCK: OnceLock<quanta::Clock> = OnceLock::new();
    CLOCK.get_or_init(quanta::Clock::new)
}

/// When a call started, in [`clock`]'s raw units.
#[cfg(feature = "metrics")]
#[derive(Clone, Copy)]
pub(crate) struct Started(u64);

#[cfg(feature = "metrics")]
impl Started {
    /// Now.
    #[inline]
    pub(crate) fn now() -> Started {
        Started(clock().raw())
    }
}

/// The span of one `tools/call`: the tool as sent, and the profile and
/// principal recorded once known (see [`record_profile`]). At `debug`,
/// like `tools/list`'s: one per request, so a subscriber keeping `info`
/// pays nothing for them.
#[cfg(feature = "metrics")]
#[inline]
pub(crate) fn call_span(tool: &str) -> tracing::Span {
    tracing::debug_span!(
        "mcp_profiles.call",
        tool = %crate::Clipped(tool),
        profile = tracing::field::Empty,
        principal = tracing::field::Empty,
        revision = tracing::field::Empty,
        digest = tracing::field::Empty,
        decision = tracing::field::Empty,
        reason = tracing::field::Empty,
    )
}

/// Records the context a request is served on in `span`, and the
/// revision and tools digest it is decided under, when a subscriber
/// listens to it.
#[cfg(feature = "metrics")]
#[inline]
pub(crate) fn record_profile<S: crate::Vocabulary>(
    span: &tracing::Span,
    served: impl FnOnce() -> Option<Served<S>>,
) {
    if !span.is_disabled()
        && let Some((context, exposure)) = served()
    {
        span.record("profile", tracing::field::display(context));
        if let Some(exposure) = exposure {
            span.record("revision", exposure.revision);
            span.record("digest", exposure.digest.as_str());
        }
    }
}

/// What a request is served on: the context, and for a call the exposure
/// of the tools it is decided under.
pub(crate) type Served<S> = (crate::ProfileContext<S>, Option<crate::Exposure>);

/// How a call was decided, for its span: `allowed` (`refused` gives
/// `None`), or `refused` and why (`not_in_profile`, `policy`,
/// `allow_list`, `kill_switch`, `bad_arguments`). Recorded in the span in
/// force, the call's; `refused` is asked only when a subscriber listens.
#[inline]
#[cfg_attr(not(feature = "metrics"), allow(unused_variables))]
pub(crate) fn decided(refused: impl FnOnce() -> Option<&'static str>) {
    #[cfg(feature = "metrics")]
    {
        let span = tracing::Span::current();
        if !span.is_disabled() {
            match refused() {
                None => span.record("decision", "allowed"),
                Some(reason) => span.record("decision", "refused").record("reason", reason),
            };
        }
    }
}

#[cfg(all(test, feature = "metrics"))]
mod tests {
    use rmcp::model::{CallToolResult, ContentBlock};

    use super::*;

    #[test]
    fn rmcp_s_deserialization_answer_is_bad_arguments_and_a_tool_error_is_not() {
        let rmcp = CallToolResult::error(vec![ContentBlock::text(
            "failed to deserialize parameters: missing field `task_id`",
        )]);
        assert!(bad_arguments(&rmcp.into()));
        let own = CallToolResult::error(vec![ContentBlock::text("task not found")]);
        assert!(!bad_arguments(&own.into()));
        let ok = CallToolResult::success(vec![ContentBlock::text(
            "failed to deserialize parameters: quoted by a successful tool",
        )]);
        assert!(!bad_arguments(&ok.into()));
    }
}
