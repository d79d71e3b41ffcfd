//! `serve`'s admin pages (see [`crate::admin`]): the one live profile, why
//! it serves what it serves, and forms that replace it or set the kill
//! switch, each previewed first and applied through the control API's
//! audited path ([`super::audited`]).
//!
//! | route | what |
//! |---|---|
//! | `GET /admin` | the profile, policy, kill switch, live sessions, visible tools, the explain table, the exposure matrix, the newest audit records |
//! | `POST /admin/profile` | `profile=JSON` (as `PUT /api/v1/mcp/profile` takes it): the preview |
//! | `POST /admin/profile/apply` | `profile=JSON&expect=JSON`: applies it if the profile is still `expect` (else 409) |
//! | `POST /admin/kill-switch` | `deny=NAMES` (separated by spaces, commas or lines): the preview |
//! | `POST /admin/kill-switch/apply` | `deny=NAMES&expect=NAMES`: applies it if the switch is still `expect` (else 409) |

use std::collections::BTreeSet;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::{get, post};
use maud::{Markup, html};
use mcp_profiles_serve::audit::{Attribution, AuditQuery};

use super::attribution::admin_pages;
use super::{Control, Refusal, audited, off_workers};
use crate::admin::profiles::{
    compact, deny_list, names_or_off, policy_text, pretty, profile_field, served,
};
use crate::admin::render::{self, Preview};
use crate::admin::{self, Form, Login, Problem, Sessions, SignedIn, csrf_field, page, see_other};

/// The admin routes of `serve`'s control listener.
pub(super) fn router(control: Control, sessions: Arc<Sessions>) -> Router {
    let routes = Router::new()
        .route("/admin", get(overview))
        .route("/admin/profile", post(preview_profile))
        .route("/admin/profile/apply", post(apply_profile))
        .route("/admin/kill-switch", post(preview_kill_switch))
        .route("/admin/kill-switch/apply", post(apply_kill_switch));
    let actor = Arc::clone(&control.actor);
    admin_pages(routes, control, actor, sessions)
}

impl From<Refusal> for Problem {
    fn from(refusal: Refusal) -> Self {
        Problem::new(refusal.status(), refusal.message())
    }
}

async fn overview(State(control): State<Control>, login: Login) -> Result<Response, Problem> {
    let records = off_workers(control.clone(), |control| {
        let query = AuditQuery::new()
            .newest_first()
            .with_limit(render::AUDIT_ROWS);
        control.board.audit(&query).map_err(audited::failed_read)
    })
    .await?;
    let controller = &control.controller;
    let profile = controller.current();
    let context = profile.context();
    let killed = controller.kill_switch().killed();
    let visible = names(controller.reachable_tools());
    let listed = names(controller.tools());
    let reached: BTreeSet<String> = profile.tool_names().iter().map(|&t| t.to_owned()).collect();
    let columns = [("this session".to_owned(), reached)];
    let body = html! {
        section #session {
            dl.facts {
                dt { "profile" } dd #current-profile { code { (context.to_string()) } }
                dt { "policy" } dd { code { (policy_text(context)) } }
                dt { "kill switch" } dd #kill-switch { (names_or_off(killed.names())) }
                @if listed != visible {
                    dt { "listed (tool search)" } dd #listed { (listed.join(" ")) }
                }
                dt { "sessions and listen streams" } dd #sessions { (controller.session_count()) }
                @if let Some(task) = &control.task {
                    dt { "task" } dd { code { (task.task_id()) } }
                }
            }
        }
        h2 { "Reachable tools (" span #tool-count { (visible.len()) } ")" }
        div #tools { (render::tools(&visible, "")) }
        h2 { "Why: every group, on or off" }
        (render::explanation(&controller.explain()))
        h2 { "Replace the profile" }
        (profile_form(&login, &pretty(context)))
        h2 { "Kill switch" }
        (kill_switch_form(&login, &killed.names().join("\n")))
        h2 { "Exposure matrix" }
        p.muted { "Every compiled tool, and whether this session reaches it." }
        (render::matrix(&render::registry_tools(controller.registry()), &columns))
        h2 { "Audit trail (newest first)" }
        (render::audit(&records))
    };
    Ok(page(StatusCode::OK, "The session", Some(&login), body))
}

fn names(tools: Vec<mcp_profiles::rmcp::model::Tool>) -> Vec<String> {
    tools
        .into_iter()
        .map(|tool| tool.name.into_owned())
        .collect()
}

fn profile_form(login: &SignedIn, profile: &str) -> Markup {
    html! {
        form #profile-form method="post" action="/admin/profile" {
            (csrf_field(login))
            label for="profile" { "Profile (JSON, as " code { "PUT /api/v1/mcp/profile" } " takes it)" }
            textarea #profile name="profile" spellcheck="false" { (profile) }
            button type="submit" { "Preview" }
        }
    }
}

fn kill_switch_form(login: &SignedIn, names: &str) -> Markup {
    html! {
        form #kill-switch-form method="post" action="/admin/kill-switch" {
            (csrf_field(login))
            label for="deny" { "Tools and tool groups to deny (empty: off)" }
            textarea #deny name="deny" spellcheck="false" { (names) }
            button type="submit" { "Preview" }
        }
    }
}

async fn preview_profile(
    State(control): State<Control>,
    login: Login,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Problem> {
    let form = Form::read_checked(&login, &headers, body)?;
    let next = profile_field(&form)?;
    let current = *control.controller.current().context();
    let killed = control.controller.kill_switch().killed();
    let before = pretty(&current);
    let after = pretty(&next);
    let preview = Preview {
        served: "The tools this session is served",
        before: &before,
        after: &after,
        served_before: &served(&current, killed.names()),
        served_after: &served(&next, killed.names()),
    };
    Ok(admin::confirm(
        &login,
        "Replace the profile?",
        None,
        &preview,
        "/admin/profile/apply",
        &[("profile", compact(&next)), ("expect", compact(&current))],
        "/admin",
    ))
}

async fn apply_profile(
    State(control): State<Control>,
    login: Login,
    axum::Extension(by): axum::Extension<Attribution>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Problem> {
    let form = Form::read_checked(&login, &headers, body)?;
    let next = profile_field(&form)?;
    let expect = form.field("expect")?.to_owned();
    off_workers(control, move |control| {
        audited::replace_profile(control, &by, |current| {
            if compact(current) != expect {
                return Err(changed_since("profile"));
            }
            Ok(next)
        })
    })
    .await?;
    Ok(see_other("/admin"))
}

async fn preview_kill_switch(
    State(control): State<Control>,
    login: Login,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Problem> {
    let form = Form::read_checked(&login, &headers, body)?;
    let deny = deny_list(form.field("deny")?)?;
    let context = *control.controller.current().context();
    let killed = control.controller.kill_switch().killed();
    let before = names_or_off(killed.names());
    let after = names_or_off(deny.names());
    let preview = Preview {
        served: "The tools this session is served",
        before: &before,
        after: &after,
        served_before: &served(&context, killed.names()),
        served_after: &served(&context, deny.names()),
    };
    Ok(admin::confirm(
        &login,
        "Set the kill switch?",
        None,
        &preview,
        "/admin/kill-switch/apply",
        &[
            ("deny", deny.names().join(" ")),
            ("expect", killed.names().join(" ")),
        ],
        "/admin",
    ))
}

async fn apply_kill_switch(
    State(control): State<Control>,
    login: Login,
    axum::Extension(by): axum::Extension<Attribution>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Problem> {
    let form = Form::read_checked(&login, &headers, body)?;
    let deny = deny_list(form.field("deny")?)?;
    let expect = deny_list(form.field("expect")?)?;
    off_workers(control, move |control| {
        if control.controller.kill_switch().killed().names() != expect.names() {
            return Err(changed_since("kill switch"));
        }
        audited::set_kill_switch(control, &by, deny)
    })
    .await?;
    Ok(see_other("/admin"))
}

fn changed_since(what: &str) -> Refusal {
    Refusal::new(
        StatusCode::CONFLICT,
        format!("the {what} changed since the preview: preview the change again"),
    )
}
