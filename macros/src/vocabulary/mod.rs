//! `vocabulary!`: parse, validate, expand.
//!
//! No mistake in the input stops the expansion: parse and validate record
//! each error and read the input as far as it goes, and the expansion
//! declares the enums, the `Vocabulary` impl and the registration macro
//! all the same, so the errors recorded are the only ones the user sees.
//! A vocabulary with an error tells its groups so (`complete: false`), and
//! they check no names against it.

mod budget;
mod expand;
mod parse;
mod server_line;
mod validate;

use proc_macro2::TokenStream;

use crate::errors::Errors;

pub(crate) fn vocabulary(input: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let input = parse::parse(input, &mut errors);
    // An error on the `server` line leaves the vocabulary complete: its
    // names are still the ones meant, so its groups are checked as usual.
    let mut line_errors = Errors::default();
    let line = server_line::read(&input.server_attrs, &mut line_errors);
    let mut vocabulary = validate::validate(input, line, &mut errors);
    let surfaces: Vec<String> = vocabulary
        .surfaces
        .terms
        .iter()
        .map(|term| term.wire_name.clone())
        .collect();
    let surfaces: Vec<&str> = surfaces.iter().map(String::as_str).collect();
    // Against surfaces that are not the ones meant, `required_on` would
    // only repeat the vocabulary's error: it keeps the names it can.
    let mut required_on_errors = Errors::default();
    server_line::check_required_on(&mut vocabulary.line, &surfaces, &mut required_on_errors);
    if vocabulary.complete {
        line_errors.extend(required_on_errors);
    }
    let mut tokens = expand::expand(&vocabulary);
    tokens.extend(line_errors.to_compile_errors());
    tokens.extend(errors.to_compile_errors());
    tokens
}
