//! The pieces every admin page is built of: lists of tools, the explain
//! table, the exposure matrix, the audit trail and the preview of a
//! change. Each escapes what it shows ([`maud`]).

use std::collections::BTreeSet;

use maud::{Markup, html};
use mcp_profiles::{Explanation, Registry, Vocabulary};

use crate::audit::AuditRecord;

/// How many audit records the pages show, newest first.
pub const AUDIT_ROWS: usize = 20;

/// Tool names as a list (or a note that there are none).
pub fn tools<N: AsRef<str>>(names: &[N], class: &str) -> Markup {
    html! {
        @if names.is_empty() {
            p.muted { "none" }
        } @else {
            ul class=(format!("tools {class}").trim_end()) {
                @for name in names { li { code { (name.as_ref()) } } }
            }
        }
    }
}

/// Every group, on or off, with its rule and the condition that decided
/// it; then every tool of an enabled group that a policy, an allow list or
/// the kill switch removed, and which.
pub fn explanation<S: Vocabulary>(explanation: &Explanation<'_, S>) -> Markup {
    html! {
        table.explain {
            thead { tr { th { "group" } th { "" } th { "rule" } th { "why" } } }
            tbody {
                @for (group, decision) in explanation.rows() {
                    @let on = decision.is_enabled();
                    tr {
                        td { code { (group.name()) } }
                        td class=(if on { "on" } else { "off" }) { (if on { "on" } else { "off" }) }
                        td { code { (group.rule().to_string()) } }
                        td { (decision.to_string()) }
                    }
                }
            }
        }
        h3 { "Tools a restriction removed" }
        @if explanation.removed().is_empty() {
            p.muted { "none: every tool of an enabled group is served" }
        } @else {
            table.removed-tools {
                thead { tr { th { "tool" } th { "group" } th { "removed by" } } }
                tbody {
                    @for removed in explanation.removed() {
                        tr {
                            td { code { (removed.tool()) } }
                            td { code { (removed.group()) } }
                            td { (removed.restrictions().to_string()) }
                        }
                    }
                }
            }
        }
    }
}

/// Every compiled tool of `registry`, sorted.
pub fn registry_tools<S: Vocabulary>(registry: &Registry<S>) -> Vec<&'static str> {
    let tools: BTreeSet<&'static str> = registry
        .groups()
        .iter()
        .flat_map(|group| group.tools().iter().copied())
        .collect();
    tools.into_iter().collect()
}

/// The exposure matrix: a row per tool of `rows`, a column per
/// `(who, tools they reach)`, a mark where they reach it.
pub fn matrix(rows: &[&str], columns: &[(String, BTreeSet<String>)]) -> Markup {
    html! {
        div.matrix {
            table #matrix {
                thead {
                    tr {
                        th { "tool" }
                        @for (who, _) in columns { th { (who) } }
                    }
                }
                tbody {
                    @for tool in rows {
                        tr {
                            td { code { (tool) } }
                            @for (who, reached) in columns {
                                @if reached.contains(*tool) {
                                    td.cell.on title=(format!("{who} reaches {tool}")) { "●" }
                                } @else {
                                    td.cell {}
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The newest audit records, one row each.
pub fn audit(records: &[AuditRecord]) -> Markup {
    html! {
        @if records.is_empty() {
            p.muted { "no change recorded yet" }
        } @else {
            table #audit {
                thead {
                    tr {
                        th { "#" } th { "when (UTC)" } th { "who" } th { "change" }
                        th { "principal" } th { "added" } th { "removed" } th { "request" }
                    }
                }
                tbody {
                    @for record in records {
                        tr {
                            td { (record.seq) }
                            td { (when(record.at)) }
                            td { (record.actor) }
                            td { code { (record.kind.as_str()) } }
                            td { (record.principal.as_deref().unwrap_or("—")) }
                            td.added { (record.added.join(" ")) }
                            td.removed { (record.removed.join(" ")) }
                            td { code { (record.request_id) } }
                        }
                    }
                }
            }
        }
    }
}

/// Milliseconds since the Unix epoch as `YYYY-MM-DD HH:MM:SS` (UTC; the
/// number itself past the year 9999).
fn when(at: u64) -> String {
    let seconds = at / 1000;
    let (year, month, day) = civil(seconds / 86_400);
    if year > 9999 {
        return at.to_string();
    }
    let time = seconds % 86_400;
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}",
        time / 3600,
        time % 3600 / 60,
        time % 60
    )
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard
/// Hinnant's `civil_from_days`, for days on or after the epoch).
fn civil(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let day_of_era = z % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

/// What a change would do, before it is applied: the state before and
/// after, and the tools it adds and removes.
#[derive(Debug)]
pub struct Preview<'a> {
    /// Whose tools `served_before` and `served_after` are.
    pub served: &'a str,
    /// What is in force now.
    pub before: &'a str,
    /// What the change makes.
    pub after: &'a str,
    /// The tools served now.
    pub served_before: &'a [String],
    /// The tools served after it.
    pub served_after: &'a [String],
}

impl Preview<'_> {
    /// The tools the change adds and those it removes.
    pub fn diff(&self) -> (Vec<&str>, Vec<&str>) {
        let before: BTreeSet<&str> = self.served_before.iter().map(String::as_str).collect();
        let after: BTreeSet<&str> = self.served_after.iter().map(String::as_str).collect();
        (
            after.difference(&before).copied().collect(),
            before.difference(&after).copied().collect(),
        )
    }

    /// The preview as a page section.
    pub fn render(&self) -> Markup {
        let (added, removed) = self.diff();
        html! {
            section #diff {
                p {
                    (self.served) ": "
                    @if added.is_empty() && removed.is_empty() {
                        "the same " (self.served_after.len()) " tools."
                    } @else {
                        (self.served_before.len()) " → " (self.served_after.len()) " tools."
                    }
                }
                h2 { "Added (" (added.len()) ")" }
                (tools(&added, "added"))
                h2 { "Removed (" (removed.len()) ")" }
                (tools(&removed, "removed"))
                h2 { "Before" }
                pre #before { (self.before) }
                h2 { "After" }
                pre #after { (self.after) }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_utc_dates() {
        assert_eq!(when(0), "1970-01-01 00:00:00");
        assert_eq!(when(951_782_400_000), "2000-02-29 00:00:00");
        assert_eq!(when(1_709_251_199_999), "2024-02-29 23:59:59");
        assert_eq!(when(1_735_689_600_000), "2025-01-01 00:00:00");
        assert_eq!(when(253_402_300_799_000), "9999-12-31 23:59:59");
        assert_eq!(when(253_402_300_800_000), "253402300800000");
    }
}
