//! `#[tool_group(..., allow_list(default = [...], universe = [...], max = N))]`:
//! which of the group's tools a context may pick, what it gets when it
//! picks none, and how many it may pick. Parsed, validated against the
//! group's own tools (every error on the user's literal, all reported
//! together), and expanded into an allow-list entry linked beside the
//! group's.

mod expand;
mod parse;
mod validate;

pub(crate) use expand::expand;
pub(crate) use parse::take;
pub(crate) use validate::validate;
