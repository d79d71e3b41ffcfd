//! What a coordinator conversation leaves on the board: its proposals,
//! which wait for a workspace manager's decision and change nothing else,
//! the stall records of tasks, and the ledger of its turns.
//!
//! A coordinator is named by its conversation task's id. Deciding a
//! proposal, detecting a stall and recording a turn happen outside MCP in
//! Kandev; here the demo board seeds them (`demo_coordinator.rs`).

// Record fields mirror Kandev's and name themselves.
#![allow(missing_docs)]

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

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
