//! Parse stage of `vocabulary!`: `server Name;`, optionally preceded by
//! attributes, followed by items.
//!
//! A mistake here stops nothing: a misspelt or missing `server` keyword is
//! an error on what was written and the name after it is still the server
//! type, and an item that does not parse is an error with what can be read
//! of it (its role attribute, its name, its variants) kept as an enum, so
//! that the expansion still declares what later code names.

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use syn::parse::{ParseStream, Parser};
use syn::{Attribute, Ident, Item, ItemEnum, Token};

use crate::errors::Errors;

mod kw {
    syn::custom_keyword!(server);
}

pub(crate) struct Input {
    /// The attributes of the `server` line; validation knows which exist.
    pub server_attrs: Vec<Attribute>,
    /// The server type the vocabulary belongs to; `None` when no server
    /// line could be read (its error is recorded).
    pub server: Option<Ident>,
    /// The items after it; validation wants up to three role-marked enums.
    /// An item that did not parse is here as the enum it was read as.
    pub items: Vec<Item>,
}

/// Reads the macro's input, recording every syntax error in `errors`.
pub(crate) fn parse(tokens: TokenStream, errors: &mut Errors) -> Input {
    let parser = |input: ParseStream| -> syn::Result<Input> {
        let start = input.span();
        let mut server_attrs = input.call(Attribute::parse_outer)?;
        let line = server_line(input, start, errors);
        let mut rest: TokenStream = input.parse()?;
        let absent = matches!(line, Line::Absent);
        let server = match line {
            Line::Server(server) => Some(server),
            Line::Nameless | Line::Absent => None,
        };
        if absent {
            // Without a server line, the attributes were the first item's.
            rest = quote::quote!(#(#server_attrs)* #rest);
            server_attrs.clear();
        }
        let items = chunks(rest)
            .into_iter()
            .filter_map(|chunk| item(chunk, errors))
            .collect();
        Ok(Input {
            server_attrs,
            server,
            items,
        })
    };
    match parser.parse2(tokens) {
        Ok(input) => input,
        // Only the `server` line's attributes can fail to parse here.
        Err(error) => {
            errors.push(error);
            Input {
                server_attrs: Vec::new(),
                server: None,
                items: Vec::new(),
            }
        }
    }
}

const SERVER_LINE: &str =
    "a vocabulary starts with the server type it belongs to: `server MyServer;`";

/// What the server line gave.
enum Line {
    Server(Ident),
    /// `server;`: the line, without the type.
    Nameless,
    /// No server line: the input starts with something else.
    Absent,
}

/// `server Name;`, or what was most likely meant by it: `Name;` or
/// `serve Name;` are errors on what was written, with `Name` still the
/// server; anything else leaves the vocabulary without one.
fn server_line(input: ParseStream, start: proc_macro2::Span, errors: &mut Errors) -> Line {
    if input.peek(kw::server) && input.peek2(syn::Ident) {
        let _ = input.parse::<kw::server>();
        let Ok(server) = input.parse::<Ident>() else {
            return Line::Nameless;
        };
        if input.parse::<Token![;]>().is_err() {
            errors.at(
                server.span(),
                format!("expected `;` after `server {server}`"),
            );
        }
        return Line::Server(server);
    }
    let fork = input.fork();
    let first = fork.parse::<Ident>().ok();
    let second = fork.parse::<Ident>().ok();
    match (first, second) {
        (Some(keyword), None) if keyword == "server" => {
            errors.at(
                keyword.span(),
                "`server` needs the server type the vocabulary belongs to: `server MyServer;`",
            );
            let _ = input.parse::<Ident>();
            let _ = input.parse::<Option<Token![;]>>();
            Line::Nameless
        }
        (Some(keyword), Some(server)) if fork.peek(Token![;]) => {
            errors.at(
                keyword.span(),
                format!(
                    "expected `server`, found `{keyword}`: a vocabulary starts with `server \
                     {server};`, the server type it belongs to"
                ),
            );
            let _ = input.parse::<Ident>();
            let _ = input.parse::<Ident>();
            let _ = input.parse::<Token![;]>();
            Line::Server(server)
        }
        (Some(server), None) if input.peek2(Token![;]) => {
            errors.at(
                server.span(),
                format!(
                    "expected `server {server};`: a vocabulary starts with the keyword `server` \
                     and the server type it belongs to"
                ),
            );
            let _ = input.parse::<Ident>();
            let _ = input.parse::<Token![;]>();
            Line::Server(server)
        }
        _ => {
            errors.at(start, SERVER_LINE);
            Line::Absent
        }
    }
}

/// The items' tokens, one chunk per item: each ends after a `;` or a
/// `{ ... }` at the top level, which is where an enum, a struct or any
/// other item of a vocabulary ends.
fn chunks(tokens: TokenStream) -> Vec<TokenStream> {
    let mut chunks = Vec::new();
    let mut chunk = Vec::new();
    for tree in tokens {
        let ends = match &tree {
            TokenTree::Punct(punct) => punct.as_char() == ';',
            TokenTree::Group(group) => group.delimiter() == Delimiter::Brace,
            _ => false,
        };
        chunk.push(tree);
        if ends {
            chunks.push(chunk.drain(..).collect());
        }
    }
    if !chunk.is_empty() {
        chunks.push(chunk.into_iter().collect());
    }
    chunks
}

/// One item; when it does not parse, its error and the enum that can be
/// read of it, if any.
fn item(chunk: TokenStream, errors: &mut Errors) -> Option<Item> {
    match syn::parse2::<Item>(chunk.clone()) {
        Ok(item) => Some(item),
        Err(error) => {
            errors.push(error);
            salvage(chunk).map(Item::Enum)
        }
    }
}

/// What an item that does not parse most likely declares: its outer
/// attributes of one identifier (a role attribute, misspelt or not), the
/// name after `enum` (or `struct`, `union`), and as variants the names in
/// its braces (every identifier of each comma-separated part, up to an
/// `=`, outside attributes and parentheses). Only for the expansion, which
/// declares it so that later code naming it still compiles; its error is
/// syn's.
fn salvage(chunk: TokenStream) -> Option<ItemEnum> {
    let mut attrs = Vec::new();
    let mut name = None;
    let mut body = None;
    let mut tokens = chunk.into_iter().peekable();
    let mut after_keyword = false;
    while let Some(tree) = tokens.next() {
        match tree {
            TokenTree::Punct(punct) if punct.as_char() == '#' => {
                if let Some(TokenTree::Group(group)) = tokens.peek()
                    && group.delimiter() == Delimiter::Bracket
                {
                    let inner = group.stream();
                    tokens.next();
                    if let Ok(path) = syn::parse2::<Ident>(inner) {
                        attrs.push(path);
                    }
                }
            }
            TokenTree::Ident(ident) if after_keyword && name.is_none() => name = Some(ident),
            TokenTree::Ident(ident) => {
                after_keyword = ["enum", "struct", "union"].contains(&ident.to_string().as_str());
            }
            TokenTree::Group(group) if group.delimiter() == Delimiter::Brace => {
                body = Some(group.stream());
            }
            _ => {}
        }
    }
    let name = name?;
    let variants = variant_names(body.unwrap_or_default());
    Some(syn::parse_quote! {
        #(#[#attrs])*
        pub enum #name { #(#variants),* }
    })
}

fn variant_names(body: TokenStream) -> Vec<Ident> {
    let mut names: Vec<Ident> = Vec::new();
    // After `=`: a discriminant, up to the next comma. Attributes, fields
    // and values are groups, never read.
    let mut discriminant = false;
    for tree in body {
        match tree {
            TokenTree::Punct(punct) if punct.as_char() == ',' => discriminant = false,
            TokenTree::Punct(punct) if punct.as_char() == '=' => discriminant = true,
            TokenTree::Ident(ident) if !discriminant && !names.contains(&ident) => {
                names.push(ident);
            }
            _ => {}
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::*;

    fn enum_names(input: &Input) -> Vec<String> {
        input
            .items
            .iter()
            .map(|item| match item {
                Item::Enum(item) => {
                    let variants: Vec<String> =
                        item.variants.iter().map(|v| v.ident.to_string()).collect();
                    format!("{} {{ {} }}", item.ident, variants.join(", "))
                }
                _ => "not an enum".to_owned(),
            })
            .collect()
    }

    #[test]
    fn a_well_formed_input_has_no_error() {
        let mut errors = Errors::default();
        let input = parse(
            quote! {
                #[require_annotations]
                server Desk;
                #[surfaces] pub enum Surface { Ticket, Chat }
                #[providers] pub enum Provider {}
            },
            &mut errors,
        );
        assert!(errors.is_empty());
        assert_eq!(input.server_attrs.len(), 1);
        assert_eq!(input.server.as_ref().unwrap(), "Desk");
        assert_eq!(
            enum_names(&input),
            ["Surface { Ticket, Chat }", "Provider {  }"]
        );
    }

    #[test]
    fn a_server_line_written_wrong_still_names_the_server() {
        for line in [quote!(Desk;), quote!(serve Desk;), quote!(server Desk)] {
            let mut errors = Errors::default();
            let input = parse(
                quote!(#line #[surfaces] pub enum Surface { Ticket }),
                &mut errors,
            );
            assert_eq!(errors.len(), 1, "{line}");
            assert_eq!(input.server.as_ref().unwrap(), "Desk", "{line}");
            assert_eq!(enum_names(&input), ["Surface { Ticket }"], "{line}");
        }
    }

    #[test]
    fn without_a_server_line_the_attributes_are_the_first_enum_s() {
        let mut errors = Errors::default();
        let input = parse(
            quote!(
                #[surfaces]
                pub enum Surface {
                    Ticket,
                }
            ),
            &mut errors,
        );
        assert_eq!(errors.len(), 1);
        assert!(input.server.is_none());
        assert!(input.server_attrs.is_empty());
        let Item::Enum(item) = &input.items[0] else {
            panic!("an enum");
        };
        assert!(item.attrs[0].path().is_ident("surfaces"));
    }

    #[test]
    fn an_enum_that_does_not_parse_keeps_its_role_name_and_variants() {
        let mut errors = Errors::default();
        let input = parse(
            quote! {
                server Desk;
                #[surfaces] pub enum Surface { Ticket Chat, #[rename = "x"] Mail(u8) = 3 }
                #[providers] pub enum Provider { Jira }
            },
            &mut errors,
        );
        assert_eq!(errors.len(), 1);
        assert_eq!(
            enum_names(&input),
            ["Surface { Ticket, Chat, Mail }", "Provider { Jira }"]
        );
        let Item::Enum(item) = &input.items[0] else {
            panic!("an enum");
        };
        assert!(item.attrs[0].path().is_ident("surfaces"));
    }
}
