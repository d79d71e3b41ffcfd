//! The control API described in OpenAPI 3.1, built with its routes:
//! [`Api::route`] adds a path to the axum router and to the description in
//! one call, each operation naming the types its handler decodes and
//! answers, whose JSON Schemas (`schemars`, 2020-12, as OpenAPI 3.1 takes
//! them) the description holds. So the document cannot list a route the
//! server lacks, and a body's description is the decoder's type's.
//!
//! Every operation is behind the control token (`bearer`), answers JSON
//! unless it says otherwise, and refuses as [`super::codes`] describes:
//! `Refusal` in `components/schemas`. An application describes its own
//! routes with the same [`Operation`]s (see
//! [`ControlApi::route`](super::ControlApi::route)).

use axum::Router;
use axum::http::Method;
use axum::routing::MethodRouter;
use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{Map, Value, json};

/// One operation of a path: its method, what it does, its body, its
/// answer and its refusals.
pub struct Operation {
    method: Method,
    summary: &'static str,
    body: Option<Body>,
    answer: Answer,
    query: Vec<(&'static str, &'static str, Value)>,
    refusals: Vec<u16>,
    /// `None`: the control token; else the operation's own requirement.
    security: Option<Value>,
    /// What a client may do next with the answer (OpenAPI links), by name.
    links: Map<String, Value>,
    /// Whether it answers only once every instance applies its change
    /// ([`super::propagated`]): 202 when some did not confirm.
    propagates: bool,
}

impl std::fmt::Debug for Operation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Operation")
            .field("method", &self.method)
            .field("summary", &self.summary)
            .finish_non_exhaustive()
    }
}

/// What an operation reads.
enum Body {
    Json(fn(&mut SchemaGenerator) -> Schema),
    /// An HTML form's fields (`application/x-www-form-urlencoded`).
    Form(&'static [&'static str]),
}

/// What an operation answers with 200.
enum Answer {
    Json(fn(&mut SchemaGenerator) -> Schema),
    Text(&'static str),
}

/// The statuses every operation may refuse with, besides its own.
const ALWAYS: [u16; 1] = [401];

macro_rules! method {
    ($($name:ident => $method:ident),*) => {$(
        #[doc = concat!("A `", stringify!($method), "` operation that answers `T`.")]
        pub fn $name<T: JsonSchema>(summary: &'static str) -> Operation {
            Operation {
                method: Method::$method,
                summary,
                body: None,
                answer: Answer::Json(schema_of::<T>),
                query: Vec::new(),
                refusals: Vec::new(),
                security: None,
                links: Map::new(),
                propagates: false,
            }
        }
    )*};
}

method!(get => GET, put => PUT, post => POST, delete => DELETE);

/// An admin page (HTML for a browser, behind the admin login's cookie):
/// `GET`, or a `POST` of a form with `fields` (each carrying the login's
/// CSRF token) when there are any.
pub fn page(summary: &'static str, fields: &'static [&'static str]) -> Operation {
    Operation {
        method: if fields.is_empty() {
            Method::GET
        } else {
            Method::POST
        },
        summary,
        body: (!fields.is_empty()).then_some(Body::Form(fields)),
        answer: Answer::Text("text/html"),
        query: Vec::new(),
        refusals: vec![403],
        security: Some(json!([{"adminLogin": []}])),
        links: Map::new(),
        propagates: false,
    }
}

fn schema_of<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<T>()
}

impl Operation {
    /// The operation reads a JSON body of type `T`.
    pub fn body<T: JsonSchema>(mut self) -> Self {
        self.body = Some(Body::Json(schema_of::<T>));
        self
    }

    /// A link from the answer to the operation `method path`: its
    /// `parameters` and `body` may take values from this request and
    /// answer (runtime expressions such as `$response.body#/version`).
    /// What a client, or a stateful fuzzer, does next: read what was put,
    /// compare-and-set on its version, delete it.
    pub fn link(
        mut self,
        name: &str,
        (method, path): (Method, &str),
        parameters: Value,
        body: Option<Value>,
    ) -> Self {
        let mut link =
            json!({"operationId": operation_id(&method, path), "parameters": parameters});
        if let Some(body) = body {
            link["requestBody"] = body;
        }
        self.links.insert(name.to_owned(), link);
        self
    }

    /// The operation changes what every gateway sharing the store serves,
    /// and answers once they all confirm it: 200 with
    /// `Mcp-Profiles-Applied`, or 202 (the change stands) naming in
    /// `Mcp-Profiles-Pending` the gateways that had not confirmed in time,
    /// or in `Mcp-Profiles-Unconfirmed` the replicas that had not.
    pub fn propagates(mut self) -> Self {
        self.propagates = true;
        self
    }

    /// The operation needs no credentials (the admin login form).
    pub fn open(mut self) -> Self {
        self.security = Some(json!([]));
        self.refusals.clear();
        self
    }

    /// The operation answers `media_type` text instead of JSON.
    pub fn text(mut self, media_type: &'static str) -> Self {
        self.answer = Answer::Text(media_type);
        self
    }

    /// A query parameter, optional.
    pub fn query(mut self, name: &'static str, description: &'static str, schema: Value) -> Self {
        self.query.push((name, description, schema));
        self
    }

    /// Adds `statuses` to those it refuses with, besides 401 (and, with a
    /// body, 400, 413 and 415): called again, it adds more.
    pub fn refuses(mut self, statuses: &[u16]) -> Self {
        self.refusals.extend_from_slice(statuses);
        self
    }

    fn describe(&self, path: &str, generator: &mut SchemaGenerator) -> Value {
        let mut parameters: Vec<Value> = path
            .split('/')
            .filter_map(|segment| segment.strip_prefix('{')?.strip_suffix('}'))
            .map(|name| json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}}))
            .collect();
        parameters.extend(self.query.iter().map(|(name, description, schema)| {
            json!({"name": name, "in": "query", "required": false, "description": description, "schema": schema})
        }));
        let answer = match &self.answer {
            Answer::Json(schema) => json!({"application/json": {"schema": schema(generator)}}),
            Answer::Text(media_type) => json!({ *media_type: {"schema": {"type": "string"}} }),
        };
        let mut responses = Map::new();
        let mut ok = json!({"description": self.summary, "content": answer});
        if !self.links.is_empty() {
            ok["links"] = Value::Object(self.links.clone());
        }
        if self.propagates {
            ok["headers"] = json!({"Mcp-Profiles-Applied": applied_header()});
            let accepted = json!({
                "description": "The change is made, recorded and applied by the gateway that \
                    answers, but not yet certain everywhere; the same body as 200, and one or \
                    both headers say why. `Mcp-Profiles-Pending`: some live gateway sharing the \
                    store had not confirmed it within the store's wait; until its feed reaches \
                    it, it serves what it served before. `Mcp-Profiles-Unconfirmed`: the \
                    store's replicas had not confirmed it (the audit trail says so too, in a \
                    `replication-unconfirmed` record); a failover of the store's primary \
                    before they catch up may undo it, so read the change back later and make \
                    it again if it is gone. Never a refusal: do not retry it as one",
                "content": ok["content"].clone(),
                "headers": {
                    "Mcp-Profiles-Applied": applied_header(),
                    "Mcp-Profiles-Pending": {
                        "description": "The gateways that had not confirmed the change, by \
                            instance name, comma-separated; `unknown` when the store could not be asked",
                        "schema": {"type": "string"},
                    },
                    "Mcp-Profiles-Unconfirmed": {
                        "description": "How many of the replicas the store requires had \
                            confirmed the change, as `CONFIRMED/REQUIRED`",
                        "schema": {"type": "string", "pattern": "^[0-9]+/[0-9]+$"},
                    },
                },
            });
            responses.insert("202".into(), accepted);
        }
        responses.insert("200".into(), ok);
        let always: &[u16] = if self.security.is_some() {
            &[]
        } else {
            &ALWAYS
        };
        let mut refusals: Vec<u16> = always.iter().chain(&self.refusals).copied().collect();
        if self.body.is_some() {
            refusals.extend([400, 413, 415]);
        }
        // A change whose audit record cannot be saved is refused so.
        if self.method != Method::GET && self.security.is_none() {
            refusals.push(500);
        }
        if !parameters.is_empty() {
            refusals.push(400);
        }
        refusals.sort_unstable();
        refusals.dedup();
        for status in refusals {
            responses.insert(
                status.to_string(),
                json!({"$ref": format!("#/components/responses/{status}")}),
            );
        }
        let mut operation = json!({
            "summary": self.summary,
            "operationId": operation_id(&self.method, path),
            "responses": responses,
        });
        if !parameters.is_empty() {
            operation["parameters"] = parameters.into();
        }
        match &self.body {
            Some(Body::Json(schema)) => {
                operation["requestBody"] = json!({
                    "required": true,
                    "content": {"application/json": {"schema": schema(generator)}},
                });
            }
            Some(Body::Form(fields)) => {
                let properties: Map<String, Value> = fields
                    .iter()
                    .map(|field| ((*field).to_owned(), json!({"type": "string"})))
                    .collect();
                operation["requestBody"] = json!({
                    "required": true,
                    "content": {"application/x-www-form-urlencoded": {"schema": {
                        "type": "object", "properties": properties, "required": fields,
                    }}},
                });
            }
            None => {}
        }
        if let Some(security) = &self.security {
            operation["security"] = security.clone();
        }
        operation
    }
}

/// The header every answer of a change that propagates carries.
fn applied_header() -> Value {
    json!({
        "description": "How many gateways confirmed that they apply the change, this one included",
        "schema": {"type": "integer", "minimum": 1},
    })
}

/// `put_api_v1_agents_principal`, say: a stable name for generated clients.
fn operation_id(method: &Method, path: &str) -> String {
    let mut id = method.as_str().to_ascii_lowercase();
    for part in path.split(|c: char| !c.is_ascii_alphanumeric()) {
        if !part.is_empty() {
            id.push('_');
            id.push_str(part);
        }
    }
    id
}

/// A router and its description, built together.
pub struct Api<S> {
    router: Router<S>,
    paths: Map<String, Value>,
    generator: SchemaGenerator,
    security_schemes: Map<String, Value>,
}

impl<S> std::fmt::Debug for Api<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Api")
            .field("paths", &self.paths.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl<S: Clone + Send + Sync + 'static> Default for Api<S> {
    fn default() -> Self {
        let mut settings = SchemaSettings::draft2020_12();
        settings.definitions_path = "/components/schemas".into();
        settings.meta_schema = None;
        Api {
            router: Router::new(),
            paths: Map::new(),
            generator: SchemaGenerator::new(settings),
            security_schemes: Map::from_iter([(
                "bearer".to_owned(),
                json!({"type": "http", "scheme": "bearer", "description": "The control token."}),
            )]),
        }
    }
}

impl<S: Clone + Send + Sync + 'static> Api<S> {
    /// Serves `handler` at `path` and describes its `operations`.
    ///
    /// # Panics
    ///
    /// If `path` was routed before (as axum does).
    pub fn route(
        mut self,
        path: &str,
        operations: impl IntoIterator<Item = Operation>,
        handler: MethodRouter<S>,
    ) -> Self {
        self = self.beside(path, operations);
        self.router = self.router.route(path, handler);
        self
    }

    /// Describes `operations` at `path`, which the listener serves beside
    /// this router (as `/metrics`, merged in by the binary).
    pub fn beside(mut self, path: &str, operations: impl IntoIterator<Item = Operation>) -> Self {
        let mut described = Map::new();
        for operation in operations {
            let value = operation.describe(path, &mut self.generator);
            described.insert(operation.method.as_str().to_ascii_lowercase(), value);
        }
        self.paths.insert(path.to_owned(), Value::Object(described));
        self
    }

    /// Adds a security scheme (`components/securitySchemes`) that an
    /// operation's own requirement (an admin page's cookie, say) names.
    pub fn security_scheme(mut self, name: &str, scheme: Value) -> Self {
        self.security_schemes.insert(name.to_owned(), scheme);
        self
    }

    /// The router, serving the OpenAPI 3.1 document describing it (and
    /// itself) at `at`, and the document.
    pub fn finish(self, at: &str, title: &str, description: &str) -> (Router<S>, Value) {
        let (router, document) = self
            .beside(
                at,
                [get::<Value>(
                    "This document: the API's OpenAPI 3.1 description",
                )],
            )
            .document(title, description);
        let served = std::sync::Arc::new(document.clone());
        let router = router.route(
            at,
            axum::routing::get(move || {
                let served = std::sync::Arc::clone(&served);
                async move { axum::Json(served.as_ref().clone()) }
            }),
        );
        (router, document)
    }

    fn document(mut self, title: &str, description: &str) -> (Router<S>, Value) {
        let mut schemas = self.generator.take_definitions(true);
        schemas.insert("Refusal".into(), refusal_schema());
        let responses: Map<String, Value> = REFUSALS
            .iter()
            .map(|(status, when)| {
                let answer = json!({
                    "description": when,
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Refusal"}}},
                });
                (status.to_string(), answer)
            })
            .collect();
        let document = json!({
            "openapi": "3.1.0",
            "info": {"title": title, "version": env!("CARGO_PKG_VERSION"), "description": description},
            "security": [{"bearer": []}],
            "paths": self.paths,
            "components": {
                "securitySchemes": self.security_schemes,
                "schemas": schemas,
                "responses": responses,
            },
        });
        (self.router, document)
    }
}

/// Every refusal status, and when it is answered.
const REFUSALS: [(u16, &str); 10] = [
    (
        400,
        "The body, a value in it, the query or the path is refused (`invalid-body`, `invalid-request`).",
    ),
    (
        401,
        "The bearer token is missing or wrong (`unauthorized`).",
    ),
    (403, "An admin form without the login's CSRF token (HTML)."),
    (404, "No agent, task or record of that name (`not-found`)."),
    (405, "The route has no such method (`method-not-allowed`)."),
    (
        409,
        "A compare-and-set found another version (`version-conflict`).",
    ),
    (
        413,
        "The body is over the route's limit (`body-too-large`).",
    ),
    (
        415,
        "The body is not declared `application/json` (`unsupported-media-type`).",
    ),
    (500, "The server failed (`internal`)."),
    (
        503,
        "The shared store could not be reached, or refused the write (`store-unavailable`); \
         nothing was changed, so the request may be sent again. On a Redis Cluster this is one \
         shard's: while the primary of the shard a change lives in fails over (until its replica \
         is promoted, seconds), that shard's changes are refused so and every other change is \
         made as usual; once promoted, its changes are answered 202 with \
         `Mcp-Profiles-Unconfirmed` until it has a replica again.",
    ),
];

fn refusal_schema() -> Value {
    json!({
        "type": "object",
        "description": "A refused request: nothing was changed.",
        "properties": {
            "error": {"type": "string", "description": "What is wrong, naming the bad value."},
            "code": {"enum": super::codes::ALL, "description": "A stable code to branch on."},
            "status": {"type": "integer", "description": "The HTTP status."},
            "pointer": {"type": "string", "description": "The JSON pointer (RFC 6901) of the offending part of the body, where there is one."},
        },
        "required": ["error", "code", "status"],
        "additionalProperties": false,
    })
}
