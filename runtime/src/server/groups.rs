//! What a session is answered about groups: MCP's grouping extension for a
//! client that declares it ([`crate::grouping`]), progressive disclosure
//! for a session under one ([`crate::disclosure`]), and the exposure stamp
//! of a list either changes.

use rmcp::model::{CustomRequest, CustomResult, MetaObject, Tool};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};

use super::ProfiledServer;
use crate::Vocabulary;
use crate::clipped::Clipped;
use crate::controller::{Cell, Current};
use crate::disclosure::{ACTIVATE_GROUPS, Activated};
use crate::exposure::{Exposure, ListDigest, Listed};
use crate::grouping::{self, Grouped};

/// Whether a request's session is served the grouping extension: its
/// profile's `cell` serves it and its client declares it.
pub(super) fn serves_grouping<S: Vocabulary>(
    cell: &Cell<S>,
    context: &RequestContext<RoleServer>,
) -> bool {
    cell.groups() && grouping::declared(context.client_capabilities().as_ref())
}

/// The `_meta` of a `which` list answered from `current`: its exposure
/// when `cell` stamps lists, else none. `answered` is the answer when it is
/// not the state's own list (a grouping client's marked one, a session's
/// disclosed one): digested then, per answer; the state's own list's is
/// made once.
fn stamp<S: Vocabulary, T: serde::Serialize>(
    cell: &Cell<S>,
    current: &Current<S>,
    which: Listed,
    answered: Option<&[T]>,
) -> Option<MetaObject> {
    if !cell.stamps_exposure() {
        return None;
    }
    Some(match answered {
        Some(list) => Exposure::new(current.revision, ListDigest::of(list)).to_meta(),
        None => current.exposure_meta(which),
    })
}

/// A prompt or resource list as the request is answered (`own`, or for a
/// grouping client what `marked` picks of the state's marked lists), and
/// its `_meta`.
pub(super) fn answered<S: Vocabulary, T: Clone + serde::Serialize>(
    cell: &Cell<S>,
    current: &Current<S>,
    context: &RequestContext<RoleServer>,
    which: Listed,
    marked: impl Fn(&Grouped) -> &Vec<T>,
    own: &[T],
) -> (Vec<T>, Option<MetaObject>) {
    let grouped = serves_grouping(cell, context);
    let listed = match grouped {
        true => marked(current.grouped()).clone(),
        false => own.to_vec(),
    };
    let meta = stamp(cell, current, which, grouped.then_some(&listed[..]));
    (listed, meta)
}

impl<S: Vocabulary + ServerHandler> ProfiledServer<S> {
    /// `tools/list` as the request is answered: the state's list, marked
    /// for a grouping client, as the session (or a 2026-07-28 request's
    /// client) disclosed it under progressive disclosure; and its `_meta`.
    pub(super) fn tools_answered(
        &self,
        cell: &Cell<S>,
        current: &Current<S>,
        context: &RequestContext<RoleServer>,
    ) -> Result<(Vec<Tool>, Option<MetaObject>), ErrorData> {
        let grouped = serves_grouping(cell, context);
        let listed = match grouped {
            true => &current.grouped().tools[..],
            false => current.list(),
        };
        // A session keeps its activations; a 2026-07-28 request's client
        // keeps them, or sends none and lists every tool.
        let mut held = None;
        let disclosure = match cell.disclosure() {
            Some(disclosure) if self.session.get().is_none() => {
                let activatable =
                    disclosure.activatable(&current.profile, current.catalog_groups());
                held = Activated::held(&context.meta, &activatable)?;
                held.is_some().then_some(disclosure)
            }
            disclosure => disclosure,
        };
        let listed = match disclosure {
            Some(disclosure) => disclosure.listing(
                &current.profile,
                current.catalog_groups(),
                listed,
                &|name| current.unpresent(name),
                &held.as_ref().unwrap_or(&self.activated).get(),
            ),
            None => listed.to_vec(),
        };
        let own = !grouped && disclosure.is_none();
        let mut meta = stamp(cell, current, Listed::Tools, (!own).then_some(&listed[..]));
        if let Some(held) = held {
            meta.get_or_insert_with(MetaObject::default)
                .0
                .extend(held.meta().0);
        }
        Ok((listed, meta))
    }

    /// `groups/list` for a session served the grouping extension, and
    /// `mcp-profiles/groups/activate` under progressive disclosure; `None`:
    /// the request is the handler's.
    pub(super) async fn answer_groups_request(
        &self,
        request: &CustomRequest,
        context: &RequestContext<RoleServer>,
    ) -> Option<Result<CustomResult, ErrorData>> {
        if request.method == ACTIVATE_GROUPS {
            let cell = match self.cell(&context.extensions) {
                Ok(cell) => cell,
                Err(error) => return Some(Err(error)),
            };
            let disclosure = cell.disclosure()?;
            let params = request.params.clone().unwrap_or_default();
            let activation = self
                .activate(disclosure, &cell.current(), &params, context)
                .await;
            return Some(activation.map(|(added, held)| {
                let mut answer = serde_json::json!({ "activated": added });
                if let Some(held) = held {
                    answer["_meta"] = serde_json::json!(held);
                }
                CustomResult::new(answer)
            }));
        }
        if request.method == grouping::LIST_GROUPS {
            let cell = match self.cell(&context.extensions) {
                Ok(cell) => cell,
                Err(error) => return Some(Err(error)),
            };
            if serves_grouping(&cell, context) {
                let groups = cell.current().grouped().groups.clone();
                return Some(Ok(CustomResult::new(
                    serde_json::json!({ "groups": groups }),
                )));
            }
        }
        None
    }

    /// Activates the groups `arguments` names (`{"groups": [...]}`) under
    /// `disclosure`, within `current`'s profile, all or none: for this
    /// session, sending it one `tools/list_changed` if that lists any; or
    /// for a 2026-07-28 request's client, on top of what it holds. The
    /// groups newly activated, and the client's set in force now (`None`
    /// for a session).
    pub(super) async fn activate(
        &self,
        disclosure: &crate::Disclosure<S>,
        current: &Current<S>,
        arguments: &serde_json::Value,
        context: &RequestContext<RoleServer>,
    ) -> Result<(Vec<String>, Option<MetaObject>), ErrorData> {
        let activatable = disclosure.activatable(&current.profile, current.catalog_groups());
        let held = match self.session.get() {
            Some(_) => None,
            None => Some(Activated::held(&context.meta, &activatable)?.unwrap_or_default()),
        };
        let groups: Vec<String> = arguments
            .get("groups")
            .and_then(|groups| serde_json::from_value(groups.clone()).ok())
            .ok_or_else(|| {
                ErrorData::invalid_params(
                    "expected `{\"groups\": [\"name\", ...]}`: the tool groups to list",
                    None,
                )
            })?;
        let activated = held.as_ref().unwrap_or(&self.activated);
        let added = activated
            .activate(&groups, &activatable)
            .map_err(|outside| {
                ErrorData::invalid_params(
                    format!(
                        "`{}` is not a group this session can activate; it can: {}",
                        Clipped(&outside),
                        activatable.join(", ")
                    ),
                    None,
                )
            })?;
        let Some(held) = held else {
            if !added.is_empty() && context.peer.notify_tool_list_changed().await.is_err() {
                tracing::debug!("peer gone; its activation's list_changed not sent");
            }
            return Ok((added, None));
        };
        Ok((added, Some(held.meta())))
    }
}
