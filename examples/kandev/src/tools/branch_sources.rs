//! `task-branch-sources`: more repositories, branches and folders for a
//! task's workspace, and the branch its diff is compared against.

use mcp_profiles::tool_group;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::tool;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::session::{non_empty, required};
use super::{ToolResult, respond};
use crate::server::Kandev;
use crate::store::{BadField, Board, Object, check_document, check_items, check_name};

/// A repository branch to attach as an extra worktree.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BranchSource {
    /// The task to attach it to; defaults to the task this session works on.
    pub task_id: Option<String>,
    /// A repository known to the workspace.
    pub repository_id: Option<String>,
    /// A repository by clone URL.
    pub repository_url: Option<String>,
    /// A repository already on disk.
    pub local_path: Option<String>,
    /// The branch to check out; the repository's default branch when omitted.
    pub checkout_branch: Option<String>,
    /// The branch the worktree's diff is compared against.
    pub base_branch: Option<String>,
}

/// Repository or folder sources to add.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceSources {
    /// The task to add them to; defaults to the task this session works on.
    pub task_id: Option<String>,
    /// One or more sources, each describing a repository or a folder.
    pub sources: Vec<Object>,
}

/// A new base branch for one of a task's repositories.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BaseBranch {
    /// The task; defaults to the task this session works on.
    pub task_id: Option<String>,
    /// The task's repository whose base changes (required).
    pub task_repository_id: Option<String>,
    /// The branch to compare against from now on (required).
    pub base_branch: Option<String>,
}

#[tool_group(name = "task-branch-sources", surface = "kanban-task")]
impl Kandev {
    #[tool(
        name = "add_branch_to_task_kandev",
        description = "Attaches a worktree for another repository branch to the current task.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn branch_sources_add_branch(
        &self,
        Parameters(args): Parameters<BranchSource>,
    ) -> ToolResult {
        let task_id = self.task_or_bound(args.task_id);
        let mut board = self.store.begin()?;
        let result = (|| {
            board.task("task_id", &task_id)?;
            for (field, value) in [
                ("repository_url", &args.repository_url),
                ("local_path", &args.local_path),
                ("checkout_branch", &args.checkout_branch),
                ("base_branch", &args.base_branch),
            ] {
                if let Some(value) = value {
                    check_name(field, value)?;
                }
            }
            board.make_room("task_id", 1)?;
            if args.repository_id.is_none()
                && args.repository_url.is_none()
                && args.local_path.is_none()
            {
                return Err(BadField::new(
                    "repository_id",
                    "give repository_id, repository_url or local_path",
                ));
            }
            let default_branch = match &args.repository_id {
                Some(id) => Some(
                    board
                        .repositories
                        .get(id)
                        .ok_or_else(|| BadField::missing("repository_id", "repository", id))?
                        .default_branch
                        .clone(),
                ),
                None => None,
            };
            let checkout_branch = args.checkout_branch.or(default_branch.clone());
            let base_branch = args.base_branch.or(default_branch);
            let mut source = Object::new();
            source.insert("kind".into(), json!("branch"));
            source.insert("repository_id".into(), json!(args.repository_id));
            source.insert("repository_url".into(), json!(args.repository_url));
            source.insert("local_path".into(), json!(args.local_path));
            source.insert("checkout_branch".into(), json!(checkout_branch));
            source.insert("base_branch".into(), json!(base_branch));
            let sources = board.sources.entry(task_id.clone()).or_default();
            sources.push(source.clone());
            Ok(json!({ "task_id": task_id, "source": source, "sources": sources.len() }))
        })();
        board.commit()?;
        respond(result)
    }

    #[tool(
        name = "add_workspace_sources_kandev",
        description = "Adds repository or folder sources to a task that is currently idle.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn branch_sources_add_workspace(
        &self,
        Parameters(args): Parameters<WorkspaceSources>,
    ) -> ToolResult {
        let task_id = self.task_or_bound(args.task_id);
        self.on_board(|board| add_workspace_sources(board, task_id, args.sources))
    }

    #[tool(
        name = "update_repository_base_branch_kandev",
        description = "Changes the branch a task's diff is compared against.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn branch_sources_update_base(
        &self,
        Parameters(args): Parameters<BaseBranch>,
    ) -> ToolResult {
        let task_id = self.task_or_bound(args.task_id);
        let mut board = self.store.begin()?;
        let result = (|| {
            let task = board.task_mut("task_id", &task_id)?;
            let repository_id = required("task_repository_id", args.task_repository_id)?;
            let base_branch = required("base_branch", args.base_branch)?;
            check_name("base_branch", &base_branch)?;
            if task.repository_id.as_deref() != Some(repository_id.as_str()) {
                return Err(BadField::new(
                    "task_repository_id",
                    format!("task `{task_id}` has no repository `{repository_id}`"),
                ));
            }
            let previous = task.base_branch.replace(base_branch.clone());
            Ok(json!({
                "task_id": task_id,
                "task_repository_id": repository_id,
                "base_branch": base_branch,
                "previous_base_branch": previous,
            }))
        })();
        board.commit()?;
        respond(result)
    }
}

/// Adds the sources the task's workspace does not have yet: a source
/// already attached (or given twice) is attached once, so a repeated call
/// changes nothing more (Kandev marks the tool idempotent).
fn add_workspace_sources(
    board: &mut Board,
    task_id: String,
    sources: Vec<Object>,
) -> Result<Value, BadField> {
    non_empty("sources", &sources)?;
    check_items("sources", sources.len())?;
    check_document("sources", &sources)?;
    board.task("task_id", &task_id)?;
    let attached = board.sources.get(&task_id).cloned().unwrap_or_default();
    let mut new: Vec<Object> = Vec::new();
    for source in sources {
        if !attached.contains(&source) && !new.contains(&source) {
            new.push(source);
        }
    }
    board.make_room("sources", new.len())?;
    let added = new.len();
    let sources = board.sources.entry(task_id.clone()).or_default();
    sources.extend(new);
    Ok(json!({ "task_id": task_id, "added": added, "sources": sources.len() }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_source_is_attached_once_however_often_it_is_added() {
        let mut board = Board::demo();
        let source = |path: &str| {
            let mut source = Object::new();
            source.insert("path".into(), Value::from(path));
            source
        };
        let first = vec![source("/a"), source("/b"), source("/a")];
        let added = add_workspace_sources(&mut board, "task-4".into(), first).unwrap();
        assert_eq!((&added["added"], &added["sources"]), (&json!(2), &json!(2)));
        let again = vec![source("/b"), source("/c")];
        let added = add_workspace_sources(&mut board, "task-4".into(), again).unwrap();
        assert_eq!((&added["added"], &added["sources"]), (&json!(1), &json!(3)));
    }
}
