//! The demo coordinator's ledger, part of the demo board.

use chrono::{DateTime, TimeZone, Utc};

use super::board::Board;
use super::coordinator::*;

/// The coordinator whose ledger the demo board seeds: sessions bound to
/// `task-1` find it.
const DEMO_COORDINATOR: &str = "task-1";

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
