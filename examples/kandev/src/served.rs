//! One stored task served by this process: the profile its row resolves to
//! at launch (and on resume: the row is read again), and the live changes
//! the control API makes to it, saved first and then applied.

use std::fmt;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_profiles::{ProfileContext, Replacement};
use mcp_profiles_serve::MemoryStore;
use mcp_profiles_serve::audit::states::{changed, compiled_tools, profile_put};
use mcp_profiles_serve::audit::{Attribution, AuditEntry, AuditKind};
use serde_json::json;

use crate::db::DbError;
use crate::resolver::{Launch, resolve};
use crate::server::{Kandev, Provider};
use crate::store::{BadField, Board, BoardGuard, Store, Task, TaskState, check_name};
use crate::tool_policies::{
    COORDINATOR_METADATA_KEY, MANAGED_METADATA_KEY, TaskToolPolicy, ToolPolicyError,
};

/// Why a stored task could not be served or changed.
#[derive(Debug)]
pub enum TaskError {
    /// No task has this id.
    NoTask(String),
    /// A value names nothing or is malformed.
    Bad(BadField),
    /// The database failed; nothing changed.
    Db(DbError),
}

/// The served task's agent is gone (the control API cannot delete it).
impl From<mcp_profiles_serve::UnknownPrincipal> for TaskError {
    fn from(error: mcp_profiles_serve::UnknownPrincipal) -> Self {
        TaskError::NoTask(error.principal().to_owned())
    }
}

impl fmt::Display for TaskError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TaskError::NoTask(id) => write!(f, "no task `{id}`"),
            TaskError::Bad(field) => write!(f, "{field}"),
            TaskError::Db(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for TaskError {}

impl From<DbError> for TaskError {
    fn from(error: DbError) -> Self {
        TaskError::Db(error)
    }
}

impl From<BadField> for TaskError {
    fn from(error: BadField) -> Self {
        TaskError::Bad(error)
    }
}

/// A saved change to a task: its state now and, when it is the served task,
/// the replacement of the live profile (one `list_changed` per session if
/// the tool set changed).
pub struct TaskChange {
    /// The task as saved.
    pub task: TaskState,
    /// Whether it is the task this process serves.
    pub live: bool,
    /// The live profile's replacement; `None` for a task this process does
    /// not serve, or a change that leaves its profile as it was.
    pub replacement: Option<Replacement<Kandev>>,
}

/// The stored task one `serve` process serves, and how it was launched.
pub struct ServedTask {
    store: Arc<Store>,
    task_id: String,
    launch: Launch,
    /// The task's state the live profile was last resolved from.
    resolved: Mutex<Option<TaskState>>,
}

impl ServedTask {
    /// Opens the database at `path` and checks that `task_id` is a task
    /// and the launch's session, if any, one of its sessions.
    pub fn open(path: &Path, task_id: &str, launch: Launch) -> Result<ServedTask, TaskError> {
        let store = Arc::new(Store::open(path)?);
        {
            let board = store.begin()?;
            stored_task(&board, task_id).map_err(|_| {
                let message = format!("database `{}` has no task `{task_id}`", path.display());
                BadField::new("--task", message)
            })?;
            if let Some(session) = &launch.session {
                session_of(&board, "--session", task_id, session)?;
            }
        }
        Ok(ServedTask {
            store,
            task_id: task_id.to_owned(),
            launch,
            resolved: Mutex::new(None),
        })
    }

    /// The board, shared with the MCP sessions.
    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// The served task's id.
    pub fn task_id(&self) -> &str {
        &self.task_id
    }

    /// The profile the task's row resolves to now, with `providers`.
    pub fn resolve(&self, providers: Vec<Provider>) -> Result<ProfileContext<Kandev>, TaskError> {
        let board = self.store.begin()?;
        let task = stored_task(&board, &self.task_id)?;
        self.note(task);
        Ok(self.profile_of(task, providers)?)
    }

    /// What a session of `task` as stored gets, with `providers`: its row
    /// resolved, then its tool policy (a coordinator binding or a managed
    /// policy in its metadata) applied. A policy that does not validate is
    /// an error: the launch is refused rather than unrestricted.
    fn profile_of(
        &self,
        task: &Task,
        providers: Vec<Provider>,
    ) -> Result<ProfileContext<Kandev>, BadField> {
        let resolved = resolve(&self.launch.facts(task, providers));
        let bad = |error: ToolPolicyError| BadField::new("metadata", error.to_string());
        match TaskToolPolicy::from_metadata(&task.metadata).map_err(bad)? {
            Some(policy) => policy.apply(resolved).map_err(bad),
            None => Ok(resolved),
        }
    }

    /// Records on `board` the library's `profile-put` of the served task's
    /// live profile moving from `version`, so the trail tells every
    /// version.
    fn record_move(
        &self,
        board: &mut BoardGuard<'_>,
        by: &Attribution,
        (current, next): (&ProfileContext<Kandev>, &ProfileContext<Kandev>),
        version: u64,
    ) -> Result<(), DbError> {
        let put = profile_put(
            by,
            &self.task_id,
            Some((current, version)),
            (next, version + 1),
        );
        board.audit(put).map(drop)
    }

    fn note(&self, task: &Task) {
        *self.resolved.lock().unwrap_or_else(|e| e.into_inner()) = Some(TaskState::from(task));
    }

    /// Follows changes other processes save to the served task: every
    /// `period`, if the file changed and the task's state with it, the live
    /// profile is re-resolved (one `list_changed` if the tool set changed).
    /// Runs until the returned task is aborted.
    pub fn follow(
        self: &Arc<Self>,
        agents: Arc<MemoryStore<Kandev>>,
        period: Duration,
    ) -> tokio::task::JoinHandle<()> {
        let served = Arc::clone(self);
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(period);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticks.tick().await;
                let (served, agents) = (Arc::clone(&served), Arc::clone(&agents));
                let followed = tokio::task::spawn_blocking(move || served.catch_up(&agents));
                if let Ok(Err(error)) = followed.await {
                    tracing::error!("following the served task: {error}");
                }
            }
        })
    }

    /// Re-resolves the live profile if another process changed the task.
    fn catch_up(&self, agents: &MemoryStore<Kandev>) -> Result<(), TaskError> {
        // Whoever read the file again (this check or a tool call), the
        // board in memory is now current.
        self.store.refresh()?;
        let state = self
            .store
            .peek(|board| board.tasks.get(&self.task_id).map(TaskState::from));
        let resolved = self
            .resolved
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        // A deleted task leaves the live profile as it was.
        if state.is_none() || state == resolved {
            return Ok(());
        }
        // Replaced in the order of the store's recorded changes, the board
        // held: a change saved after it cannot be put in force before it.
        agents.change_agent(&self.task_id, |current, version| {
            let mut board = self.store.begin()?;
            let Some(task) = board.tasks.get(&self.task_id).cloned() else {
                return Ok(None);
            };
            // A stored policy that no longer validates (written around this
            // server) leaves the live profile as it was, and says so.
            self.note(&task);
            let providers = current.providers().collect();
            let next = self
                .profile_of(&task, providers)?
                .with_policy(current.policy());
            if next == current {
                return Ok(None);
            }
            let by = Attribution::new("kandev-mcp-serve", format!("follow-{}", std::process::id()))
                .expect("a well-formed attribution");
            self.record_move(&mut board, &by, (&current, &next), version)?;
            board.commit()?;
            Ok::<_, TaskError>(Some(next))
        })?;
        Ok(())
    }

    /// Saves `policy` in task `task_id`'s metadata (replacing either
    /// policy it had; `None` clears both), checked in full first;
    /// re-resolves as [`set_autopilot`](Self::set_autopilot) does.
    pub fn set_tool_policy(
        &self,
        agents: &MemoryStore<Kandev>,
        by: &Attribution,
        task_id: &str,
        policy: Option<TaskToolPolicy>,
    ) -> Result<TaskChange, TaskError> {
        let change = Change::new("task-tool-policy", by, task_id);
        self.change(agents, change, |_, task| {
            task.metadata.remove(COORDINATOR_METADATA_KEY);
            task.metadata.remove(MANAGED_METADATA_KEY);
            if let Some(policy) = &policy {
                let (key, value) = policy.metadata_entry();
                task.metadata.insert(key.to_owned(), value);
            }
            Ok(())
        })
    }

    /// Saves `autopilot` on task `task_id`; if this process serves it,
    /// re-resolves its live profile (keeping the attached providers).
    pub fn set_autopilot(
        &self,
        agents: &MemoryStore<Kandev>,
        by: &Attribution,
        task_id: &str,
        autopilot: bool,
    ) -> Result<TaskChange, TaskError> {
        let change = Change::new("task-autopilot", by, task_id);
        self.change(agents, change, |_, task| {
            task.autopilot = autopilot;
            Ok(())
        })
    }

    /// Saves `session` (one of the task's sessions) as the owner of task
    /// `task_id`'s title, or no owner; re-resolves as
    /// [`set_autopilot`](Self::set_autopilot) does.
    pub fn set_title_owner(
        &self,
        agents: &MemoryStore<Kandev>,
        by: &Attribution,
        task_id: &str,
        session: Option<String>,
    ) -> Result<TaskChange, TaskError> {
        let change = Change::new("task-title-owner", by, task_id);
        self.change(agents, change, |board, task| {
            if let Some(session) = &session {
                session_of(board, "session", &task.id, session)?;
            }
            task.title_owner_session = session;
            Ok(())
        })
    }

    /// Edits the stored task and, if this process serves it, works out the
    /// live profile its saved row resolves to; records the change in the
    /// audit trail and commits both in one transaction; and only then,
    /// still holding the board (so concurrent changes apply in the order
    /// they were saved), replaces the live profile. A flip to the value
    /// held records nothing. A task whose stored
    /// tool policy no longer validates, or a record that cannot be saved,
    /// refuses the change: nothing is saved, nothing replaced.
    fn change(
        &self,
        agents: &MemoryStore<Kandev>,
        change: Change<'_>,
        edit: impl FnOnce(&Board, &mut Task) -> Result<(), BadField>,
    ) -> Result<TaskChange, TaskError> {
        let served = change.task_id == self.task_id;
        let mut saved = None;
        // The store holds back its own changes of the agent meanwhile, so
        // the live profile moves in the order the changes were saved.
        let made = agents.change_agent(&self.task_id, |current, version| {
            let mut board = self.store.begin()?;
            let before = stored_task(&board, change.task_id)?.clone();
            let mut task = before.clone();
            edit(&board, &mut task)?;
            let live = served
                .then(|| {
                    let providers = current.providers().collect();
                    let next = self.profile_of(&task, providers)?;
                    Ok::<_, BadField>((current, next.with_policy(current.policy())))
                })
                .transpose()?;
            // A flip to the value held, which moves no live profile either,
            // changes nothing and records nothing.
            let moved = TaskState::from(&before) != TaskState::from(&task)
                || live.is_some_and(|(current, next)| current != next);
            if moved {
                board.audit(change.entry(&before, &task, live.as_ref()))?;
            }
            // The live profile moves: the library's record too, at the
            // version it makes, so the trail tells every version.
            let next = live.filter(|(current, next)| current != next);
            if let Some((current, next)) = &next {
                self.record_move(&mut board, change.by, (current, next), version)?;
            }
            board.tasks.insert(task.id.clone(), task.clone());
            board.commit()?;
            if live.is_some() {
                self.note(&task);
            }
            saved = Some(TaskState::from(&task));
            Ok::<_, TaskError>(next.map(|(_, next)| next))
        });
        let replacement = made?;
        Ok(TaskChange {
            task: saved.expect("saved when the change was made"),
            live: served,
            replacement,
        })
    }
}

/// A task change as the audit trail records it: its kind, who asked and
/// which task.
struct Change<'a> {
    kind: &'static str,
    by: &'a Attribution,
    task_id: &'a str,
}

impl<'a> Change<'a> {
    fn new(kind: &'static str, by: &'a Attribution, task_id: &'a str) -> Self {
        Change { kind, by, task_id }
    }

    /// The record of `before` becoming `after`, with the live profile's
    /// change (`(current, next)`) when this process serves the task.
    fn entry(
        &self,
        before: &Task,
        after: &Task,
        live: Option<&(ProfileContext<Kandev>, ProfileContext<Kandev>)>,
    ) -> AuditEntry {
        let kind = AuditKind::application(self.kind).expect("the task kinds are well formed");
        let state = |task: &Task, context: Option<&ProfileContext<Kandev>>| {
            let mut state = json!({ "task": TaskState::from(task) });
            if let Some(context) = context {
                state["context"] = json!(context);
            }
            state
        };
        let (added, removed) = live.map_or_else(Default::default, |(current, next)| {
            changed(&compiled_tools(current), &compiled_tools(next))
        });
        AuditEntry::new(self.by, kind, Some(self.task_id))
            .with_before(state(before, live.map(|(current, _)| current)))
            .with_after(state(after, live.map(|(_, next)| next)))
            .with_tools(added, removed)
    }
}

fn stored_task<'a>(board: &'a Board, task_id: &str) -> Result<&'a Task, TaskError> {
    board
        .tasks
        .get(task_id)
        .ok_or_else(|| TaskError::NoTask(task_id.to_owned()))
}

/// Checks that `session` is one of task `task_id`'s sessions.
fn session_of(
    board: &Board,
    field: &'static str,
    task_id: &str,
    session: &str,
) -> Result<(), BadField> {
    check_name(field, session)?;
    match board.sessions.get(session) {
        Some(found) if found.task_id == task_id => Ok(()),
        Some(found) => Err(BadField::new(
            field,
            format!(
                "session `{session}` belongs to task `{}`, not `{task_id}`",
                found.task_id
            ),
        )),
        None => Err(BadField::missing(field, "session", session)),
    }
}
