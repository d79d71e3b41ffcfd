//! What the `metrics` feature adds to one `tools/call`, as a layer over the
//! one body `ProfiledServer::call_tool` has (`server.rs`): the call's span
//! ([`CallSpan`]), and a compiled tool's count and duration (its handles in
//! [`Meters`], the [`Meter`] a call starts its timer with).
//!
//! With the feature, the span is entered while the profile is resolved (so
//! a resolver can record whom it serves in it); the route's future is
//! polled in it only when a subscriber records it, and counted when it
//! answers ([`CallSpan::observe`]).
//!
//! Without it, every type here is zero-sized and every method an inlined
//! no-op or passes its argument on: `observe` gives back the route's own
//! future, so the call's body compiles to what it did before metrics
//! existed. That is why the count is taken in the future, not around the
//! await: a layer there, even an inlined identity, moved the answer once
//! more or changed what the compiler inlined, and a call without metrics
//! took 6% more instructions (`bench/examples/dispatch_count.rs`).
//!
//! Nothing here names a snapshot: snapshots hold [`Meters`], so the
//! dependency runs one way.

use std::future::Future;
use std::pin::Pin;
#[cfg(feature = "metrics")]
use std::task::{Context, Poll, ready};

use rmcp::ErrorData;
use rmcp::model::CallToolResponse;

use crate::Vocabulary;
use crate::telemetry::Served;

#[cfg(feature = "metrics")]
pub(crate) use observed::{CallSpan, Meter, Meters};
#[cfg(not(feature = "metrics"))]
pub(crate) use plain::{CallSpan, Meter, Meters};

/// A call's answer.
type Response = Result<CallToolResponse, ErrorData>;

#[cfg(feature = "metrics")]
mod observed {
    use tracing::Instrument;
    use tracing::instrument::Instrumented;

    use super::*;
    use crate::telemetry::{Started, ToolMeter, call_span, record_profile};

    /// The span of one call, `None` when no subscriber records it.
    pub(crate) struct CallSpan(Option<tracing::Span>);

    impl CallSpan {
        /// Runs `find` (the profile's lookup of `tool`) in the span of a
        /// call of `tool`, and records the profile and exposure `served`
        /// finds in it.
        #[inline]
        pub(crate) fn around<T, S: Vocabulary>(
            tool: &str,
            find: impl FnOnce() -> T,
            served: impl FnOnce() -> Option<Served<S>>,
        ) -> (CallSpan, T) {
            let span = call_span(tool);
            let entered = span.enter();
            let found = find();
            record_profile(&span, served);
            drop(entered);
            (CallSpan((!span.is_disabled()).then_some(span)), found)
        }

        /// The route's `future`, polled in the span when a subscriber
        /// records it, and counted with `timer` when it answers.
        #[inline]
        pub(crate) fn observe<F>(self, timer: Timer, future: F) -> Observed<F>
        where
            F: Future<Output = Response> + Unpin,
        {
            Observed {
                future: match self.0 {
                    None => Traced::Unrecorded(future),
                    Some(span) => {
                        // Only a compiled tool of the profile is observed.
                        span.record("decision", "allowed");
                        Traced::Recorded(future.instrument(span))
                    }
                },
                timer,
            }
        }

        /// `future` boxed, in the span (or in a disabled one).
        #[inline]
        pub(crate) fn boxed<F: Future>(self, future: F) -> Pin<Box<Instrumented<F>>> {
            Box::pin(future.instrument(self.0.unwrap_or_else(tracing::Span::none)))
        }
    }

    /// A compiled tool's call under way: the route's future, in the call's
    /// span only when a subscriber records it (an unrecorded call's future
    /// holds none), and its timer. A route's future is boxed, so `Unpin`:
    /// polled without pin projection.
    pub(crate) struct Observed<F> {
        future: Traced<F>,
        timer: Timer,
    }

    enum Traced<F> {
        Unrecorded(F),
        Recorded(Instrumented<F>),
    }

    impl<F: Future<Output = Response> + Unpin> Future for Observed<F> {
        type Output = Response;

        #[inline]
        fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Response> {
            let this = self.get_mut();
            let answer = match &mut this.future {
                Traced::Unrecorded(future) => ready!(Pin::new(future).poll(cx)),
                Traced::Recorded(future) => ready!(Pin::new(future).poll(cx)),
            };
            // Outside the span, as before the span was polled in here.
            this.timer.finish(&answer);
            Poll::Ready(answer)
        }
    }

    /// A snapshot's compiled tools' handles, in the order of its sorted
    /// names.
    pub(crate) struct Meters(Box<[ToolMeter]>);

    impl Meters {
        /// Registers the handles of the compiled tools called `names`.
        pub(crate) fn register(names: impl IntoIterator<Item = &'static str>) -> Meters {
            Meters(names.into_iter().map(ToolMeter::register_static).collect())
        }

        /// The handles of the tool at `position`.
        #[inline]
        pub(crate) fn get(&'static self, position: usize) -> Meter {
            Meter(&self.0[position])
        }
    }

    /// One compiled tool's handles, as a call holds them.
    #[derive(Clone, Copy)]
    pub(crate) struct Meter(&'static ToolMeter);

    impl Meter {
        /// Starts the call's clock.
        #[inline]
        pub(crate) fn start(self) -> Timer {
            Timer {
                meter: self.0,
                started: Started::now(),
            }
        }
    }

    /// A compiled tool's clock, started, and its handles.
    pub(crate) struct Timer {
        meter: &'static ToolMeter,
        started: Started,
    }

    impl Timer {
        /// Counts the call by the route's `answer`, with its duration
        /// ([`ToolMeter::finish`]).
        #[inline]
        fn finish(&self, answer: &Response) {
            self.meter.finish(self.started, answer);
        }
    }
}

#[cfg(not(feature = "metrics"))]
mod plain {
    use super::*;

    /// No span.
    pub(crate) struct CallSpan;

    impl CallSpan {
        /// Runs `find`; `tool` and `served` are for the span there is not.
        #[inline]
        pub(crate) fn around<T, S: Vocabulary>(
            _tool: &str,
            find: impl FnOnce() -> T,
            _served: impl FnOnce() -> Option<Served<S>>,
        ) -> (CallSpan, T) {
            (CallSpan, find())
        }

        /// The route's `future` itself.
        #[inline]
        pub(crate) fn observe<F>(self, _timer: Timer, future: F) -> F
        where
            F: Future<Output = Response> + Unpin,
        {
            future
        }

        /// `future`, boxed.
        #[inline]
        pub(crate) fn boxed<F: Future>(self, future: F) -> Pin<Box<F>> {
            Box::pin(future)
        }
    }

    /// No handles.
    pub(crate) struct Meters;

    impl Meters {
        /// Nothing to register.
        #[inline]
        pub(crate) fn register(_names: impl IntoIterator<Item = &'static str>) -> Meters {
            Meters
        }

        /// No handles.
        #[inline]
        pub(crate) fn get(&'static self, _position: usize) -> Meter {
            Meter
        }
    }

    /// No handles.
    #[derive(Clone, Copy)]
    pub(crate) struct Meter;

    impl Meter {
        /// No clock to start.
        #[inline]
        pub(crate) fn start(self) -> Timer {
            Timer
        }
    }

    /// No clock and no meter.
    pub(crate) struct Timer;
}
