//! The settings tools' work over a demo board.

use serde_json::{from_value, json};

use super::registry::DEFINITIONS;
use super::*;

fn target(resource_type: &str, resource_id: &str) -> SettingsTarget {
    SettingsTarget {
        resource_type: resource_type.into(),
        resource_id: Some(resource_id.into()),
        workspace_id: None,
    }
}

fn changes(value: Value) -> Object {
    from_value(value).unwrap()
}

fn update(board: &mut Board, resource_id: &str, value: Value) -> Result<Value, BadField> {
    update_settings(
        board,
        UpdateSettings {
            target: target("agent_profile", resource_id),
            changes: changes(value),
            options: None,
        },
    )
}

#[test]
fn search_pages_through_the_definitions() {
    let search = |limit, cursor: Option<&str>| {
        search_settings(SearchSettings {
            query: None,
            domain: None,
            resource_type: None,
            limit,
            cursor: cursor.map(Into::into),
        })
        .unwrap()
    };
    let first = search(Some(4), None);
    assert_eq!(first["items"].as_array().unwrap().len(), 4);
    assert_eq!(first["total"], DEFINITIONS.len());
    let second = search(Some(50), first["next_cursor"].as_str());
    assert_eq!(
        second["items"].as_array().unwrap().len(),
        DEFINITIONS.len() - 4
    );
    assert_eq!(second["next_cursor"], Value::Null);
    let bad = search_settings(SearchSettings {
        query: None,
        domain: None,
        resource_type: None,
        limit: None,
        cursor: Some("999".into()),
    });
    assert_eq!(bad.unwrap_err().field, "cursor");
}

#[test]
fn search_filters_by_text_domain_and_resource_type() {
    let found = search_settings(SearchSettings {
        query: Some("TOKEN".into()),
        domain: Some("integrations".into()),
        resource_type: Some("workspace".into()),
        limit: None,
        cursor: None,
    })
    .unwrap();
    assert_eq!(
        found["items"],
        json!([{
            "key": "integrations.github_token",
            "domain": "integrations",
            "resource_type": "workspace",
            "sensitive": true,
            "summary": "The token the workspace's GitHub calls are made with.",
        }])
    );
    let unknown = search_settings(SearchSettings {
        query: None,
        domain: Some("billing".into()),
        resource_type: None,
        limit: None,
        cursor: None,
    });
    assert_eq!(unknown.unwrap_err().field, "domain");
}

#[test]
fn an_update_is_checked_whole_before_anything_is_written() {
    let mut board = Board::demo();
    let before = board.clone();
    let error = update(
        &mut board,
        "profile-1",
        json!({ "agent.max_turns": 10, "agent.reasoning_effort": "extreme" }),
    )
    .unwrap_err();
    assert_eq!(error.field, "changes");
    assert!(error.message.contains("agent.reasoning_effort"), "{error}");
    assert!(board == before, "a refused update changed the board");

    update(&mut board, "profile-1", json!({ "agent.max_turns": 10 })).unwrap();
    let key = ("agent_profile".to_owned(), "profile-1".to_owned());
    assert_eq!(board.settings[&key]["agent.max_turns"], json!(10));
    // Unsetting the last value leaves no empty record behind.
    update(&mut board, "profile-1", json!({ "agent.max_turns": null })).unwrap();
    assert!(!board.settings.contains_key(&key));
}

#[test]
fn a_dry_run_writes_nothing_and_unknown_options_are_refused() {
    let mut board = Board::demo();
    let before = board.clone();
    let options = |value| Some(changes(value));
    let answer = update_settings(
        &mut board,
        UpdateSettings {
            target: target("repository", "repo-1"),
            changes: changes(json!({ "repository.branch_prefix": "kandev/" })),
            options: options(json!({ "dry_run": true })),
        },
    )
    .unwrap();
    assert_eq!(answer["settings"][0]["value"], "kandev/");
    assert!(board == before);
    let refused = update_settings(
        &mut board,
        UpdateSettings {
            target: target("repository", "repo-1"),
            changes: changes(json!({ "repository.branch_prefix": "kandev/" })),
            options: options(json!({ "force": true })),
        },
    );
    assert_eq!(refused.unwrap_err().field, "options");
}

#[test]
fn a_secret_is_stored_but_never_read_back() {
    let mut board = Board::demo();
    update(
        &mut board,
        "profile-1",
        json!({ "integrations.model_api_key": "sk-secret" }),
    )
    .unwrap();
    let read = get_settings(
        &board,
        GetSettings {
            target: target("agent_profile", "profile-1"),
            keys: vec![
                "integrations.model_api_key".into(),
                "agent.max_turns".into(),
            ],
        },
    )
    .unwrap();
    assert_eq!(
        read["settings"],
        json!([
            { "key": "integrations.model_api_key", "set": true, "redacted": true },
            { "key": "agent.max_turns", "set": false },
        ])
    );
    assert!(!read.to_string().contains("sk-secret"));
}

#[test]
fn keys_must_belong_to_the_target_type_once_each() {
    let board = Board::demo();
    let get = |keys: &[&str]| {
        get_settings(
            &board,
            GetSettings {
                target: target("workspace", "ws-1"),
                keys: keys.iter().map(|key| key.to_string()).collect(),
            },
        )
        .unwrap_err()
    };
    assert!(
        get(&["agent.max_turns"])
            .message
            .contains("agent_profile targets")
    );
    assert!(
        get(&["workspace.max_concurrent_tasks"; 2])
            .message
            .contains("twice")
    );
    assert_eq!(get(&[]).field, "keys");
}

#[test]
fn describe_judges_the_operation_for_the_callers_workspace() {
    let board = Board::demo();
    let describe = |operation, context: Value| {
        describe_setting(
            &board,
            DescribeSetting {
                key: "repository.setup_script".into(),
                target: Some(target("repository", "repo-1")),
                context: Some(changes(context)),
                operation: Some(operation),
                include_resource_schema: Some(true),
            },
        )
        .unwrap()
    };
    let update = describe(Operation::Update, json!({ "workspace_id": "ws-1" }));
    assert_eq!(update["authority"]["allowed"], true);
    assert_eq!(
        update["current"],
        json!({ "key": "repository.setup_script", "set": false })
    );
    let properties = update["resource_schema"]["properties"].as_object().unwrap();
    assert!(properties.contains_key("repository.branch_prefix"));
    let create = describe(Operation::Create, json!({}));
    assert_eq!(create["authority"]["allowed"], false);
    let wrong_context = describe_setting(
        &board,
        DescribeSetting {
            key: "repository.setup_script".into(),
            target: None,
            context: Some(changes(json!({ "team": "x" }))),
            operation: None,
            include_resource_schema: None,
        },
    );
    assert_eq!(wrong_context.unwrap_err().field, "context");
}

#[test]
fn resources_are_listed_by_type_and_text() {
    let board = Board::demo();
    let list = |resource_type: &str, query: Option<&str>| {
        list_settings_resources(
            &board,
            ListSettingsResources {
                resource_type: resource_type.into(),
                workspace_id: None,
                query: query.map(Into::into),
                limit: None,
                cursor: None,
            },
        )
    };
    let profiles = list("agent_profile", Some("DEFAULT")).unwrap();
    assert_eq!(profiles["items"][0]["resource_id"], "profile-1");
    assert_eq!(list("agent_profile", Some("nothing")).unwrap()["total"], 0);
    assert_eq!(list("team", None).unwrap_err().field, "resource_type");
}
