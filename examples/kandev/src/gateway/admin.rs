//! The gateway's admin pages (see the admin page's routes in
//! `admin/mod.rs`): every principal with its profile and live sessions on
//! this gateway, the exposure matrix, each agent's explain view, and forms
//! that replace an agent's profile or set the kill switch, each previewed
//! first and applied through the store (so recorded in its audit trail) as
//! a compare-and-set on the version the preview read.
//!
//! | route | what |
//! |---|---|
//! | `GET /admin` | every principal (version, profile, visible tools, live sessions here), the kill switch, the exposure matrix, the newest audit records |
//! | `GET /admin/agents/{principal}` | the agent: profile, policy, visible tools, the explain table, its audit records |
//! | `POST /admin/agents/{principal}/profile` | `profile=JSON&version=N`: the preview |
//! | `POST /admin/agents/{principal}/profile/apply` | `profile=JSON&version=N`: applied if the agent is still at version N (else 409) |
//! | `POST /admin/kill-switch` | `deny=NAMES&version=N`: the preview |
//! | `POST /admin/kill-switch/apply` | `deny=NAMES&version=N`: applied if the switch is still at version N (else 409) |

use std::collections::BTreeSet;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::{get, post};
use axum::{Extension, Router};
use maud::{Markup, html};
use mcp_profiles::{ProfileController, Vocabulary};
use mcp_profiles_serve::audit::{Attribution, AuditQuery};
use mcp_profiles_serve::{Changed, StoreError, StoredAgent, StoredKillSwitch};

use mcp_profiles_serve::AgentStore;
use mcp_profiles_serve::control::{confirmations, failed, principal_name};
use crate::admin::profiles::{
    compact, deny_list, names_or_off, policy_text, pretty, profile_field, served,
};
use crate::admin::render::{self, Preview};
use crate::admin::{self, Form, Login, Problem, Sessions, SignedIn, csrf_field, page, see_other};
use crate::control::attribution::admin_pages;
use crate::server::Kandev;

/// What the admin pages hold: every agent's store, and the name their
/// changes are recorded under (the control token's).
#[derive(Clone)]
pub(super) struct Control {
    pub(super) store: Arc<dyn AgentStore<Kandev>>,
    pub(super) actor: Arc<str>,
}

/// The admin routes of the gateway's control listener.
pub(super) fn router(control: Control, sessions: Arc<Sessions>) -> Router {
    let routes = Router::new()
        .route("/admin", get(overview))
        .route("/admin/agents/{principal}", get(agent))
        .route("/admin/agents/{principal}/profile", post(preview_profile))
        .route(
            "/admin/agents/{principal}/profile/apply",
            post(apply_profile),
        )
        .route("/admin/kill-switch", post(preview_kill_switch))
        .route("/admin/kill-switch/apply", post(apply_kill_switch));
    let actor = Arc::clone(&control.actor);
    admin_pages(routes, control, actor, sessions)
}

fn store_problem(error: StoreError) -> Problem {
    Problem::from(failed(error))
}

/// Every principal with an agent on this gateway, sorted, with its
/// controller.
fn agents(control: &Control) -> Vec<(String, u64, ProfileController<Kandev>)> {
    let profiles = control.store.profiles();
    let mut agents: Vec<_> = profiles
        .versions()
        .into_iter()
        .filter_map(|(principal, version)| {
            let controller = profiles.controller(principal.as_str())?;
            Some((principal, version, controller))
        })
        .collect();
    agents.sort_by(|a, b| a.0.cmp(&b.0));
    agents
}

/// `principal`'s agent as stored, or 404.
async fn stored_agent(control: &Control, principal: &str) -> Result<StoredAgent<Kandev>, Problem> {
    control
        .store
        .agent(principal)
        .await
        .map_err(store_problem)?
        .ok_or_else(|| Problem::new(StatusCode::NOT_FOUND, format!("no agent `{principal}`")))
}

async fn kill_switch(control: &Control) -> Result<StoredKillSwitch, Problem> {
    let stored = control.store.kill_switch().await.map_err(store_problem)?;
    Ok(stored.unwrap_or_else(|| StoredKillSwitch::new(Vec::new(), 0)))
}

async fn audit(control: &Control, query: AuditQuery) -> Result<Markup, Problem> {
    let query = query.newest_first().with_limit(render::AUDIT_ROWS);
    let records = control.store.audit(&query).await.map_err(store_problem)?;
    Ok(render::audit(&records))
}

async fn overview(State(control): State<Control>, login: Login) -> Result<Response, Problem> {
    let agents = agents(&control);
    let switch = kill_switch(&control).await?;
    let columns: Vec<(String, BTreeSet<String>)> = agents
        .iter()
        .map(|(principal, _, controller)| {
            let reached = controller
                .current()
                .tool_names()
                .iter()
                .map(|&t| t.to_owned())
                .collect();
            (principal.clone(), reached)
        })
        .collect();
    let body = html! {
        h2 { "Principals (" (agents.len()) ")" }
        @if agents.is_empty() {
            p.muted { "no agent yet: put one with " code { "PUT /api/v1/agents/{principal}" } }
        } @else {
            table #principals {
                thead { tr { th { "principal" } th { "version" } th { "profile" } th { "reachable tools" } th { "sessions and listen streams here" } } }
                tbody {
                    @for (principal, version, controller) in &agents {
                        tr {
                            td { a href=(format!("/admin/agents/{principal}")) { (principal) } }
                            td { (version) }
                            td { code { (controller.current().context().to_string()) } }
                            td { (controller.reachable_tools().len()) }
                            td { (controller.session_count()) }
                        }
                    }
                }
            }
        }
        h2 { "Kill switch" }
        p #kill-switch { "Denied on every agent: " (names_or_off(&switch.names.iter().map(String::as_str).collect::<Vec<_>>())) " (version " (switch.version) ")" }
        (kill_switch_form(&login, &switch))
        h2 { "Exposure matrix" }
        p.muted { "Every compiled tool, and which principals reach it." }
        (render::matrix(&render::registry_tools(Kandev::registry()), &columns))
        h2 { "Audit trail (newest first)" }
        (audit(&control, AuditQuery::new()).await?)
    };
    Ok(page(StatusCode::OK, "The gateway", Some(&login), body))
}

fn kill_switch_form(login: &SignedIn, switch: &StoredKillSwitch) -> Markup {
    html! {
        form #kill-switch-form method="post" action="/admin/kill-switch" {
            (csrf_field(login))
            input type="hidden" name="version" value=(switch.version);
            label for="deny" { "Tools and tool groups to deny on every agent (empty: off)" }
            textarea #deny name="deny" spellcheck="false" { (switch.names.join("\n")) }
            button type="submit" { "Preview" }
        }
    }
}

/// The principal in the path, checked as the control API checks it.
fn checked(principal: &str) -> Result<&str, Problem> {
    principal_name(principal).map_err(Problem::from)
}

async fn agent(
    State(control): State<Control>,
    login: Login,
    Path(principal): Path<String>,
) -> Result<Response, Problem> {
    let principal = checked(&principal)?;
    let stored = stored_agent(&control, principal).await?;
    let context = *stored.profile.context();
    let controller = control.store.profiles().controller(principal);
    let visible: Vec<String> = match &controller {
        Some(controller) => controller
            .reachable_tools()
            .into_iter()
            .map(|tool| tool.name.into_owned())
            .collect(),
        None => stored
            .profile
            .tool_names()
            .iter()
            .map(|&t| t.to_owned())
            .collect(),
    };
    let explanation = match &controller {
        Some(controller) => render::explanation(&controller.explain()),
        None => render::explanation(&Kandev::registry().explain(&context)),
    };
    let body = html! {
        section #agent {
            dl.facts {
                dt { "version" } dd #version { (stored.version) }
                dt { "profile" } dd #current-profile { code { (context.to_string()) } }
                dt { "policy" } dd { code { (policy_text(&context)) } }
                dt { "sessions and listen streams here" } dd #sessions { (controller.as_ref().map_or(0, |c| c.session_count())) }
            }
        }
        h2 { "Reachable tools (" span #tool-count { (visible.len()) } ")" }
        div #tools { (render::tools(&visible, "")) }
        h2 { "Why: every group, on or off" }
        (explanation)
        h2 { "Replace the profile" }
        form #profile-form method="post" action=(format!("/admin/agents/{principal}/profile")) {
            (csrf_field(&login))
            input type="hidden" name="version" value=(stored.version);
            label for="profile" { "Profile (JSON, as " code { "PUT /api/v1/agents/{principal}" } " takes it)" }
            textarea #profile name="profile" spellcheck="false" { (pretty(&context)) }
            button type="submit" { "Preview" }
        }
        h2 { "Audit trail of " (principal) " (newest first)" }
        (audit(&control, AuditQuery::new().of(principal)).await?)
    };
    Ok(page(
        StatusCode::OK,
        &format!("Agent {principal}"),
        Some(&login),
        body,
    ))
}

/// The warning on a preview made against a newer version than the page
/// showed.
fn changed_since(what: &str, shown: u64, now: u64) -> String {
    format!(
        "The {what} changed since the page was loaded (version {shown}, now {now}): \
         this preview is against the newer one."
    )
}

fn version(form: &Form) -> Result<u64, Problem> {
    let text = form.field("version")?;
    text.parse()
        .map_err(|_| Problem::bad(format!("`version` must be a whole number, not `{text}`")))
}

async fn preview_profile(
    State(control): State<Control>,
    login: Login,
    Path(principal): Path<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Problem> {
    let principal = checked(&principal)?;
    let form = Form::read_checked(&login, &headers, body)?;
    let version = version(&form)?;
    let next = profile_field(&form)?;
    let stored = stored_agent(&control, principal).await?;
    let switch = kill_switch(&control).await?;
    let current = *stored.profile.context();
    let (before, after) = (pretty(&current), pretty(&next));
    let served_label = format!("The tools {principal} is served");
    let preview = Preview {
        served: &served_label,
        before: &before,
        after: &after,
        served_before: &served(&current, &switch.names),
        served_after: &served(&next, &switch.names),
    };
    let notice =
        (stored.version != version).then(|| changed_since("agent", version, stored.version));
    Ok(admin::confirm(
        &login,
        &format!("Replace {principal}'s profile?"),
        notice,
        &preview,
        &format!("/admin/agents/{principal}/profile/apply"),
        &[
            ("profile", compact(&next)),
            ("version", stored.version.to_string()),
        ],
        &format!("/admin/agents/{principal}"),
    ))
}

async fn apply_profile(
    State(control): State<Control>,
    login: Login,
    Extension(by): Extension<Attribution>,
    Path(principal): Path<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Problem> {
    let principal = checked(&principal)?;
    let form = Form::read_checked(&login, &headers, body)?;
    let version = version(&form)?;
    let next = profile_field(&form)?;
    control
        .store
        .put_agent_if(principal, next, Some(version), &by)
        .await
        .map_err(store_problem)?;
    // As the control API does, answer once every gateway applies it, so
    // the page the browser goes to next shows it in force (a gateway that
    // did not confirm in time is logged; the page does not say so).
    confirmations(control.store.as_ref(), Changed::Agent(principal)).await;
    Ok(see_other(&format!("/admin/agents/{principal}")))
}

async fn preview_kill_switch(
    State(control): State<Control>,
    login: Login,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Problem> {
    let form = Form::read_checked(&login, &headers, body)?;
    let version = version(&form)?;
    let deny = deny_list(form.field("deny")?)?;
    let switch = kill_switch(&control).await?;
    // What any agent here reaches, before and after.
    let contexts: Vec<_> = agents(&control)
        .iter()
        .map(|(_, _, controller)| *controller.current().context())
        .collect();
    let reached = |killed: &[&str]| -> Vec<String> {
        let all: BTreeSet<String> = contexts
            .iter()
            .flat_map(|context| served(context, killed))
            .collect();
        all.into_iter().collect()
    };
    let old: Vec<&str> = switch.names.iter().map(String::as_str).collect();
    let (before, after) = (names_or_off(&old), names_or_off(deny.names()));
    let preview = Preview {
        served: "The tools any agent on this gateway reaches",
        before: &before,
        after: &after,
        served_before: &reached(&old),
        served_after: &reached(deny.names()),
    };
    let notice =
        (switch.version != version).then(|| changed_since("kill switch", version, switch.version));
    Ok(admin::confirm(
        &login,
        "Set the kill switch?",
        notice,
        &preview,
        "/admin/kill-switch/apply",
        &[
            ("deny", deny.names().join(" ")),
            ("version", switch.version.to_string()),
        ],
        "/admin",
    ))
}

async fn apply_kill_switch(
    State(control): State<Control>,
    login: Login,
    Extension(by): Extension<Attribution>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Problem> {
    let form = Form::read_checked(&login, &headers, body)?;
    let version = version(&form)?;
    let deny = deny_list(form.field("deny")?)?;
    let names: Vec<String> = deny.names().iter().map(|&name| name.to_owned()).collect();
    control
        .store
        .put_kill_switch_if(&names, Some(version), &by)
        .await
        .map_err(store_problem)?;
    // As for a profile, above.
    confirmations(control.store.as_ref(), Changed::KillSwitch).await;
    Ok(see_other("/admin"))
}
