//! The operator's questions to a deployment's shared store, as subcommands
//! any server's binary mounts (feature `cli`): `explain`, what a principal
//! could reach at a moment and why, and `verify`, whether every call the
//! gateways decided agrees with the audit trail.
//!
//! ```no_run
//! # mod server {
//! #     #[derive(Clone)] pub struct Desk;
//! #     impl rmcp::ServerHandler for Desk {}
//! # }
//! # use server::Desk;
//! # mcp_profiles::vocabulary! {
//! #     server Desk;
//! #     #[surfaces] pub enum Surface { Triage }
//! #     #[capabilities] pub enum Capability {}
//! #     #[providers] pub enum Provider {}
//! # }
//! use clap::Parser;
//! use mcp_profiles_serve::cli::Ask;
//!
//! #[derive(Parser)]
//! struct Args {
//!     #[command(subcommand)]
//!     ask: Option<Ask>,
//! }
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! // `desk explain alice --at 1767225600123 --store redis://127.0.0.1:6379/0`
//! if let Some(ask) = Args::parse().ask {
//!     return ask.answer::<Desk>(&mut std::io::stdout()).await;
//! }
//! # Ok(()) }
//! ```
//!
//! Both read the store the gateways share (Redis or a Redis Cluster), so
//! they answer for every instance at once; the command connects as one
//! more instance for as long as it runs.

use std::error::Error;
use std::io::Write;

use clap::{Args, Subcommand};
use mcp_profiles::Vocabulary;

use crate::control::answers::Exposed;
use crate::exposure::past::{Moment, Trail};
use crate::exposure::verify::{read_decisions, verify};
use crate::{AgentStore, RedisOptions, RedisStore};

/// `explain` and `verify`, for a server's command line.
#[derive(Debug, Subcommand)]
#[non_exhaustive]
pub enum Ask {
    /// What PRINCIPAL could reach at a moment (--at or --revision),
    /// rebuilt from the store's audit trail: the JSON the control API's
    /// `GET /api/v1/agents/{principal}/exposure` answers; with --why, each
    /// tool group and why the profile enabled it or not.
    Explain(Explain),
    /// Whether the store's decision log agrees with its audit trail: every
    /// call allowed named a tool in its principal's profile at the revision
    /// it was decided under, every call refused one outside it. Fails
    /// naming the first counterexample.
    Verify(Store),
}

/// Which store to ask.
#[derive(Debug, Args)]
pub struct Store {
    /// The deployment's store: `redis://HOST:PORT/DB` or
    /// `redis+cluster://HOST:PORT,...` (unless the binary opens its own).
    #[arg(long, env = "MCP_PROFILES_STORE")]
    store: Option<String>,
    /// The key prefix its gateways use.
    #[arg(long, default_value = "mcp-profiles")]
    prefix: String,
    /// On a cluster, how many shards its gateways spread principals over.
    #[arg(long, default_value_t = RedisOptions::DEFAULT_SHARDS)]
    shards: u16,
}

/// `explain`'s arguments.
#[derive(Debug, Args)]
pub struct Explain {
    #[command(flatten)]
    store: Store,
    /// The principal.
    principal: String,
    #[command(flatten)]
    moment: When,
    /// Print why each tool group was on or off, not JSON.
    #[arg(long)]
    why: bool,
}

/// The moment `explain` asks about: one of the two.
#[derive(Debug, Args)]
#[group(required = true, multiple = false)]
struct When {
    /// The moment, in milliseconds since the Unix epoch (as audit
    /// records' `at`).
    #[arg(long)]
    at: Option<u64>,
    /// Just after the change that made this version of the agent.
    #[arg(long)]
    revision: Option<u64>,
}

impl Ask {
    /// Asks the store `--store` names for `S`'s server and writes the
    /// answer to `out`; an `Err` names what went wrong (a store out of
    /// reach, a revision no record made, a verification that failed and its
    /// first counterexample).
    pub async fn answer<S: Vocabulary>(self, out: &mut dyn Write) -> Result<(), Box<dyn Error>> {
        let store = match &self {
            Ask::Explain(explain) => explain.store.connect::<S>().await?,
            Ask::Verify(store) => store.connect::<S>().await?,
        };
        self.answer_over(&*store, out).await
    }

    /// [`answer`](Self::answer) from `store`, one the binary opened itself
    /// (an application's own trail behind a
    /// [`ProfileStore`](crate::ProfileStore)); `--store` is not read.
    pub async fn answer_over<S: Vocabulary>(
        self,
        store: &dyn AgentStore<S>,
        out: &mut dyn Write,
    ) -> Result<(), Box<dyn Error>> {
        match self {
            Ask::Explain(explain) => {
                let moment = match (explain.moment.at, explain.moment.revision) {
                    (Some(at), _) => Moment::At(at),
                    (None, Some(revision)) => Moment::Revision(revision),
                    (None, None) => return Err("give --at or --revision".into()),
                };
                let past = Trail::<S>::read(store)
                    .await?
                    .exposure(&explain.principal, moment)?;
                match (explain.why, past.explain()) {
                    (true, Some(why)) => writeln!(out, "{why}")?,
                    (true, None) => writeln!(out, "`{}` had no agent then", past.principal)?,
                    (false, _) => {
                        writeln!(out, "{:#}", serde_json::to_value(Exposed::from(past))?)?;
                    }
                }
                Ok(())
            }
            Ask::Verify(_) => {
                let trail = Trail::<S>::read(store).await?;
                let decisions = read_decisions(store).await?;
                let verdict = verify(&trail, &decisions);
                writeln!(
                    out,
                    "{} decisions: {} judged, {} unjudged, {} mismatches",
                    decisions.len(),
                    verdict.judged,
                    verdict.unjudged,
                    verdict.mismatches
                )?;
                match verdict.first {
                    None => Ok(()),
                    Some((decision, why)) => Err(format!(
                        "the decision log disagrees with the audit trail: decision {} \
                         (`{}` calling `{}` at revision {}): {why}",
                        decision.seq,
                        decision.principal().unwrap_or("no principal"),
                        decision.tool,
                        decision.revision
                    )
                    .into()),
                }
            }
        }
    }
}

impl Store {
    async fn connect<S: Vocabulary>(
        &self,
    ) -> Result<std::sync::Arc<RedisStore<S>>, Box<dyn Error>> {
        let Some(url) = &self.store else {
            return Err("give --store (or MCP_PROFILES_STORE): the deployment's Redis".into());
        };
        let options = RedisOptions::default()
            .with_prefix(&self.prefix)
            .with_shards(self.shards);
        RedisStore::connect(url, options)
            .await
            .map_err(|error| format!("--store {url}: {error}").into())
    }
}
