//! `serve`'s admin pages, built of the library's ([`mcp_profiles_serve::admin`],
//! which serves the login and describes it): the one live profile, why
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
use mcp_profiles_serve::admin::profiles::{
    compact, deny_list, names_or_off, policy_text, pretty, profile_field, served,
};
use mcp_profiles_serve::admin::render::{self, Preview};
use mcp_profiles_serve::admin::{
    Form, Login, Problem, Sessions, SignedIn, admin_pages, confirm, csrf_field, page, see_other,
    shared_pages,
};
use mcp_profiles_serve::audit::{Attribution, AuditQuery};

use super::{Control, Refusal, audited, off_workers};
use crate::openapi::{self, Api};
use crate::server::Kandev;
use crate::tool_policies::KandevContext;

/// The admin routes of `serve`'s control listener, whose control token is
/// `token`.
pub(super) fn router(control: Control, token: &str) -> Router {
    let routes = Router::new()
        .route("/admin", get(overview))
        .route("/admin/profile", post(preview_profile))
        .route("/admin/profile/apply", post(apply_profile))
        .route("/admin/kill-switch", post(preview_kill_switch))
        .route("/admin/kill-switch/apply", post(apply_kill_switch));
    let actor = Arc::clone(&control.actor);
    let sessions = Sessions::new(token, openapi::admin_naming());
    admin_pages(routes, control, &actor, sessions)
}

/// `api` with the admin pages described: these, and the library's login.
pub(super) fn described<St: Clone + Send + Sync + 'static>(api: Api<St>) -> Api<St> {
    let api = api
        .beside("/admin", [openapi::page("The admin page", &[])])
        .beside(
            "/admin/profile",
            [openapi::page(
                "Previews a profile change",
                &["profile", "csrf"],
            )],
        )
        .beside(
            "/admin/profile/apply",
            [openapi::page(
                "Applies a previewed profile change (409 if the profile changed since)",
                &["profile", "expect", "csrf"],
            )],
        )
        .beside(
            "/admin/kill-switch",
            [openapi::page("Previews a kill switch", &["deny", "csrf"])],
        )
        .beside(
            "/admin/kill-switch/apply",
            [openapi::page(
                "Applies a previewed kill switch (409 if it changed since)",
                &["deny", "expect", "csrf"],
            )],
        );
    shared_pages(api, &openapi::admin_naming())
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
    let next = profile_field::<Kandev, KandevContext>(&form)?;
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
    Ok(confirm(
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
    let next = profile_field::<Kandev, KandevContext>(&form)?;
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
    let deny = deny_list::<Kandev>(form.field("deny")?)?;
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
    Ok(confirm(
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
    let deny = deny_list::<Kandev>(form.field("deny")?)?;
    let expect = deny_list::<Kandev>(form.field("expect")?)?;
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
