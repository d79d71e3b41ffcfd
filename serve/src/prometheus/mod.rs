//! `GET /metrics`: every series mcp-profiles records (the `metrics`
//! features of this crate and the core), in the Prometheus text format,
//! rendered from a recorder installed when the process starts.
//!
//! Counters and gauges are `metrics-exporter-prometheus`'s; histograms
//! (the tool-call latency, one sample per call) are fixed buckets of plain
//! atomic counts of ours (`histograms.rs`), which cost a call a few
//! instructions where the exporter's cost it about 190.
//!
//! The exporter's own HTTP listener is not used: the text is rendered by
//! this route, merged into the control listener, behind the control token
//! unless the deployment makes it public
//! ([`ControlApi::with_metrics`](crate::control::ControlApi::with_metrics)).

mod histograms;

use std::sync::{Arc, Once, OnceLock};
use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use mcp_profiles::Vocabulary;
use metrics::{Counter, Gauge, Histogram, Key, KeyName, Metadata, SharedString, Unit};
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle, PrometheusRecorder};

use crate::control::openapi::{self, Operation};
use crate::control::{ContextForm, ControlApi, check_token};

/// The scrape path.
pub const PATH: &str = "/metrics";

/// The Prometheus text format's content type.
const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Upper bounds, in seconds, of the tool-call latency histogram's buckets:
/// 100 µs to 10 s.
const BUCKETS: [f64; 12] = [
    0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 0.5, 1.0, 2.5, 10.0,
];

/// How often the exporter's state is compacted between scrapes.
const UPKEEP: Duration = Duration::from_secs(5);

/// Installs the Prometheus recorder as this process's global one, the
/// first time. Call it before the first controller or store is made:
/// handles registered earlier count into nothing. A recorder someone else
/// installed first wins; `/metrics` then answers an empty page, and a
/// warning says why.
pub fn install() {
    let _ = installed();
}

/// What renders the installed recorder's series.
struct Installed {
    exporter: PrometheusHandle,
    histograms: Arc<histograms::Histograms>,
}

impl Installed {
    fn render(&self) -> String {
        let mut text = self.exporter.render();
        self.histograms.render(&mut text);
        text
    }
}

/// The exporter for counters and gauges, our buckets for histograms.
struct Recorder {
    exporter: PrometheusRecorder,
    histograms: Arc<histograms::Histograms>,
}

impl metrics::Recorder for Recorder {
    fn describe_counter(&self, key: KeyName, unit: Option<Unit>, description: SharedString) {
        self.exporter.describe_counter(key, unit, description);
    }

    fn describe_gauge(&self, key: KeyName, unit: Option<Unit>, description: SharedString) {
        self.exporter.describe_gauge(key, unit, description);
    }

    fn describe_histogram(&self, key: KeyName, _unit: Option<Unit>, description: SharedString) {
        self.histograms.describe(&key, description);
    }

    fn register_counter(&self, key: &Key, metadata: &Metadata<'_>) -> Counter {
        self.exporter.register_counter(key, metadata)
    }

    fn register_gauge(&self, key: &Key, metadata: &Metadata<'_>) -> Gauge {
        self.exporter.register_gauge(key, metadata)
    }

    fn register_histogram(&self, key: &Key, _metadata: &Metadata<'_>) -> Histogram {
        Histogram::from_arc(self.histograms.series(key))
    }
}

/// The installed recorder, installed the first time.
fn installed() -> &'static Installed {
    static INSTALLED: OnceLock<Installed> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        let exporter = PrometheusBuilder::new().build_recorder();
        let histograms = Arc::new(histograms::Histograms::new(&BUCKETS));
        let installed = Installed {
            exporter: exporter.handle(),
            histograms: Arc::clone(&histograms),
        };
        let recorder = Recorder {
            exporter,
            histograms,
        };
        if let Err(error) = metrics::set_global_recorder(recorder) {
            tracing::warn!(%error, "another metrics recorder is installed; /metrics stays empty");
        }
        installed
    })
}

/// The route's state: whose token it wants (`None`: public).
#[derive(Clone)]
struct Scrape(Option<Arc<str>>);

/// The `GET /metrics` router, behind `token` (`None`: open to anyone who
/// reaches the listener), to merge into a control router. It installs the
/// recorder if [`install`] was not called; the first scrape starts the
/// recorder's upkeep on its runtime.
pub fn router(token: Option<&str>) -> Router {
    install();
    let state = Scrape(token.map(Arc::from));
    Router::new()
        .route(PATH, axum::routing::get(render))
        .route_layer(middleware::from_fn_with_state(state.clone(), authorise))
        .with_state(state)
}

/// The route, described for an OpenAPI document.
pub fn described() -> Operation {
    openapi::get::<()>("Prometheus metrics").text("text/plain; version=0.0.4")
}

async fn authorise(State(scrape): State<Scrape>, request: Request, next: Next) -> Response {
    if let Some(token) = &scrape.0
        && let Err(refusal) = check_token(request.headers(), token)
    {
        return refusal.into_response();
    }
    next.run(request).await
}

async fn render() -> Response {
    static UPKEEP_STARTED: Once = Once::new();
    UPKEEP_STARTED.call_once(|| {
        tokio::spawn(async {
            let mut ticks = tokio::time::interval(UPKEEP);
            loop {
                ticks.tick().await;
                installed().exporter.run_upkeep();
            }
        });
    });
    ([(header::CONTENT_TYPE, CONTENT_TYPE)], installed().render()).into_response()
}

impl<S: Vocabulary, F: ContextForm<S>> ControlApi<S, F> {
    /// Serves [`PATH`] on the control listener, behind the control token
    /// unless `public`, and describes it. Call [`install`] before any store
    /// or controller is made (the [`Gateway`](crate::gateway::Gateway) does).
    pub fn with_metrics(self, public: bool) -> Self {
        let token = (!public).then(|| self.token().to_owned());
        let operation = if public {
            described().open()
        } else {
            described()
        };
        self.merge(router(token.as_deref()))
            .beside(PATH, [operation])
    }
}
