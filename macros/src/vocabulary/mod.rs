//! `vocabulary!`: parse, validate, expand.

mod expand;
mod parse;
mod validate;

use proc_macro2::TokenStream;

use crate::errors::Errors;

pub(crate) fn vocabulary(input: TokenStream) -> TokenStream {
    let input = match syn::parse2::<parse::Input>(input) {
        Ok(input) => input,
        Err(error) => return error.to_compile_error(),
    };
    let mut errors = Errors::default();
    match validate::validate(input, &mut errors) {
        Ok(vocabulary) => expand::expand(&vocabulary),
        Err(enums) => {
            let mut tokens = expand::plain_enums(&enums);
            tokens.extend(errors.to_compile_errors());
            tokens
        }
    }
}
