//! Parse stage of `vocabulary!`: `server Name;`, optionally preceded by
//! attributes, followed by items.

use syn::parse::{Parse, ParseStream};
use syn::{Attribute, Ident, Item, Token};

mod kw {
    syn::custom_keyword!(server);
}

pub(crate) struct Input {
    /// The attributes of the `server` line; validation knows which exist.
    pub server_attrs: Vec<Attribute>,
    /// The server type the vocabulary belongs to.
    pub server: Ident,
    /// The items after it; validation wants three role-marked enums.
    pub items: Vec<Item>,
}

impl Parse for Input {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let server_attrs = input.call(Attribute::parse_outer)?;
        if !input.peek(kw::server) {
            return Err(input.error(
                "a vocabulary starts with the server type it belongs to: `server MyServer;`",
            ));
        }
        input.parse::<kw::server>()?;
        let server = input.parse()?;
        input.parse::<Token![;]>()?;
        let mut items = Vec::new();
        while !input.is_empty() {
            items.push(input.parse()?);
        }
        Ok(Input {
            server_attrs,
            server,
            items,
        })
    }
}
