//! `GET /metrics`: every series mcp-profiles records (the `metrics`
//! features of this crate and the core), in the Prometheus text format,
//! rendered from a recorder installed when the process starts.
//!
//! The exporter's own HTTP listener is not used: the text is rendered by
//! this route, merged into the control listener, behind the control token
//! unless the deployment makes it public
//! ([`ControlApi::with_metrics`](crate::control::ControlApi::with_metrics)).

use std::sync::{Arc, Once, OnceLock};
use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use mcp_profiles::Vocabulary;
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};

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

/// How often the recorder's histograms are compacted between scrapes.
const UPKEEP: Duration = Duration::from_secs(5);

/// Installs the Prometheus recorder as this process's global one, the
/// first time. Call it before the first controller or store is made:
/// handles registered earlier count into nothing. A recorder someone else
/// installed first wins; `/metrics` then answers an empty page, and a
/// warning says why.
pub fn install() {
    let _ = handle();
}

/// The installed recorder's handle.
fn handle() -> &'static PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        let recorder = PrometheusBuilder::new()
            .set_buckets(&BUCKETS)
            .expect("the bucket list is not empty")
            .build_recorder();
        let handle = recorder.handle();
        if let Err(error) = metrics::set_global_recorder(recorder) {
            tracing::warn!(%error, "another metrics recorder is installed; /metrics stays empty");
        }
        handle
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
                handle().run_upkeep();
            }
        });
    });
    ([(header::CONTENT_TYPE, CONTENT_TYPE)], handle().render()).into_response()
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
