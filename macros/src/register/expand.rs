//! Expand stage of the registration callback: the group's routes, its static
//! registry entry, and the link of that entry into the program's group slice.

use mcp_profiles_rules::RuleMasks;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::parse::{GroupInput, Kind};

pub(crate) fn expand(group: &GroupInput, masks: &RuleMasks) -> TokenStream {
    match group.kind {
        Kind::Tool => tools(group, masks),
        Kind::Prompt | Kind::Resource => content(group, masks),
    }
}

/// The group's `name: ...` and `rule: ...` fields of its entry.
fn name_and_rule(group: &GroupInput, masks: &RuleMasks) -> TokenStream {
    let name = match &group.name {
        Some(name) => quote!(::core::option::Option::Some(#name)),
        None => quote!(::core::option::Option::None),
    };
    let RuleMasks {
        surfaces,
        capabilities,
        any_capabilities,
        providers,
    } = masks;
    quote! {
        name: #name,
        module_path: ::core::module_path!(),
        file: ::core::file!(),
        line: ::core::line!(),
        rule: ::mcp_profiles::__private::RuleMasks {
            surfaces: #surfaces,
            capabilities: #capabilities,
            any_capabilities: #any_capabilities,
            providers: #providers,
        },
    }
}

/// A prompt or resource group: its routes and entry, linked like a tool
/// group's. A prompt's route comes from rmcp's `#[prompt]` (its
/// `<method>_prompt_attr()`); a resource's from `#[resource_group]`'s
/// `<method>_resource_attr()` and a reader calling the method.
fn content(group: &GroupInput, masks: &RuleMasks) -> TokenStream {
    let server = &group.server;
    let private = quote!(::mcp_profiles::__private);
    let keys = group.tools.iter().map(|(key, _)| key);
    let (route_ty, routes, readers) = match group.kind {
        Kind::Prompt => {
            let routes = group.tools.iter().map(|(_, method)| {
                let attr_fn = format_ident!("{}_prompt_attr", method);
                quote! {
                    #private::IntoPromptRoute::into_prompt_route(
                        (<#server>::#attr_fn(), <#server>::#method)
                    )
                }
            });
            (
                quote!(#private::PromptRoute<#server>),
                routes.collect::<Vec<_>>(),
                Vec::new(),
            )
        }
        _ => {
            let routes = group.tools.iter().map(|(_, method)| {
                let attr_fn = format_ident!("{}_resource_attr", method);
                let reader = format_ident!("read_{}", method);
                quote!(#private::ResourceRoute::new(<#server>::#attr_fn(), #reader))
            });
            let readers = group.tools.iter().map(|(_, method)| {
                let reader = format_ident!("read_{}", method);
                quote! {
                    fn #reader<'a>(
                        server: &'a #server,
                        uri: ::std::string::String,
                        context: #private::RequestContext<#private::RoleServer>,
                    ) -> #private::ReadFuture<'a> {
                        ::std::boxed::Box::pin(<#server>::#method(server, uri, context))
                    }
                }
            });
            (
                quote!(#private::ResourceRoute<#server>),
                routes.collect(),
                readers.collect(),
            )
        }
    };
    let name_and_rule = name_and_rule(group, masks);
    quote! {
        const _: () = {
            #(#readers)*

            fn routes() -> ::std::vec::Vec<#route_ty> {
                ::std::vec![#(#routes),*]
            }

            static ENTRY: #private::ContentEntry<#route_ty> = #private::ContentEntry {
                #name_and_rule
                items: &[#(#keys),*],
                routes,
            };

            #[#private::linkme::distributed_slice(#private::TOOL_GROUPS)]
            #[linkme(crate = #private::linkme)]
            static LINK: #private::LinkedGroup = #private::LinkedGroup::content::<#server, #route_ty>(&ENTRY);
        };
    }
}

fn tools(group: &GroupInput, masks: &RuleMasks) -> TokenStream {
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
