//! The registration callback behind `#[tool_group]`: it receives the
//! server's vocabulary and one group, checks the group's names against the
//! vocabulary, and emits the group's registry entry.

mod expand;
mod parse;
mod validate;

use proc_macro2::TokenStream;

use crate::errors::Errors;

pub(crate) fn register(input: TokenStream) -> TokenStream {
    let input = match syn::parse2::<parse::Input>(input) {
        Ok(input) => input,
        Err(error) => return error.to_compile_error(),
    };
    let mut errors = Errors::default();
    let masks = validate::validate(&input.vocabulary, &input.group, &mut errors);
    // The entry is emitted even after an error, with the names that are
    // known: other groups that include this one find its tools, and the
    // errors are only ours.
    let mut tokens = expand::expand(&input.group, &masks);
    tokens.extend(errors.to_compile_errors());
    tokens
}
