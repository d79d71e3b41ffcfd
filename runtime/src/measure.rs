//! Measuring tool definitions: a leaf module, so the registry can cache
//! each group's measures without importing the cost module that reads it.

#[cfg(feature = "tokens")]
mod tokens;

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use rmcp::model::Tool;
use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};

/// The name of the token estimate [`ToolCost::tokens`] and
/// [`ListCost::tokens`] give: o200k_base tokens of each tool's complete
/// compact MCP tool JSON, as Kandev labels the same estimate. Kept in the
/// JSON forms so that a figure never travels without what it counts.
#[cfg(feature = "tokens")]
pub const TOKEN_ESTIMATOR: &str = "o200k_base:mcp-tool-json-v1";

/// What one tool adds to a `tools/list` answer: its definition (the rmcp
/// [`Tool`], serialised compactly by `serde_json`, exactly as it appears in
/// the answer's `tools` array) in bytes and, with the `tokens` feature, in
/// o200k_base tokens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolCost {
    name: Cow<'static, str>,
    bytes: usize,
    #[cfg(feature = "tokens")]
    tokens: usize,
}

impl ToolCost {
    /// Measures `tool`'s definition.
    pub fn of(tool: &Tool) -> Self {
        let json = serde_json::to_string(tool).expect("a tool definition serialises");
        ToolCost {
            name: tool.name.clone(),
            bytes: json.len(),
            #[cfg(feature = "tokens")]
            tokens: tokens::count(&json),
        }
    }

    /// The tool's name, as its definition gives it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The length of its compact JSON, in bytes.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Its compact JSON's o200k_base tokens ([`TOKEN_ESTIMATOR`]).
    #[cfg(feature = "tokens")]
    pub fn tokens(&self) -> usize {
        self.tokens
    }

    /// What a tool no definition describes lists as: its name and an
    /// input schema that takes any object (a group built in code with
    /// `Registry::builder` has names only).
    pub(crate) fn bare(name: &str) -> Self {
        let mut tool = Tool::default();
        tool.name = Cow::Owned(name.to_owned());
        let mut schema = serde_json::Map::new();
        schema.insert("type".into(), "object".into());
        tool.input_schema = Arc::new(schema);
        Self::of(&tool)
    }
}

impl Serialize for ToolCost {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut tool = serializer.serialize_struct("ToolCost", 3)?;
        tool.serialize_field("name", &self.name)?;
        tool.serialize_field("bytes", &self.bytes)?;
        #[cfg(feature = "tokens")]
        tool.serialize_field("tokens", &self.tokens)?;
        tool.end()
    }
}

/// What a whole `tools/list` answer's tools cost: each tool's
/// [`ToolCost`], in list order, and the totals.
///
/// - [`bytes`](Self::bytes): the length of the answer's compact `tools`
///   array, `[`, the definitions joined by `,`, `]` (the per-tool bytes
///   plus one per separator and two for the brackets). The JSON-RPC
///   envelope around it (`{"jsonrpc":"2.0","id":..,"result":{"tools":`,
///   cache hints) is not counted: it does not grow with the profile.
/// - `tokens` (feature `tokens`): the sum of the per-tool token counts,
///   `TOKEN_ESTIMATOR`. Tokenising the whole array at once
///   differs by the few tokens its brackets and commas make; the sum is
///   what a per-tool estimate (Kandev's, ours) adds up to, and what a
///   budget is checked against.
///
/// ```
/// use mcp_profiles::ListCost;
/// use rmcp::model::Tool;
///
/// let schema = serde_json::json!({"type": "object"});
/// let schema = std::sync::Arc::new(schema.as_object().unwrap().clone());
/// let tools = [
///     Tool::new("close_ticket", "Close a ticket", schema.clone()),
///     Tool::new("reply", "Reply to the customer", schema),
/// ];
/// let cost = ListCost::of(&tools);
/// let json = serde_json::to_string(&tools).unwrap();
/// assert_eq!(cost.bytes(), json.len());
/// assert_eq!(cost.tools()[1].name(), "reply");
/// # #[cfg(feature = "tokens")]
/// assert!(cost.tokens() > 0);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListCost {
    tools: Vec<ToolCost>,
}

impl ListCost {
    /// Measures `tools`, in the order given.
    pub fn of<'a>(tools: impl IntoIterator<Item = &'a Tool>) -> Self {
        ListCost::from_costs(tools.into_iter().map(ToolCost::of).collect())
    }

    /// The list of tools measured already, in list order.
    pub(crate) fn from_costs(tools: Vec<ToolCost>) -> Self {
        ListCost { tools }
    }

    /// Each tool's cost, in list order.
    pub fn tools(&self) -> &[ToolCost] {
        &self.tools
    }

    /// The length of the compact `tools` array, in bytes.
    pub fn bytes(&self) -> usize {
        let separators = self.tools.len().saturating_sub(1);
        self.tools.iter().map(ToolCost::bytes).sum::<usize>() + separators + 2
    }

    /// The sum of the tools' o200k_base tokens ([`TOKEN_ESTIMATOR`]).
    #[cfg(feature = "tokens")]
    pub fn tokens(&self) -> usize {
        self.tools.iter().map(ToolCost::tokens).sum()
    }

    /// The `count` costliest tools, most tokens first (ties by name).
    #[cfg(feature = "tokens")]
    pub fn largest(&self, count: usize) -> Vec<&ToolCost> {
        let mut tools: Vec<&ToolCost> = self.tools.iter().collect();
        tools.sort_by(|a, b| b.tokens.cmp(&a.tokens).then_with(|| a.name.cmp(&b.name)));
        tools.truncate(count);
        tools
    }
}

/// `{"estimator", "bytes", "tokens", "tools": [{"name", "bytes", "tokens"}]}`;
/// without the `tokens` feature, `{"bytes", "tools": [{"name", "bytes"}]}`.
impl Serialize for ListCost {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut list = serializer.serialize_struct("ListCost", 4)?;
        #[cfg(feature = "tokens")]
        list.serialize_field("estimator", TOKEN_ESTIMATOR)?;
        list.serialize_field("bytes", &self.bytes())?;
        #[cfg(feature = "tokens")]
        list.serialize_field("tokens", &self.tokens())?;
        list.serialize_field("tools", &self.tools)?;
        list.end()
    }
}

/// One aligned line per tool (name, bytes and, with the `tokens` feature,
/// tokens), then the total:
///
/// ```text
/// tool          bytes  tokens
/// close_ticket     95      23
/// reply           102      24
/// total (2)       200      47
/// ```
impl fmt::Display for ListCost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rows: Vec<[String; 3]> = Vec::with_capacity(self.tools.len() + 2);
        rows.push(["tool".into(), "bytes".into(), "tokens".into()]);
        for tool in &self.tools {
            rows.push([
                tool.name.to_string(),
                tool.bytes.to_string(),
                tool.tokens_text(),
            ]);
        }
        rows.push([
            format!("total ({})", self.tools.len()),
            self.bytes().to_string(),
            self.tokens_text(),
        ]);
        let width = |column: usize| rows.iter().map(|row| row[column].len()).max();
        let (name, bytes, tokens) = (width(0), width(1), width(2));
        for [name_cell, bytes_cell, tokens_cell] in &rows {
            write!(
                f,
                "{name_cell:<nw$}  {bytes_cell:>bw$}",
                nw = name.unwrap_or(0),
                bw = bytes.unwrap_or(0)
            )?;
            if cfg!(feature = "tokens") {
                write!(f, "  {tokens_cell:>tw$}", tw = tokens.unwrap_or(0))?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

impl ToolCost {
    /// The tokens column of [`ListCost`]'s table.
    fn tokens_text(&self) -> String {
        #[cfg(feature = "tokens")]
        return self.tokens.to_string();
        #[cfg(not(feature = "tokens"))]
        String::new()
    }
}

impl ListCost {
    /// The tokens column of the table's total.
    fn tokens_text(&self) -> String {
        #[cfg(feature = "tokens")]
        return self.tokens().to_string();
        #[cfg(not(feature = "tokens"))]
        String::new()
    }
}
