//! The setting definitions: which keys exist, what they configure, the
//! values each takes and which hold a secret. Values are checked here, by
//! the definition, before anything is stored.

use serde_json::{Value, json};

use crate::store::{BadField, MAX_NAME_CHARS, MAX_TEXT_CHARS, Object, check_name, check_text};

/// What a setting configures; its targets are records of this kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::tools::configuration) enum ResourceType {
    Workspace,
    Repository,
    AgentProfile,
}

impl ResourceType {
    pub(super) const ALL: [ResourceType; 3] = [
        ResourceType::Workspace,
        ResourceType::Repository,
        ResourceType::AgentProfile,
    ];

    pub(super) fn name(self) -> &'static str {
        match self {
            ResourceType::Workspace => "workspace",
            ResourceType::Repository => "repository",
            ResourceType::AgentProfile => "agent_profile",
        }
    }

    /// The resource type `given` names, or an error against `field`
    /// listing the known ones.
    pub(super) fn parse(field: &'static str, given: &str) -> Result<ResourceType, BadField> {
        ResourceType::ALL
            .into_iter()
            .find(|kind| kind.name() == given.trim())
            .ok_or_else(|| {
                BadField::new(
                    field,
                    format!(
                        "no resource type `{given}`; expected one of: {}",
                        ResourceType::ALL.map(ResourceType::name).join(", ")
                    ),
                )
            })
    }

    /// Where a target of this type keeps its values in `Board::settings`.
    pub(in crate::tools::configuration) fn settings_key(
        self,
        resource_id: &str,
    ) -> (String, String) {
        (self.name().to_owned(), resource_id.to_owned())
    }
}

/// The values a setting takes.
pub(super) enum Kind {
    /// One line of text.
    Line,
    /// Free text over several lines.
    Text,
    Flag,
    Whole {
        min: u64,
        max: u64,
    },
    Choice(&'static [&'static str]),
}

pub(super) struct Definition {
    pub(super) key: &'static str,
    pub(super) domain: &'static str,
    pub(super) resource_type: ResourceType,
    pub(super) kind: Kind,
    /// Never shown once stored: reads say only whether it is set.
    pub(super) sensitive: bool,
    pub(super) summary: &'static str,
}

const fn setting(
    key: &'static str,
    domain: &'static str,
    resource_type: ResourceType,
    kind: Kind,
    summary: &'static str,
) -> Definition {
    Definition {
        key,
        domain,
        resource_type,
        kind,
        sensitive: false,
        summary,
    }
}

const fn secret(
    key: &'static str,
    domain: &'static str,
    resource_type: ResourceType,
    summary: &'static str,
) -> Definition {
    Definition {
        sensitive: true,
        ..setting(key, domain, resource_type, Kind::Line, summary)
    }
}

/// Every setting, grouped by resource type.
pub(super) const DEFINITIONS: &[Definition] = &[
    setting(
        "workspace.max_concurrent_tasks",
        "workspace",
        ResourceType::Workspace,
        Kind::Whole { min: 1, max: 100 },
        "How many of the workspace's tasks may run an agent at once.",
    ),
    setting(
        "workspace.default_workspace_mode",
        "workspace",
        ResourceType::Workspace,
        Kind::Choice(&["inherit_parent", "new_workspace"]),
        "How a subtask's workspace is prepared when create_task_kandev does not say.",
    ),
    setting(
        "workspace.task_title_template",
        "workspace",
        ResourceType::Workspace,
        Kind::Line,
        "The title given to tasks created without one.",
    ),
    secret(
        "integrations.github_token",
        "integrations",
        ResourceType::Workspace,
        "The token the workspace's GitHub calls are made with.",
    ),
    setting(
        "repository.setup_script",
        "repository",
        ResourceType::Repository,
        Kind::Text,
        "A script run in a fresh checkout before the agent starts.",
    ),
    setting(
        "repository.branch_prefix",
        "repository",
        ResourceType::Repository,
        Kind::Line,
        "The prefix of the branches agents create, such as `kandev/`.",
    ),
    setting(
        "agent.reasoning_effort",
        "agents",
        ResourceType::AgentProfile,
        Kind::Choice(&["low", "medium", "high"]),
        "How long the model thinks before it answers.",
    ),
    setting(
        "agent.max_turns",
        "agents",
        ResourceType::AgentProfile,
        Kind::Whole { min: 1, max: 1000 },
        "The most turns one agent session takes before it stops.",
    ),
    setting(
        "agent.web_access",
        "agents",
        ResourceType::AgentProfile,
        Kind::Flag,
        "Whether the agent may fetch pages from the web.",
    ),
    setting(
        "agent.system_prompt",
        "agents",
        ResourceType::AgentProfile,
        Kind::Text,
        "Instructions added to the agent's system prompt.",
    ),
    secret(
        "integrations.model_api_key",
        "integrations",
        ResourceType::AgentProfile,
        "The API key the profile's model provider is called with.",
    ),
];

/// The definition of `key`, or an error against `field`.
pub(super) fn definition(field: &'static str, key: &str) -> Result<&'static Definition, BadField> {
    DEFINITIONS
        .iter()
        .find(|definition| definition.key == key)
        .ok_or_else(|| {
            BadField::new(
                field,
                format!("no setting `{key}`; search_settings_kandev lists them"),
            )
        })
}

/// The definition of `key` if it configures `resource_type` targets.
pub(super) fn definition_for(
    field: &'static str,
    key: &str,
    resource_type: ResourceType,
) -> Result<&'static Definition, BadField> {
    let definition = definition(field, key)?;
    if definition.resource_type != resource_type {
        return Err(BadField::new(
            field,
            format!(
                "`{key}` configures {} targets, not {}",
                definition.resource_type.name(),
                resource_type.name()
            ),
        ));
    }
    Ok(definition)
}

/// Every domain, in definition order, without repeats.
pub(super) fn domains() -> Vec<&'static str> {
    let mut domains: Vec<&str> = Vec::new();
    for definition in DEFINITIONS {
        if !domains.contains(&definition.domain) {
            domains.push(definition.domain);
        }
    }
    domains
}

impl Definition {
    /// Checks `value` for this setting; the error names `field`.
    pub(super) fn check(&self, field: &'static str, value: &Value) -> Result<(), BadField> {
        let wrong = |expected: String| {
            BadField::new(
                field,
                format!("`{}` takes {expected}, not {value}", self.key),
            )
        };
        match (&self.kind, value) {
            (Kind::Line, Value::String(text)) => check_name(field, text),
            (Kind::Text, Value::String(text)) => check_text(field, text),
            (Kind::Flag, Value::Bool(_)) => Ok(()),
            (Kind::Whole { min, max }, Value::Number(number))
                if number.as_u64().is_some_and(|n| (*min..=*max).contains(&n)) =>
            {
                Ok(())
            }
            (Kind::Choice(choices), Value::String(choice))
                if choices.contains(&choice.as_str()) =>
            {
                Ok(())
            }
            (Kind::Line | Kind::Text, _) => Err(wrong("a string".into())),
            (Kind::Flag, _) => Err(wrong("true or false".into())),
            (Kind::Whole { min, max }, _) => {
                Err(wrong(format!("a whole number from {min} to {max}")))
            }
            (Kind::Choice(choices), _) => Err(wrong(format!("one of {}", choices.join(", ")))),
        }
    }

    /// The JSON Schema of this setting's value.
    pub(super) fn schema(&self) -> Value {
        let mut schema = match &self.kind {
            Kind::Line => json!({ "type": "string", "maxLength": MAX_NAME_CHARS }),
            Kind::Text => json!({ "type": "string", "maxLength": MAX_TEXT_CHARS }),
            Kind::Flag => json!({ "type": "boolean" }),
            Kind::Whole { min, max } => {
                json!({ "type": "integer", "minimum": min, "maximum": max })
            }
            Kind::Choice(choices) => json!({ "type": "string", "enum": choices }),
        };
        schema["description"] = json!(self.summary);
        if self.sensitive {
            schema["writeOnly"] = json!(true);
        }
        schema
    }

    /// What search and describe show of the definition (never a value).
    pub(super) fn summary_json(&self) -> Value {
        json!({
            "key": self.key,
            "domain": self.domain,
            "resource_type": self.resource_type.name(),
            "sensitive": self.sensitive,
            "summary": self.summary,
        })
    }

    /// How a stored value reads back: secrets only say that they are set.
    pub(super) fn shown(&self, stored: Option<&Value>) -> Value {
        match stored {
            None => json!({ "key": self.key, "set": false }),
            Some(_) if self.sensitive => json!({ "key": self.key, "set": true, "redacted": true }),
            Some(value) => json!({ "key": self.key, "set": true, "value": value }),
        }
    }
}

/// The schema of a whole settings object for `resource_type` targets: what
/// create_agent_profile_kandev's `settings` takes.
pub(super) fn resource_schema(resource_type: ResourceType) -> Value {
    let properties: Object = DEFINITIONS
        .iter()
        .filter(|definition| definition.resource_type == resource_type)
        .map(|definition| (definition.key.to_owned(), definition.schema()))
        .collect();
    json!({ "type": "object", "properties": properties, "additionalProperties": false })
}

/// Checks a complete settings object for a new `resource_type` record:
/// every key one of its settings, every value valid (no `null`s).
pub(in crate::tools::configuration) fn check_settings(
    field: &'static str,
    resource_type: ResourceType,
    settings: &Object,
) -> Result<(), BadField> {
    for (key, value) in settings {
        let definition = definition_for(field, key, resource_type)?;
        if value.is_null() {
            return Err(BadField::new(
                field,
                format!("`{key}` is null; leave an unset setting out"),
            ));
        }
        definition.check(field, value)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique_and_name_their_domain_or_resource() {
        let mut keys: Vec<&str> = DEFINITIONS.iter().map(|d| d.key).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), DEFINITIONS.len());
        for resource_type in ResourceType::ALL {
            assert!(
                DEFINITIONS.iter().any(|d| d.resource_type == resource_type),
                "{} has no setting",
                resource_type.name()
            );
        }
    }

    #[test]
    fn values_are_checked_by_kind() {
        let turns = definition("key", "agent.max_turns").unwrap();
        assert!(turns.check("changes", &json!(30)).is_ok());
        let error = turns.check("changes", &json!(0)).unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid `changes`: `agent.max_turns` takes a whole number from 1 to 1000, not 0"
        );
        let effort = definition("key", "agent.reasoning_effort").unwrap();
        assert!(effort.check("changes", &json!("high")).is_ok());
        assert!(effort.check("changes", &json!("max")).is_err());
        let script = definition("key", "repository.setup_script").unwrap();
        assert!(script.check("changes", &json!("make\nmake test")).is_ok());
        let prefix = definition("key", "repository.branch_prefix").unwrap();
        assert!(prefix.check("changes", &json!("a\nb")).is_err());
    }

    #[test]
    fn a_secret_reads_back_as_set_and_redacted() {
        let token = definition("key", "integrations.github_token").unwrap();
        assert_eq!(
            token.shown(Some(&json!("ghp_secret"))),
            json!({ "key": "integrations.github_token", "set": true, "redacted": true })
        );
        assert_eq!(token.schema()["writeOnly"], json!(true));
    }

    #[test]
    fn a_settings_object_takes_only_its_resource_types_keys() {
        let ok: Object = serde_json::from_value(json!({ "agent.max_turns": 5 })).unwrap();
        assert!(check_settings("settings", ResourceType::AgentProfile, &ok).is_ok());
        let foreign: Object =
            serde_json::from_value(json!({ "repository.branch_prefix": "x/" })).unwrap();
        let error = check_settings("settings", ResourceType::AgentProfile, &foreign).unwrap_err();
        assert_eq!(error.field, "settings");
        assert!(error.message.contains("repository targets"), "{error}");
        let null: Object = serde_json::from_value(json!({ "agent.max_turns": null })).unwrap();
        assert!(check_settings("settings", ResourceType::AgentProfile, &null).is_err());
    }
}
