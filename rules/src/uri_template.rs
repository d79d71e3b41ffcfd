//! Resource URI templates: RFC 6570 level 1 (simple `{name}` variables), the
//! form `#[resource_group]` accepts. The macro checks a template with
//! [`UriTemplate::parse`] and the runtime matches read URIs with
//! [`UriTemplate::matches`], so both agree on what a template is.

use std::fmt;

/// One part of a template.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    Literal(String),
    Variable,
}

/// A parsed URI template with at least one variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UriTemplate {
    parts: Vec<Part>,
}

/// Why a string is not a template `#[resource_group]` accepts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TemplateError {
    /// No `{name}` at all: a fixed URI.
    NoVariable,
    /// A `{` without its `}`, or a `}` without its `{`.
    Unbalanced,
    /// `{}`, an operator such as `{+path}` or `{?q}`, or a name that is not
    /// letters, digits and `_`.
    BadVariable(String),
    /// Two variables with nothing between them: no URI says where one ends.
    Adjacent,
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TemplateError::NoVariable => f.write_str("it has no `{variable}`"),
            TemplateError::Unbalanced => f.write_str("its braces do not pair up"),
            TemplateError::BadVariable(name) => write!(
                f,
                "`{{{name}}}` is not a simple variable: only `{{name}}` with letters, digits \
                 and `_` is supported (RFC 6570 level 1)"
            ),
            TemplateError::Adjacent => {
                f.write_str("two variables touch, so no URI says where one ends")
            }
        }
    }
}

impl UriTemplate {
    /// Parses `template`, refusing anything but literal text and simple
    /// `{name}` variables, at least one of them.
    pub fn parse(template: &str) -> Result<Self, TemplateError> {
        let mut parts = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find(['{', '}']) {
            if rest.as_bytes()[open] == b'}' {
                return Err(TemplateError::Unbalanced);
            }
            if open > 0 {
                parts.push(Part::Literal(rest[..open].to_owned()));
            } else if parts.last() == Some(&Part::Variable) {
                return Err(TemplateError::Adjacent);
            }
            let after = &rest[open + 1..];
            let close = after.find('}').ok_or(TemplateError::Unbalanced)?;
            let name = &after[..close];
            if name.contains('{') {
                return Err(TemplateError::Unbalanced);
            }
            let simple =
                !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
            if !simple {
                return Err(TemplateError::BadVariable(name.to_owned()));
            }
            parts.push(Part::Variable);
            rest = &after[close + 1..];
        }
        if !rest.is_empty() {
            parts.push(Part::Literal(rest.to_owned()));
        }
        if !parts.contains(&Part::Variable) {
            return Err(TemplateError::NoVariable);
        }
        Ok(UriTemplate { parts })
    }

    /// Whether `uri` is an expansion of the template: each variable stands
    /// for one or more characters other than `/`, `?` and `#` (a simple
    /// expansion percent-encodes them).
    pub fn matches(&self, uri: &str) -> bool {
        matches_from(&self.parts, uri)
    }
}

fn matches_from(parts: &[Part], uri: &str) -> bool {
    match parts.split_first() {
        None => uri.is_empty(),
        Some((Part::Literal(text), rest)) => uri
            .strip_prefix(text.as_str())
            .is_some_and(|tail| matches_from(rest, tail)),
        Some((Part::Variable, rest)) => {
            let span = uri.find(['/', '?', '#']).unwrap_or(uri.len());
            // Every non-empty value the variable could take, shortest first.
            uri[..span]
                .char_indices()
                .skip(1)
                .map(|(end, _)| end)
                .chain([span])
                .filter(|&end| end > 0)
                .any(|end| matches_from(rest, &uri[end..]))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_variables_match_one_segment() {
        let plan = UriTemplate::parse("kandev://task/{task_id}/plan").unwrap();
        assert!(plan.matches("kandev://task/42/plan"));
        assert!(plan.matches("kandev://task/a-b/plan"));
        assert!(!plan.matches("kandev://task//plan"));
        assert!(!plan.matches("kandev://task/4/2/plan"));
        assert!(!plan.matches("kandev://task/42/plan/x"));
        let two = UriTemplate::parse("db://{schema}.{table}").unwrap();
        assert!(two.matches("db://a.b.c"));
        assert!(!two.matches("db://ab"));
    }

    #[test]
    fn only_level_one_templates_parse() {
        use TemplateError::*;
        assert_eq!(UriTemplate::parse("file:///a"), Err(NoVariable));
        assert_eq!(UriTemplate::parse("x://{a"), Err(Unbalanced));
        assert_eq!(UriTemplate::parse("x://a}"), Err(Unbalanced));
        assert_eq!(
            UriTemplate::parse("x://{+path}"),
            Err(BadVariable("+path".into()))
        );
        assert_eq!(UriTemplate::parse("x://{}"), Err(BadVariable("".into())));
        assert_eq!(UriTemplate::parse("x://{a}{b}"), Err(Adjacent));
    }
}
