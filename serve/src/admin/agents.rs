//! The admin pages of a control listener over an [`AgentStore`]
//! ([`ControlApi::with_admin`]): every principal with its profile and live
//! sessions on this instance, the exposure matrix, each agent's explain
//! view, and forms that replace an agent's profile or set the kill switch,
//! each previewed first and applied through the store (so recorded in its
//! audit trail) as a compare-and-set on the version the preview read.
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
use std::marker::PhantomData;
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

use super::profiles::{
    compact, deny_list, names_or_off, policy_text, pretty, profile_field, served,
};
use super::render::{self, Preview};
use super::{
    Form, LOGIN_SCHEME, Login, Naming, Problem, Sessions, SignedIn, admin_pages, confirm,
    csrf_field, login_scheme, page, see_other, shared_operations,
};
use crate::audit::{Attribution, AuditQuery};
use crate::control::openapi::{self, Operation};
use crate::control::{ContextForm, ControlApi, confirmations, failed, principal_name};
use crate::{AgentStore, Changed, StoreError, StoredAgent, StoredKillSwitch};

/// What the pages hold: every agent's store, and the form profiles are
/// read in.
struct Control<S: Vocabulary, F> {
    store: Arc<dyn AgentStore<S>>,
    form: PhantomData<fn() -> F>,
}

impl<S: Vocabulary, F> Clone for Control<S, F> {
    fn clone(&self) -> Self {
        Control {
            store: Arc::clone(&self.store),
            form: PhantomData,
        }
    }
}

impl<S: Vocabulary, F: ContextForm<S>> ControlApi<S, F> {
    /// Serves the admin pages on the control listener ([`crate::admin`]):
    /// every agent of the store, its explanation and audit trail, and forms
    /// that change a profile or the kill switch through the store, recorded
    /// under the API's name; a login with the control token.
    ///
    /// | route | what |
    /// |---|---|
    /// | `GET /admin` | every principal (version, profile, visible tools, live sessions here), the kill switch, the exposure matrix, the newest audit records |
    /// | `GET /admin/agents/{principal}` | the agent: profile, policy, visible tools, the explain table, its audit records |
    /// | `POST /admin/agents/{principal}/profile` | `profile=JSON&version=N`: the preview |
    /// | `POST /admin/agents/{principal}/profile/apply` | `profile=JSON&version=N`: applied if the agent is still at version N (else 409) |
    /// | `POST /admin/kill-switch` | `deny=NAMES&version=N`: the preview |
    /// | `POST /admin/kill-switch/apply` | `deny=NAMES&version=N`: applied if the switch is still at version N (else 409) |
    ///
    /// and the login's routes ([`shared_routes`](super::shared_routes)).
    /// Each page is described in the
    /// OpenAPI document, with the login's cookie ([`LOGIN_SCHEME`]). The
    /// pages are called [`DEFAULT_NAME`](super::DEFAULT_NAME), their cookie
    /// [`DEFAULT_COOKIE`](super::DEFAULT_COOKIE) (see
    /// [`with_admin_named`](Self::with_admin_named)).
    ///
    /// The forms read profiles in the API's context form: call it after
    /// [`context_form`](Self::context_form).
    pub fn with_admin(self) -> Self {
        self.with_admin_named(Naming::default())
    }

    /// [`with_admin`](Self::with_admin), the pages called and their login
    /// cookie named as `naming` says.
    pub fn with_admin_named(self, naming: Naming) -> Self {
        let control = Control::<S, F> {
            store: Arc::clone(self.store()),
            form: PhantomData,
        };
        let sessions = Sessions::new(self.token(), naming.clone());
        let pages = admin_pages(routes::<S, F>(), control, self.actor(), sessions);
        described().into_iter().chain(shared_operations()).fold(
            self.merge(pages)
                .security_scheme(LOGIN_SCHEME, login_scheme(&naming)),
            |api, (path, operations)| api.beside(path, operations),
        )
    }
}

/// The pages' routes.
fn routes<S: Vocabulary, F: ContextForm<S>>() -> Router<Control<S, F>> {
    Router::new()
        .route("/admin", get(overview::<S, F>))
        .route("/admin/agents/{principal}", get(agent::<S, F>))
        .route(
            "/admin/agents/{principal}/profile",
            post(preview_profile::<S, F>),
        )
        .route(
            "/admin/agents/{principal}/profile/apply",
            post(apply_profile::<S, F>),
        )
        .route("/admin/kill-switch", post(preview_kill_switch::<S, F>))
        .route("/admin/kill-switch/apply", post(apply_kill_switch::<S, F>))
}

/// The pages' paths and their operations.
fn described() -> [(&'static str, Vec<Operation>); 6] {
    [
        ("/admin", vec![openapi::page("The admin page", &[])]),
        (
            "/admin/agents/{principal}",
            vec![openapi::page(
                "One agent: its profile, explanation and audit",
                &[],
            )],
        ),
        (
            "/admin/agents/{principal}/profile",
            vec![openapi::page(
                "Previews an agent's profile change",
                &["profile", "csrf"],
            )],
        ),
        (
            "/admin/agents/{principal}/profile/apply",
            vec![openapi::page(
                "Applies a previewed profile change (409 if the agent's version moved)",
                &["profile", "version", "csrf"],
            )],
        ),
        (
            "/admin/kill-switch",
            vec![openapi::page("Previews a kill switch", &["deny", "csrf"])],
        ),
        (
            "/admin/kill-switch/apply",
            vec![openapi::page(
                "Applies a previewed kill switch (409 if its version moved)",
                &["deny", "version", "csrf"],
            )],
        ),
    ]
}

fn store_problem(error: StoreError) -> Problem {
    Problem::from(failed(error))
}

/// Every principal with an agent on this gateway, sorted, with its
/// controller.
fn agents<S: Vocabulary, F>(control: &Control<S, F>) -> Vec<(String, u64, ProfileController<S>)> {
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
async fn stored_agent<S: Vocabulary, F>(
    control: &Control<S, F>,
    principal: &str,
) -> Result<StoredAgent<S>, Problem> {
    control
        .store
        .agent(principal)
        .await
        .map_err(store_problem)?
        .ok_or_else(|| Problem::new(StatusCode::NOT_FOUND, format!("no agent `{principal}`")))
}

async fn kill_switch<S: Vocabulary, F>(
    control: &Control<S, F>,
) -> Result<StoredKillSwitch, Problem> {
    let stored = control.store.kill_switch().await.map_err(store_problem)?;
    Ok(stored.unwrap_or_else(|| StoredKillSwitch::new(Vec::new(), 0)))
}

async fn audit<S: Vocabulary, F>(
    control: &Control<S, F>,
    query: AuditQuery,
) -> Result<Markup, Problem> {
    let query = query.newest_first().with_limit(render::AUDIT_ROWS);
    let records = control.store.audit(&query).await.map_err(store_problem)?;
    Ok(render::audit(&records))
}

async fn overview<S: Vocabulary, F>(
    State(control): State<Control<S, F>>,
    login: Login,
) -> Result<Response, Problem> {
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
        (render::matrix(&render::registry_tools(S::registry()), &columns))
        h2 { "Audit trail (newest first)" }
        (audit(&control, AuditQuery::new()).await?)
    };
    Ok(page(StatusCode::OK, "Agents", Some(&login), body))
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

async fn agent<S: Vocabulary, F>(
    State(control): State<Control<S, F>>,
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
        None => render::explanation(&S::registry().explain(&context)),
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

async fn preview_profile<S: Vocabulary, F: ContextForm<S>>(
    State(control): State<Control<S, F>>,
    login: Login,
    Path(principal): Path<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Problem> {
    let principal = checked(&principal)?;
    let form = Form::read_checked(&login, &headers, body)?;
    let version = version(&form)?;
    let next = profile_field::<S, F>(&form)?;
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
    Ok(confirm(
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

async fn apply_profile<S: Vocabulary, F: ContextForm<S>>(
    State(control): State<Control<S, F>>,
    login: Login,
    Extension(by): Extension<Attribution>,
    Path(principal): Path<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Problem> {
    let principal = checked(&principal)?;
    let form = Form::read_checked(&login, &headers, body)?;
    let version = version(&form)?;
    let next = profile_field::<S, F>(&form)?;
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

async fn preview_kill_switch<S: Vocabulary, F>(
    State(control): State<Control<S, F>>,
    login: Login,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Problem> {
    let form = Form::read_checked(&login, &headers, body)?;
    let version = version(&form)?;
    let deny = deny_list::<S>(form.field("deny")?)?;
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
    Ok(confirm(
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

async fn apply_kill_switch<S: Vocabulary, F>(
    State(control): State<Control<S, F>>,
    login: Login,
    Extension(by): Extension<Attribution>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Problem> {
    let form = Form::read_checked(&login, &headers, body)?;
    let version = version(&form)?;
    let deny = deny_list::<S>(form.field("deny")?)?;
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

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    use super::*;
    use crate::MemoryStore;

    mod server {
        #[derive(Clone)]
        pub struct Desk;
        impl rmcp::ServerHandler for Desk {}
    }
    use server::Desk;

    mcp_profiles::vocabulary! {
        server Desk;
        #[surfaces] pub enum Surface { Triage }
        #[capabilities] pub enum Capability {}
        #[providers] pub enum Provider {}
    }

    /// One request over a fresh connection: the status, the headers'
    /// text and the body.
    async fn send(
        addr: std::net::SocketAddr,
        method: &str,
        path: &str,
        cookie: &str,
        form: &str,
    ) -> (u16, String, String) {
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: admin\r\nConnection: close\r\nCookie: {cookie}\r\n\
             Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{form}",
            form.len()
        );
        let answer = tokio::task::spawn_blocking(move || {
            let mut stream = std::net::TcpStream::connect(addr).unwrap();
            stream.write_all(request.as_bytes()).unwrap();
            let mut answer = String::new();
            stream.read_to_string(&mut answer).unwrap();
            answer
        })
        .await
        .unwrap();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap();
        let status = head[9..12].parse().unwrap();
        (status, head.to_owned(), body.to_owned())
    }

    /// The value of the hidden field `name` in `page`.
    fn hidden(page: &str, name: &str) -> String {
        let at = page.find(&format!(r#"name="{name}" value=""#)).unwrap();
        let value = &page[at + name.len() + 15..];
        value[..value.find('"').unwrap()].to_owned()
    }

    #[tokio::test]
    async fn a_gateway_serves_and_describes_its_admin_pages() {
        let store: Arc<dyn AgentStore<Desk>> = Arc::new(MemoryStore::<Desk>::default());
        let naming = Naming::new("Desk admin", "desk_admin");
        let api = ControlApi::new(Arc::clone(&store), "secret");
        let (router, document) = api.with_admin_named(naming).described();
        for path in [
            "/admin",
            "/admin/agents/{principal}",
            "/admin/agents/{principal}/profile",
            "/admin/agents/{principal}/profile/apply",
            "/admin/kill-switch",
            "/admin/kill-switch/apply",
            "/admin/login",
            "/admin/logout",
            "/admin/style.css",
        ] {
            assert!(document["paths"][path].is_object(), "{path}");
        }
        let scheme = &document["components"]["securitySchemes"][LOGIN_SCHEME];
        assert_eq!(scheme["name"], "desk_admin");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, router).await });

        let (status, head, _) = send(addr, "GET", "/admin", "", "").await;
        assert_eq!(status, 303);
        assert!(head.contains("location: /admin/login"), "{head}");
        let (status, _, page) = send(addr, "POST", "/admin/login", "", "token=wrong").await;
        assert_eq!(status, 401);
        assert!(page.contains("Log in · Desk admin"), "{page}");
        let (status, head, _) = send(addr, "POST", "/admin/login", "", "token=secret").await;
        assert_eq!(status, 303);
        let set = head
            .lines()
            .find_map(|line| line.strip_prefix("set-cookie: "))
            .unwrap();
        assert!(
            set.starts_with("desk_admin=") && !set.contains("secret"),
            "{set}"
        );
        let cookie = set.split(';').next().unwrap();

        let (status, _, overview) = send(addr, "GET", "/admin", cookie, "").await;
        assert_eq!(status, 200, "{overview}");
        assert!(overview.contains("Agents · Desk admin"), "{overview}");
        let csrf = hidden(&overview, "csrf");
        let stale = format!("csrf={csrf}&version=x1&deny=");
        let (status, _, page) = send(addr, "POST", "/admin/kill-switch", cookie, &stale).await;
        assert_eq!(status, 400);
        assert!(
            page.contains("not `x1`") && page.contains("Desk admin"),
            "{page}"
        );
        let unknown = format!("csrf={csrf}&version=0&deny=no_such_tool");
        let (status, _, page) = send(addr, "POST", "/admin/kill-switch", cookie, &unknown).await;
        assert_eq!(status, 400);
        assert!(page.contains("no_such_tool"), "{page}");
        let forged = "csrf=forged&version=0&deny=";
        let (status, _, _) = send(addr, "POST", "/admin/kill-switch/apply", cookie, forged).await;
        assert_eq!(status, 403);
        let (status, _, page) = send(addr, "GET", "/admin/agents/carol", cookie, "").await;
        assert_eq!(status, 404);
        assert!(page.contains("no agent `carol`"), "{page}");
        let apply = format!("csrf={csrf}&version=0&deny=");
        let (status, _, _) = send(addr, "POST", "/admin/kill-switch/apply", cookie, &apply).await;
        assert_eq!(status, 303);
        let (_, _, overview) = send(addr, "GET", "/admin", cookie, "").await;
        assert!(overview.contains("<code>kill-switch</code>"), "{overview}");
    }
}
