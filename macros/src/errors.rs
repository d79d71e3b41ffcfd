//! Collects every error of one macro input so they are reported together.

use proc_macro2::TokenStream;
use quote::ToTokens;

/// The errors found so far, in source order of discovery.
#[derive(Default)]
pub(crate) struct Errors(Vec<syn::Error>);

impl Errors {
    /// Records an error spanning `tokens`.
    pub fn spanned(&mut self, tokens: impl ToTokens, message: impl std::fmt::Display) {
        self.0.push(syn::Error::new_spanned(tokens, message));
    }

    /// Records an error at `span`.
    pub fn at(&mut self, span: proc_macro2::Span, message: impl std::fmt::Display) {
        self.0.push(syn::Error::new(span, message));
    }

    /// Records an error built elsewhere.
    pub fn push(&mut self, error: syn::Error) {
        self.0.push(error);
    }

    /// Records every error of `other`, after these.
    pub fn extend(&mut self, other: Errors) {
        self.0.extend(other.0);
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many errors are recorded.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// One `compile_error!` per recorded error.
    pub fn to_compile_errors(&self) -> TokenStream {
        self.0.iter().map(syn::Error::to_compile_error).collect()
    }
}

/// The original item followed by the errors: the item still compiles, so the
/// user sees our errors and not a cascade about missing methods.
pub(crate) fn item_with_errors(item: impl ToTokens, errors: &Errors) -> TokenStream {
    let mut tokens = item.into_token_stream();
    tokens.extend(errors.to_compile_errors());
    tokens
}
