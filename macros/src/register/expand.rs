//! Expand stage of the registration callback: the group's routes, its static
//! registry entry, and the link of that entry into the program's group slice.

use mcp_profiles_rules::RuleMasks;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::LitStr;

use super::parse::{GroupInput, Includes, Kind};
use crate::tool_group::expand::shape_ident;

pub(crate) fn expand(group: &GroupInput, masks: &RuleMasks) -> TokenStream {
    match group.kind {
        Kind::Tool => tools(group, masks),
        Kind::Prompt | Kind::Resource => content(group, masks),
    }
}

/// The group's `name: ...` and `rule: ...` fields of its entry.
fn name_and_rule(group: &GroupInput, masks: &RuleMasks) -> TokenStream {
    let optional = |text: &Option<syn::LitStr>| match text {
        Some(text) => quote!(::core::option::Option::Some(#text)),
        None => quote!(::core::option::Option::None),
    };
    let (name, title, description) = (
        optional(&group.name),
        optional(&group.title),
        optional(&group.description),
    );
    let RuleMasks {
        surfaces,
        capabilities,
        any_capabilities,
        providers,
    } = masks;
    quote! {
        name: #name,
        title: #title,
        description: #description,
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
    let GroupInput { server, tools, .. } = group;
    let private = quote!(::mcp_profiles::__private);
    let own_names: Vec<_> = tools.iter().map(|(name, _)| name).collect();
    let own_definitions: Vec<_> = tools
        .iter()
        .map(|(_, method)| LitStr::new(&method.to_string(), method.span()))
        .collect();
    let own_routes = tools.iter().map(|(_, method)| {
        let attr_fn = format_ident!("{}_tool_attr", method);
        quote! {
            #private::IntoToolRoute::into_tool_route(
                (<#server>::#attr_fn(), <#server>::#method)
            )
        }
    });
    let group_name = group
        .name
        .as_ref()
        .map_or_else(|| quote!(::core::module_path!()), |name| quote!(#name));
    // A group that includes others computes its tools at compile time from
    // their shapes; any other lists its own.
    let (lists, routes) = match &group.includes {
        None => (
            quote! {
                const TOOLS: &[&str] = &[#(#own_names),*];
                const DEFINITIONS: &[&str] = &[#(#own_definitions),*];
            },
            quote!(own_routes()),
        ),
        Some(includes) => (
            composition(group, includes, &own_names, &own_definitions, &group_name),
            quote!(#private::composed_routes(own_routes, PARTS, TOOLS)),
        ),
    };
    // Other groups of the crate reach a named group's tools through this
    // constant on the server type.
    let shape = group.name.as_ref().map(|name| {
        let shape = shape_ident(name);
        quote! {
            impl #server {
                #[doc(hidden)]
                #[allow(non_upper_case_globals)]
                pub(crate) const #shape: #private::GroupShape<#server> = #private::GroupShape {
                    name: #name,
                    tools: TOOLS,
                    definitions: DEFINITIONS,
                    routes,
                };
            }
        }
    });
    let name_and_rule = name_and_rule(group, masks);
    // The groups it includes, by name: they name it as their parent.
    let included = group
        .includes
        .iter()
        .flat_map(|includes| includes.parts.iter().map(|part| &part.group));
    quote! {
        const _: () = {
            fn own_routes() -> ::std::vec::Vec<#private::ToolRoute<#server>> {
                ::std::vec![#(#own_routes),*]
            }

            #lists

            fn routes() -> ::std::vec::Vec<#private::ToolRoute<#server>> {
                #routes
            }

            #shape

            static ENTRY: #private::GroupEntry<#server> = #private::GroupEntry {
                #name_and_rule
                tools: TOOLS,
                definitions: DEFINITIONS,
                includes: &[#(#included),*],
                routes,
            };

            #[#private::linkme::distributed_slice(#private::TOOL_GROUPS)]
            #[linkme(crate = #private::linkme)]
            static LINK: #private::LinkedGroup = #private::LinkedGroup::new(&ENTRY);
        };
    }
}

/// `TOOLS`, `DEFINITIONS` and `PARTS` of a group that includes others,
/// with a const check per thing that can be wrong, each failing on the
/// literal that is wrong.
fn composition(
    group: &GroupInput,
    includes: &Includes,
    own_names: &[&LitStr],
    own_definitions: &[LitStr],
    group_name: &TokenStream,
) -> TokenStream {
    let server = &group.server;
    let private = quote!(::mcp_profiles::__private);
    let parts = includes.parts.iter().map(|part| {
        let shape = shape_ident(&part.group);
        let only = match &part.only {
            Some(tools) => quote!(::core::option::Option::Some(&[#(#tools),*])),
            None => quote!(::core::option::Option::None),
        };
        quote!(#private::Part { shape: <#server>::#shape, only: #only })
    });
    let included: Vec<String> = includes
        .parts
        .iter()
        .map(|part| format!("`{}`", part.group.value()))
        .collect();
    let this = group.name.as_ref().map_or_else(
        || "this group".to_owned(),
        |name| format!("`{}`", name.value()),
    );
    let excluded = includes.exclude.iter().map(|tool| {
        let message = format!(
            "`{}` is excluded from {this}, but none of the groups it includes ({}) exposes it: \
             remove it from `exclude`",
            tool.value(),
            included.join(", ")
        );
        quote_spanned! {tool.span()=>
            const _: () = if !#private::exposed_by(PARTS, #tool) {
                ::core::panic!(#message)
            };
        }
    });
    let (this, private) = (&this, &private);
    let listed = includes.parts.iter().flat_map(|part| {
        let shape = shape_ident(&part.group);
        let group_literal = part.group.value();
        part.only.iter().flatten().map(move |tool| {
            let message = format!(
                "`{}` is not a tool of group `{group_literal}`, so {this} cannot include it",
                tool.value()
            );
            quote_spanned! {tool.span()=>
                const _: () = if !#private::has(&<#server>::#shape, #tool) {
                    ::core::panic!(#message)
                };
            }
        })
    });
    let exclude = &includes.exclude;
    let one_definition = quote_spanned! {includes.key.span()=>
        const _: () = if let ::core::option::Option::Some(message) = COMPOSED.conflict() {
            ::core::panic!("{}", message)
        };
    };
    quote! {
        const PARTS: &[#private::Part<#server>] = &[#(#parts),*];
        const COMPOSED: #private::Composed = #private::compose(
            #group_name,
            &[#(#own_names),*],
            &[#(#own_definitions),*],
            PARTS,
            &[#(#exclude),*],
        );
        const TOOLS: &[&str] = &COMPOSED.names::<{ COMPOSED.len() }>();
        const DEFINITIONS: &[&str] = &COMPOSED.definitions::<{ COMPOSED.len() }>();
        #one_definition
        #(#excluded)*
        #(#listed)*
    }
}
