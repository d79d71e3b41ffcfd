//! `serve`'s live changes, each recorded in the board's audit trail in the
//! same step ([`BoardGuard::audit`]): with the board held, the next state
//! is worked out and its record written and committed, and only then is the
//! change made, the board still held. A record that cannot be saved refuses
//! its change (500, nothing moved, no session told), and records come in
//! the order of the changes, which holding the board serialises with the
//! task routes and with following the file.
//!
//! Kinds and states are the library's
//! ([`mcp_profiles_serve::audit::states`]) without versions: `profile-put`
//! for the profile, mode, provider and policy routes, `kill-switch`,
//! `catalog-put` for plugin tools; the task routes record their own
//! (`crate::served`). `principal` is the served task's id (none without
//! `--task`; none for the kill switch).

use axum::http::StatusCode;
use mcp_profiles::{
    Catalog, DenyList, Installation, KillSwitchChange, ProfileContext, Replacement,
};
use mcp_profiles_serve::audit::states::{self, CatalogSummary};
use mcp_profiles_serve::audit::{Attribution, AuditEntry, AuditKind};

use super::{Control, Refusal};
use crate::db::DbError;
use crate::plugins::Snapshot;
use crate::server::Kandev;
use crate::store::BoardGuard;

/// Replaces the live profile with what `next` makes of the current one,
/// recorded as `profile-put`.
pub(super) fn replace_profile(
    control: &Control,
    by: &Attribution,
    next: impl FnOnce(&ProfileContext<Kandev>) -> Result<ProfileContext<Kandev>, Refusal>,
) -> Result<Replacement<Kandev>, Refusal> {
    let mut board = control.board.begin().map_err(failed)?;
    let current = *control.controller.current().context();
    let next = next(&current)?;
    let (added, removed) = states::changed(
        &states::compiled_tools(&current),
        &states::compiled_tools(&next),
    );
    let entry = AuditEntry::new(by, AuditKind::ProfilePut, principal(control))
        .with_before(states::profile(&current, None))
        .with_after(states::profile(&next, None))
        .with_tools(added, removed);
    saved(&mut board, entry)?;
    Ok(control.controller.replace(next))
}

/// Puts `deny` as the operator's kill switch, recorded as `kill-switch`.
pub(super) fn set_kill_switch(
    control: &Control,
    by: &Attribution,
    deny: DenyList<Kandev>,
) -> Result<KillSwitchChange<Kandev>, Refusal> {
    let mut board = control.board.begin().map_err(failed)?;
    let switch = control.controller.kill_switch();
    let before = switch.killed();
    // The killed tools grow as the agent's shrink.
    let (killed, spared) = states::changed(
        &states::denied_tools::<Kandev, _>(before.names()),
        &states::denied_tools::<Kandev, _>(deny.names()),
    );
    let entry = AuditEntry::new(by, AuditKind::KillSwitch, None)
        .with_before(states::kill_switch(before.names(), None))
        .with_after(states::kill_switch(deny.names(), None))
        .with_tools(spared, killed);
    saved(&mut board, entry)?;
    Ok(switch.set(deny))
}

/// Installs `catalog`, built from the checked `snapshot`, recorded as
/// `catalog-put` unless it is stale (ignored, nothing recorded) or refused
/// under the name presentation (400, nothing recorded).
pub(super) fn install_plugins(
    control: &Control,
    by: &Attribution,
    snapshot: Snapshot,
    catalog: &Catalog<Kandev>,
) -> Result<Installation, Refusal> {
    let mut board = control.board.begin().map_err(failed)?;
    let controller = &control.controller;
    let installed = controller.catalog();
    let stale = installed.as_ref().is_some_and(|installed| {
        installed.generation() == catalog.generation() && catalog.revision() <= installed.revision()
    });
    if !stale {
        if let Some(presentation) = controller.presentation() {
            presentation
                .verify_catalog(catalog)
                .map_err(|refused| Refusal::new(StatusCode::BAD_REQUEST, refused.to_string()))?;
        }
        let before = installed.as_ref().map(CatalogSummary::of);
        let after = CatalogSummary::of(catalog);
        let (added, removed) = states::changed(
            before.as_ref().map_or(&[][..], |before| &before.tools),
            &after.tools,
        );
        let entry = AuditEntry::new(by, AuditKind::CatalogPut, principal(control))
            .with_before(states::catalog(before.as_ref(), None))
            .with_after(states::catalog(Some(&after), None))
            .with_tools(added, removed);
        saved(&mut board, entry)?;
    }
    control
        .plugins
        .install_catalog(controller, snapshot, catalog)
        .map_err(|error| Refusal::new(StatusCode::BAD_REQUEST, error.to_string()))
}

/// The served task's id, the principal of `serve`'s records.
fn principal(control: &Control) -> Option<&str> {
    control.task.as_ref().map(|task| task.task_id())
}

/// Writes `entry` and commits: the change it records may now be made.
fn saved(board: &mut BoardGuard<'_>, entry: AuditEntry) -> Result<(), Refusal> {
    board.audit(entry).map_err(failed)?;
    board.commit().map_err(failed)
}

/// A board whose audit trail could not be read: 500.
pub(super) fn failed_read(error: DbError) -> Refusal {
    Refusal::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        format!("the audit trail could not be read: {error}"),
    )
}

/// A board that could not record a change: 500, nothing changed.
pub(super) fn failed(error: DbError) -> Refusal {
    Refusal::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        format!("the change was not made: its audit record could not be saved: {error}"),
    )
}
