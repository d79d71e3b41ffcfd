//! The `server` line's attributes: `#[require_annotations]`,
//! `#[additive]` and `#[runtime_allow_list(max = N)]`, each at most once,
//! every misuse an error on what the user wrote.

use syn::{Attribute, LitStr, Meta};

use crate::errors::Errors;
use crate::names::closest;
use crate::rule_args::{self, Arg, Value};
use crate::whole_number::whole_number;

/// What the `server` line declares.
#[derive(Default)]
pub(crate) struct ServerLine {
    /// `#[require_annotations]`: every tool of every group states its hints.
    pub require_annotations: bool,
    /// `#[additive]`: adding a capability or a provider never removes a
    /// tool, proven by the vocabulary's test.
    pub additive: bool,
    /// `#[runtime_allow_list(max = N)]`: contexts may limit the runtime
    /// tools they serve to a list of at most `N` names.
    pub runtime_allow_max: Option<usize>,
    /// Its `required_on = [...]`: surfaces on which a context without a
    /// list serves no runtime tool. Checked against the surfaces by the
    /// caller, which knows them.
    pub runtime_allow_required_on: Vec<LitStr>,
}

const REQUIRE_ANNOTATIONS: &str = "require_annotations";
const ADDITIVE: &str = "additive";
const RUNTIME_ALLOW_LIST: &str = "runtime_allow_list";

/// The keys `#[runtime_allow_list(...)]` takes.
const MAX: &str = "max";
const REQUIRED_ON: &str = "required_on";

/// Reads the `server` line's attributes. A misused attribute counts as
/// absent: its error already stops the build, and errors it might cause
/// elsewhere (an unannotated tool, say) would only be noise.
pub(crate) fn read(attrs: &[Attribute], errors: &mut Errors) -> ServerLine {
    let mut require_annotations = Seen::default();
    let mut additive = Seen::default();
    let mut runtime_allow = Seen::default();
    let mut runtime_allow_max = None;
    let mut runtime_allow_required_on = Vec::new();
    for attr in attrs {
        let path = attr.path();
        if path.is_ident(REQUIRE_ANNOTATIONS) {
            let flag = matches!(attr.meta, Meta::Path(_));
            if !flag {
                errors.spanned(
                    attr,
                    "`#[require_annotations]` takes no value; write `#[require_annotations]` \
                     before `server` to require annotations in every group, and leave it out \
                     otherwise",
                );
            }
            require_annotations.record(attr, flag, errors);
        } else if path.is_ident(ADDITIVE) {
            let flag = matches!(attr.meta, Meta::Path(_));
            if !flag {
                errors.spanned(
                    attr,
                    "`#[additive]` takes no value; write `#[additive]` before `server` to \
                     declare that adding a capability or a provider never removes a tool, \
                     proven by the vocabulary's test, and leave it out otherwise",
                );
            }
            additive.record(attr, flag, errors);
        } else if path.is_ident(RUNTIME_ALLOW_LIST) {
            let declared = runtime_allow_list(attr, errors);
            runtime_allow.record(attr, declared.is_some(), errors);
            if let Some((max, required_on)) = declared {
                runtime_allow_max = runtime_allow_max.or(Some(max));
                runtime_allow_required_on = required_on;
            }
        } else {
            unknown(attr, errors);
        }
    }
    ServerLine {
        require_annotations: require_annotations.valid(),
        additive: additive.valid(),
        runtime_allow_max: runtime_allow_max.filter(|_| runtime_allow.valid()),
        runtime_allow_required_on,
    }
}

/// How often one attribute was given, and whether every time was valid.
#[derive(Default)]
struct Seen {
    times: usize,
    all_valid: bool,
}

impl Seen {
    /// One more `attr`; a repeat is an error on it.
    fn record(&mut self, attr: &Attribute, valid: bool, errors: &mut Errors) {
        if self.times > 0 {
            let path = attr.path();
            let name = quote::quote!(#path).to_string();
            errors.spanned(attr, format!("`#[{name}]` is given twice"));
        }
        self.all_valid = valid && (self.times == 0 || self.all_valid);
        self.times += 1;
    }

    /// Given exactly once, validly.
    fn valid(&self) -> bool {
        self.times == 1 && self.all_valid
    }
}

/// The `max` and `required_on` of `#[runtime_allow_list(max = N,
/// required_on = [...])]`, if it is written so.
fn runtime_allow_list(attr: &Attribute, errors: &mut Errors) -> Option<(usize, Vec<LitStr>)> {
    let args = rule_args::list_args(
        attr,
        "`#[runtime_allow_list]` takes the most runtime tools a context's runtime allow \
             list may name: write `#[runtime_allow_list(max = 16)]`",
        errors,
    )?;
    let before = errors.len();
    let mut max = None;
    let mut max_written = false;
    let mut required_on: Option<Vec<LitStr>> = None;
    // A misspelt `max` is already an error saying what the key is.
    let mut unknown_key = false;
    for Arg { key, value } in args {
        if key == REQUIRED_ON {
            match value {
                _ if required_on.is_some() => errors.spanned(
                    &key,
                    "`required_on` is given twice in `#[runtime_allow_list(...)]`",
                ),
                Some(Value::List { items, .. }) => required_on = Some(items),
                _ => errors.spanned(
                    &key,
                    "`required_on` takes surfaces: write `required_on = [\"surface\", ...]`",
                ),
            }
        } else if key != MAX {
            unknown_key = true;
            let hint = closest(&key.to_string(), [MAX, REQUIRED_ON])
                .map(|close| format!("did you mean `{close}`? "))
                .unwrap_or_default();
            errors.spanned(
                &key,
                format!(
                    "unknown key `{key}` in `#[runtime_allow_list(...)]`; {hint}it takes \
                     `max = N`, the most runtime tools a context's runtime allow list may name, \
                     and optionally `required_on = [\"surface\", ...]`, the surfaces on which a \
                     context without a list serves no runtime tool"
                ),
            );
        } else if max_written {
            errors.spanned(&key, "`max` is given twice in `#[runtime_allow_list(...)]`");
        } else {
            max_written = true;
            max = whole_number(&key, value, errors);
        }
    }
    match max {
        Some((at, 0)) => errors.at(
            at,
            "`max = 0` would allow no runtime tool in any context; give at least 1 (a context \
             can still allow none, with an empty list), or drop the attribute to leave runtime \
             tools unrestricted",
        ),
        None if !max_written && !unknown_key => errors.spanned(
            attr,
            "`#[runtime_allow_list(...)]` needs `max = N`: the most runtime tools a context's \
             runtime allow list may name, e.g. `#[runtime_allow_list(max = 16)]`",
        ),
        _ => {}
    }
    max.map(|(_, max)| (max, required_on.unwrap_or_default()))
        .filter(|_| errors.len() == before)
}

/// Keeps the `required_on` surfaces among `surfaces` (the vocabulary's
/// wire names); each other one is an error on its literal, naming them.
pub(crate) fn check_required_on(line: &mut ServerLine, surfaces: &[&str], errors: &mut Errors) {
    let mut seen = Vec::new();
    for surface in &line.runtime_allow_required_on {
        let name = surface.value();
        if !surfaces.contains(&name.as_str()) {
            let hint = closest(&name, surfaces.iter().copied())
                .map(|close| format!("did you mean `{close}`? "))
                .unwrap_or_default();
            errors.spanned(
                surface,
                format!(
                    "unknown surface `{name}` in `required_on`; {hint}expected one of: {}",
                    surfaces.join(", ")
                ),
            );
        } else if seen.contains(&name) {
            errors.spanned(surface, format!("surface `{name}` is listed twice"));
        }
        seen.push(name);
    }
    line.runtime_allow_required_on
        .retain(|surface| surfaces.contains(&surface.value().as_str()));
}

/// An attribute the `server` line does not take: an error naming the ones
/// it does.
fn unknown(attr: &Attribute, errors: &mut Errors) {
    let path = attr.path();
    let name = quote::quote!(#path).to_string().replace(' ', "");
    let hint = closest(&name, [REQUIRE_ANNOTATIONS, ADDITIVE, RUNTIME_ALLOW_LIST])
        .map(|close| format!("did you mean `#[{close}]`? "))
        .unwrap_or_default();
    errors.spanned(
        attr,
        format!(
            "unknown attribute `#[{name}]` on the `server` line; {hint}it takes \
             `#[require_annotations]`, which requires every tool of every group to state \
             `read_only_hint` and `destructive_hint`, `#[additive]`, which declares that \
             adding a capability or a provider never removes a tool, and \
             `#[runtime_allow_list(max = N)]`, which lets a context limit the runtime tools \
             it serves to a list of at most N names"
        ),
    );
}
