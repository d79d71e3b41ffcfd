//! `vocabulary!`: parse, validate, expand.

mod budget;
mod expand;
mod parse;
mod server_line;
mod validate;

use proc_macro2::TokenStream;

use crate::errors::Errors;

pub(crate) fn vocabulary(input: TokenStream) -> TokenStream {
    let input = match syn::parse2::<parse::Input>(input) {
        Ok(input) => input,
        Err(error) => return error.to_compile_error(),
    };
    // An error on the `server` line does not stop the expansion: the
    // vocabulary is still usable, so its groups add no errors of their own.
    let mut line_errors = Errors::default();
    let line = server_line::read(&input.server_attrs, &mut line_errors);
    let mut errors = Errors::default();
    let mut tokens = match validate::validate(input, line, &mut errors) {
        Ok(mut vocabulary) => {
            let surfaces: Vec<String> = vocabulary
                .surfaces
                .terms
                .iter()
                .map(|term| term.wire_name.clone())
                .collect();
            let surfaces: Vec<&str> = surfaces.iter().map(String::as_str).collect();
            server_line::check_required_on(&mut vocabulary.line, &surfaces, &mut line_errors);
            expand::expand(&vocabulary)
        }
        Err(enums) => expand::plain_enums(&enums),
    };
    tokens.extend(line_errors.to_compile_errors());
    tokens.extend(errors.to_compile_errors());
    tokens
}
