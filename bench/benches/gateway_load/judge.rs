//! How each call of the load is judged against its principal's changes:
//! right, wrong (on the instance that made the change in force, or on
//! another), in flight, lost; and how close to an acknowledgement it was
//! sent, and whether it started on its schedule.

use std::time::{Duration, Instant};

/// A call that started more than this after its scheduled time could not
/// start on time (its session was still waiting for the previous answer,
/// or the generator was behind). Tokio's timer fires at the first
/// millisecond past a deadline, so every call starts up to 1 ms after its
/// tick by the timer alone: 2 ms leaves it that and a millisecond more.
pub const LATE: Duration = Duration::from_millis(2);

/// One profile change of one principal, as the churn driver saw it.
#[derive(Clone, Debug)]
pub struct Change {
    pub sent: Instant,
    /// When the control API answered 200 (every live instance applies it);
    /// `None` if it answered 202 (applied, not confirmed everywhere), or
    /// refused or failed (the change may or may not have been made).
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
    /// When the schedule wanted it sent (a probe: when its
    /// acknowledgement arrived).
    pub intended: Instant,
    pub sent: Instant,
    pub answered: Instant,
    pub kind: Kind,
}

/// The consistency counts of some calls against their principals' changes.
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
    /// Judged calls (right or wrong) sent within 1 ms and within 10 ms of
    /// the acknowledgement of the change in force: the ones that could
    /// have caught an instance still serving the previous profile.
    pub within_1ms: usize,
    pub within_10ms: usize,
    /// Calls that started more than [`LATE`] after their scheduled time.
    pub late: usize,
}

impl Verdicts {
    /// Calls judged right or wrong.
    pub fn judged(&self) -> usize {
        self.right + self.wrong_same + self.wrong_other
    }
}

/// Judges `calls`; see the bench's docs for the rules.
pub fn judge<'a>(calls: impl IntoIterator<Item = &'a Call>, changes: &[Vec<Change>]) -> Verdicts {
    let mut verdicts = Verdicts::default();
    for call in calls {
        if call.sent.saturating_duration_since(call.intended) > LATE {
            verdicts.late += 1;
        }
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
        let acked = change.acked.expect("in force, so acknowledged");
        let after_ack = call.sent.saturating_duration_since(acked);
        verdicts.within_1ms += usize::from(after_ack <= Duration::from_millis(1));
        verdicts.within_10ms += usize::from(after_ack <= Duration::from_millis(10));
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
            verdicts.wrong_other_after_ack.push(after_ack);
        }
    }
    verdicts
}
