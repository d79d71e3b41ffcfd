//! Validate stage: the impl block of prompts; the rule keys are
//! `rule_args`' to check.

use proc_macro2::TokenStream;
use syn::{ItemImpl, TypePath};

use super::parse::PromptFn;
use crate::errors::Errors;
use crate::impl_block::{Keyed, Marker, check};

const MARKER: Marker = Marker {
    attr: "prompt_group",
    marker: "#[prompt]",
    item: "prompt",
    trait_reason: "rmcp's #[prompt] adds associated functions that a trait impl cannot hold",
    how_to_mark: "mark its handlers with rmcp's #[prompt]",
    keys: "prompt names",
};

/// Checks the impl block: inherent, concrete, with uniquely named prompts.
pub(crate) fn item<'a>(
    item: &'a ItemImpl,
    prompts: &[PromptFn],
    errors: &mut Errors,
) -> Option<&'a TypePath> {
    let keyed: Vec<Keyed<'_>> = prompts
        .iter()
        .map(|prompt| Keyed {
            key: &prompt.name,
            span: prompt.name_span,
            method: &prompt.method,
        })
        .collect();
    check(item, &MARKER, keyed.len(), &keyed, errors)
}

/// An impl block that is both a prompt group and an rmcp `#[prompt_router]`:
/// the profile serves its prompts, so the router would never be consulted.
pub(crate) fn no_prompt_router(traces: &[TokenStream], errors: &mut Errors) {
    for trace in traces {
        errors.spanned(
            trace,
            "`#[prompt_router]` and `#[prompt_group]` on one impl block: the prompt group \
             serves these prompts through the profile, so rmcp's router would never be \
             called; remove `#[prompt_router]`, and `#[prompt_handler]` from the \
             `ServerHandler` impl",
        );
    }
}
