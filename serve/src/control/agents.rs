//! The agent, token, kill-switch and audit routes, over an [`AgentStore`].

use std::marker::PhantomData;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use mcp_profiles::{KillSwitch, ProfileController, Vocabulary};

use super::answers::{
    Agent, AgentChanged, AgentPut, AgentRemoved, ContextForm, GrantBody, Granted, KillSwitchPut,
    RevokeBody, Revoked,
};
use super::refusal::clipped;
use super::{Refusal, audit, decode, failed, propagated};
use crate::audit::Attribution;
use crate::{AgentStore, Changed, StoredAgent, StoredKillSwitch};

/// The longest principal name.
pub const MAX_PRINCIPAL_BYTES: usize = 128;

/// The longest agent token.
pub const MAX_TOKEN_BYTES: usize = 1024;

/// What the routes share: the store they change, the one agent it serves
/// if it serves one, and the context form `PUT` of an agent reads.
pub(super) struct Shared<S: Vocabulary, F> {
    pub(super) store: Arc<dyn AgentStore<S>>,
    pub(super) only: Option<Arc<str>>,
    form: PhantomData<fn() -> F>,
}

impl<S: Vocabulary, F> Shared<S, F> {
    pub(super) fn new(store: Arc<dyn AgentStore<S>>, only: Option<Arc<str>>) -> Self {
        Shared {
            store,
            only,
            form: PhantomData,
        }
    }
}

impl<S: Vocabulary, F> Clone for Shared<S, F> {
    fn clone(&self) -> Self {
        Shared::new(Arc::clone(&self.store), self.only.clone())
    }
}

/// `principal` if it is a name the API accepts; else 400 naming it (cut
/// short): 1 to [`MAX_PRINCIPAL_BYTES`] characters of `A-Z a-z 0-9 . _ @ -`,
/// and not `.` or `..`.
pub fn principal_name(principal: &str) -> Result<&str, Refusal> {
    // Made of accepted characters, but URL clients and proxies remove these
    // path segments (RFC 3986, 5.2.4): no ordinary client could address
    // such an agent at `/api/v1/agents/{principal}`.
    if matches!(principal, "." | "..") {
        return Err(Refusal::new(
            StatusCode::BAD_REQUEST,
            format!(
                "principal `{principal}` is a dot segment, which URL clients remove from paths"
            ),
        ));
    }
    let valid = !principal.is_empty()
        && principal.len() <= MAX_PRINCIPAL_BYTES
        && principal
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '@' | '-'));
    if valid {
        return Ok(principal);
    }
    Err(Refusal::new(
        StatusCode::BAD_REQUEST,
        format!(
            "principal `{}` is not 1 to {MAX_PRINCIPAL_BYTES} characters of A-Z a-z 0-9 . _ @ -",
            clipped(principal)
        ),
    ))
}

/// The principal named in a route's `{principal}` path parameter, checked
/// as [`principal_name`] checks it. For an extension's agent routes.
pub fn path_principal(path: Result<Path<String>, PathRejection>) -> Result<String, Refusal> {
    let Path(principal) =
        path.map_err(|rejection| Refusal::new(rejection.status(), rejection.body_text()))?;
    principal_name(&principal)?;
    Ok(principal)
}

/// 404 for a principal without an agent.
pub fn no_agent(principal: &str) -> Refusal {
    Refusal::new(StatusCode::NOT_FOUND, format!("no agent `{principal}`"))
}

/// A token an HTTP client can present; the message never shows it.
fn token_value(token: &str) -> Result<&str, Refusal> {
    if token.is_empty() || token.len() > MAX_TOKEN_BYTES {
        return Err(Refusal::new(
            StatusCode::BAD_REQUEST,
            format!("`token` must be 1 to {MAX_TOKEN_BYTES} bytes"),
        ));
    }
    if let Some(position) = token.chars().position(|c| !matches!(c, '\x21'..='\x7e')) {
        return Err(Refusal::new(
            StatusCode::BAD_REQUEST,
            format!(
                "`token`'s character {} is not visible ASCII (0x21-0x7E), so no client could present it",
                position + 1
            ),
        ));
    }
    Ok(token)
}

/// `agent` as answered: its compiled tools as its sessions are served
/// them, under the kill switch in force on every instance (computed here,
/// so an instance answers alike for agents it does not serve itself).
fn agent_answer<S: Vocabulary>(store: &dyn AgentStore<S>, agent: &StoredAgent<S>) -> Agent<S> {
    let switch = KillSwitch::new();
    switch.set(store.profiles().killed());
    let controller = ProfileController::with_kill_switch(*agent.profile.context(), &switch);
    Agent {
        principal: agent.principal.clone(),
        profile: *agent.profile.context(),
        // A fresh controller: no presentation, catalog or tool search.
        tools: controller
            .tools()
            .into_iter()
            .map(|tool| tool.name.into_owned())
            .collect(),
        version: agent.version,
    }
}

pub(super) async fn get_agent<S: Vocabulary, F>(
    State(shared): State<Shared<S, F>>,
    path: Result<Path<String>, PathRejection>,
) -> Result<Response, Refusal> {
    let principal = path_principal(path)?;
    let agent = shared.store.agent(&principal).await.map_err(failed)?;
    let agent = agent.ok_or_else(|| no_agent(&principal))?;
    Ok(Json(agent_answer(shared.store.as_ref(), &agent)).into_response())
}

pub(super) async fn put_agent<S: Vocabulary, F: ContextForm<S>>(
    State(shared): State<Shared<S, F>>,
    Extension(by): Extension<Attribution>,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Refusal> {
    let principal = path_principal(path)?;
    if let Some(only) = shared.only.as_deref().filter(|only| *only != principal) {
        return Err(Refusal::new(
            StatusCode::NOT_FOUND,
            format!("no agent `{principal}`: this server serves one agent, `{only}`"),
        ));
    }
    let body: AgentPut<F> = decode(&headers, body)?;
    let change = shared
        .store
        .put_agent_if(&principal, body.profile.into_context(), body.version, &by)
        .await
        .map_err(failed)?;
    tracing::info!(
        principal,
        version = change.agent.version,
        changed = change.changed,
        "agent profile put"
    );
    let answer = Json(AgentChanged {
        agent: agent_answer(shared.store.as_ref(), &change.agent),
        changed: change.changed,
    })
    .into_response();
    let store = shared.store.as_ref();
    Ok(propagated(
        store,
        Changed::Agent(&principal),
        change.replication,
        answer,
    )
    .await)
}

pub(super) async fn delete_agent<S: Vocabulary, F>(
    State(shared): State<Shared<S, F>>,
    Extension(by): Extension<Attribution>,
    path: Result<Path<String>, PathRejection>,
) -> Result<Response, Refusal> {
    let principal = path_principal(path)?;
    let removed = shared
        .store
        .delete_agent(&principal, &by)
        .await
        .map_err(failed)?;
    if !removed.value {
        return Err(no_agent(&principal));
    }
    tracing::info!(principal, "agent removed");
    let answer = Json(AgentRemoved {
        principal: principal.clone(),
        removed: true,
    })
    .into_response();
    let store = shared.store.as_ref();
    Ok(propagated(
        store,
        Changed::Agent(&principal),
        removed.replication,
        answer,
    )
    .await)
}

pub(super) async fn grant<S: Vocabulary, F>(
    State(shared): State<Shared<S, F>>,
    Extension(by): Extension<Attribution>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Refusal> {
    let body: GrantBody = decode(&headers, body)?;
    let principal = principal_name(&body.principal)?;
    let token = token_value(&body.token)?;
    let granted = shared
        .store
        .grant_token(token, principal, &by)
        .await
        .map_err(failed)?;
    tracing::info!(principal, "token granted");
    let answer = Json(Granted {
        principal: principal.to_owned(),
        granted: true,
    })
    .into_response();
    let store = shared.store.as_ref();
    Ok(propagated(store, Changed::Token(token), granted.replication, answer).await)
}

pub(super) async fn revoke<S: Vocabulary, F>(
    State(shared): State<Shared<S, F>>,
    Extension(by): Extension<Attribution>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Refusal> {
    let body: RevokeBody = decode(&headers, body)?;
    let token = token_value(&body.token)?;
    let revoked = shared
        .store
        .revoke_token(token, &by)
        .await
        .map_err(failed)?;
    tracing::info!(revoked = revoked.value, "token revoked");
    let answer = Json(Revoked {
        revoked: revoked.value,
    })
    .into_response();
    let store = shared.store.as_ref();
    Ok(propagated(store, Changed::Token(token), revoked.replication, answer).await)
}

fn kill_switch_answer(stored: &StoredKillSwitch) -> Response {
    Json(super::answers::StoredKillSwitch {
        deny: stored.names.clone(),
        version: stored.version,
    })
    .into_response()
}

pub(super) async fn get_kill_switch<S: Vocabulary, F>(
    State(shared): State<Shared<S, F>>,
) -> Result<Response, Refusal> {
    let stored = shared.store.kill_switch().await.map_err(failed)?;
    Ok(kill_switch_answer(
        &stored.unwrap_or_else(|| StoredKillSwitch::new(Vec::new(), 0)),
    ))
}

pub(super) async fn put_kill_switch<S: Vocabulary, F>(
    State(shared): State<Shared<S, F>>,
    Extension(by): Extension<Attribution>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Refusal> {
    let body: KillSwitchPut<S> = decode(&headers, body)?;
    let stored = shared
        .store
        .put_kill_switch_if(&body.deny, body.version, &by)
        .await
        .map_err(failed)?;
    tracing::info!(deny = ?stored.names, version = stored.version, "kill switch put");
    let answer = kill_switch_answer(&stored);
    let store = shared.store.as_ref();
    Ok(propagated(store, Changed::KillSwitch, stored.replication, answer).await)
}

pub(super) async fn get_audit<S: Vocabulary, F>(
    State(shared): State<Shared<S, F>>,
    uri: Uri,
) -> Result<Response, Refusal> {
    let query = audit::query(uri.query(), |principal| principal_name(principal).map(drop))?;
    let records = shared.store.audit(&query).await.map_err(failed)?;
    Ok(audit::answer(&query, records))
}

#[cfg(test)]
mod tests {
    use super::{principal_name, token_value};

    #[test]
    fn principal_names_are_checked_and_echoed_clipped() {
        assert!(principal_name("alice@team-1.dev_ops").is_ok());
        for bad in ["", "al ice", "a/b", "ünï", ".", ".."] {
            assert!(principal_name(bad).is_err(), "{bad}");
        }
        let long = "x".repeat(500);
        let refusal = principal_name(&long).err().unwrap();
        assert!(refusal.message().len() < 200, "{}", refusal.message());
    }

    #[test]
    fn token_errors_never_show_the_token() {
        let refusal = token_value("secret value").err().unwrap();
        assert!(
            !refusal.message().contains("secret"),
            "{}",
            refusal.message()
        );
        assert!(
            refusal.message().contains("character 7"),
            "{}",
            refusal.message()
        );
        assert!(token_value("").is_err());
        assert!(token_value("s3cret-token").is_ok());
    }
}
