//! How each call of the load is judged against its principal's changes:
//! right, wrong (on the instance that made the change in force, or on
//! another), in flight, lost.

use std::time::{Duration, Instant};

/// One profile change of one principal, as the churn driver saw it.
#[derive(Clone, Debug)]
pub struct Change {
    pub sent: Instant,
    /// When the control API answered 200; `None` if it refused or failed
    /// (the change may or may not have been made).
    pub acked: Option<Instant>,
    /// Index into the bench's `PROFILES` (0: the tool is in it).
    pub profile: usize,
    /// The instance whose control API made it.
    pub instance: usize,
}

/// How a call was answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Served,
    Refused,
    OtherError(i64),
    Lost,
}

/// One call, as its session saw it.
pub struct Call {
    pub principal: u32,
    pub instance: u8,
    pub sent: Instant,
    pub answered: Instant,
    pub kind: Kind,
}

/// The consistency counts of every call against its principal's changes.
#[derive(Debug, Default)]
pub struct Verdicts {
    /// Right answers on the instance that made the change in force.
    pub right_same: usize,
    pub right: usize,
    pub wrong_same: usize,
    pub wrong_other: usize,
    pub in_flight: usize,
    pub lost: usize,
    pub other_errors: usize,
    /// For each wrong answer on another instance: call sent − change acked.
    pub wrong_other_after_ack: Vec<Duration>,
}

/// Judges every call; see the bench's docs for the rules.
pub fn judge(calls: &[Call], changes: &[Vec<Change>]) -> Verdicts {
    let mut verdicts = Verdicts::default();
    for call in calls {
        match call.kind {
            Kind::Lost => {
                verdicts.lost += 1;
                continue;
            }
            Kind::OtherError(_) => {
                verdicts.other_errors += 1;
                continue;
            }
            Kind::Served | Kind::Refused => {}
        }
        let log = &changes[call.principal as usize];
        // The latest change acknowledged before the call was sent (changes
        // of one principal are made one at a time, so acknowledgements come
        // in order), and the latest change sent before it was answered.
        let in_force = log
            .iter()
            .rposition(|change| change.acked.is_some_and(|acked| acked <= call.sent))
            .expect("the initial profile was acknowledged before the load");
        let latest = log
            .iter()
            .rposition(|change| change.sent <= call.answered)
            .expect("the initial profile was sent before the load");
        if latest != in_force {
            verdicts.in_flight += 1;
            continue;
        }
        let change = &log[in_force];
        let expected = if change.profile == 0 {
            Kind::Served
        } else {
            Kind::Refused
        };
        if call.kind == expected {
            verdicts.right += 1;
            if change.instance == call.instance as usize {
                verdicts.right_same += 1;
            }
        } else if change.instance == call.instance as usize {
            verdicts.wrong_same += 1;
        } else {
            verdicts.wrong_other += 1;
            let acked = change.acked.expect("in force, so acknowledged");
            verdicts
                .wrong_other_after_ack
                .push(call.sent.saturating_duration_since(acked));
        }
    }
    verdicts
}
