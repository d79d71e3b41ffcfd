use super::*;

const DIGEST: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

fn managed(names: &str) -> String {
    format!(
        r#"{{"surface":"kanban-task","managed_tool_policy":{{"plugin_id":"acme","installation_id":"i-1",
        "workspace_id":"ws-1","instance_key":"k","conversation_revision":1,"approval_revision":2,
        "manifest_digest":"{DIGEST}","agent_tool_names":{names}}}}}"#
    )
}

fn binding(fields: &str) -> String {
    format!(
        r#"{{"surface":"coordinator","coordinator_tool_policy":{{"version":1,"coordinator_id":"c-1",
        "workspace_id":"ws-1","conversation_task_id":"task-1","policy_revision":0{fields}}}}}"#
    )
}

fn error(json: &str) -> String {
    context_from_json(json).unwrap_err().to_string()
}

#[test]
fn a_plain_context_decodes_as_the_library_decodes_it() {
    let context = context_from_json(r#"{"surface":"kanban-task"}"#).unwrap();
    assert_eq!(context, ProfileContext::new(Surface::KanbanTask));
    assert!(error(r#"{"surface":"kanban"}"#).contains("unknown surface `kanban`"));
    assert!(error("[]").contains("object"), "{}", error("[]"));
}

#[test]
fn a_coordinator_binding_becomes_the_coordinator_allow_list() {
    let context = context_from_json(&binding(
        r#","tool_names":["propose_move_kandev","list_tasks_kandev"]"#,
    ))
    .unwrap();
    assert_eq!(
        context.allowed("coordinator"),
        Some(&["list_tasks_kandev", "propose_move_kandev"][..])
    );
}

#[test]
fn bad_bindings_name_what_is_wrong() {
    assert_eq!(
        error(&binding(r#","tool_names":["delete_task_kandev"]"#)),
        "coordinator_tool_policy: `tool_names`: ".to_owned()
            + &ProfileContext::<Kandev>::new(Surface::Coordinator)
                .with_allowed("coordinator", ["delete_task_kandev"])
                .unwrap_err()
                .to_string()
    );
    assert!(error(&binding(r#","tool_names":[],"extra":1"#)).contains("unknown field `extra`"));
    assert!(error(&binding("")).contains("missing field `tool_names`"));
    let wrong_version = binding(r#","tool_names":[]"#).replace(r#""version":1"#, r#""version":2"#);
    assert_eq!(
        error(&wrong_version),
        "coordinator_tool_policy: `version` must be 1, got 2"
    );
    let off_surface = binding(r#","tool_names":[]"#).replace("coordinator\",", "kanban-task\",");
    assert_eq!(
        error(&off_surface),
        "coordinator_tool_policy: binds a session on the `coordinator` surface, and this one is \
         on `kanban-task`"
    );
}

#[test]
fn a_managed_policy_forces_the_surface_and_allows_its_plugin_tools() {
    let context = context_from_json(&managed(r#"["summarise","file_issue"]"#)).unwrap();
    assert_eq!(context.surface(), Surface::ManagedConversation);
    assert_eq!(
        context.runtime_allowed(),
        Some(&["kandev_acme_file_issue", "kandev_acme_summarise"][..])
    );
}

#[test]
fn bad_managed_policies_name_what_is_wrong() {
    assert_eq!(
        error(&managed(r#"["Summarise"]"#)),
        "managed_tool_policy: `agent_tool_names`: \"Summarise\" is not a plugin-local tool name \
         (a lowercase letter or digit, then up to 31 of `a-z`, `0-9`, `_`)"
    );
    assert_eq!(
        error(&managed(r#"["a","a"]"#)),
        "managed_tool_policy: `agent_tool_names`: \"a\" is listed twice"
    );
    let seventeen: Vec<String> = (0..17).map(|i| format!("\"t{i}\"")).collect();
    assert_eq!(
        error(&managed(&format!("[{}]", seventeen.join(",")))),
        "managed_tool_policy: `agent_tool_names` holds 17 names; at most 16"
    );
    assert!(error(&managed("[]").replace(DIGEST, "ABC")).contains("`manifest_digest` must be 64"));
    assert!(
        error(&managed("[]").replace(r#""approval_revision":2"#, r#""approval_revision":0"#))
            .contains("`approval_revision` must not be 0")
    );
}

#[test]
fn a_context_carries_one_policy_at_most() {
    let both = managed("[]").replace(
        "\"managed_tool_policy\"",
        r#""coordinator_tool_policy":{},"managed_tool_policy""#,
    );
    assert_eq!(
        error(&both),
        "coordinator_tool_policy: a context carries a coordinator binding or a managed policy, \
         not both"
    );
}

#[test]
fn a_repeated_field_is_refused_with_or_without_a_policy() {
    let plain = r#"{"surface":"office-task","surface":"external"}"#;
    assert!(
        error(plain).contains("duplicate field `surface`"),
        "{}",
        error(plain)
    );
    let with_policy = binding(r#","tool_names":[]"#).replacen(
        r#""surface":"coordinator""#,
        r#""surface":"coordinator","surface":"external""#,
        1,
    );
    assert!(
        error(&with_policy).contains("duplicate field `surface`"),
        "{}",
        error(&with_policy)
    );
    let twice = binding(r#","tool_names":[]"#).replacen(
        r#""coordinator_tool_policy":{"#,
        r#""coordinator_tool_policy":{},"coordinator_tool_policy":{"#,
        1,
    );
    assert_eq!(error(&twice), "coordinator_tool_policy: given twice");
}

#[test]
fn inside_a_larger_body_the_text_is_decoded_as_written() {
    #[derive(Deserialize)]
    struct Body {
        profile: KandevContext,
    }
    let decode = |json: &str| serde_json::from_str::<Body>(json).map(|body| body.profile.0);
    let message = decode(r#"{"profile":{"surface":"office-task","surface":"external"}}"#)
        .unwrap_err()
        .to_string();
    assert!(message.contains("duplicate field `surface`"), "{message}");
    assert_eq!(
        decode(r#"{"profile":{"surface":"office-task"}}"#).unwrap(),
        ProfileContext::new(Surface::OfficeTask)
    );
}
