//! Plugin tools: Kandev's backend-owned catalog of tools learnt at run
//! time, installed as an `mcp_profiles` runtime catalog and forwarded to
//! the backend on each call.
//!
//! - [`Snapshot`] is the JSON the backend sends (`PUT
//!   /api/v1/mcp/plugin-tools`), decoded strictly and checked by Kandev's
//!   rules ([`exposed_name`], surfaces);
//! - [`Plugins`] turns a checked snapshot into a verified catalog (every
//!   tool enabled on its surfaces, its schema compiled), installs it, and
//!   keeps it for `GET`;
//! - [`Backend`] forwards each call.
//!
//! Each plugin is a group of its tools for clients of MCP's grouping
//! extension: `plugin.<slug>` (see [`slug`]), titled with the plugin's
//! display name when it is one non-blank line.

mod backend;
mod names;
mod snapshot;

use std::sync::{Arc, Mutex, PoisonError};

use mcp_profiles::rmcp::model::{JsonObject, ToolAnnotations};
use mcp_profiles::rmcp::service::{RequestContext, RoleServer};
use mcp_profiles::{
    Catalog, CatalogDecoder, InstallOutcome, Installation, ProfileContext, ProfileController, Rule,
    RuntimeGroup, RuntimeTool,
};
use serde_json::{Value, json};

pub use backend::{Backend, DEFAULT_TIMEOUT, Invocation, MAX_CONCURRENT_CALLS, MAX_REPLY_BYTES};
pub use names::{MAX_EXPOSED_NAME, exposed_name, slug};
pub use snapshot::{PLUGIN_SURFACES, PluginTool, Snapshot, SnapshotError};

use crate::Kandev;

/// A server's plugin tools: the snapshot installed last and the backend
/// their calls go to.
pub struct Plugins {
    backend: Arc<Backend>,
    /// The snapshot whose catalog is installed. Held while one installs,
    /// so it always describes what the controller serves.
    installed: Mutex<Option<Snapshot>>,
}

impl Plugins {
    /// No plugin tools yet; calls to those installed later go to `backend`.
    pub fn new(backend: Backend) -> Self {
        Plugins {
            backend: Arc::new(backend),
            installed: Mutex::default(),
        }
    }

    /// The snapshot installed last, if any.
    pub fn installed(&self) -> Option<Snapshot> {
        self.lock().clone()
    }

    /// Checks `snapshot`, builds its catalog and installs it on
    /// `controller`: all or nothing, one `list_changed` per session whose
    /// visible tools changed. A revision not newer than the installed one of
    /// the same generation is ignored; a snapshot whose tool names collide
    /// under the controller's name presentation is refused, naming both.
    ///
    /// Verifying a catalog compiles every schema: call it off the async
    /// runtime's workers (`spawn_blocking`) for large catalogs.
    pub fn install(
        &self,
        controller: &ProfileController<Kandev>,
        snapshot: Snapshot,
    ) -> Result<Installation, SnapshotError> {
        snapshot.check()?;
        let catalog = self.catalog(&snapshot)?;
        self.install_catalog(controller, snapshot, &catalog)
    }

    /// Installs `catalog`, built from the checked `snapshot` by
    /// [`catalog`](Self::catalog), on `controller`, as
    /// [`install`](Self::install) does: for a caller that built it first,
    /// off the locks it installs under.
    pub fn install_catalog(
        &self,
        controller: &ProfileController<Kandev>,
        snapshot: Snapshot,
        catalog: &Catalog<Kandev>,
    ) -> Result<Installation, SnapshotError> {
        let mut installed = self.lock();
        let installation = controller.install(catalog);
        // Refused under the controller's name presentation: nothing changed.
        if let Some(refused) = &installation.refused {
            return Err(SnapshotError::new(vec![refused.to_string()]));
        }
        if installation.outcome != InstallOutcome::IgnoredStale {
            *installed = Some(snapshot);
        }
        Ok(installation)
    }

    /// The verified catalog of a checked `snapshot`, its calls going to
    /// this server's backend. A tool served on no surface is left out: an
    /// empty surface list would be a rule enabling it everywhere.
    pub fn catalog(&self, snapshot: &Snapshot) -> Result<Catalog<Kandev>, SnapshotError> {
        let served: Vec<&PluginTool> = snapshot
            .tools
            .iter()
            .filter(|tool| !tool.served_surfaces().is_empty())
            .collect();
        let mut groups: Vec<RuntimeGroup> = Vec::new();
        for tool in &served {
            let name = plugin_group(&tool.plugin_id);
            if groups.iter().all(|group| group.name() != name) {
                groups.push(titled(RuntimeGroup::new(name), tool));
            }
        }
        let tools = served.iter().map(|tool| {
            self.runtime_tool(tool)
                .in_group(plugin_group(&tool.plugin_id))
        });
        Catalog::grouped(
            snapshot.generation.clone(),
            snapshot.revision,
            groups,
            tools,
        )
        .map_err(|errors| SnapshotError::new(errors.iter().map(ToString::to_string).collect()))
    }

    fn runtime_tool(&self, tool: &PluginTool) -> RuntimeTool<Kandev> {
        let input_schema = tool
            .input_schema
            .clone()
            .unwrap_or_else(|| json_object(json!({"type": "object"})));
        let rule = Rule::on_surfaces(tool.served_surfaces());
        let backend = Arc::clone(&self.backend);
        let plugin_id: Arc<str> = Arc::from(tool.plugin_id.as_str());
        let local_name: Arc<str> = Arc::from(tool.local_name.as_str());
        let handler = move |arguments: JsonObject, context: RequestContext<RoleServer>| {
            // The session's surface, from the profile this call runs on.
            let surface = context
                .extensions
                .get::<ProfileContext<Kandev>>()
                .map(|profile| profile.surface().to_string())
                .unwrap_or_default();
            let (backend, plugin_id, local_name) = (
                Arc::clone(&backend),
                Arc::clone(&plugin_id),
                Arc::clone(&local_name),
            );
            async move {
                let invocation = Invocation {
                    plugin_id: &plugin_id,
                    local_name: &local_name,
                    invocation_id: uuid::Uuid::new_v4().to_string(),
                    surface,
                    arguments: &arguments,
                };
                Ok(backend.call(invocation).await)
            }
        };
        let mut runtime_tool = RuntimeTool::new(
            tool.exposed_name.clone(),
            tool.description.clone(),
            input_schema,
            rule,
            handler,
        )
        .with_annotations(
            ToolAnnotations::new()
                .read_only(tool.read_only_hint)
                .destructive(tool.destructive_hint)
                .idempotent(tool.idempotent_hint)
                .open_world(tool.open_world_hint),
        );
        if let Some(output_schema) = &tool.output_schema {
            runtime_tool = runtime_tool.with_output_schema(output_schema.clone());
        }
        runtime_tool
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Snapshot>> {
        self.installed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// The group of `plugin_id`'s tools.
fn plugin_group(plugin_id: &str) -> String {
    format!("plugin.{}", slug(plugin_id))
}

/// `group` titled with `tool`'s plugin display name, if it is one
/// non-blank line (a group's title must be; the snapshot's name need not).
fn titled(group: RuntimeGroup, tool: &PluginTool) -> RuntimeGroup {
    match tool.plugin_display_name.as_deref() {
        Some(title) if !title.trim().is_empty() && !title.contains(['\n', '\r']) => {
            group.with_title(title)
        }
        _ => group,
    }
}

/// How a gateway's store reads each principal's stored plugin-tool
/// snapshot: decoded strictly and checked as `PUT` checks it, its tools
/// forwarding their calls to `backend`.
pub fn catalog_decoder(backend: Backend) -> CatalogDecoder<Kandev> {
    let plugins = Plugins::new(backend);
    Arc::new(move |_principal, wire| {
        let snapshot = Snapshot::decode(&serde_json::to_vec(wire)?)?;
        Ok(plugins.catalog(&snapshot)?)
    })
}

fn json_object(value: Value) -> JsonObject {
    match value {
        Value::Object(object) => object,
        _ => JsonObject::new(),
    }
}
