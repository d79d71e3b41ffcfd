//! `configuration-prompts`: saved prompts that steps and agents reference
//! by name. Built-in prompts, and prompts an operator closed to agents,
//! are read-only here.

use mcp_profiles::tool_group;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::tool;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::required_text;
use crate::server::Kandev;
use crate::store::{BadField, Board, SharedPrompt, check_text};
use crate::tools::{ToolResult, ok, respond};

// ---------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------

/// The saved prompt to read.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SharedPromptName {
    /// The prompt's exact, case-sensitive name; surrounding spaces are ignored.
    pub name: String,
}

/// A saved prompt's name and its whole text.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SharedPromptText {
    /// The prompt's exact, case-sensitive name; surrounding spaces are ignored.
    pub name: String,
    /// The complete text; surrounding whitespace is trimmed.
    pub content: String,
}

// ---------------------------------------------------------------------------
// Shared prompts
// ---------------------------------------------------------------------------

fn list_shared_prompts(board: &Board) -> Value {
    let prompts: Vec<Value> = board
        .shared_prompts
        .values()
        .map(|prompt| {
            json!({
                "name": prompt.name,
                "built_in": prompt.built_in,
                "agent_editable": prompt.agent_editable,
                "size_bytes": prompt.content.len(),
            })
        })
        .collect();
    json!({ "prompts": prompts })
}

fn shared_prompt<'a>(board: &'a Board, name: &str) -> Result<&'a SharedPrompt, BadField> {
    board
        .shared_prompts
        .get(name.trim())
        .ok_or_else(|| BadField::missing("name", "shared prompt", name.trim()))
}

fn get_shared_prompt(board: &Board, args: SharedPromptName) -> Result<Value, BadField> {
    Ok(json!({ "prompt": shared_prompt(board, &args.name)? }))
}

/// The checked name and content of a write.
fn prompt_text(args: SharedPromptText) -> Result<(String, String), BadField> {
    let name = required_text("name", args.name)?;
    let content = args.content.trim();
    if content.is_empty() {
        return Err(BadField::new("content", "the prompt is empty"));
    }
    check_text("content", content)?;
    Ok((name, content.to_owned()))
}

fn create_shared_prompt(board: &mut Board, args: SharedPromptText) -> Result<Value, BadField> {
    let (name, content) = prompt_text(args)?;
    if board.shared_prompts.contains_key(&name) {
        return Err(BadField::new(
            "name",
            format!("a shared prompt named `{name}` exists; update it instead"),
        ));
    }
    board.make_room("name", 1)?;
    let prompt = SharedPrompt {
        name: name.clone(),
        content,
        built_in: false,
        agent_editable: true,
    };
    board.shared_prompts.insert(name, prompt.clone());
    Ok(json!({ "prompt": prompt }))
}

fn update_shared_prompt(board: &mut Board, args: SharedPromptText) -> Result<Value, BadField> {
    let (name, content) = prompt_text(args)?;
    let prompt = shared_prompt(board, &name)?;
    if prompt.built_in {
        return Err(BadField::new(
            "name",
            format!("`{name}` is built in and cannot be changed"),
        ));
    }
    if !prompt.agent_editable {
        return Err(BadField::new(
            "name",
            format!("`{name}` does not allow agent edits"),
        ));
    }
    let prompt = board
        .shared_prompts
        .get_mut(&name)
        .ok_or_else(|| BadField::missing("name", "shared prompt", &name))?;
    prompt.content = content;
    Ok(json!({ "prompt": prompt }))
}

// ---------------------------------------------------------------------------
// The tool group
// ---------------------------------------------------------------------------

#[tool_group(name = "configuration-prompts", surfaces = ["configuration", "external"])]
impl Kandev {
    #[tool(
        name = "create_shared_prompt_kandev",
        description = "Saves a new named reusable prompt; fails when the name is taken.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn config_create_shared_prompt(
        &self,
        Parameters(args): Parameters<SharedPromptText>,
    ) -> ToolResult {
        self.on_board(|board| create_shared_prompt(board, args))
    }

    #[tool(
        name = "update_shared_prompt_kandev",
        description = "Overwrites an editable saved prompt's text, affecting every later reference.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn config_update_shared_prompt(
        &self,
        Parameters(args): Parameters<SharedPromptText>,
    ) -> ToolResult {
        self.on_board(|board| update_shared_prompt(board, args))
    }

    #[tool(
        name = "list_shared_prompts_kandev",
        description = "Lists saved prompt names, built-in flag and size, without their text.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_list_shared_prompts(&self) -> ToolResult {
        ok(list_shared_prompts(&self.store.lock()))
    }

    #[tool(
        name = "get_shared_prompt_kandev",
        description = "Returns one saved prompt's text, looked up by exact name.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn config_get_shared_prompt(
        &self,
        Parameters(args): Parameters<SharedPromptName>,
    ) -> ToolResult {
        respond(get_shared_prompt(&self.store.lock(), args))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(name: &str, content: &str) -> SharedPromptText {
        SharedPromptText {
            name: name.into(),
            content: content.into(),
        }
    }

    #[test]
    fn a_prompt_is_created_once_then_updated() {
        let mut board = Board::demo();
        create_shared_prompt(&mut board, text(" triage ", "  Sort the inbox.\n")).unwrap();
        assert_eq!(board.shared_prompts["triage"].content, "Sort the inbox.");
        let taken = create_shared_prompt(&mut board, text("triage", "again")).unwrap_err();
        assert_eq!(taken.field, "name");
        update_shared_prompt(&mut board, text("triage", "Sort it by age.")).unwrap();
        let read = get_shared_prompt(
            &board,
            SharedPromptName {
                name: "triage".into(),
            },
        )
        .unwrap();
        assert_eq!(read["prompt"]["content"], "Sort it by age.");
    }

    #[test]
    fn built_in_and_closed_prompts_refuse_writes_and_change_nothing() {
        let mut board = Board::demo();
        board
            .shared_prompts
            .get_mut("release-notes")
            .unwrap()
            .agent_editable = false;
        let before = board.clone();
        for name in ["code-review", "release-notes"] {
            let error = update_shared_prompt(&mut board, text(name, "new")).unwrap_err();
            assert_eq!(error.field, "name", "{error}");
        }
        let missing = update_shared_prompt(&mut board, text("nope", "new")).unwrap_err();
        assert_eq!(
            missing.to_string(),
            "invalid `name`: no shared prompt `nope`"
        );
        let empty = create_shared_prompt(&mut board, text("blank", " \n ")).unwrap_err();
        assert_eq!(empty.field, "content");
        assert!(board == before);
    }

    #[test]
    fn the_list_shows_sizes_not_text() {
        let listed = list_shared_prompts(&Board::demo());
        let first = &listed["prompts"][0];
        assert_eq!(first["name"], "code-review");
        assert_eq!(first["built_in"], true);
        assert!(first.get("content").is_none());
        assert!(first["size_bytes"].as_u64().unwrap() > 0);
    }
}
