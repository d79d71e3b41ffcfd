//! Parse stage of the registration callback.
//!
//! Its input is written by two macros, never by hand: `vocabulary!` puts the
//! vocabulary in front, `#[tool_group]` appends the group.
//!
//! ```text
//! vocabulary {
//!     surfaces: ["kanban-task", ...], capabilities: [...], providers: [...],
//!     exclusive: [["user-question", "parent-question"], ...],
//!     require_annotations: false,
//!     complete: true,
//! }
//! server: Kandev,
//! kind: tool,
//! name: ["parent-question"],
//! title: ["Parent questions"], description: [],
//! surfaces: ["kanban-task"], capabilities: ["parent-question"],
//! any_capabilities: [], providers: ["github", "gitlab"],
//! tools: ["ask_parent_question_kandev" => ask_parent_question_kandev],
//! require_annotations: [require_annotations],
//! unannotated: ["ask_parent_question_kandev" => { #[tool(...)] } [read_only_hint, destructive_hint]],
//! ```
//!
//! `kind` is `tool`, `prompt` (from `#[prompt_group]`) or `resource` (from
//! `#[resource_group]`); the last two list `items: ["name" => method, ...]`
//! (a prompt's name, a resource's URI or URI template) in place of `tools`,
//! `require_annotations` and `unannotated`.
//!
//! A group with `include(...)` ends with
//! `includes: include ["kanban-task", "workflows": ["list_workflows"]] exclude ["delete_task"],`
//! (`include` is the user's key, kept for its span).
//!
//! `require_annotations` in the group is the user's flag, or nothing;
//! `unannotated` lists each tool that leaves a hint unstated, with the tokens
//! where the user would state it (for the error's span).

use proc_macro2::{Span, TokenStream};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Ident, LitBool, LitStr, Token, Type, braced, bracketed};

/// The vocabulary as `vocabulary!` wrote it: wire names in index order.
pub(crate) struct VocabularyNames {
    pub surfaces: Vec<String>,
    pub capabilities: Vec<String>,
    pub providers: Vec<String>,
    pub exclusive: Vec<(String, String)>,
    /// `#[require_annotations]` on the `server` line: every group's tools
    /// must state their hints.
    pub require_annotations: bool,
    /// The vocabulary has no error of its own: its names are the ones
    /// meant. Otherwise the group's names are not checked against them.
    pub complete: bool,
}

/// What a group serves.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Tool,
    Prompt,
    Resource,
}

/// The group as `#[tool_group]` (or `#[prompt_group]`, `#[resource_group]`)
/// wrote it, user spans intact.
pub(crate) struct GroupInput {
    pub server: Type,
    pub kind: Kind,
    pub name: Option<LitStr>,
    /// What a person reads as its name, and what it is for.
    pub title: Option<LitStr>,
    pub description: Option<LitStr>,
    pub surfaces: Vec<LitStr>,
    pub capabilities: Vec<LitStr>,
    /// At least one of these; the span is where the user wrote the list.
    pub any_capabilities: (Vec<LitStr>, Span),
    pub providers: Vec<LitStr>,
    /// The tools (or prompts, or resource URIs) and their methods.
    pub tools: Vec<(LitStr, Ident)>,
    /// The group's `require_annotations` flag, as the user wrote it.
    pub require_annotations: Option<Ident>,
    pub unannotated: Vec<Unannotated>,
    /// `include(...)` and `exclude = [...]`, when the group has them.
    pub includes: Option<Includes>,
}

/// The groups a tool group includes tools of, and the names it leaves out.
pub(crate) struct Includes {
    /// The user's `include` key: where a conflict between included
    /// definitions is reported.
    pub key: Ident,
    pub parts: Vec<IncludedPart>,
    pub exclude: Vec<LitStr>,
}

/// `"group"` (all its tools) or `"group": ["tool", ...]`.
pub(crate) struct IncludedPart {
    pub group: LitStr,
    pub only: Option<Vec<LitStr>>,
}

impl Parse for IncludedPart {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let group = input.parse()?;
        let only = if input.parse::<Option<Token![:]>>()?.is_some() {
            let content;
            bracketed!(content in input);
            let tools = Punctuated::<LitStr, Token![,]>::parse_terminated(&content)?;
            Some(tools.into_iter().collect())
        } else {
            None
        };
        Ok(IncludedPart { group, only })
    }
}

/// `includes: include ["group", "group": ["tool"]] exclude ["tool"],` when
/// the group includes others.
fn includes(input: ParseStream) -> syn::Result<Option<Includes>> {
    if input.is_empty() {
        return Ok(None);
    }
    label(input, "includes")?;
    input.parse::<Token![:]>()?;
    let key: Ident = input.parse()?;
    let content;
    bracketed!(content in input);
    let parts = Punctuated::<IncludedPart, Token![,]>::parse_terminated(&content)?;
    label(input, "exclude")?;
    let content;
    bracketed!(content in input);
    let exclude = Punctuated::<LitStr, Token![,]>::parse_terminated(&content)?;
    input.parse::<Option<Token![,]>>()?;
    Ok(Some(Includes {
        key,
        parts: parts.into_iter().collect(),
        exclude: exclude.into_iter().collect(),
    }))
}

/// A tool that leaves at least one hint unstated.
pub(crate) struct Unannotated {
    pub name: LitStr,
    /// The user's `#[tool]` attribute or its `annotations(...)`.
    pub at: TokenStream,
    /// `read_only_hint` and/or `destructive_hint`.
    pub missing: Vec<Ident>,
}

pub(crate) struct Input {
    pub vocabulary: VocabularyNames,
    pub group: GroupInput,
}

impl Parse for Input {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        label(input, "vocabulary")?;
        let content;
        braced!(content in input);
        let vocabulary = VocabularyNames {
            surfaces: strings(&field(&content, "surfaces")?),
            capabilities: strings(&field(&content, "capabilities")?),
            providers: strings(&field(&content, "providers")?),
            exclusive: {
                label(&content, "exclusive")?;
                content.parse::<Token![:]>()?;
                let pairs;
                bracketed!(pairs in content);
                let pairs = Punctuated::<Pair, Token![,]>::parse_terminated(&pairs)?;
                content.parse::<Option<Token![,]>>()?;
                pairs.into_iter().map(|pair| (pair.0, pair.1)).collect()
            },
            require_annotations: {
                label(&content, "require_annotations")?;
                content.parse::<Token![:]>()?;
                let flag: LitBool = content.parse()?;
                content.parse::<Option<Token![,]>>()?;
                flag.value
            },
            complete: {
                label(&content, "complete")?;
                content.parse::<Token![:]>()?;
                let flag: LitBool = content.parse()?;
                content.parse::<Option<Token![,]>>()?;
                flag.value
            },
        };
        label(input, "server")?;
        input.parse::<Token![:]>()?;
        let server: Type = input.parse()?;
        input.parse::<Token![,]>()?;
        label(input, "kind")?;
        input.parse::<Token![:]>()?;
        let kind: Ident = input.parse()?;
        let kind = match kind.to_string().as_str() {
            "tool" => Kind::Tool,
            "prompt" => Kind::Prompt,
            "resource" => Kind::Resource,
            _ => return Err(syn::Error::new(kind.span(), "expected a group kind")),
        };
        input.parse::<Token![,]>()?;
        let name = field(input, "name")?.into_iter().next();
        let title = field(input, "title")?.into_iter().next();
        let description = field(input, "description")?.into_iter().next();
        let surfaces = field(input, "surfaces")?;
        let capabilities = field(input, "capabilities")?;
        let any_capabilities = field_with_span(input, "any_capabilities")?;
        let providers = field(input, "providers")?;
        if kind != Kind::Tool {
            let group = GroupInput {
                server,
                kind,
                name,
                title,
                description,
                surfaces,
                capabilities,
                any_capabilities,
                providers,
                tools: items(input, "items")?,
                require_annotations: None,
                unannotated: Vec::new(),
                includes: None,
            };
            return Ok(Input { vocabulary, group });
        }
        let group = GroupInput {
            server,
            kind,
            name,
            title,
            description,
            surfaces,
            capabilities,
            any_capabilities,
            providers,
            tools: items(input, "tools")?,
            require_annotations: {
                label(input, "require_annotations")?;
                input.parse::<Token![:]>()?;
                let content;
                bracketed!(content in input);
                let flag = content.parse::<Option<Ident>>()?;
                input.parse::<Option<Token![,]>>()?;
                flag
            },
            unannotated: {
                label(input, "unannotated")?;
                input.parse::<Token![:]>()?;
                let content;
                bracketed!(content in input);
                let tools = Punctuated::<Unannotated, Token![,]>::parse_terminated(&content)?;
                input.parse::<Option<Token![,]>>()?;
                tools.into_iter().collect()
            },
            includes: includes(input)?,
        };
        Ok(Input { vocabulary, group })
    }
}

/// `["a", "b"]` as a pair of names.
struct Pair(String, String);

impl Parse for Pair {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let content;
        bracketed!(content in input);
        let first: LitStr = content.parse()?;
        content.parse::<Token![,]>()?;
        let second: LitStr = content.parse()?;
        Ok(Pair(first.value(), second.value()))
    }
}

/// `"name" => method`
struct Tool {
    name: LitStr,
    method: Ident,
}

impl Parse for Tool {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let name = input.parse()?;
        input.parse::<Token![=>]>()?;
        Ok(Tool {
            name,
            method: input.parse()?,
        })
    }
}

/// `"name" => { tokens } [hint, ...]`
impl Parse for Unannotated {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let name = input.parse()?;
        input.parse::<Token![=>]>()?;
        let at;
        braced!(at in input);
        let missing;
        bracketed!(missing in input);
        Ok(Unannotated {
            name,
            at: at.parse()?,
            missing: Punctuated::<Ident, Token![,]>::parse_terminated(&missing)?
                .into_iter()
                .collect(),
        })
    }
}

/// `label: ["name" => method, ...],`
fn items(input: ParseStream, name: &str) -> syn::Result<Vec<(LitStr, Ident)>> {
    label(input, name)?;
    input.parse::<Token![:]>()?;
    let content;
    bracketed!(content in input);
    let tools = Punctuated::<Tool, Token![,]>::parse_terminated(&content)?;
    input.parse::<Option<Token![,]>>()?;
    Ok(tools
        .into_iter()
        .map(|tool| (tool.name, tool.method))
        .collect())
}

fn label(input: ParseStream, expected: &str) -> syn::Result<()> {
    let ident: Ident = input.parse()?;
    if ident == expected {
        Ok(())
    } else {
        Err(syn::Error::new(
            ident.span(),
            format!("expected `{expected}`"),
        ))
    }
}

/// `label: ["a", "b"],`
fn field(input: ParseStream, name: &str) -> syn::Result<Vec<LitStr>> {
    field_with_span(input, name).map(|(items, _)| items)
}

/// `label: ["a", "b"],` with the span of the brackets.
fn field_with_span(input: ParseStream, name: &str) -> syn::Result<(Vec<LitStr>, Span)> {
    label(input, name)?;
    input.parse::<Token![:]>()?;
    let content;
    let brackets = bracketed!(content in input);
    let items = Punctuated::<LitStr, Token![,]>::parse_terminated(&content)?;
    input.parse::<Option<Token![,]>>()?;
    Ok((items.into_iter().collect(), brackets.span.join()))
}

fn strings(literals: &[LitStr]) -> Vec<String> {
    literals.iter().map(LitStr::value).collect()
}
