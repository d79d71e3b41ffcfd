//! Expand stage: the allow list as a static `AllowSpec` linked into the
//! same slice as the group, under the server type, so the registry attaches
//! it to the group by name.

use proc_macro2::TokenStream;
use quote::quote;

use super::validate::AllowList;

pub(crate) fn expand(self_ty: &syn::Type, list: &AllowList) -> TokenStream {
    let AllowList {
        group,
        universe,
        default,
        max,
    } = list;
    let private = quote!(::mcp_profiles::__private);
    quote! {
        const _: () = {
            static ALLOW: #private::AllowSpec = #private::AllowSpec {
                group: #group,
                universe: &[#(#universe),*],
                default: &[#(#default),*],
                max: #max,
            };

            #[#private::linkme::distributed_slice(#private::TOOL_GROUPS)]
            #[linkme(crate = #private::linkme)]
            static LINK: #private::LinkedGroup =
                #private::LinkedGroup::allow_list::<#self_ty>(&ALLOW);
        };
    }
}
