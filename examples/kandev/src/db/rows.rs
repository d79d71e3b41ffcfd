//! The board as rows: every record under its collection and key, as the
//! JSON the database keeps. A change is the difference between two row sets,
//! so a call writes only the records it touched.

use std::collections::BTreeMap;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::store::Board;

/// (collection, key) → the record's JSON.
pub(super) type Rows = BTreeMap<(&'static str, String), String>;

/// The collection kept in the `tasks` table rather than in `records`.
pub(super) const TASKS: &str = "tasks";

/// The board's own counter, under `meta`.
const META: &str = "meta";
const SEQUENCE: &str = "sequence";

/// Keys of list records: their position, zero-padded so the database's
/// order is the list's.
fn position_key(index: usize) -> String {
    format!("{index:08}")
}

fn json(value: &impl Serialize) -> String {
    // Only maps with string keys and plain values: serialising cannot fail.
    serde_json::to_string(value).expect("board records serialise to JSON")
}

/// Every record of `board`, tasks included.
pub(super) fn rows_of(board: &Board) -> Rows {
    let mut rows = Rows::new();
    let mut map = |name: &'static str, entries: Vec<(String, String)>| {
        rows.extend(entries.into_iter().map(|(key, body)| ((name, key), body)));
    };
    fn keyed<T: Serialize>(map: &BTreeMap<String, T>) -> Vec<(String, String)> {
        map.iter()
            .map(|(key, value)| (key.clone(), json(value)))
            .collect()
    }
    fn listed<T: Serialize>(list: &[T]) -> Vec<(String, String)> {
        let entries = list.iter().enumerate();
        entries
            .map(|(index, value)| (position_key(index), json(value)))
            .collect()
    }
    map(
        META,
        vec![(SEQUENCE.to_owned(), board.sequence.to_string())],
    );
    map(TASKS, keyed(&board.tasks));
    map("workspaces", keyed(&board.workspaces));
    map("repositories", keyed(&board.repositories));
    map("workflows", keyed(&board.workflows));
    map("steps", keyed(&board.steps));
    map("sessions", keyed(&board.sessions));
    map("messages", listed(&board.messages));
    let edges = board.dependencies.iter();
    map(
        "dependencies",
        edges.map(|edge| (json(edge), "null".to_owned())).collect(),
    );
    map("agents", keyed(&board.agents));
    map("agent_profiles", keyed(&board.agent_profiles));
    map("mcp_configs", keyed(&board.mcp_configs));
    map("executors", keyed(&board.executors));
    map("executor_profiles", keyed(&board.executor_profiles));
    map("plans", keyed(&board.plans));
    let documents = board.documents.iter();
    map(
        "documents",
        documents
            .map(|(key, value)| (json(key), json(value)))
            .collect(),
    );
    map("walkthroughs", keyed(&board.walkthroughs));
    map("reviews", listed(&board.reviews));
    map("questions", keyed(&board.questions));
    map("permissions", listed(&board.permissions));
    map("pr_automation", keyed(&board.pr_automation));
    map("mr_automation", keyed(&board.mr_automation));
    map("decisions", listed(&board.decisions));
    map("completions", listed(&board.completions));
    map("rich_outputs", listed(&board.rich_outputs));
    map("sources", keyed(&board.sources));
    map("diagnostics", listed(&board.diagnostics));
    rows
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
    pub(super) fn into_board(mut self, tasks: Vec<crate::store::Task>) -> Result<Board, BadRow> {
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
            plans: self.keyed("plans")?,
            documents: self.json_keyed("documents")?,
            walkthroughs: self.keyed("walkthroughs")?,
            reviews: self.listed("reviews")?,
            questions: self.keyed("questions")?,
            permissions: self.listed("permissions")?,
            pr_automation: self.keyed("pr_automation")?,
            mr_automation: self.keyed("mr_automation")?,
            decisions: self.listed("decisions")?,
            completions: self.listed("completions")?,
            rich_outputs: self.listed("rich_outputs")?,
            sources: self.keyed("sources")?,
            diagnostics: self.listed("diagnostics")?,
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
mod tests {
    use super::*;

    /// Every collection of the demo board, written as rows and read back,
    /// gives the same rows: nothing is dropped or renamed on the way.
    #[test]
    fn the_demo_board_round_trips() {
        let board = Board::demo();
        let rows = rows_of(&board);
        let tasks = board.tasks.values().cloned().collect();
        let records = rows
            .iter()
            .filter(|((collection, _), _)| *collection != TASKS)
            .map(|((collection, key), body)| (collection.to_string(), key.clone(), body.clone()));
        let read = Records::new(records).into_board(tasks).unwrap();
        assert_eq!(rows_of(&read), rows);
    }

    /// The demo board with a record in every collection it leaves empty.
    fn full_board() -> Board {
        use serde_json::{from_value, json};
        let mut board = Board::demo();
        let task = |extra: serde_json::Value| {
            let mut base = json!({ "task_id": "task-1" });
            base.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            base
        };
        board.messages.push(
            from_value(
                json!({ "id": "m-1", "task_id": "task-1", "session_id": "session-1",
                "kind": "prompt", "text": "go", "delivery_mode": "queued",
                "reply_to_question_id": null, "sequence": 7 }),
            )
            .unwrap(),
        );
        board
            .dependencies
            .insert(("task-2".into(), "task-3".into()));
        board.mcp_configs.insert(
            "profile-1".into(),
            from_value(json!({ "enabled": true, "servers": { "a": {} } })).unwrap(),
        );
        board.walkthroughs.insert(
            "task-1".into(),
            from_value(task(json!({ "title": "Tour", "steps": [{ "file": "a" }] }))).unwrap(),
        );
        board.reviews.push(
            from_value(task(
                json!({ "id": "r-1", "summary": "fine", "findings": [] }),
            ))
            .unwrap(),
        );
        board.questions.insert(
            "q-1".into(),
            from_value(task(
                json!({ "id": "q-1", "asked": "parent", "parent_task_id": "task-1",
                "questions": [{}], "context": null, "status": "pending", "answers": [],
                "reject_reason": null, "sequence": 8 }),
            ))
            .unwrap(),
        );
        board
            .pr_automation
            .insert("task-1".into(), from_value(json!({ "a": 1 })).unwrap());
        board
            .mr_automation
            .insert("task-1".into(), from_value(json!({ "b": 2 })).unwrap());
        board.decisions.push(
            from_value(task(
                json!({ "workflow_step_id": "step-done", "decision": "approve",
                "reason": "ok" }),
            ))
            .unwrap(),
        );
        board.completions.push(
            from_value(task(
                json!({ "workflow_step_id": "step-done", "summary": "done",
                "handoff": null, "blockers": null }),
            ))
            .unwrap(),
        );
        board
            .rich_outputs
            .push(from_value(json!({ "kind": "table" })).unwrap());
        board.sources.insert(
            "task-1".into(),
            vec![from_value(json!({ "path": "/x" })).unwrap()],
        );
        board.diagnostics.push("/tmp/bundle".into());
        board
    }

    /// A board with a record in every collection, written as rows and read
    /// back, gives the same rows: no collection is dropped or renamed.
    #[test]
    fn every_collection_round_trips() {
        let board = full_board();
        let rows = rows_of(&board);
        let collections: std::collections::BTreeSet<&str> =
            rows.keys().map(|(collection, _)| *collection).collect();
        assert_eq!(collections.len(), 27, "{collections:?}");
        let tasks = board.tasks.values().cloned().collect();
        let records = rows
            .iter()
            .filter(|((collection, _), _)| *collection != TASKS)
            .map(|((collection, key), body)| (collection.to_string(), key.clone(), body.clone()));
        let read = Records::new(records).into_board(tasks).unwrap();
        assert_eq!(rows_of(&read), rows);
    }

    #[test]
    fn an_unknown_collection_is_refused() {
        let records = Records::new([("widgets".into(), "w-1".into(), "{}".into())]);
        let Err(error) = records.into_board(Vec::new()) else {
            panic!("a board was read from an unknown collection");
        };
        assert!(
            error.to_string().contains("`widgets` is not a collection"),
            "{error}"
        );
    }
}
