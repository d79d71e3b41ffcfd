//! The search index of one served tool list: BM25 over each tool's name,
//! description and parameter names, built from that list alone, so no
//! query can find a tool the list does not hold.

use std::collections::HashMap;

use rmcp::model::Tool;

/// How much a term in each field counts: a name says most about a tool,
/// then its parameters, then its prose.
const NAME_WEIGHT: u32 = 3;
const PARAMETER_WEIGHT: u32 = 2;
const DESCRIPTION_WEIGHT: u32 = 1;

/// BM25's term-frequency saturation and length normalisation, at their
/// usual values.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// An inverted index over a tool list: positions in that list, scored.
pub(crate) struct Index {
    /// Each term's postings: (tool position, weighted frequency).
    postings: HashMap<String, Vec<(u32, u32)>>,
    /// Each tool's weighted length.
    lengths: Vec<u32>,
    average_length: f64,
    /// Each tool's name, lowercased, for exact-name matches.
    names: Vec<String>,
}

impl Index {
    /// Indexes `tools`.
    pub(crate) fn new(tools: &[Tool]) -> Self {
        let mut postings: HashMap<String, Vec<(u32, u32)>> = HashMap::new();
        let mut lengths = Vec::with_capacity(tools.len());
        for (position, tool) in tools.iter().enumerate() {
            let mut counts: HashMap<String, u32> = HashMap::new();
            let mut add = |text: &str, weight: u32| {
                for term in terms(text) {
                    *counts.entry(term).or_default() += weight;
                }
            };
            add(&tool.name, NAME_WEIGHT);
            if let Some(title) = &tool.title {
                add(title, NAME_WEIGHT);
            }
            for parameter in parameters(tool) {
                add(parameter, PARAMETER_WEIGHT);
            }
            if let Some(description) = &tool.description {
                add(description, DESCRIPTION_WEIGHT);
            }
            lengths.push(counts.values().sum());
            let position = u32::try_from(position).expect("fewer than 2^32 tools");
            for (term, count) in counts {
                postings.entry(term).or_default().push((position, count));
            }
        }
        let total: u64 = lengths.iter().map(|&length| u64::from(length)).sum();
        let average_length = if lengths.is_empty() {
            1.0
        } else {
            total as f64 / lengths.len() as f64
        };
        Index {
            postings,
            lengths,
            average_length,
            names: tools.iter().map(|tool| tool.name.to_lowercase()).collect(),
        }
    }

    /// The positions of the `limit` tools that match `query` best, best
    /// first: a tool named exactly `query` first, then by BM25 score, ties
    /// by position. A tool no term of the query matches is never returned.
    pub(crate) fn search(&self, query: &str, limit: usize) -> Vec<usize> {
        let documents = self.lengths.len() as f64;
        // Dense: one slot per tool, touched only through the postings.
        let mut scores = vec![0.0f64; self.lengths.len()];
        let mut touched: Vec<u32> = Vec::new();
        let mut query_terms = terms(query);
        query_terms.sort_unstable();
        query_terms.dedup();
        for term in &query_terms {
            let Some(postings) = self.postings.get(term) else {
                continue;
            };
            let containing = postings.len() as f64;
            let idf = ((documents - containing + 0.5) / (containing + 0.5)).ln_1p();
            for &(position, frequency) in postings {
                let frequency = f64::from(frequency);
                let length = f64::from(self.lengths[position as usize]);
                let norm = K1 * (1.0 - B + B * length / self.average_length);
                let slot = &mut scores[position as usize];
                if *slot == 0.0 {
                    touched.push(position);
                }
                *slot += idf * frequency * (K1 + 1.0) / (frequency + norm);
            }
        }
        let exact = query.trim().to_lowercase();
        if let Some(position) = self.names.iter().position(|name| *name == exact) {
            if scores[position] == 0.0 {
                touched.push(u32::try_from(position).expect("fewer than 2^32 tools"));
            }
            scores[position] = f64::INFINITY;
        }
        // Best first, ties by position; only the best `limit` are sorted.
        let better = |a: &u32, b: &u32| {
            scores[*b as usize]
                .total_cmp(&scores[*a as usize])
                .then(a.cmp(b))
        };
        if touched.len() > limit && limit > 0 {
            touched.select_nth_unstable_by(limit - 1, better);
        }
        touched.truncate(limit);
        touched.sort_unstable_by(better);
        touched
            .into_iter()
            .map(|position| position as usize)
            .collect()
    }
}

/// The names of a tool's parameters: its input schema's properties.
fn parameters(tool: &Tool) -> impl Iterator<Item = &str> {
    tool.input_schema
        .get("properties")
        .and_then(|properties| properties.as_object())
        .into_iter()
        .flat_map(|properties| properties.keys().map(String::as_str))
}

/// The terms of `text`: runs of letters and digits, split again where a
/// lower-case letter meets an upper-case one (`taskId`: `task`, `id`),
/// lower-cased, with a plural `s` taken off longer words (`tasks`: `task`).
pub(crate) fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for c in text.chars() {
        if c.is_alphanumeric() {
            if c.is_uppercase() && previous_lower {
                push_term(&mut out, &mut word);
            }
            previous_lower = c.is_lowercase() || c.is_ascii_digit();
            word.extend(c.to_lowercase());
        } else {
            push_term(&mut out, &mut word);
            previous_lower = false;
        }
    }
    push_term(&mut out, &mut word);
    out
}

/// Words that say nothing about which tool is meant: dropped from queries
/// and tools alike, so "list the tasks" does not match every description
/// that says "the".
const STOP_WORDS: [&str; 32] = [
    "a", "all", "an", "and", "any", "are", "as", "at", "be", "by", "can", "do", "does", "for",
    "from", "i", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "that", "the",
    "this", "to", "with", "you",
];

fn push_term(out: &mut Vec<String>, word: &mut String) {
    if word.is_empty() {
        return;
    }
    let mut term = std::mem::take(word);
    if STOP_WORDS.binary_search(&term.as_str()).is_ok() {
        return;
    }
    if term.len() > 3 && term.ends_with('s') && !term.ends_with("ss") {
        term.pop();
    }
    out.push(term);
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;

    use super::*;

    fn tool(name: &'static str, description: &'static str, parameters: &[&str]) -> Tool {
        let properties: serde_json::Map<String, serde_json::Value> = parameters
            .iter()
            .map(|name| ((*name).to_owned(), json!({"type": "string"})))
            .collect();
        let schema = json!({"type": "object", "properties": properties});
        let serde_json::Value::Object(schema) = schema else {
            unreachable!()
        };
        Tool::new(name, description, Arc::new(schema))
    }

    fn tools() -> Vec<Tool> {
        vec![
            tool(
                "create_workflow",
                "Create a workflow on the board.",
                &["name"],
            ),
            tool("delete_task", "Delete a task for good.", &["taskId"]),
            tool(
                "list_tasks",
                "List the tasks of a workflow.",
                &["workflowId"],
            ),
            tool("get_settings", "Read the user's settings.", &[]),
        ]
    }

    fn names(index: &Index, tools: &[Tool], query: &str, limit: usize) -> Vec<String> {
        index
            .search(query, limit)
            .into_iter()
            .map(|position| tools[position].name.to_string())
            .collect()
    }

    #[test]
    fn terms_split_words_case_and_plurals() {
        assert_eq!(terms("list_tasks"), ["list", "task"]);
        assert_eq!(
            terms("taskId, workflowSteps!"),
            ["task", "id", "workflow", "step"]
        );
        assert_eq!(terms("Address class"), ["address", "class"]);
        assert_eq!(
            terms("list the tasks of a workflow"),
            ["list", "task", "workflow"]
        );
        assert!(STOP_WORDS.is_sorted());
        assert!(terms("  _- ").is_empty());
    }

    #[test]
    fn names_outrank_prose_and_an_exact_name_comes_first() {
        let tools = tools();
        let index = Index::new(&tools);
        assert_eq!(names(&index, &tools, "workflow", 10)[0], "create_workflow");
        let mut tasks = names(&index, &tools, "tasks", 10);
        tasks.sort();
        assert_eq!(tasks, ["delete_task", "list_tasks"]);
        assert_eq!(names(&index, &tools, "DELETE_TASK", 1), ["delete_task"]);
        assert_eq!(names(&index, &tools, "task id", 1), ["delete_task"]);
    }

    #[test]
    fn nothing_unmatched_and_nothing_past_the_limit() {
        let tools = tools();
        let index = Index::new(&tools);
        assert!(names(&index, &tools, "refund", 10).is_empty());
        assert!(names(&index, &tools, "", 10).is_empty());
        assert_eq!(names(&index, &tools, "task workflow", 2).len(), 2);
        assert!(Index::new(&[]).search("task", 5).is_empty());
    }
}
