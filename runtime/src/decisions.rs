//! Every `tools/call` decision, told to a sink the serving layer attaches
//! ([`ProfileController::log_decisions`]): the tool, the revision of the
//! profile it was decided under, allowed or refused and why. The sink
//! keeps, samples or ships them (a decision log); the call never waits on
//! it beyond the sink's own `decided`.
//!
//! Without a sink a call pays one atomic load for the check. With one, an
//! allowed call of a compiled tool is looked up in the state it is decided
//! under (its revision and its tools read together), not in the plain
//! snapshot pointer dispatch reads otherwise.
//!
//! [`ProfileController::log_decisions`]: crate::ProfileController::log_decisions

use std::sync::Arc;

/// How one `tools/call` was decided, as a [`DecisionSink`] hears it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CallDecision<'a> {
    /// The tool called, by its canonical name where the client sent a
    /// presented one that stands for a served tool; else as sent.
    pub tool: &'a str,
    /// The revision of the profile it was decided under (see
    /// [`Exposure`](crate::Exposure)).
    pub revision: u64,
    /// `None`: allowed (the handler ran, or will); else why it was refused
    /// before any handler ran: `not_in_profile`, `policy`, `allow_list`,
    /// `kill_switch` or `bad_arguments` (a runtime tool's arguments).
    pub refused: Option<&'static str>,
}

impl<'a> CallDecision<'a> {
    /// A decision on `tool` under `revision`.
    pub fn new(tool: &'a str, revision: u64, refused: Option<&'static str>) -> Self {
        CallDecision {
            tool,
            revision,
            refused,
        }
    }
}

/// Where a controller's call decisions go (a bounded log, a sampler, a
/// channel to a writer): called on the call's path, so it must not block.
pub trait DecisionSink: Send + Sync + 'static {
    /// One call was decided.
    fn decided(&self, decision: CallDecision<'_>);
}

/// A controller's sink, if one is attached.
pub(crate) type Sink = std::sync::OnceLock<Arc<dyn DecisionSink>>;
