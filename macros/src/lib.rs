//! Procedural macros of [mcp-profiles](https://docs.rs/mcp-profiles).
//!
//! Use them through the `mcp-profiles` crate, which re-exports them and
//! provides the runtime they expand to. Each macro is split into a parse
//! stage (tokens into plain data), a validate stage (every error of one
//! input collected and reported together) and an expand stage (quoting the
//! output). On error the original item is still emitted, and so is what
//! later code refers to (a vocabulary's enums, its `Vocabulary` impl and
//! registration macro; a named tool group's include shape), so the user
//! sees the macro's errors, one per mistake, and not a cascade of
//! unresolved names. `tests/ui` counts the errors of every snapshot.

mod errors;
mod impl_block;
mod marked;
mod names;
mod prompt_group;
mod register;
mod resource_group;
mod rule_args;
pub(crate) mod tool_group;
mod vocabulary;
mod whole_number;

use proc_macro::TokenStream;

/// Declares the profile vocabulary of a server type.
///
/// ```ignore
/// #[derive(Clone)]
/// pub struct HelpDesk { /* ... */ }
///
/// mcp_profiles::vocabulary! {
///     server HelpDesk;
///
///     /// The base surface of a session.
///     #[surfaces]
///     pub enum Surface { Ticket, Chat, Settings }
///
///     #[capabilities]
///     pub enum Capability {
///         Refund,
///         #[exclusive_with(Refund)]
///         ReadOnly,
///         Escalate,
///     }
///
///     #[providers]
///     pub enum Provider { Jira, Zendesk }
/// }
/// ```
///
/// `#[capabilities]` and `#[providers]` may be left out, for a server with
/// none: the macro then declares `Capability` or `Provider` exactly as
/// `pub enum Capability {}` or `pub enum Provider {}` would (with the
/// surfaces' visibility), so the generated API is the same; those names
/// must then be free in the module. The surfaces cannot be left out, and
/// hold at least one term: every context has one.
///
/// ```ignore
/// mcp_profiles::vocabulary! {
///     server Notes;
///     #[surfaces] pub enum Surface { Notebook }
/// }
/// // `Capability` and `Provider` are declared, empty.
/// ```
///
/// Each enum becomes an ordinary Rust enum (deriving `Clone`, `Copy`, `Debug`,
/// `PartialEq`, `Eq`, `PartialOrd`, `Ord`, `Hash`) with `Display`, `FromStr`
/// and serde support through its kebab-case wire name (`ReadOnly` is
/// `read-only`; `#[rename = "..."]` on a variant overrides it). Parsing an
/// unknown name fails with an error naming it and listing the valid ones.
/// `#[exclusive_with(...)]` on a capability forbids holding both. Each kind
/// holds at most 64 terms; a 65th is a compile error naming the limit.
///
/// In the declaring crate's `cargo test`, the macro also adds a test,
/// `tool_groups_of_<server>_are_valid`, that runs the registry's run-time
/// checks (unique group names, no tool exposed twice in one context, every
/// group reachable; the same for prompt and resource groups, with prompt
/// names and resource URIs) over every group linked into that test binary,
/// so a broken registry fails the tests rather than only panicking at first
/// use, and checks the surfaces' token budgets (below), which only that
/// test does.
///
/// `#[require_annotations]` before `server` requires annotations in every
/// group of the server, as if each group said `require_annotations` (see
/// [`macro@tool_group`]): every `#[tool]` must state `read_only_hint`, and
/// `destructive_hint` unless it is read-only. It takes no value.
///
/// `#[runtime_allow_list(max = N)]` before `server` lets a context limit the
/// runtime tools it serves to a list of at most `N` names
/// (`ProfileContext::with_runtime_allowed`, or `"runtime_allow"` in its
/// JSON form); without it, no context can set one. It sets
/// `Vocabulary::RUNTIME_ALLOW_MAX` to `Some(N)`. `max` is required and at
/// least 1, and is the only key.
///
/// ```ignore
/// mcp_profiles::vocabulary! {
///     #[require_annotations]
///     #[runtime_allow_list(max = 16)]
///     server HelpDesk;
///     // ...
/// }
/// ```
///
/// These are the only attributes the `server` line accepts, each at most
/// once; any misuse is an error on what was written.
///
/// Every mistake in the input is one error on what was written, and the
/// only one: a misspelt role attribute (`#[capabilites]`, `#[provider]`),
/// an enum with no role attribute, two enums of one part, a role on
/// anything but an enum, no `#[surfaces]` enum or an empty one, a `server`
/// line without its keyword, type or `;`, a syntax error in an enum. The
/// macro still declares the enums (taking a misspelt or unmarked enum as
/// the part it most likely means) and the server's `Vocabulary`, so code
/// naming them adds no error; the tool groups check their names once the
/// vocabulary has no error left.
///
/// `#[budget(tokens = N)]` on a surface caps what its contexts may cost a
/// client: no valid context on that surface may list tools whose
/// definitions (each tool's compact JSON, as `tools/list` serves it) come
/// to more than `N` o200k_base tokens. It sets `Vocabulary::TOKEN_BUDGETS`;
/// the test this macro adds checks it over every valid context (allow
/// lists at their widest) with `Registry::verify_budgets`, and fails naming
/// the costliest context, its cost and its largest tools. It needs
/// mcp-profiles' `tokens` feature: without it the budget is a compile
/// error on `N`, never a budget left unchecked. `tokens` is the only key,
/// at least 1; one budget per surface, and on surfaces only.
///
/// ```ignore
/// mcp_profiles::vocabulary! {
///     server HelpDesk;
///     #[surfaces]
///     pub enum Surface {
///         #[budget(tokens = 6000)]
///         Ticket,
///         Chat,
///     }
///     // ...
/// }
/// ```
///
/// The server type gets `mcp_profiles::Vocabulary`. Invoke the macro in the
/// module that defines the server type: it also defines a hidden macro under
/// the type's name, which is how `#[tool_group] impl HelpDesk` finds the
/// vocabulary to check its names against, from any module that can name
/// `HelpDesk`.
#[proc_macro]
pub fn vocabulary(input: TokenStream) -> TokenStream {
    vocabulary::vocabulary(input.into()).into()
}

/// Makes an impl block of rmcp `#[tool]` handlers one tool group, with one
/// enablement rule, in the server's static registry.
///
/// ```ignore
/// #[tool_group(surface = "ticket", capability = "refund")]
/// impl HelpDesk {
///     #[tool(description = "Refund the ticket's order")]
///     async fn refund_order(
///         &self,
///         Parameters(request): Parameters<RefundRequest>,
///     ) -> Result<CallToolResult, ErrorData> { /* ... */ }
/// }
/// ```
///
/// Keys; the group is on when every condition given holds, and at least one
/// condition (or `always`) is required:
///
/// - `surface = "..."` or `surfaces = ["...", ...]`: the context's surface is one of these;
/// - `capability = "..."` (repeatable) or `capabilities = [...]`: every one is held;
/// - `any_capability = ["...", ...]`: at least one of these is held;
/// - `provider = "..."` or `providers = ["...", ...]`: at least one of these is attached;
/// - `always` (no value, no other condition): on in every context;
/// - `name = "..."`: the group's kebab-case name; by default the last segment
///   of the module path (`tools/plan.rs` gives `plan`).
///
/// Not conditions but what the group holds besides its own `#[tool]`s:
///
/// - `include("group", "group": ["tool", ...])`: the tools of other named
///   groups of the server, all of them or those listed; the same
///   definitions, so groups that are on together may share them (two
///   *different* definitions of one name on together are an error);
/// - `exclude = ["tool", ...]`: included names left out;
/// - `allow_list(default = [...], universe = [...], max = N)`: which of the
///   group's tools (its own and those listed in `include`) a context may
///   pick; needs `name`.
///
/// ```ignore
/// #[tool_group(name = "night", surface = "night", include("tickets", "refunds"), exclude = ["delete_ticket"])]
/// impl HelpDesk {}
/// ```
///
/// Not a condition but a requirement on the group's tools:
///
/// - `require_annotations` (no value): every `#[tool]` of the group states
///   how it behaves, in rmcp's `annotations(...)`: `read_only_hint`, and
///   `destructive_hint` unless `read_only_hint = true` (MCP ignores
///   `destructiveHint` on a read-only tool). MCP clients read an absent hint
///   as the worst case (`readOnlyHint` false, `destructiveHint` true), and
///   anything that sorts tools by these hints (a read-only profile, say) is
///   only as honest as they are. `#[require_annotations]` on
///   the `server` line of [`vocabulary!`] requires this of every group.
///   The key is named for what it does: it requires annotations and adds
///   none; the hints stay on each `#[tool]`, where rmcp reads them.
///
/// ```ignore
/// #[tool_group(name = "refunds", surface = "ticket", require_annotations)]
/// impl HelpDesk {
///     #[tool(
///         description = "Refund the ticket's order",
///         annotations(read_only_hint = false, destructive_hint = false)
///     )]
///     async fn refund_order(&self) -> Result<CallToolResult, ErrorData> { /* ... */ }
///
///     #[tool(description = "Read the order", annotations(read_only_hint = true))]
///     async fn get_order(&self) -> Result<CallToolResult, ErrorData> { /* ... */ }
/// }
/// ```
///
/// ```ignore
/// #[tool_group(surface = "ticket", providers = ["jira", "zendesk"])]
/// impl HelpDesk { /* ... */ }
///
/// #[tool_group(any_capability = ["refund", "escalate"])]
/// impl HelpDesk { /* ... */ }
///
/// #[tool_group(name = "server-info", always)]
/// impl HelpDesk { /* ... */ }
/// ```
///
/// The methods stay ordinary rmcp tools (`Parameters<T>`, `Json<T>`,
/// schemars schemas). The group can live in any module or file of the crate
/// that defines the server type; nothing lists it by hand: its registry entry
/// is linked in with `linkme`. In another crate, rustc refuses the inherent
/// impl (E0116), next to an error that the server's hidden registration macro
/// cannot be found or is private.
///
/// At compile time, each with one error on the offending tokens: an unknown
/// surface, capability or provider (on the string literal, listing the
/// declared ones), no condition and no `always`, `always` with a condition or
/// a value, an unknown or repeated key (`provider` with `providers` included),
/// a name listed twice, a group requiring two exclusive capabilities or an
/// `any_capability` set every member of which is exclusive with a required
/// capability, anything but an inherent, non-generic impl block, an impl with
/// no `#[tool]`, two tools of one name, and an impl that also carries rmcp's
/// `#[tool_router]`, above or below `#[tool_group]` (on the `#[tool_router]`
/// attribute: the group serves those tools, so rmcp's router would be dead;
/// remove it, and `#[tool_handler]` from the `ServerHandler` impl).
/// When the group or its vocabulary requires annotations, each tool that
/// leaves a hint unstated is an error on its `#[tool]` (on its
/// `annotations(...)` when written), naming the tool and the hints and
/// saying what to add; `require_annotations` with a value or given twice is
/// an error too. These are checked once the attribute is otherwise valid.
/// With `include`: an included group nobody declared, a listed tool the
/// group lacks, an excluded name no included group exposes, and two
/// different definitions of one name among what the group includes are
/// compile errors on the literal (const evaluation of the group's entry).
#[proc_macro_attribute]
pub fn tool_group(attr: TokenStream, item: TokenStream) -> TokenStream {
    tool_group::tool_group(attr.into(), item.into()).into()
}

/// The registration callback `#[tool_group]` reaches through the macro
/// `vocabulary!` defines; not for direct use.
#[doc(hidden)]
#[proc_macro]
pub fn __register_tool_group(input: TokenStream) -> TokenStream {
    register::register(input.into()).into()
}

/// Makes an impl block of rmcp `#[prompt]` handlers one prompt group, with
/// one enablement rule, in the server's static registry: the prompts are
/// listed and served only to sessions whose profile enables the group.
///
/// ```ignore
/// #[prompt_group(name = "review-prompt", provider = "github")]
/// impl HelpDesk {
///     #[prompt(description = "Review a pull request")]
///     async fn review_pull_request(
///         &self,
///         Parameters(request): Parameters<ReviewRequest>,
///     ) -> Result<GetPromptResult, ErrorData> { /* ... */ }
/// }
/// ```
///
/// It takes the rule keys of [`macro@tool_group`] (`name`, `surface(s)`,
/// `capability`/`capabilities`, `any_capability`, `provider(s)`, `always`),
/// checked the same way with errors naming `#[prompt_group]`;
/// `require_annotations` is for tools only. The impl block is checked like a
/// tool group's: inherent, not generic, at least one `#[prompt]`, no prompt
/// name twice, and no rmcp `#[prompt_router]` on it (the profile serves the
/// prompts; remove it, and `#[prompt_handler]`). At run time, two prompt
/// groups some context enables together may not share a prompt name.
///
/// rmcp's `#[prompt]` adds an undocumented `pub fn <method>_prompt_attr()`
/// to the block, so the block is emitted with `#[allow(missing_docs)]`.
#[proc_macro_attribute]
pub fn prompt_group(attr: TokenStream, item: TokenStream) -> TokenStream {
    prompt_group::prompt_group(attr.into(), item.into()).into()
}

/// Makes an impl block of resource readers one resource group, with one
/// enablement rule, in the server's static registry: the resources are
/// listed and read only by sessions whose profile enables the group.
///
/// ```ignore
/// #[resource_group(name = "task-plan", surface = "ticket")]
/// impl HelpDesk {
///     #[resource(
///         uri_template = "helpdesk://ticket/{id}/notes",
///         name = "ticket-notes",
///         description = "The ticket's notes",
///         mime_type = "text/markdown"
///     )]
///     async fn ticket_notes(
///         &self,
///         uri: String,
///         context: RequestContext<RoleServer>,
///     ) -> Result<ReadResourceResult, ErrorData> { /* ... */ }
/// }
/// ```
///
/// Each reader is marked `#[resource(...)]` with either `uri = "..."` (one
/// fixed resource, in `resources/list`) or `uri_template = "..."` (a family
/// of them, in `resources/templates/list`; RFC 6570 simple `{name}`
/// variables, each matching one path segment), and optionally `name` (by
/// default the method's name), `title`, `description` and `mime_type`. The
/// reader gets the URI the client asked for. The rule keys are
/// [`macro@tool_group`]'s, with errors naming `#[resource_group]`. At
/// compile time, each with one error on the offending tokens: an unknown or
/// repeated marker key, a value that is not a string, both or neither of
/// `uri` and `uri_template`, a `uri` with `{variables}`, a template that is
/// not level 1 or has no variable, a URI given twice, and the impl-block
/// misuses of a tool group. At run time, two resource groups some context
/// enables together may not share a URI or template.
#[proc_macro_attribute]
pub fn resource_group(attr: TokenStream, item: TokenStream) -> TokenStream {
    resource_group::resource_group(attr.into(), item.into()).into()
}
