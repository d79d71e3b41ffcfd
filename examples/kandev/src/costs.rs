//! What Kandev's profiles cost an agent's context window: the tools a
//! profile lists as `tools/list` serves them (`kandev-mcp tools`), with
//! each one's bytes and o200k_base tokens (`--format json`), the cost table
//! `kandev-mcp explain` ends with, and `matrix.md`'s "Context cost" section:
//! each surface's budget (declared in `server.rs`) against its costliest
//! context, and every compiled tool's cost.
//!
//! Counted as `mcp_profiles::ListCost` counts: each tool's compact JSON as
//! served, in bytes (the whole `tools` array) and tokens (summed per tool,
//! `o200k_base:mcp-tool-json-v1`, the estimate Kandev's own session records
//! carry). Plugin tools are installed at run time and counted by none of
//! this.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::OnceLock;

use mcp_profiles::{
    Explanation, ListCost, Presentation, Profile, TOKEN_ESTIMATOR, Term, ToolCost, Vocabulary,
};
use rmcp::model::Tool;
use serde_json::{Value, json};

use crate::server::{Kandev, Surface};

/// Each group's tool definitions as its routes carry them, by group name
/// (built once). A name may be defined differently in groups that no
/// context enables together (`create_task_kandev` on `external` and on the
/// other surfaces, say): a profile is costed from its own groups.
fn definitions() -> &'static BTreeMap<&'static str, Vec<Tool>> {
    static DEFINITIONS: OnceLock<BTreeMap<&'static str, Vec<Tool>>> = OnceLock::new();
    DEFINITIONS.get_or_init(|| {
        Kandev::registry()
            .groups()
            .iter()
            .map(|group| {
                let tools = group.routes().into_iter().map(|route| route.attr);
                (group.name(), tools.collect())
            })
            .collect()
    })
}

/// The tools `profile` lists, as `tools/list` serves them: sorted by the
/// name listed, which is the presented one when a `presentation` renames.
pub fn listed(profile: &Profile<Kandev>, presentation: Option<&Presentation>) -> Vec<Tool> {
    // The definitions of the groups the profile enables, by name.
    let defined: BTreeMap<&str, &Tool> = profile
        .groups()
        .filter_map(|group| definitions().get(group))
        .flatten()
        .map(|tool| (tool.name.as_ref(), tool))
        .collect();
    let mut tools: Vec<Tool> = profile
        .tool_names()
        .iter()
        .map(|name| {
            let mut tool = defined[*name].clone();
            if let Some(presentation) = presentation {
                tool.name = presentation.present(name).into_owned().into();
            }
            tool
        })
        .collect();
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    tools
}

/// `tools --format json`: `{"estimator", "bytes", "tokens", "tools":
/// [{"name", "annotations", "bytes", "tokens"}]}`, annotations as MCP sends
/// them (`null` for a tool without any).
pub fn tools_json(listed: &[Tool]) -> Value {
    let cost = ListCost::of(listed);
    let tools: Vec<Value> = listed
        .iter()
        .zip(cost.tools())
        .map(|(tool, cost)| {
            json!({
                "name": tool.name,
                "annotations": tool.annotations,
                "bytes": cost.bytes(),
                "tokens": cost.tokens(),
            })
        })
        .collect();
    json!({
        "estimator": TOKEN_ESTIMATOR,
        "bytes": cost.bytes(),
        "tokens": cost.tokens(),
        "tools": tools,
    })
}

/// What `explain` prints after the groups: the cost of the tools the
/// context lists, one line per tool and the total.
pub fn explained(explanation: &Explanation<'_, Kandev>) -> String {
    format!("\ncost ({TOKEN_ESTIMATOR})\n{}", explanation.cost())
}

/// The budget `server.rs` declares for `surface`, if any.
fn budget(surface: Surface) -> Option<usize> {
    Kandev::TOKEN_BUDGETS
        .iter()
        .find(|(budgeted, _)| *budgeted == surface)
        .map(|(_, tokens)| *tokens)
}

/// `## Context cost`: what is counted, each surface's budget against its
/// costliest context, and every compiled tool's cost.
pub fn section(out: &mut String) {
    out.push_str(
        "\n## Context cost\n\n\
         What a profile's `tools/list` costs an agent's context window (the \
         `bytes` and `tokens` columns above): each tool's definition exactly as \
         `tools/list` serves it (rmcp's `Tool`, compact JSON), in bytes of the whole \
         `tools` array and in o200k_base tokens summed over the tools \
         (`o200k_base:mcp-tool-json-v1`, the estimate Kandev's session records \
         carry). Plugin tools, installed at run time, are not counted.\n\n\
         Each surface's budget (`#[budget(tokens = N)]`, `src/server.rs`) against \
         its costliest context: every provider, the capabilities that list the most \
         and, on `coordinator`, the widest allow list (13 tools, where the table \
         above shows the default 7); headroom is the share of the budget left. The \
         test `vocabulary!` adds fails when one is over.\n\n\
         | surface | budget | costliest context | tools | bytes | tokens | headroom |\n\
         |---|---:|---|---:|---:|---:|---:|\n",
    );
    let registry = Kandev::registry();
    for &surface in Surface::ALL {
        let max = registry
            .max_cost(surface)
            .expect("Kandev's surfaces have few capability sets");
        let cost = max.cost();
        let (budget, headroom) = match budget(surface) {
            Some(budget) => (
                budget.to_string(),
                format!("{}%", (budget - cost.tokens().min(budget)) * 100 / budget),
            ),
            None => ("none".to_owned(), "-".to_owned()),
        };
        let _ = writeln!(
            out,
            "| {} | {budget} | {} | {} | {} | {} | {headroom} |",
            surface.wire_name(),
            max.context(),
            cost.tools().len(),
            cost.bytes(),
            cost.tokens(),
        );
    }
    out.push_str(
        "\n### Tool costs\n\n\
         Every compiled tool's definition, largest first. A name defined \
         differently in groups no context enables together has a row per \
         definition, naming its groups.\n\n\
         | tool | bytes | tokens |\n|---|---:|---:|\n",
    );
    // Each name's distinct definitions, each with the groups that carry it.
    let mut by_name: BTreeMap<&str, Vec<(&Tool, Vec<&str>)>> = BTreeMap::new();
    for (group, tools) in definitions() {
        for tool in tools {
            let definitions = by_name.entry(tool.name.as_ref()).or_default();
            match definitions.iter_mut().find(|(known, _)| *known == tool) {
                Some((_, groups)) => groups.push(group),
                None => definitions.push((tool, vec![group])),
            }
        }
    }
    let mut rows: Vec<(&Tool, String)> = Vec::new();
    for (name, definitions) in &by_name {
        let several = definitions.len() > 1;
        for (tool, groups) in definitions {
            let label = match several {
                true => format!("{name} ({})", groups.join(", ")),
                false => (*name).to_owned(),
            };
            rows.push((tool, label));
        }
    }
    let all = ListCost::of(rows.iter().map(|(tool, _)| *tool));
    // As `ListCost::largest` orders: most tokens first, ties by name.
    let mut costed: Vec<(&ToolCost, &String)> = all
        .tools()
        .iter()
        .zip(rows.iter().map(|(_, label)| label))
        .collect();
    costed.sort_by(|a, b| b.0.tokens().cmp(&a.0.tokens()).then_with(|| a.1.cmp(b.1)));
    for (cost, label) in costed {
        let _ = writeln!(out, "| {label} | {} | {} |", cost.bytes(), cost.tokens());
    }
}

#[cfg(test)]
mod tests {
    use mcp_profiles::{ListCost, ProfileContext, Vocabulary};

    use crate::server::Kandev;

    /// `tools` lists, in every valid context, exactly the definitions the
    /// profile serves: its cost is the registry's for that context (a name
    /// defined differently on surfaces that never meet used to take the
    /// other surface's figure).
    #[test]
    fn every_profile_lists_its_own_definitions() {
        let registry = Kandev::registry();
        for context in ProfileContext::<Kandev>::all() {
            let profile = registry.assemble(&context);
            let listed = super::listed(&profile, None);
            assert_eq!(
                ListCost::of(&listed),
                registry.cost(&context),
                "the listed definitions of {context}"
            );
        }
    }
}
