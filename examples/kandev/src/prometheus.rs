//! `GET /metrics` on the control listener of `serve` and `gateway`: the
//! library's route ([`mcp_profiles_serve::prometheus`]), behind the control
//! API's bearer token unless `--metrics-public`. Without this crate's
//! `metrics` feature nothing is recorded and there is no route.

use axum::Router;

/// Installs the Prometheus recorder before the first controller is made
/// (see [`mcp_profiles_serve::prometheus::install`]); nothing without the
/// `metrics` feature.
pub fn install() {
    #[cfg(feature = "metrics")]
    mcp_profiles_serve::prometheus::install();
}

/// The `GET /metrics` router, behind `token` (`None`: open to anyone who
/// reaches the control listener); without the `metrics` feature, an empty
/// router.
pub fn router(token: Option<&str>) -> Router {
    #[cfg(feature = "metrics")]
    return mcp_profiles_serve::prometheus::router(token);
    #[cfg(not(feature = "metrics"))]
    {
        let _ = token;
        Router::new()
    }
}
