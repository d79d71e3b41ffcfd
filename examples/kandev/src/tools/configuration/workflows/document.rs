//! The portable workflow document: what export_workflow_kandev writes and
//! import_workflow_kandev reads. Steps refer to each other by name in it,
//! never by ID.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::session::{AGENT_PROFILE, SESSION_TARGET, target_step};
use super::steps::PULL_FROM;
use super::{ExportWorkflow, ImportWorkflow};
use crate::store::{
    BadField, Board, MAX_DOCUMENT_BYTES, Object, Workflow, WorkflowStep, check_items, check_name,
    check_text,
};

/// What export_workflow_kandev returns and import_workflow_kandev reads.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct WorkflowDocument {
    workflows: Vec<ExportedWorkflow>,
}

/// One workflow, without IDs.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExportedWorkflow {
    name: String,
    #[serde(default)]
    description: String,
    /// In column order.
    #[serde(default)]
    steps: Vec<ExportedStep>,
}

/// One step, without IDs: the steps it pulls from and sends its work to
/// are named instead.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExportedStep {
    name: String,
    #[serde(default)]
    settings: Object,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pull_from_step: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    session_target_step: Option<String>,
}

pub(super) fn export_workflow(
    board: &Board,
    args: ExportWorkflow,
) -> Result<WorkflowDocument, BadField> {
    let workflow = board.workflow("workflow_id", &args.workflow_id)?;
    let steps = board
        .steps_of(&workflow.id)
        .into_iter()
        .map(|step| {
            let name_of = |id: Option<&str>| Some(board.steps.get(id?)?.name.clone());
            let mut settings = step.settings.clone();
            let pull_from_step = name_of(settings.get(PULL_FROM).and_then(Value::as_str));
            let session_target_step = name_of(target_step(&settings));
            settings.remove(PULL_FROM);
            if session_target_step.is_some() {
                settings.remove(SESSION_TARGET);
            }
            ExportedStep {
                name: step.name.clone(),
                settings,
                pull_from_step,
                session_target_step,
            }
        })
        .collect();
    Ok(WorkflowDocument {
        workflows: vec![ExportedWorkflow {
            name: workflow.name.clone(),
            description: workflow.description.clone(),
            steps,
        }],
    })
}

/// Reads an export: `{"workflows": [...]}`, or a single workflow object.
fn parse_document(document: &str) -> Result<Vec<ExportedWorkflow>, BadField> {
    if document.len() > MAX_DOCUMENT_BYTES {
        return Err(BadField::new(
            "document",
            format!(
                "{} bytes; one call imports at most {MAX_DOCUMENT_BYTES}",
                document.len()
            ),
        ));
    }
    let value: Value = serde_json::from_str(document)
        .map_err(|err| BadField::new("document", format!("not JSON: {err}")))?;
    let workflows = if value.get("workflows").is_some() {
        serde_json::from_value::<WorkflowDocument>(value).map(|document| document.workflows)
    } else {
        serde_json::from_value::<ExportedWorkflow>(value).map(|workflow| vec![workflow])
    }
    .map_err(|err| BadField::new("document", format!("not a workflow export: {err}")))?;
    if workflows.is_empty() {
        return Err(BadField::new("document", "the document holds no workflows"));
    }
    check_items("document", workflows.len())?;
    for workflow in &workflows {
        if workflow.name.trim().is_empty() {
            return Err(BadField::new("document", "a workflow has no name"));
        }
        check_name("document", &workflow.name)?;
        check_text("document", &workflow.description)?;
        check_items("document", workflow.steps.len())?;
        for step in &workflow.steps {
            check_name("document", &step.name)?;
        }
        let mut names = BTreeSet::new();
        for step in &workflow.steps {
            let name = step.name.trim();
            if name.is_empty() {
                return Err(BadField::new(
                    "document",
                    format!("a step of workflow `{}` has no name", workflow.name),
                ));
            }
            if !names.insert(name) {
                return Err(BadField::new(
                    "document",
                    format!("workflow `{}` has two steps named `{name}`", workflow.name),
                ));
            }
        }
        for step in &workflow.steps {
            let sources = [
                ("pulls from", &step.pull_from_step),
                ("sends its work to", &step.session_target_step),
            ];
            for (link, source) in sources {
                if let Some(source) = source
                    && !names.contains(source.trim())
                {
                    return Err(BadField::new(
                        "document",
                        format!(
                            "step `{}` {link} `{source}`, which workflow `{}` does not have",
                            step.name, workflow.name
                        ),
                    ));
                }
            }
        }
    }
    Ok(workflows)
}

pub(super) fn import_workflows(board: &mut Board, args: ImportWorkflow) -> Result<Value, BadField> {
    board.workspace("workspace_id", &args.workspace_id)?;
    let workflows = parse_document(&args.document)?;
    let records = workflows
        .iter()
        .map(|workflow| 1 + workflow.steps.len())
        .sum();
    board.make_room("document", records)?;
    let mut present: BTreeSet<String> = board
        .workflows
        .values()
        .filter(|workflow| workflow.workspace_id == args.workspace_id)
        .map(|workflow| workflow.name.clone())
        .collect();
    let (mut imported, mut skipped) = (Vec::new(), Vec::new());
    for workflow in workflows {
        let name = workflow.name.trim().to_owned();
        if !present.insert(name.clone()) {
            skipped.push(name);
            continue;
        }
        let id = board.next_id("workflow");
        board.workflows.insert(
            id.clone(),
            Workflow {
                id: id.clone(),
                workspace_id: args.workspace_id.clone(),
                name: name.clone(),
                description: workflow.description,
            },
        );
        let mut ids_by_name = BTreeMap::new();
        // (step, settings key, the step it names): linked once all exist.
        let mut links = Vec::new();
        let step_count = workflow.steps.len();
        for (position, step) in workflow.steps.into_iter().enumerate() {
            let step_id = board.next_id("step");
            let step_name = step.name.trim().to_owned();
            let mut settings = step.settings;
            // Step IDs from another board mean nothing here; a profile ID
            // is kept only if this board has that profile.
            settings.remove(PULL_FROM);
            if target_step(&settings).is_some() {
                settings.remove(SESSION_TARGET);
            }
            let profile = settings.get(AGENT_PROFILE).and_then(Value::as_str);
            if !profile.is_some_and(|id| board.agent_profiles.contains_key(id)) {
                settings.remove(AGENT_PROFILE);
            }
            for (key, source) in [
                (PULL_FROM, step.pull_from_step),
                (SESSION_TARGET, step.session_target_step),
            ] {
                if let Some(source) = source {
                    links.push((step_id.clone(), key, source.trim().to_owned()));
                }
            }
            ids_by_name.insert(step_name.clone(), step_id.clone());
            board.steps.insert(
                step_id.clone(),
                WorkflowStep {
                    id: step_id,
                    workflow_id: id.clone(),
                    name: step_name,
                    position: position as u32,
                    settings,
                },
            );
        }
        for (step_id, key, source) in links {
            if let (Some(step), Some(source)) =
                (board.steps.get_mut(&step_id), ids_by_name.get(&source))
            {
                let value = match key {
                    PULL_FROM => json!(source),
                    _ => json!({ "kind": "step", "step_id": source }),
                };
                step.settings.insert(key.to_owned(), value);
            }
        }
        imported.push(json!({ "workflow_id": id, "name": name, "steps": step_count }));
    }
    Ok(json!({ "imported": imported, "skipped": skipped }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::AgentProfile;

    /// The demo workflow with `step-doing` on its own profile and
    /// `step-review` sending its work to `step-doing`'s session.
    fn board_with_targets() -> Board {
        let mut board = Board::demo();
        let doing = &mut board.steps.get_mut("step-doing").unwrap().settings;
        doing.insert(AGENT_PROFILE.into(), json!("profile-1"));
        let review = &mut board.steps.get_mut("step-review").unwrap().settings;
        review.insert(
            SESSION_TARGET.into(),
            json!({ "kind": "step", "step_id": "step-doing" }),
        );
        board
    }

    fn exported(board: &Board) -> Value {
        let workflow_id = "wf-1".to_owned();
        serde_json::to_value(export_workflow(board, ExportWorkflow { workflow_id }).unwrap())
            .unwrap()
    }

    #[test]
    fn an_export_names_the_target_step_instead_of_its_id() {
        let document = exported(&board_with_targets());
        let review = &document["workflows"][0]["steps"][2];
        assert_eq!(review["session_target_step"], "In progress");
        assert!(review["settings"].get(SESSION_TARGET).is_none());
        assert!(!document.to_string().contains("step-doing"));
    }

    #[test]
    fn an_import_links_targets_to_the_new_steps_and_drops_unknown_profiles() {
        let mut board = board_with_targets();
        let mut document = exported(&board);
        document["workflows"][0]["name"] = json!("Delivery copy");
        board.agent_profiles.insert(
            "profile-2".into(),
            AgentProfile {
                id: "profile-2".into(),
                agent_id: "agent-1".into(),
                name: "other".into(),
                model: None,
                auto_approve: false,
            },
        );
        let steps = document["workflows"][0]["steps"].as_array_mut().unwrap();
        steps[0]["settings"][AGENT_PROFILE] = json!("profile-elsewhere");
        steps[3]["settings"][AGENT_PROFILE] = json!("profile-2");
        let answer = import_workflows(
            &mut board,
            ImportWorkflow {
                workspace_id: "ws-1".into(),
                document: document.to_string(),
            },
        )
        .unwrap();
        let workflow_id = answer["imported"][0]["workflow_id"].as_str().unwrap();
        let steps = board.steps_of(workflow_id);
        assert_eq!(target_step(&steps[2].settings), Some(steps[1].id.as_str()));
        assert!(!steps[0].settings.contains_key(AGENT_PROFILE));
        assert_eq!(steps[3].settings[AGENT_PROFILE], "profile-2");
    }

    #[test]
    fn a_target_step_the_workflow_lacks_is_refused() {
        let mut document = exported(&board_with_targets());
        document["workflows"][0]["steps"][2]["session_target_step"] = json!("Nowhere");
        let error = parse_document(&document.to_string()).err().unwrap();
        assert_eq!(error.field, "document");
        assert!(
            error.message.contains("sends its work to `Nowhere`"),
            "{error}"
        );
    }
}
