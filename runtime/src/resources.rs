//! Resource groups: readers marked `#[resource(...)]`, served per profile.
//!
//! `resources/list` answers the view's fixed resources and
//! `resources/templates/list` its templates; `resources/read` (and
//! `resources/subscribe`) reach a reader only if the view has the URI, a
//! fixed one exactly or else the first template, in URI order, that matches
//! it, and otherwise fail with -32002, MCP's resource-not-found, without
//! running any handler.

use std::future::Future;
use std::pin::Pin;

use mcp_profiles_rules::UriTemplate;
use rmcp::ErrorData;
use rmcp::model::{ReadResourceResult, Resource, ResourceTemplate};
use rmcp::service::{RequestContext, RoleServer};

use crate::RegistryError;
use crate::clipped::Clipped;
use crate::content::{Item, View};

/// What a reader returns.
pub type ReadFuture<'a> =
    Pin<Box<dyn Future<Output = Result<ReadResourceResult, ErrorData>> + Send + 'a>>;

/// A reader: the group's method, called with the URI the client asked for.
pub type ReadFn<S> = for<'a> fn(&'a S, String, RequestContext<RoleServer>) -> ReadFuture<'a>;

/// How one resource is listed: a fixed URI or a template.
#[derive(Clone, Debug)]
pub enum ResourceDef {
    /// One resource, in `resources/list`.
    Fixed(Resource),
    /// A family of them, in `resources/templates/list`.
    Template(ResourceTemplate, UriTemplate),
}

impl ResourceDef {
    /// A fixed resource.
    pub fn fixed(uri: &str, name: &str) -> Self {
        ResourceDef::Fixed(Resource::new(uri, name))
    }

    /// A template; `#[resource_group]` checked it at compile time.
    ///
    /// # Panics
    ///
    /// If `template` is not a level-1 template with a variable.
    pub fn template(template: &str, name: &str) -> Self {
        let pattern = UriTemplate::parse(template)
            .unwrap_or_else(|why| panic!("`{template}` is not a URI template: {why}"));
        ResourceDef::Template(ResourceTemplate::new(template, name), pattern)
    }

    /// With a human-readable title.
    pub fn with_title(self, title: &str) -> Self {
        match self {
            ResourceDef::Fixed(r) => ResourceDef::Fixed(r.with_title(title)),
            ResourceDef::Template(t, p) => ResourceDef::Template(t.with_title(title), p),
        }
    }

    /// With a description.
    pub fn with_description(self, description: &str) -> Self {
        match self {
            ResourceDef::Fixed(r) => ResourceDef::Fixed(r.with_description(description)),
            ResourceDef::Template(t, p) => {
                ResourceDef::Template(t.with_description(description), p)
            }
        }
    }

    /// With a MIME type.
    pub fn with_mime_type(self, mime_type: &str) -> Self {
        match self {
            ResourceDef::Fixed(r) => ResourceDef::Fixed(r.with_mime_type(mime_type)),
            ResourceDef::Template(t, p) => ResourceDef::Template(t.with_mime_type(mime_type), p),
        }
    }

    /// The URI or the template, as written.
    fn key(&self) -> &str {
        match self {
            ResourceDef::Fixed(resource) => &resource.uri,
            ResourceDef::Template(template, _) => &template.uri_template,
        }
    }
}

/// One resource of a group: how it is listed and its reader.
pub struct ResourceRoute<S> {
    def: ResourceDef,
    read: ReadFn<S>,
}

impl<S> Clone for ResourceRoute<S> {
    fn clone(&self) -> Self {
        ResourceRoute {
            def: self.def.clone(),
            read: self.read,
        }
    }
}

impl<S> std::fmt::Debug for ResourceRoute<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceRoute")
            .field("def", &self.def)
            .finish_non_exhaustive()
    }
}

impl<S> ResourceRoute<S> {
    /// A route reading `def` with `read`.
    pub fn new(def: ResourceDef, read: ReadFn<S>) -> Self {
        ResourceRoute { def, read }
    }

    fn serves(&self, uri: &str) -> bool {
        match &self.def {
            ResourceDef::Fixed(resource) => resource.uri == uri,
            ResourceDef::Template(_, pattern) => pattern.matches(uri),
        }
    }
}

impl<S: Send + Sync + 'static> Item for ResourceRoute<S> {
    type Listed = (Vec<Resource>, Vec<ResourceTemplate>);
    const KIND: &'static str = "resource";

    fn key(&self) -> &str {
        self.def.key()
    }

    fn listed(routes: &[Self]) -> Self::Listed {
        let mut listed = (Vec::new(), Vec::new());
        for route in routes {
            match &route.def {
                ResourceDef::Fixed(resource) => listed.0.push(resource.clone()),
                ResourceDef::Template(template, _) => listed.1.push(template.clone()),
            }
        }
        listed
    }

    fn collision(uri: String, groups: [String; 2], witness: String) -> RegistryError {
        RegistryError::ResourceCollision {
            uri,
            groups,
            witness,
        }
    }
}

/// The route of `view` serving `uri`: a fixed URI first, else the first
/// matching template.
pub(crate) fn find<'v, S: Send + Sync + 'static>(
    view: &'v View<ResourceRoute<S>>,
    uri: &str,
) -> Option<&'v ResourceRoute<S>> {
    view.get(uri)
        .filter(|route| matches!(route.def, ResourceDef::Fixed(_)))
        .or_else(|| view.routes().iter().find(|route| route.serves(uri)))
}

/// The refusal for a URI outside the profile: -32002.
pub(crate) fn not_found(uri: &str) -> ErrorData {
    tracing::debug!(uri = %Clipped(uri), "refused a resource outside the current profile");
    ErrorData::resource_not_found(
        format!(
            "resource `{}` is not available in the current profile",
            Clipped(uri)
        ),
        None,
    )
}

/// `resources/read` within `view`: the reader, or the refusal.
pub(crate) async fn read<S: Send + Sync + 'static>(
    view: &View<ResourceRoute<S>>,
    handler: &S,
    uri: String,
    context: RequestContext<RoleServer>,
) -> Result<ReadResourceResult, ErrorData> {
    match find(view, &uri) {
        Some(route) => (route.read)(handler, uri, context).await,
        None => Err(not_found(&uri)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Reader;

    fn read<'a>(_: &'a Reader, _: String, _: RequestContext<RoleServer>) -> ReadFuture<'a> {
        Box::pin(async { Ok(ReadResourceResult::new(vec![])) })
    }

    fn key(route: Option<&ResourceRoute<Reader>>) -> Option<&str> {
        route.map(|route| route.def.key())
    }

    #[test]
    fn a_fixed_uri_wins_and_templates_match_in_uri_order() {
        let view = View::of(vec![
            ResourceRoute::new(ResourceDef::template("x://b/{n}", "b"), read),
            ResourceRoute::new(ResourceDef::fixed("x://b/1", "one"), read),
            ResourceRoute::new(ResourceDef::template("x://{kind}/1", "any"), read),
        ]);
        assert_eq!(key(find(&view, "x://b/1")), Some("x://b/1"));
        assert_eq!(key(find(&view, "x://b/2")), Some("x://b/{n}"));
        assert_eq!(key(find(&view, "x://c/1")), Some("x://{kind}/1"));
        assert_eq!(key(find(&view, "x://c/2")), None);
        assert_eq!(key(find(&view, "x://b/{n}/more")), None);
        let (fixed, templates) = &view.listed;
        assert_eq!(fixed.len(), 1);
        assert_eq!(templates.len(), 2);
    }
}
