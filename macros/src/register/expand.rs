//! Expand stage of the registration callback: the group's routes, its static
//! registry entry, and the link of that entry into the program's group slice.

use mcp_profiles_rules::RuleMasks;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::parse::GroupInput;

pub(crate) fn expand(group: &GroupInput, masks: &RuleMasks) -> TokenStream {
    let GroupInput {
        server,
        name,
        tools,
        ..
    } = group;
    let name = match name {
        Some(name) => quote!(::core::option::Option::Some(#name)),
        None => quote!(::core::option::Option::None),
    };
    let RuleMasks {
        surfaces,
        capabilities,
        any_capabilities,
        providers,
    } = masks;
    let tool_names = tools.iter().map(|(name, _)| name);
    let routes = tools.iter().map(|(_, method)| {
        let attr_fn = format_ident!("{}_tool_attr", method);
        quote! {
            ::mcp_profiles::__private::IntoToolRoute::into_tool_route(
                (<#server>::#attr_fn(), <#server>::#method)
            )
        }
    });
    let private = quote!(::mcp_profiles::__private);
    quote! {
        const _: () = {
            fn routes() -> ::std::vec::Vec<#private::ToolRoute<#server>> {
                ::std::vec![#(#routes),*]
            }

            static ENTRY: #private::GroupEntry<#server> = #private::GroupEntry {
                name: #name,
                module_path: ::core::module_path!(),
                file: ::core::file!(),
                line: ::core::line!(),
                rule: #private::RuleMasks {
                    surfaces: #surfaces,
                    capabilities: #capabilities,
                    any_capabilities: #any_capabilities,
                    providers: #providers,
                },
                tools: &[#(#tool_names),*],
                routes,
            };

            #[#private::linkme::distributed_slice(#private::TOOL_GROUPS)]
            #[linkme(crate = #private::linkme)]
            static LINK: #private::LinkedGroup = #private::LinkedGroup::new(&ENTRY);
        };
    }
}
