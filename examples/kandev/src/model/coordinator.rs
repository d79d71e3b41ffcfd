//! What a coordinator conversation leaves on the board: its proposals,
//! which wait for a workspace manager's decision and change nothing else,
//! the stall records of tasks, and the ledger of its turns.
//!
//! A coordinator is named by its conversation task's id. Deciding a
//! proposal, detecting a stall and recording a turn happen outside MCP in
//! Kandev; here the demo board seeds them (see [`Board::demo`]).

// Record fields mirror Kandev's and name themselves.
#![allow(missing_docs)]

use chrono::{DateTime, TimeZone, Utc};
use serde::{Deserialize, Serialize};

use super::board::Board;
use super::checks::BadField;

/// Where a proposal stands. Coordinator tools only ever file `pending`
/// ones; a workspace manager decides, or returns it with a reply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProposalStatus {
    Pending,
    Approved,
    Rejected,
    /// Sent back with a reply; a revision names it in `in_reply_to`.
    Returned,
}

impl ProposalStatus {
    /// The status as its JSON says.
    pub fn as_str(self) -> &'static str {
        match self {
            ProposalStatus::Pending => "pending",
            ProposalStatus::Approved => "approved",
            ProposalStatus::Rejected => "rejected",
            ProposalStatus::Returned => "returned",
        }
    }
}

/// One reference backing an improvement: a turn of the coordinator
/// (`{"run_id": ...}`) or a task (`{"task_id": ...}`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Evidence {
    RunId(String),
    TaskId(String),
}

/// What a proposal would do once approved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ProposalSpec {
    Task {
        title: String,
        description: String,
        workflow_id: String,
        /// The step given, or the workflow's start step.
        step_id: String,
        repository_id: Option<String>,
        source_task_id: Option<String>,
        /// The returned proposal this one revises.
        in_reply_to: Option<String>,
    },
    Message {
        task_id: String,
        text: String,
    },
    Move {
        task_id: String,
        /// The step the task was on when proposed.
        from_step_id: String,
        step_id: String,
    },
    Resume {
        task_id: String,
        /// The stopped session that would be resumed.
        session_id: String,
    },
    /// Replacement context text for the coordinator itself.
    Improvement {
        title: String,
        context: String,
        evidence: Vec<Evidence>,
    },
}

impl ProposalSpec {
    /// The proposal's kind, as its JSON `kind` says.
    pub fn kind(&self) -> &'static str {
        match self {
            ProposalSpec::Task { .. } => "task",
            ProposalSpec::Message { .. } => "message",
            ProposalSpec::Move { .. } => "move",
            ProposalSpec::Resume { .. } => "resume",
            ProposalSpec::Improvement { .. } => "improvement",
        }
    }

    /// The existing task a message, move or resume would act on.
    pub fn target_task(&self) -> Option<&str> {
        match self {
            ProposalSpec::Message { task_id, .. }
            | ProposalSpec::Move { task_id, .. }
            | ProposalSpec::Resume { task_id, .. } => Some(task_id),
            ProposalSpec::Task { .. } | ProposalSpec::Improvement { .. } => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Proposal {
    pub id: String,
    /// The coordinator's conversation task.
    pub coordinator_id: String,
    pub status: ProposalStatus,
    pub rationale: Option<String>,
    pub standing_order_ids: Vec<String>,
    pub spec: ProposalSpec,
    /// The manager's reply to a decided or returned proposal.
    pub reply: Option<String>,
    pub created_at: DateTime<Utc>,
    /// Filing order; activity lists the most recent first.
    pub sequence: u64,
}

/// A task that stopped making progress, keyed by the task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stall {
    pub task_id: String,
    pub workflow_step_id: String,
    pub since: DateTime<Utc>,
    pub reason: String,
}

/// What started a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Trigger {
    /// A manager's message.
    Message,
    /// An unattended delivery.
    Wake,
    /// A shadow dream episode.
    Dream,
}

impl Trigger {
    pub const NAMES: &[&str] = &["message", "wake", "dream"];
}

/// What a finished turn came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Acted,
    Proposed,
    NothingNeeded,
    Blocked,
    NeedsYou,
}

impl Verdict {
    pub const NAMES: &[&str] = &[
        "acted",
        "proposed",
        "nothing_needed",
        "blocked",
        "needs_you",
    ];
}

/// One guarded Kandev call of a turn: never its arguments or result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnCall {
    pub action: String,
    pub task_id: Option<String>,
    pub allowed: bool,
}

/// One prompt-to-completion cycle of a coordinator's conversation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    pub id: String,
    pub coordinator_id: String,
    pub trigger: Trigger,
    pub started_at: DateTime<Utc>,
    /// `None` (with `outcome` and `verdict`) while the turn runs.
    pub finished_at: Option<DateTime<Utc>>,
    pub outcome: Option<String>,
    pub verdict: Option<Verdict>,
    pub proposal_ids: Vec<String>,
    pub calls: Vec<TurnCall>,
    /// Breaks ties between turns that started at the same time.
    pub sequence: u64,
}

impl Board {
    /// `coordinator`'s proposal `id`; another coordinator's is not found
    /// either.
    pub fn proposal_of(
        &self,
        field: &'static str,
        coordinator: &str,
        id: &str,
    ) -> Result<&Proposal, BadField> {
        self.coordinator_proposals
            .get(id)
            .filter(|proposal| proposal.coordinator_id == coordinator)
            .ok_or_else(|| BadField::new(field, format!("no proposal `{id}` of this coordinator")))
    }

    /// `coordinator`'s turn `id`; another coordinator's is not found either.
    pub fn turn_of(
        &self,
        field: &'static str,
        coordinator: &str,
        id: &str,
    ) -> Result<&Turn, BadField> {
        self.coordinator_turns
            .get(id)
            .filter(|turn| turn.coordinator_id == coordinator)
            .ok_or_else(|| BadField::new(field, format!("no turn `{id}` of this coordinator")))
    }
}

/// The coordinator whose ledger the demo board seeds: sessions bound to
/// `task-1` find it.
pub(super) const DEMO_COORDINATOR: &str = "task-1";

/// 2026-09-01 at `hour`:`minute` UTC.
fn demo_time(hour: u32, minute: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 9, 1, hour, minute, 0)
        .single()
        .expect("a valid demo time")
}

/// Seeds [`DEMO_COORDINATOR`]'s ledger: an approved message proposal
/// (`proposal-1`), a returned task proposal (`proposal-2`), a stall of
/// `task-3`, and three turns (`turn-1` by message, `turn-2` by wake,
/// `turn-3` still running). Sequences stay below the board's counter, so
/// fresh records sort after them.
pub(super) fn seed(board: &mut Board) {
    let proposal = |id: &str, status, spec, reply: &str, sequence, at| Proposal {
        id: id.into(),
        coordinator_id: DEMO_COORDINATOR.into(),
        status,
        rationale: Some("Keeps the release moving.".into()),
        standing_order_ids: Vec::new(),
        spec,
        reply: Some(reply.into()),
        created_at: at,
        sequence,
    };
    for proposal in [
        proposal(
            "proposal-1",
            ProposalStatus::Approved,
            ProposalSpec::Message {
                task_id: "task-2".into(),
                text: "Please push the registry branch.".into(),
            },
            "Sent.",
            1,
            demo_time(9, 5),
        ),
        proposal(
            "proposal-2",
            ProposalStatus::Returned,
            ProposalSpec::Task {
                title: "Benchmark the registry".into(),
                description: "Measure assembly time per profile.".into(),
                workflow_id: "wf-1".into(),
                step_id: "step-backlog".into(),
                repository_id: Some("repo-1".into()),
                source_task_id: Some("task-2".into()),
                in_reply_to: None,
            },
            "Scope it to the kandev example first.",
            2,
            demo_time(10, 10),
        ),
    ] {
        board
            .coordinator_proposals
            .insert(proposal.id.clone(), proposal);
    }
    board.coordinator_stalls.insert(
        "task-3".into(),
        Stall {
            task_id: "task-3".into(),
            workflow_step_id: "step-backlog".into(),
            since: demo_time(8, 0),
            reason: "No session has started since the task was created.".into(),
        },
    );
    let call = |action: &str, task: &str, allowed| TurnCall {
        action: action.into(),
        task_id: Some(task.into()),
        allowed,
    };
    let turn = |id: &str, trigger, started, finished, verdict, proposals: &[&str], calls| Turn {
        id: id.into(),
        coordinator_id: DEMO_COORDINATOR.into(),
        trigger,
        started_at: started,
        finished_at: finished,
        outcome: finished.map(|_| "completed".into()),
        verdict,
        proposal_ids: proposals.iter().map(|id| (*id).into()).collect(),
        calls,
        sequence: 0,
    };
    for (sequence, turn) in [
        turn(
            "turn-1",
            Trigger::Message,
            demo_time(9, 0),
            Some(demo_time(9, 6)),
            Some(Verdict::Proposed),
            &["proposal-1"],
            vec![
                call("get_task_conversation", "task-2", true),
                call("propose_message", "task-2", true),
            ],
        ),
        turn(
            "turn-2",
            Trigger::Wake,
            demo_time(10, 0),
            Some(demo_time(10, 12)),
            Some(Verdict::Proposed),
            &["proposal-2"],
            vec![
                call("get_coordinator_item", "task-3", true),
                call("propose_task", "task-2", true),
            ],
        ),
        turn(
            "turn-3",
            Trigger::Wake,
            demo_time(11, 0),
            None,
            None,
            &[],
            vec![call("get_task_conversation", "task-3", true)],
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let turn = Turn {
            sequence: sequence as u64 + 1,
            ..turn
        };
        board.coordinator_turns.insert(turn.id.clone(), turn);
    }
}
