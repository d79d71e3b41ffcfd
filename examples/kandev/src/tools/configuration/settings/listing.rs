//! Finding setting definitions and settings targets, a page at a time.

use serde_json::{Value, json};

use super::registry::{DEFINITIONS, Definition, ResourceType, domains};
use super::targets::{Target, targets_of};
use super::{ListSettingsResources, SearchSettings};
use crate::store::{BadField, Board, check_name};

/// Results per page when `limit` is omitted.
const DEFAULT_PAGE: usize = 20;

/// The page of `items` after `cursor`, and the cursor of the next one.
fn page(items: Vec<Value>, limit: Option<u64>, cursor: Option<&str>) -> Result<Value, BadField> {
    let start = match cursor.map(str::trim) {
        None | Some("") => 0,
        Some(cursor) => cursor
            .parse::<usize>()
            .ok()
            .filter(|start| *start <= items.len())
            .ok_or_else(|| {
                BadField::new(
                    "cursor",
                    format!("`{cursor}` is not a cursor of these results"),
                )
            })?,
    };
    // In range by the argument's deserializer.
    let size = limit.map_or(DEFAULT_PAGE, |limit| limit as usize);
    let end = start.saturating_add(size).min(items.len());
    let next = (end < items.len()).then(|| end.to_string());
    let total = items.len();
    let items: Vec<Value> = items.into_iter().skip(start).take(end - start).collect();
    Ok(json!({ "items": items, "total": total, "next_cursor": next }))
}

/// A `query` argument, checked and lowered for a case-insensitive match.
fn query_text(query: Option<&String>) -> Result<Option<String>, BadField> {
    match query.map(|query| query.trim()) {
        None | Some("") => Ok(None),
        Some(query) => {
            check_name("query", query)?;
            Ok(Some(query.to_lowercase()))
        }
    }
}

fn contains(haystacks: &[&str], needle: &Option<String>) -> bool {
    needle.as_ref().is_none_or(|needle| {
        haystacks
            .iter()
            .any(|haystack| haystack.to_lowercase().contains(needle))
    })
}

pub(super) fn search_settings(args: SearchSettings) -> Result<Value, BadField> {
    let query = query_text(args.query.as_ref())?;
    let domain = match args.domain.as_deref().map(str::trim) {
        None => None,
        Some(domain) => {
            let known = domains();
            if !known.contains(&domain) {
                return Err(BadField::new(
                    "domain",
                    format!(
                        "no domain `{domain}`; expected one of: {}",
                        known.join(", ")
                    ),
                ));
            }
            Some(domain)
        }
    };
    let resource_type = args
        .resource_type
        .as_deref()
        .map(|given| ResourceType::parse("resource_type", given))
        .transpose()?;
    let found: Vec<Value> = DEFINITIONS
        .iter()
        .filter(|definition| domain.is_none_or(|domain| definition.domain == domain))
        .filter(|definition| resource_type.is_none_or(|kind| definition.resource_type == kind))
        .filter(|d| contains(&[d.key, d.domain, d.summary], &query))
        .map(Definition::summary_json)
        .collect();
    page(found, args.limit, args.cursor.as_deref())
}

pub(super) fn list_settings_resources(
    board: &Board,
    args: ListSettingsResources,
) -> Result<Value, BadField> {
    let resource_type = ResourceType::parse("resource_type", &args.resource_type)?;
    let query = query_text(args.query.as_ref())?;
    let workspace_id = args.workspace_id.as_deref().map(str::trim);
    let found: Vec<Value> = targets_of(board, resource_type, workspace_id)?
        .iter()
        .filter(|target| contains(&[&target.name, &target.resource_id], &query))
        .map(Target::to_json)
        .collect();
    page(found, args.limit, args.cursor.as_deref())
}
