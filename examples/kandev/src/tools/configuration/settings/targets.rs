//! Settings targets: the one record a settings call reads or writes, named
//! by resource type, resource ID and (for workspace records) workspace.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::registry::ResourceType;
use crate::store::{AgentProfile, BadField, Board, Repository, Workspace};

/// The record whose settings to read or change.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SettingsTarget {
    /// `workspace`, `repository` or `agent_profile`.
    pub resource_type: String,
    /// The record's ID; a workspace may be named by `workspace_id` instead.
    pub resource_id: Option<String>,
    /// The workspace the record belongs to; agent profiles belong to none.
    pub workspace_id: Option<String>,
}

/// A target that exists.
pub(super) struct Target {
    pub(super) resource_type: ResourceType,
    pub(super) resource_id: String,
    /// The workspace of a workspace or repository target.
    pub(super) workspace_id: Option<String>,
    pub(super) name: String,
}

impl Target {
    pub(super) fn to_json(&self) -> Value {
        json!({
            "resource_type": self.resource_type.name(),
            "resource_id": self.resource_id,
            "workspace_id": self.workspace_id,
            "name": self.name,
        })
    }

    /// The key of its values in `Board::settings`.
    pub(super) fn settings_key(&self) -> (String, String) {
        self.resource_type.settings_key(&self.resource_id)
    }
}

/// The target `given` names, checked against the board.
pub(super) fn resolve(board: &Board, given: &SettingsTarget) -> Result<Target, BadField> {
    let resource_type = ResourceType::parse("target.resource_type", &given.resource_type)?;
    let resource_id = given.resource_id.as_deref().map(str::trim);
    let workspace_id = given.workspace_id.as_deref().map(str::trim);
    let needs_id = || {
        BadField::new(
            "target.resource_id",
            format!("a {} target needs its ID", resource_type.name()),
        )
    };
    let target = match resource_type {
        ResourceType::Workspace => {
            let id = match (resource_id, workspace_id) {
                (Some(id), Some(other)) if id != other => {
                    return Err(BadField::new(
                        "target.workspace_id",
                        format!("`{other}` and resource_id `{id}` name different workspaces"),
                    ));
                }
                (Some(id), _) | (None, Some(id)) => id,
                (None, None) => return Err(needs_id()),
            };
            workspace_target(board.workspace("target.resource_id", id)?)
        }
        ResourceType::Repository => {
            let id = resource_id.ok_or_else(needs_id)?;
            let repository = board
                .repositories
                .get(id)
                .ok_or_else(|| BadField::missing("target.resource_id", "repository", id))?;
            if let Some(workspace) = workspace_id
                && workspace != repository.workspace_id
            {
                return Err(BadField::new(
                    "target.workspace_id",
                    format!(
                        "repository `{id}` belongs to workspace `{}`, not `{workspace}`",
                        repository.workspace_id
                    ),
                ));
            }
            repository_target(repository)
        }
        ResourceType::AgentProfile => {
            let id = resource_id.ok_or_else(needs_id)?;
            if workspace_id.is_some() {
                return Err(BadField::new(
                    "target.workspace_id",
                    "agent profiles belong to no workspace; leave it out",
                ));
            }
            let profile = board
                .agent_profiles
                .get(id)
                .ok_or_else(|| BadField::missing("target.resource_id", "agent profile", id))?;
            profile_target(profile)
        }
    };
    Ok(target)
}

fn workspace_target(workspace: &Workspace) -> Target {
    Target {
        resource_type: ResourceType::Workspace,
        resource_id: workspace.id.clone(),
        workspace_id: Some(workspace.id.clone()),
        name: workspace.name.clone(),
    }
}

fn repository_target(repository: &Repository) -> Target {
    Target {
        resource_type: ResourceType::Repository,
        resource_id: repository.id.clone(),
        workspace_id: Some(repository.workspace_id.clone()),
        name: repository.name.clone(),
    }
}

fn profile_target(profile: &AgentProfile) -> Target {
    Target {
        resource_type: ResourceType::AgentProfile,
        resource_id: profile.id.clone(),
        workspace_id: None,
        name: profile.name.clone(),
    }
}

/// Every target of `resource_type`, in ID order; within `workspace_id`
/// when given.
pub(super) fn targets_of(
    board: &Board,
    resource_type: ResourceType,
    workspace_id: Option<&str>,
) -> Result<Vec<Target>, BadField> {
    if let Some(workspace) = workspace_id {
        if resource_type == ResourceType::AgentProfile {
            return Err(BadField::new(
                "workspace_id",
                "agent profiles belong to no workspace; leave it out",
            ));
        }
        board.workspace("workspace_id", workspace)?;
    }
    let in_scope = |workspace: &str| workspace_id.is_none_or(|wanted| wanted == workspace);
    let targets = match resource_type {
        ResourceType::Workspace => board
            .workspaces
            .values()
            .filter(|workspace| in_scope(&workspace.id))
            .map(workspace_target)
            .collect(),
        ResourceType::Repository => board
            .repositories
            .values()
            .filter(|repository| in_scope(&repository.workspace_id))
            .map(repository_target)
            .collect(),
        ResourceType::AgentProfile => board.agent_profiles.values().map(profile_target).collect(),
    };
    Ok(targets)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(resource_type: &str, id: Option<&str>, workspace: Option<&str>) -> SettingsTarget {
        SettingsTarget {
            resource_type: resource_type.into(),
            resource_id: id.map(Into::into),
            workspace_id: workspace.map(Into::into),
        }
    }

    #[test]
    fn a_workspace_is_named_by_either_id() {
        let board = Board::demo();
        for given in [
            target("workspace", Some("ws-1"), None),
            target("workspace", None, Some("ws-1")),
            target("workspace", Some("ws-1"), Some("ws-1")),
        ] {
            assert_eq!(resolve(&board, &given).unwrap().resource_id, "ws-1");
        }
        let error = resolve(&board, &target("workspace", Some("ws-1"), Some("ws-2")))
            .err()
            .unwrap();
        assert_eq!(error.field, "target.workspace_id");
    }

    #[test]
    fn a_bad_target_names_the_part_that_is_wrong() {
        let board = Board::demo();
        let field = |given| resolve(&board, &given).err().unwrap().field;
        assert_eq!(
            field(target("team", Some("x"), None)),
            "target.resource_type"
        );
        assert_eq!(
            field(target("repository", None, None)),
            "target.resource_id"
        );
        assert_eq!(
            field(target("repository", Some("repo-9"), None)),
            "target.resource_id"
        );
        assert_eq!(
            field(target("repository", Some("repo-1"), Some("ws-2"))),
            "target.workspace_id"
        );
        assert_eq!(
            field(target("agent_profile", Some("profile-1"), Some("ws-1"))),
            "target.workspace_id"
        );
    }

    #[test]
    fn targets_are_listed_within_a_workspace() {
        let board = Board::demo();
        let repositories = targets_of(&board, ResourceType::Repository, Some("ws-1")).unwrap();
        assert_eq!(repositories.len(), 1);
        assert!(targets_of(&board, ResourceType::Repository, Some("ws-9")).is_err());
        assert!(targets_of(&board, ResourceType::AgentProfile, Some("ws-1")).is_err());
    }
}
