//! The process's `tracing` subscriber: log lines on stderr and, with the
//! `otel` feature and `KANDEV_MCP_OTEL=stdout`, mcp-profiles' spans
//! exported through OpenTelemetry.
//!
//! The OpenTelemetry part is the smallest wiring of `tracing-opentelemetry`
//! there is, to show where a real exporter (OTLP to a collector) goes: the
//! SDK's tracer provider with the stdout exporter, as a layer beside the log
//! lines, taking `mcp_profiles`' per-request spans (`debug`) too.

use std::io::{self, IsTerminal};

use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

/// The variable that turns the OpenTelemetry export on (`stdout`).
pub const OTEL_VARIABLE: &str = "KANDEV_MCP_OTEL";

/// Logs to stderr (stdout may be the MCP channel), coloured only for a
/// terminal, at `level` (`warn`, `info`, `debug`) unless `RUST_LOG` says
/// otherwise. When `stdout_free` (not serving MCP over stdio) and
/// `KANDEV_MCP_OTEL=stdout`, with the `otel` feature, spans also go to
/// OpenTelemetry's stdout exporter.
pub fn init(stdout_free: bool, level: &str) {
    let log = tracing_subscriber::fmt::layer()
        .with_writer(io::stderr)
        .with_ansi(io::stderr().is_terminal())
        .with_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| level.into()));
    let wanted = std::env::var(OTEL_VARIABLE).ok();
    let otel = match wanted.as_deref() {
        Some("stdout") if stdout_free => otel_layer(),
        Some(other) => {
            // Said once logging is up.
            let why = if other == "stdout" {
                "stdout is the MCP channel".to_owned()
            } else {
                format!("`{other}` is not `stdout`")
            };
            Some(Err(why))
        }
        None => None,
    };
    let (layer, refused) = match otel {
        Some(Ok(layer)) => (Some(layer), None),
        Some(Err(why)) => (None, Some(why)),
        None => (None, None),
    };
    tracing_subscriber::registry().with(layer).with(log).init();
    if let Some(why) = refused {
        tracing::warn!("{OTEL_VARIABLE} ignored: {why}");
    }
}

/// A boxed layer of the registry the subscriber is built on.
type BoxedLayer = Box<dyn Layer<tracing_subscriber::Registry> + Send + Sync>;

/// The OpenTelemetry layer, or why there is none.
#[cfg(feature = "otel")]
fn otel_layer() -> Option<Result<BoxedLayer, String>> {
    use opentelemetry::trace::TracerProvider as _;

    // Kept for the life of the process: the exporter runs as spans end.
    static PROVIDER: std::sync::OnceLock<opentelemetry_sdk::trace::SdkTracerProvider> =
        std::sync::OnceLock::new();
    let provider = PROVIDER.get_or_init(|| {
        opentelemetry_sdk::trace::SdkTracerProvider::builder()
            .with_simple_exporter(opentelemetry_stdout::SpanExporter::default())
            .build()
    });
    let tracer = provider.tracer("kandev-mcp");
    let layer = tracing_opentelemetry::layer()
        .with_tracer(tracer)
        .with_filter(EnvFilter::new("info,mcp_profiles=debug"));
    Some(Ok(Box::new(layer)))
}

/// Without the `otel` feature there is no exporter to turn on.
#[cfg(not(feature = "otel"))]
fn otel_layer() -> Option<Result<BoxedLayer, String>> {
    Some(Err("built without the `otel` feature".to_owned()))
}
