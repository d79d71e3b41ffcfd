//! Expand stage: the impl block without its markers, each resource's
//! description as an associated function (`<method>_resource_attr`, as rmcp
//! names a tool's `<method>_tool_attr`), and one call of the server's
//! registration macro with `kind: resource`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{ItemImpl, TypePath};

use super::validate::ResourceSpec;
use crate::rule_args::{GroupSpec, rule_fields};
use crate::tool_group::expand::{has_vocabulary, macro_path};

pub(crate) fn expand(
    item: &ItemImpl,
    self_path: &TypePath,
    spec: &GroupSpec,
    resources: &[ResourceSpec],
) -> TokenStream {
    let macro_path = macro_path(self_path);
    let self_ty = &item.self_ty;
    let rule = rule_fields(spec);
    let private = quote!(::mcp_profiles::__private);
    let attr_fns = resources.iter().map(|resource| {
        let ResourceSpec {
            method,
            uri,
            template,
            name,
            title,
            description,
            mime_type,
        } = resource;
        let attr_fn = format_ident!("{}_resource_attr", method);
        let constructor = if *template {
            quote!(template)
        } else {
            quote!(fixed)
        };
        let title = title.iter().map(|t| quote!(.with_title(#t)));
        let description = description.iter().map(|d| quote!(.with_description(#d)));
        let mime_type = mime_type.iter().map(|m| quote!(.with_mime_type(#m)));
        quote! {
            #[doc(hidden)]
            fn #attr_fn() -> #private::ResourceDef {
                #private::ResourceDef::#constructor(#uri, #name)
                    #(#title)* #(#description)* #(#mime_type)*
            }
        }
    });
    let uris = resources.iter().map(|resource| &resource.uri);
    let methods = resources.iter().map(|resource| &resource.method);
    let has_vocabulary = has_vocabulary(self_ty);
    quote! {
        #item

        impl #self_ty {
            #(#attr_fns)*
        }

        #has_vocabulary

        #macro_path! {
            server: #self_ty,
            kind: resource,
            #rule
            items: [#(#uris => #methods),*],
        }
    }
}
