//! Expand stage: the impl block, unchanged, plus one call of the server's
//! registration macro with `kind: prompt`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{ItemImpl, LitStr, TypePath};

use super::parse::PromptFn;
use crate::rule_args::{GroupSpec, rule_fields};
use crate::tool_group::expand::{has_vocabulary, macro_path};

pub(crate) fn expand(
    item: &ItemImpl,
    self_path: &TypePath,
    spec: &GroupSpec,
    prompts: &[PromptFn],
) -> TokenStream {
    let macro_path = macro_path(self_path);
    let self_ty = &item.self_ty;
    let rule = rule_fields(spec);
    let names = prompts
        .iter()
        .map(|prompt| LitStr::new(&prompt.name, prompt.name_span));
    let methods = prompts.iter().map(|prompt| &prompt.method);
    let has_vocabulary = has_vocabulary(self_ty);
    // rmcp's #[prompt] adds an undocumented `pub fn <method>_prompt_attr()`
    // to the block, which `missing_docs` would flag on the user's crate.
    quote! {
        #[allow(missing_docs)]
        #item

        #has_vocabulary

        #macro_path! {
            server: #self_ty,
            kind: prompt,
            #rule
            items: [#(#names => #methods),*],
        }
    }
}
