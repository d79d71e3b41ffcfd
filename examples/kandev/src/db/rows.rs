//! The board as rows: every record under its collection and key, as the
//! JSON the database keeps. A change is found by comparing the board with
//! its copy as last saved, record by record, so a call serialises and writes
//! only the records it touched.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::model::Board;

/// The board's own counter, under `meta`.
const META: &str = "meta";
const SEQUENCE: &str = "sequence";

/// One row to write.
#[derive(Debug, PartialEq)]
pub(super) enum Change {
    /// Insert or replace a record of `records`.
    Put {
        collection: &'static str,
        key: String,
        body: String,
    },
    /// Delete a record of `records`.
    Delete {
        collection: &'static str,
        key: String,
    },
    /// Insert or replace the task with this id in `tasks`.
    PutTask(String),
    /// Delete the task with this id from `tasks`.
    DeleteTask(String),
}

/// Keys of list records: their position, zero-padded so the database's
/// order is the list's.
fn position_key(index: usize) -> String {
    format!("{index:08}")
}

fn json(value: &impl Serialize) -> String {
    // Only maps with string keys and plain values: serialising cannot fail.
    serde_json::to_string(value).expect("board records serialise to JSON")
}

/// The changes that make `saved` equal `now`, applied to `saved` as they are
/// found. A failed write leaves `saved` ahead of the file, so the caller
/// reads the file again after one.
pub(super) fn sync(saved: &mut Board, now: &Board) -> Vec<Change> {
    let mut changes = Vec::new();
    let out = &mut changes;
    if saved.sequence != now.sequence {
        let body = now.sequence.to_string();
        out.push(put(META, SEQUENCE.to_owned(), body));
        saved.sequence = now.sequence;
    }
    for (id, task) in &now.tasks {
        if saved.tasks.get(id) != Some(task) {
            out.push(Change::PutTask(id.clone()));
            saved.tasks.insert(id.clone(), task.clone());
        }
    }
    let gone: Vec<String> = saved
        .tasks
        .keys()
        .filter(|id| !now.tasks.contains_key(*id))
        .cloned()
        .collect();
    for id in gone {
        saved.tasks.remove(&id);
        out.push(Change::DeleteTask(id));
    }
    let text = |key: &String| key.clone();
    keyed(
        out,
        "workspaces",
        &mut saved.workspaces,
        &now.workspaces,
        text,
    );
    keyed(
        out,
        "repositories",
        &mut saved.repositories,
        &now.repositories,
        text,
    );
    keyed(out, "workflows", &mut saved.workflows, &now.workflows, text);
    keyed(out, "steps", &mut saved.steps, &now.steps, text);
    keyed(out, "sessions", &mut saved.sessions, &now.sessions, text);
    listed(out, "messages", &mut saved.messages, &now.messages);
    edges(out, &mut saved.dependencies, &now.dependencies);
    keyed(out, "agents", &mut saved.agents, &now.agents, text);
    keyed(
        out,
        "agent_profiles",
        &mut saved.agent_profiles,
        &now.agent_profiles,
        text,
    );
    keyed(
        out,
        "mcp_configs",
        &mut saved.mcp_configs,
        &now.mcp_configs,
        text,
    );
    keyed(out, "executors", &mut saved.executors, &now.executors, text);
    let profiles = (&mut saved.executor_profiles, &now.executor_profiles);
    keyed(out, "executor_profiles", profiles.0, profiles.1, text);
    let automations = (&mut saved.automations, &now.automations);
    keyed(out, "automations", automations.0, automations.1, text);
    let prompts = (&mut saved.shared_prompts, &now.shared_prompts);
    keyed(out, "shared_prompts", prompts.0, prompts.1, text);
    keyed(out, "settings", &mut saved.settings, &now.settings, json);
    keyed(out, "plans", &mut saved.plans, &now.plans, text);
    let revisions = (&mut saved.plan_revisions, &now.plan_revisions);
    keyed(out, "plan_revisions", revisions.0, revisions.1, text);
    keyed(out, "documents", &mut saved.documents, &now.documents, json);
    keyed(
        out,
        "walkthroughs",
        &mut saved.walkthroughs,
        &now.walkthroughs,
        text,
    );
    listed(out, "reviews", &mut saved.reviews, &now.reviews);
    keyed(out, "questions", &mut saved.questions, &now.questions, text);
    listed(out, "permissions", &mut saved.permissions, &now.permissions);
    let links = (&mut saved.change_requests, &now.change_requests);
    keyed(out, "change_requests", links.0, links.1, json);
    let prompts = (&mut saved.auto_fix_prompts, &now.auto_fix_prompts);
    keyed(out, "auto_fix_prompts", prompts.0, prompts.1, json);
    let outcomes = (&mut saved.auto_fix_outcomes, &now.auto_fix_outcomes);
    listed(out, "auto_fix_outcomes", outcomes.0, outcomes.1);
    keyed(out, "canvases", &mut saved.canvases, &now.canvases, text);
    listed(out, "completions", &mut saved.completions, &now.completions);
    listed(
        out,
        "rich_outputs",
        &mut saved.rich_outputs,
        &now.rich_outputs,
    );
    keyed(out, "sources", &mut saved.sources, &now.sources, text);
    listed(out, "diagnostics", &mut saved.diagnostics, &now.diagnostics);
    let proposals = (&mut saved.coordinator_proposals, &now.coordinator_proposals);
    keyed(out, "coordinator_proposals", proposals.0, proposals.1, text);
    let stalls = (&mut saved.coordinator_stalls, &now.coordinator_stalls);
    keyed(out, "coordinator_stalls", stalls.0, stalls.1, text);
    let turns = (&mut saved.coordinator_turns, &now.coordinator_turns);
    keyed(out, "coordinator_turns", turns.0, turns.1, text);
    changes
}

fn put(collection: &'static str, key: String, body: String) -> Change {
    Change::Put {
        collection,
        key,
        body,
    }
}

fn keyed<K: Ord + Clone, T: PartialEq + Clone + Serialize>(
    out: &mut Vec<Change>,
    collection: &'static str,
    saved: &mut BTreeMap<K, T>,
    now: &BTreeMap<K, T>,
    key_text: impl Fn(&K) -> String,
) {
    for (key, value) in now {
        if saved.get(key) != Some(value) {
            out.push(put(collection, key_text(key), json(value)));
            saved.insert(key.clone(), value.clone());
        }
    }
    let gone: Vec<K> = saved
        .keys()
        .filter(|key| !now.contains_key(*key))
        .cloned()
        .collect();
    for key in gone {
        out.push(Change::Delete {
            collection,
            key: key_text(&key),
        });
        saved.remove(&key);
    }
}

fn listed<T: PartialEq + Clone + Serialize>(
    out: &mut Vec<Change>,
    collection: &'static str,
    saved: &mut Vec<T>,
    now: &[T],
) {
    for (index, value) in now.iter().enumerate() {
        if saved.get(index) != Some(value) {
            out.push(put(collection, position_key(index), json(value)));
            match saved.get_mut(index) {
                Some(slot) => *slot = value.clone(),
                None => saved.push(value.clone()),
            }
        }
    }
    for index in now.len()..saved.len() {
        out.push(Change::Delete {
            collection,
            key: position_key(index),
        });
    }
    saved.truncate(now.len());
}

/// Dependency edges: the edge itself is the key.
fn edges(
    out: &mut Vec<Change>,
    saved: &mut BTreeSet<(String, String)>,
    now: &BTreeSet<(String, String)>,
) {
    for edge in now.difference(saved) {
        out.push(put("dependencies", json(edge), "null".to_owned()));
    }
    for edge in saved.difference(now) {
        out.push(Change::Delete {
            collection: "dependencies",
            key: json(edge),
        });
    }
    if saved != now {
        saved.clone_from(now);
    }
}

/// A record the database holds that this build cannot read.
#[derive(Debug)]
pub struct BadRow {
    /// Its collection.
    pub collection: String,
    /// Its key.
    pub key: String,
    /// Why it cannot be read.
    pub message: String,
}

impl std::fmt::Display for BadRow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Self {
            collection,
            key,
            message,
        } = self;
        write!(
            f,
            "record `{key}` of `{collection}` cannot be read: {message}"
        )
    }
}

/// The `records` table, by collection, being read back into a board.
pub(super) struct Records(BTreeMap<String, Vec<(String, String)>>);

impl Records {
    pub(super) fn new(rows: impl IntoIterator<Item = (String, String, String)>) -> Self {
        let mut records: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
        for (collection, key, body) in rows {
            records.entry(collection).or_default().push((key, body));
        }
        Records(records)
    }

    fn take<K: DeserializeOwned + Ord, T: DeserializeOwned>(
        &mut self,
        name: &str,
        key_of: impl Fn(&str) -> Result<K, String>,
    ) -> Result<BTreeMap<K, T>, BadRow> {
        let rows = self.0.remove(name).unwrap_or_default();
        rows.into_iter()
            .map(|(key, body)| {
                let bad = |message: String| BadRow {
                    collection: name.to_owned(),
                    key: key.clone(),
                    message,
                };
                let value = serde_json::from_str(&body).map_err(|e| bad(e.to_string()))?;
                Ok((key_of(&key).map_err(bad)?, value))
            })
            .collect()
    }

    fn keyed<T: DeserializeOwned>(&mut self, name: &str) -> Result<BTreeMap<String, T>, BadRow> {
        self.take(name, |key| Ok(key.to_owned()))
    }

    fn json_keyed<K: DeserializeOwned + Ord, T: DeserializeOwned>(
        &mut self,
        name: &str,
    ) -> Result<BTreeMap<K, T>, BadRow> {
        self.take(name, |key| {
            serde_json::from_str(key).map_err(|e| e.to_string())
        })
    }

    fn listed<T: DeserializeOwned>(&mut self, name: &str) -> Result<Vec<T>, BadRow> {
        let entries = self.take(name, |key| {
            key.parse::<usize>()
                .map_err(|_| "not a list position".to_owned())
        })?;
        // Positions are contiguous from 0 whenever we wrote them.
        if let Some((index, _)) = entries.keys().enumerate().find(|(i, key)| i != *key) {
            return Err(BadRow {
                collection: name.to_owned(),
                key: position_key(index),
                message: "missing: list positions must run from 0 without a gap".into(),
            });
        }
        Ok(entries.into_values().collect())
    }

    /// The board these records and `tasks` make; a collection this build
    /// does not know is refused, never dropped.
    pub(super) fn into_board(mut self, tasks: Vec<crate::model::Task>) -> Result<Board, BadRow> {
        let meta: BTreeMap<String, u64> = self.keyed(META)?;
        let mut board = Board {
            sequence: meta.get(SEQUENCE).copied().unwrap_or_default(),
            tasks: tasks
                .into_iter()
                .map(|task| (task.id.clone(), task))
                .collect(),
            workspaces: self.keyed("workspaces")?,
            repositories: self.keyed("repositories")?,
            workflows: self.keyed("workflows")?,
            steps: self.keyed("steps")?,
            sessions: self.keyed("sessions")?,
            messages: self.listed("messages")?,
            dependencies: Default::default(),
            agents: self.keyed("agents")?,
            agent_profiles: self.keyed("agent_profiles")?,
            mcp_configs: self.keyed("mcp_configs")?,
            executors: self.keyed("executors")?,
            executor_profiles: self.keyed("executor_profiles")?,
            automations: self.keyed("automations")?,
            shared_prompts: self.keyed("shared_prompts")?,
            settings: self.json_keyed("settings")?,
            plans: self.keyed("plans")?,
            plan_revisions: self.keyed("plan_revisions")?,
            documents: self.json_keyed("documents")?,
            walkthroughs: self.keyed("walkthroughs")?,
            reviews: self.listed("reviews")?,
            questions: self.keyed("questions")?,
            permissions: self.listed("permissions")?,
            change_requests: self.json_keyed("change_requests")?,
            auto_fix_prompts: self.json_keyed("auto_fix_prompts")?,
            auto_fix_outcomes: self.listed("auto_fix_outcomes")?,
            canvases: self.keyed("canvases")?,
            completions: self.listed("completions")?,
            rich_outputs: self.listed("rich_outputs")?,
            sources: self.keyed("sources")?,
            diagnostics: self.listed("diagnostics")?,
            coordinator_proposals: self.keyed("coordinator_proposals")?,
            coordinator_stalls: self.keyed("coordinator_stalls")?,
            coordinator_turns: self.keyed("coordinator_turns")?,
        };
        let edges: BTreeMap<(String, String), serde_json::Value> =
            self.json_keyed("dependencies")?;
        board.dependencies = edges.into_keys().collect();
        if let Some((collection, rows)) = self.0.into_iter().next() {
            return Err(BadRow {
                collection: collection.clone(),
                key: rows.first().map(|(key, _)| key.clone()).unwrap_or_default(),
                message: format!("`{collection}` is not a collection this build knows"),
            });
        }
        Ok(board)
    }
}

#[cfg(test)]
#[path = "rows_tests.rs"]
mod tests;
