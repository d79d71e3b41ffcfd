//! The agent's own session on a task: `rich-output`, `walkthrough`,
//! `review`, `related-tasks`, `step-completion` and `diagnostics` (`plan`
//! is in `plans/`, `task-branch-sources` in `branch_sources.rs`).

use std::borrow::Cow;

use mcp_profiles::tool_group;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::tool;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer};
use serde_json::{Value, json};

use super::{ToolResult, respond};
use crate::server::Kandev;
use crate::store::{
    BadField, Object, ReviewSubmission, StepCompletion, Task, Walkthrough, check_document,
    check_items, check_name, check_text,
};

/// A task to look at; the bound task when omitted.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MaybeTask {
    /// The task's ID; defaults to the task this session works on.
    pub task_id: Option<String>,
}

/// The only rich-output format version there is: 1.
#[derive(Clone, Copy)]
pub struct RichOutputVersion;

impl RichOutputVersion {
    /// The version as a number.
    fn number(self) -> i64 {
        1
    }
}

impl<'de> Deserialize<'de> for RichOutputVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        if value.as_i64() == Some(1) {
            Ok(RichOutputVersion)
        } else {
            Err(serde::de::Error::custom(format!(
                "unsupported `version` {value}: only 1 is supported"
            )))
        }
    }
}

impl JsonSchema for RichOutputVersion {
    fn schema_name() -> Cow<'static, str> {
        "RichOutputVersion".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "integer", "const": 1 })
    }
}

/// Rich content to render in the Kandev UI.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RichOutput {
    /// The rich-output format version; must be 1.
    pub version: RichOutputVersion,
    /// A heading shown above the blocks.
    pub title: String,
    /// A line of text under the heading.
    pub description: Option<String>,
    /// The blocks to render: file previews, metric groups or charts.
    pub blocks: Vec<Object>,
}

/// A code tour to show.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WalkthroughShow {
    /// The task the tour is about; defaults to the task this session works on.
    pub task_id: Option<String>,
    /// A heading for the tour.
    pub title: Option<String>,
    /// The stops in order, each anchored to a file and line range.
    pub steps: Vec<Object>,
}

/// Review findings to publish.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReviewFindings {
    /// The reviewed task; defaults to the task this session works on.
    pub task_id: Option<String>,
    /// An overall verdict in a few sentences.
    pub summary: Option<String>,
    /// The defects found, each anchored to a file and line.
    pub findings: Vec<Object>,
}

/// Whose neighbours to list.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RelatedTasks {
    /// The task in the middle; defaults to the task this session works on.
    pub task_id: Option<String>,
    /// Give full task records instead of short summaries.
    pub verbose: Option<bool>,
}

/// The end of the current workflow step.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StepComplete {
    /// What was done in this step.
    pub summary: String,
    /// Notes for whoever picks up the next step.
    pub handoff: Option<String>,
    /// Anything still in the way.
    pub blockers: Option<String>,
}

/// Which side's diagnostics to gather.
#[derive(Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DiagnosticSource {
    Backend,
    Frontend,
    All,
}

impl DiagnosticSource {
    fn as_str(self) -> &'static str {
        match self {
            DiagnosticSource::Backend => "backend",
            DiagnosticSource::Frontend => "frontend",
            DiagnosticSource::All => "all",
        }
    }
}

/// A diagnostic bundle to gather.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiagnosticBundle {
    /// `backend`, `frontend` or `all`.
    pub source: DiagnosticSource,
}

/// `field`'s value, trimmed, or an error naming it when absent or blank.
pub(super) fn required(field: &'static str, value: Option<String>) -> Result<String, BadField> {
    let value = value.map(|v| v.trim().to_owned()).unwrap_or_default();
    if value.is_empty() {
        Err(BadField::new(field, "give a non-empty value"))
    } else {
        Ok(value)
    }
}

/// An error unless `items` has at least one entry.
pub(super) fn non_empty(field: &'static str, items: &[Object]) -> Result<(), BadField> {
    if items.is_empty() {
        Err(BadField::new(field, "give at least one entry"))
    } else {
        Ok(())
    }
}

#[tool_group(name = "rich-output", surfaces = ["kanban-task", "office-task"])]
impl Kandev {
    #[tool(
        name = "show_rich_output_kandev",
        description = "Renders native file previews, metric groups or charts (inline or CSV) in the Kandev UI.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn rich_output_show(&self, Parameters(args): Parameters<RichOutput>) -> ToolResult {
        let checked = non_empty("blocks", &args.blocks)
            .and_then(|()| check_items("blocks", args.blocks.len()))
            .and_then(|()| check_document("blocks", &args.blocks))
            .and_then(|()| check_name("title", &args.title))
            .and_then(|()| {
                args.description
                    .as_deref()
                    .map_or(Ok(()), |d| check_text("description", d))
            });
        let mut board = self.store.begin()?;
        let result = checked
            .and_then(|()| board.make_room("blocks", 1))
            .map(|()| {
                let id = board.next_id("output");
                let blocks = args.blocks.len();
                let mut output = Object::new();
                output.insert("id".into(), json!(id));
                output.insert("task_id".into(), json!(self.task_id));
                output.insert("version".into(), json!(args.version.number()));
                output.insert("title".into(), json!(args.title));
                output.insert("description".into(), json!(args.description));
                output.insert(
                    "blocks".into(),
                    Value::Array(args.blocks.into_iter().map(Value::Object).collect()),
                );
                board.rich_outputs.push(output);
                json!({ "output_id": id, "task_id": self.task_id, "blocks": blocks })
            });
        board.commit()?;
        respond(result)
    }
}

#[tool_group(name = "walkthrough", surface = "kanban-task")]
impl Kandev {
    #[tool(
        name = "show_walkthrough_kandev",
        description = "Saves an ordered, line-anchored code tour for a task, replacing any earlier one.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn walkthrough_show(&self, Parameters(args): Parameters<WalkthroughShow>) -> ToolResult {
        let task_id = self.task_or_bound(args.task_id);
        let mut board = self.store.begin()?;
        let result = non_empty("steps", &args.steps)
            .and_then(|()| check_items("steps", args.steps.len()))
            .and_then(|()| check_document("steps", &args.steps))
            .and_then(|()| {
                args.title
                    .as_deref()
                    .map_or(Ok(()), |t| check_name("title", t))
            })
            .and_then(|()| board.task("task_id", &task_id).map(|_| ()))
            .and_then(|()| match board.walkthroughs.contains_key(&task_id) {
                true => Ok(()),
                false => board.make_room("steps", 1),
            })
            .map(|()| {
                let walkthrough = Walkthrough {
                    task_id: task_id.clone(),
                    title: args.title.unwrap_or_else(|| "Walkthrough".into()),
                    steps: args.steps,
                };
                let title = walkthrough.title.clone();
                let steps = walkthrough.steps.len();
                let replaced = board
                    .walkthroughs
                    .insert(task_id.clone(), walkthrough)
                    .is_some();
                json!({ "task_id": task_id, "title": title, "steps": steps, "replaced": replaced })
            });
        board.commit()?;
        respond(result)
    }

    #[tool(
        name = "get_walkthrough_kandev",
        description = "Reads a task's current code tour.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn walkthrough_get(&self, Parameters(args): Parameters<MaybeTask>) -> ToolResult {
        let task_id = self.task_or_bound(args.task_id);
        let board = self.store.lock();
        let result = board.task("task_id", &task_id).and_then(|_| {
            board
                .walkthroughs
                .get(&task_id)
                .map(|walkthrough| json!({ "walkthrough": walkthrough }))
                .ok_or_else(|| {
                    BadField::new("task_id", format!("task `{task_id}` has no walkthrough"))
                })
        });
        respond(result)
    }

    #[tool(
        name = "delete_walkthrough_kandev",
        description = "Removes a task's code tour.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn walkthrough_delete(&self, Parameters(args): Parameters<MaybeTask>) -> ToolResult {
        let task_id = self.task_or_bound(args.task_id);
        let mut board = self.store.begin()?;
        let result = board.task("task_id", &task_id).map(|_| ()).and_then(|()| {
            board
                .walkthroughs
                .remove(&task_id)
                .map(|_| json!({ "deleted": true, "task_id": task_id }))
                .ok_or_else(|| {
                    BadField::new("task_id", format!("task `{task_id}` has no walkthrough"))
                })
        });
        board.commit()?;
        respond(result)
    }
}

#[tool_group(name = "review", surface = "kanban-task")]
impl Kandev {
    #[tool(
        name = "publish_review_findings_kandev",
        description = "Posts review defects as anchored inline comments on the task's changed code.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn review_publish(&self, Parameters(args): Parameters<ReviewFindings>) -> ToolResult {
        let task_id = self.task_or_bound(args.task_id);
        let mut board = self.store.begin()?;
        let result = non_empty("findings", &args.findings)
            .and_then(|()| check_items("findings", args.findings.len()))
            .and_then(|()| check_document("findings", &args.findings))
            .and_then(|()| {
                args.summary
                    .as_deref()
                    .map_or(Ok(()), |s| check_text("summary", s))
            })
            .and_then(|()| board.task("task_id", &task_id).map(|_| ()))
            .and_then(|()| board.make_room("findings", 1))
            .map(|()| {
                let id = board.next_id("review");
                let findings = args.findings.len();
                board.reviews.push(ReviewSubmission {
                    id: id.clone(),
                    task_id: task_id.clone(),
                    summary: args.summary.unwrap_or_default(),
                    findings: args.findings,
                });
                json!({ "review_id": id, "task_id": task_id, "findings": findings })
            });
        board.commit()?;
        respond(result)
    }
}

/// A task as `list_related_tasks_kandev` shows it.
fn related(task: &Task, verbose: bool) -> Value {
    if verbose {
        json!(task)
    } else {
        json!({
            "id": task.id,
            "title": task.title,
            "state": task.state,
            "workflow_step_id": task.workflow_step_id,
        })
    }
}

#[tool_group(name = "related-tasks", surfaces = ["kanban-task", "office-task"])]
impl Kandev {
    #[tool(
        name = "list_related_tasks_kandev",
        description = "Shows the tasks around a given one: hierarchy neighbours, blockers and blocked tasks.",
        annotations(
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn related_tasks_list(&self, Parameters(args): Parameters<RelatedTasks>) -> ToolResult {
        let task_id = self.task_or_bound(args.task_id);
        let verbose = args.verbose.unwrap_or(false);
        let board = self.store.lock();
        let result = board.task("task_id", &task_id).map(|task| {
            let show = |tasks: Vec<&Task>| -> Vec<Value> {
                tasks
                    .into_iter()
                    .map(|task| related(task, verbose))
                    .collect()
            };
            let parent = task
                .parent_id
                .as_deref()
                .and_then(|id| board.tasks.get(id))
                .map(|parent| related(parent, verbose));
            let siblings = match task.parent_id.as_deref() {
                Some(parent) => board
                    .children_of(parent)
                    .into_iter()
                    .filter(|sibling| sibling.id != task.id)
                    .collect(),
                None => Vec::new(),
            };
            let linked = |waiting: bool| -> Vec<&Task> {
                board
                    .dependencies
                    .iter()
                    .filter_map(|(waiter, waited_for)| {
                        let (this, other) = if waiting {
                            (waiter, waited_for)
                        } else {
                            (waited_for, waiter)
                        };
                        (*this == task_id).then(|| board.tasks.get(other)).flatten()
                    })
                    .collect()
            };
            json!({
                "task_id": task.id,
                "parent": parent,
                "children": show(board.children_of(&task.id)),
                "siblings": show(siblings),
                "blocked_by": show(linked(true)),
                "blocking": show(linked(false)),
            })
        });
        respond(result)
    }
}

#[tool_group(name = "step-completion", surfaces = ["kanban-task", "office-task"])]
impl Kandev {
    #[tool(
        name = "step_complete_kandev",
        description = "Signals that the current workflow step's work is done, with a summary.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn step_completion_complete(
        &self,
        Parameters(args): Parameters<StepComplete>,
    ) -> ToolResult {
        let mut board = self.store.begin()?;
        let result = (|| {
            let step = board
                .task("task_id", &self.task_id)?
                .workflow_step_id
                .clone();
            let summary = required("summary", Some(args.summary))?;
            check_text("summary", &summary)?;
            for (field, value) in [("handoff", &args.handoff), ("blockers", &args.blockers)] {
                if let Some(value) = value {
                    check_text(field, value)?;
                }
            }
            board.make_room("summary", 1)?;
            board.completions.push(StepCompletion {
                task_id: self.task_id.clone(),
                workflow_step_id: step.clone(),
                summary,
                handoff: args.handoff,
                blockers: args.blockers,
            });
            Ok(json!({
                "task_id": self.task_id,
                "workflow_step_id": step,
                "status": "completed",
            }))
        })();
        board.commit()?;
        respond(result)
    }
}

#[tool_group(name = "diagnostics", surface = "kanban-task")]
impl Kandev {
    #[tool(
        name = "get_diagnostic_bundle_kandev",
        description = "Gathers a bounded backend and/or frontend diagnostic ZIP into the workspace.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn diagnostics_bundle(
        &self,
        Parameters(args): Parameters<DiagnosticBundle>,
    ) -> ToolResult {
        let mut board = self.store.begin()?;
        let source = args.source.as_str();
        let result = board.make_room("source", 1).map(|()| {
            let path = format!("diagnostics/{source}-{}.zip", board.diagnostics.len() + 1);
            board.diagnostics.push(path.clone());
            json!({ "source": source, "path": path })
        });
        board.commit()?;
        respond(result)
    }
}
