//! `GET /metrics` on the control listener of `serve` and `gateway`: every
//! series mcp-profiles records (its `metrics` feature), in the Prometheus
//! text format, from a recorder installed when the process starts.
//!
//! The exporter's own HTTP listener is not used: the text is rendered from
//! the recorder's handle by this route, behind the control API's bearer
//! token unless `--metrics-public`. Without this crate's `metrics` feature
//! nothing is recorded and there is no route.

#[cfg(feature = "metrics")]
use std::sync::{Arc, Once, OnceLock};
#[cfg(feature = "metrics")]
use std::time::Duration;

use axum::Router;
#[cfg(feature = "metrics")]
use axum::extract::{Request, State};
#[cfg(feature = "metrics")]
use axum::http::header;
#[cfg(feature = "metrics")]
use axum::middleware::{self, Next};
#[cfg(feature = "metrics")]
use axum::response::{IntoResponse, Response};
#[cfg(feature = "metrics")]
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};

#[cfg(feature = "metrics")]
use mcp_profiles_serve::control::check_token;

/// The scrape path.
pub const PATH: &str = "/metrics";

/// The Prometheus text format's content type.
#[cfg(feature = "metrics")]
const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Upper bounds, in seconds, of the tool-call latency histogram's buckets:
/// 100 µs to 10 s.
#[cfg(feature = "metrics")]
const BUCKETS: [f64; 12] = [
    0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 0.5, 1.0, 2.5, 10.0,
];

/// How often the recorder's histograms are compacted between scrapes.
#[cfg(feature = "metrics")]
const UPKEEP: Duration = Duration::from_secs(5);

/// Installs the Prometheus recorder as this process's global one, the
/// first time. Call it before the first controller is made: handles
/// registered earlier count into nothing. A recorder someone else
/// installed first wins; `/metrics` then answers an empty page, and a
/// warning says why.
pub fn install() {
    #[cfg(feature = "metrics")]
    let _ = handle();
}

/// The installed recorder's handle.
#[cfg(feature = "metrics")]
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

/// The route's state: whose token it wants (`None`: `--metrics-public`).
#[cfg(feature = "metrics")]
#[derive(Clone)]
struct Scrape(Option<Arc<str>>);

/// The `GET /metrics` router, behind `token` (`None`: open to anyone who
/// reaches the control listener), to merge into a control router; it
/// installs the recorder if [`install`] was not called, and starts the
/// recorder's upkeep on the current runtime once. Without the `metrics`
/// feature, an empty router.
pub fn router(token: Option<&str>) -> Router {
    #[cfg(feature = "metrics")]
    {
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
        let state = Scrape(token.map(Arc::from));
        Router::new()
            .route(PATH, axum::routing::get(render))
            .route_layer(middleware::from_fn_with_state(state.clone(), authorise))
            .with_state(state)
    }
    #[cfg(not(feature = "metrics"))]
    {
        let _ = token;
        Router::new()
    }
}

#[cfg(feature = "metrics")]
async fn authorise(State(scrape): State<Scrape>, request: Request, next: Next) -> Response {
    if let Some(token) = &scrape.0
        && let Err(refusal) = check_token(request.headers(), token)
    {
        return refusal.into_response();
    }
    next.run(request).await
}

#[cfg(feature = "metrics")]
async fn render() -> Response {
    ([(header::CONTENT_TYPE, CONTENT_TYPE)], handle().render()).into_response()
}
