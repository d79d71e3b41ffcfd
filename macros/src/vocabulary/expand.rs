//! Expand stage of `vocabulary!`: the enums with their trait impls, the
//! `Vocabulary` impl for the server, and the registration macro that
//! `#[tool_group]` calls through the server type's name.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::ItemEnum;

use super::validate::{Other, Role, TermEnum, Vocabulary};

pub(crate) fn expand(vocabulary: &Vocabulary) -> TokenStream {
    let Vocabulary {
        server,
        surfaces,
        capabilities,
        providers,
        others,
        exclusive,
        line,
        complete,
    } = vocabulary;
    let parts = [
        (Role::Surfaces, surfaces),
        (Role::Capabilities, capabilities),
        (Role::Providers, providers),
    ]
    .map(|(role, term_enum)| term_enum_tokens(server.as_ref(), role, term_enum));
    let others = others.iter().map(|other| match other {
        Other::Term(role, term_enum) => term_enum_tokens(server.as_ref(), *role, term_enum),
        Other::Plain(item) => plain_enum(item),
        Other::Item(item) => quote!(#item),
    });
    let enums = quote! {
        #(#parts)*
        #(#others)*
    };
    // Without a server line there is no type to give the vocabulary to.
    let Some(server) = server else {
        return enums;
    };
    let require_annotations = line.require_annotations;
    let additive = line.additive.then(|| {
        quote!(
            const ADDITIVE: bool = true;
        )
    });
    // Left to the trait's default (`None`) when not declared, so a
    // vocabulary without the attribute expands as it always did.
    let runtime_allow_max = line.runtime_allow_max.map(|max| {
        let max = proc_macro2::Literal::usize_unsuffixed(max);
        quote! {
            const RUNTIME_ALLOW_MAX: ::core::option::Option<usize> =
                ::core::option::Option::Some(#max);
        }
    });
    let required_on = (!line.runtime_allow_required_on.is_empty()).then(|| {
        let surface = &surfaces.item.ident;
        let variants = line.runtime_allow_required_on.iter().filter_map(|name| {
            let term = surfaces
                .terms
                .iter()
                .find(|term| term.wire_name == name.value())?;
            let variant = &term.variant;
            Some(quote!(#surface::#variant))
        });
        quote! {
            const RUNTIME_ALLOW_REQUIRED_ON: &'static [Self::Surface] = &[#(#variants),*];
        }
    });
    // A budget is checked by the tests of a vocabulary that compiles; after
    // an error, it would only add `token_budget!`'s own.
    let token_budgets = complete.then(|| token_budgets(surfaces)).flatten();
    let (surface, capability, provider) = (
        &surfaces.item.ident,
        &capabilities.item.ident,
        &providers.item.ident,
    );
    let variant = |index: usize| &capabilities.terms[index].variant;
    let exclusive_values = exclusive
        .iter()
        .map(|(a, b)| (variant(*a), variant(*b)))
        .map(|(a, b)| quote!((#capability::#a, #capability::#b)));
    let wire = |term_enum: &TermEnum| -> Vec<String> {
        term_enum
            .terms
            .iter()
            .map(|t| t.wire_name.clone())
            .collect()
    };
    let (surface_names, capability_names, provider_names) =
        (wire(surfaces), wire(capabilities), wire(providers));
    let exclusive_names = exclusive.iter().map(|(a, b)| {
        let (a, b) = (&capability_names[*a], &capability_names[*b]);
        quote!([#a, #b])
    });
    let register = format_ident!("__mcp_profiles_register_{}", server);
    let verify = format_ident!(
        "tool_groups_of_{}_are_valid",
        crate::names::kebab_case(&server.to_string()).replace('-', "_")
    );
    quote! {
        #enums

        impl ::mcp_profiles::__private::VocabularySeal for #server {}

        impl ::mcp_profiles::Vocabulary for #server {
            type Surface = #surface;
            type Capability = #capability;
            type Provider = #provider;

            const EXCLUSIVE: &'static [(Self::Capability, Self::Capability)] =
                &[#(#exclusive_values),*];

            #runtime_allow_max
            #additive
            #required_on
            #token_budgets

            fn registry() -> &'static ::mcp_profiles::Registry<Self> {
                static REGISTRY: ::std::sync::OnceLock<::mcp_profiles::Registry<#server>> =
                    ::std::sync::OnceLock::new();
                REGISTRY.get_or_init(::mcp_profiles::__private::linked_registry::<#server>)
            }
        }

        // Verification panics on first use; this runs it in the declaring
        // crate's `cargo test` too, so a bad registry fails the tests and not
        // only the first request, and checks the surfaces' token budgets,
        // which only tests do.
        #[cfg(test)]
        #[test]
        fn #verify() {
            ::mcp_profiles::__private::verify_linked::<#server>(::core::stringify!(#server));
        }

        // `#[tool_group] impl Server` calls `Server! { ... }`: the type's
        // name doubles as this macro's name, so whoever can name the type can
        // reach its vocabulary.
        #[doc(hidden)]
        #[allow(unused_macros)]
        macro_rules! #register {
            ($($group:tt)*) => {
                ::mcp_profiles::__private::register_tool_group! {
                    vocabulary {
                        surfaces: [#(#surface_names),*],
                        capabilities: [#(#capability_names),*],
                        providers: [#(#provider_names),*],
                        exclusive: [#(#exclusive_names),*],
                        require_annotations: #require_annotations,
                        complete: #complete,
                    }
                    $($group)*
                }
            };
        }
        #[doc(hidden)]
        #[allow(unused_imports)]
        pub(crate) use #register as #server;
    }
}

/// `Vocabulary::TOKEN_BUDGETS`, when a surface declares a budget; left to
/// the trait's default (none) otherwise. Each number goes through the
/// runtime's `token_budget!`, a compile error on the number without the
/// `tokens` feature that checks it.
fn token_budgets(surfaces: &TermEnum) -> Option<TokenStream> {
    let surface = &surfaces.item.ident;
    let budgets: Vec<TokenStream> = surfaces
        .terms
        .iter()
        .filter_map(|term| {
            let budget = term.budget.as_ref()?;
            let variant = &term.variant;
            let mut tokens = proc_macro2::Literal::usize_unsuffixed(budget.tokens);
            tokens.set_span(budget.span);
            let checked = quote_spanned! {budget.span=>
                ::mcp_profiles::__private::token_budget!(#tokens)
            };
            Some(quote!((#surface::#variant, #checked)))
        })
        .collect();
    (!budgets.is_empty()).then(|| {
        quote! {
            const TOKEN_BUDGETS: &'static [(Self::Surface, usize)] = &[#(#budgets),*];
        }
    })
}

fn term_enum_tokens(server: Option<&syn::Ident>, role: Role, term_enum: &TermEnum) -> TokenStream {
    let ItemEnum {
        attrs,
        vis,
        enum_token,
        ident,
        brace_token: _,
        variants,
        ..
    } = &term_enum.item;
    let kind = format_ident!("{}", role.kind());
    let default_doc = attrs
        .iter()
        .all(|attr| !attr.path().is_ident("doc"))
        .then(|| {
            let part = role.attribute();
            let whose = server.map_or_else(
                || "a profile vocabulary".to_owned(),
                |server| format!("[`{server}`]'s profile vocabulary"),
            );
            let doc = if term_enum.implicit {
                format!(" The {part} of {whose}, which declares none.")
            } else {
                format!(" The {part} of {whose}.")
            };
            quote!(#[doc = #doc])
        });
    let variant_tokens = variants
        .iter()
        .zip(&term_enum.terms)
        .map(|(variant, term)| {
            let variant_attrs = &variant.attrs;
            let name = &variant.ident;
            let has_doc = variant_attrs.iter().any(|attr| attr.path().is_ident("doc"));
            let separator = has_doc.then(|| quote!(#[doc = ""]));
            let doc = format!(" Wire name: `{}`.", term.wire_name);
            quote! {
                #(#variant_attrs)*
                #separator
                #[doc = #doc]
                #name
            }
        });
    let names: Vec<_> = term_enum.terms.iter().map(|t| &t.variant).collect();
    let wire_names = term_enum.terms.iter().map(|t| &t.wire_name);
    let indices = 0..names.len();
    let private = quote!(::mcp_profiles::__private);
    quote! {
        #default_doc
        #(#attrs)*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #vis #enum_token #ident {
            #(#variant_tokens,)*
        }

        impl ::mcp_profiles::Term for #ident {
            const KIND: ::mcp_profiles::TermKind = ::mcp_profiles::TermKind::#kind;
            const ALL: &'static [Self] = &[#(Self::#names),*];
            const NAMES: &'static [&'static str] = &[#(#wire_names),*];
        }

        impl #private::TermIndex for #ident {
            fn index(self) -> usize {
                match self {
                    #(Self::#names => #indices,)*
                }
            }
        }

        impl ::core::fmt::Display for #ident {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.pad(::mcp_profiles::Term::wire_name(*self))
            }
        }

        impl ::core::str::FromStr for #ident {
            type Err = ::mcp_profiles::UnknownName;

            fn from_str(name: &str) -> ::core::result::Result<Self, Self::Err> {
                <Self as ::mcp_profiles::Term>::parse_wire_name(name)
            }
        }

        impl #private::serde::Serialize for #ident {
            fn serialize<S: #private::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                #private::serde_term::serialize(*self, serializer)
            }
        }

        impl<'de> #private::serde::Deserialize<'de> for #ident {
            fn deserialize<D: #private::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                #private::serde_term::deserialize(deserializer)
            }
        }
    }
}

/// An enum of the input with no role, declared as written (with the
/// derives of a term) after its error.
fn plain_enum(item: &ItemEnum) -> TokenStream {
    quote! {
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #item
    }
}
