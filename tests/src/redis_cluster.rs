//! A real Redis Cluster for the tests: six `redis-server` processes on
//! loopback (three primaries, each with one replica), built from
//! [`RedisServer`]s, killed and their directories removed when dropped.
//!
//! The nodes keep their data in memory only (replicas hold the copies; see
//! `IN_MEMORY`) and their cluster state in `nodes.conf` in their own
//! directory, so a node killed with SIGKILL and restarted comes back with
//! its identity, rejoins the cluster and syncs from its primary. Their
//! node timeout is one second, so a killed primary fails over in a few
//! seconds rather than fifteen.
//!
//! Skipped or required exactly as [`RedisServer::start`] is (see
//! [`crate::redis`]).

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::redis::{self, RedisServer};

/// Three primaries and three replicas: the smallest cluster where a
/// majority of primaries survives one primary's death and elects its
/// replica.
const NODES: usize = 6;
const PRIMARIES: usize = 3;
const SLOTS: usize = 16384;
/// Redis listens for the cluster bus on the client port plus 10000.
const BUS_OFFSET: u16 = 10000;
/// Every wait for the cluster to change state is bounded by this: a few
/// seconds suffice on an idle machine, a loaded CI runner may need more.
const SETTLE: Duration = Duration::from_secs(60);

/// Cluster mode on top of [`RedisServer`]'s arguments. A one-second node
/// timeout makes failover take seconds (the default is 15 s). Redis 7.0
/// syncs a new replica diskless by default, after waiting 5 s for more
/// replicas to share the transfer: each replica here has its primary to
/// itself, so the wait only slowed every start and rejoin by 5 s. Each
/// node serves its own slots while another's are uncovered (by default the
/// whole cluster answers `CLUSTERDOWN` from a primary's failure until its
/// replica is promoted): what a deployment sets for one shard's failure to
/// stay one shard's (README, "Redis Cluster").
const CLUSTER_ARGS: [&str; 10] = [
    "--cluster-enabled",
    "yes",
    "--cluster-config-file",
    "nodes.conf",
    "--cluster-node-timeout",
    "1000",
    "--repl-diskless-sync-delay",
    "0",
    "--cluster-require-full-coverage",
    "no",
];

/// No append-only file ([`RedisCluster::start`]): a killed primary's data
/// lives on in its promoted replica, and a node started again syncs from
/// its new primary. With one, every write (a replica's replicated writes
/// included) waited on the disk in the node's only thread, and on a busy
/// disk a replica confirmed a change later than the store's `WAIT` allows:
/// a refused change, seen as a test failure whenever the machine wrote much
/// at once.
const IN_MEMORY: [&str; 2] = ["--appendonly", "no"];

/// A running six-node Redis Cluster. Nodes are named by their index,
/// `0..6`, which never changes, while their roles do (a failover promotes
/// a replica).
pub struct RedisCluster {
    nodes: Vec<RedisServer>,
    /// The slot ranges each node served as a primary when it was last
    /// killed: [`wait_for_failover`](Self::wait_for_failover) waits for
    /// them to move, and a dead node cannot be asked.
    slots_when_killed: Vec<Vec<(usize, usize)>>,
    /// Holds the nodes' directories.
    dir: PathBuf,
}

impl RedisCluster {
    /// Starts six nodes, creates the cluster with `redis-cli --cluster
    /// create` and waits until it is settled: `cluster_state:ok` and all
    /// slots served everywhere, every replica connected and in sync.
    /// Returns `None` when `redis-server` is not installed, saying the tests
    /// were skipped (panics under [`redis::REQUIRE`]); panics if the cluster
    /// does not settle within a minute.
    pub fn start() -> Option<RedisCluster> {
        Self::start_with(&IN_MEMORY)
    }

    /// [`start`](Self::start), with every node persisting as one
    /// [`RedisServer`] does (append-only file, fsync on every write): for
    /// benchmarks that set the cluster beside one server of the same
    /// durability.
    pub fn start_persisting() -> Option<RedisCluster> {
        Self::start_with(&[])
    }

    fn start_with(persistence: &[&str]) -> Option<RedisCluster> {
        if !redis::available() {
            return None;
        }
        let ports = cluster_ports(NODES);
        let dir = std::env::temp_dir().join(format!(
            "mcp-profiles-redis-cluster-{}-{}",
            std::process::id(),
            ports[0]
        ));
        // Built first so that a node that fails to start takes the ones
        // before it down with it on drop.
        let mut cluster = RedisCluster {
            nodes: Vec::with_capacity(NODES),
            slots_when_killed: vec![Vec::new(); NODES],
            dir,
        };
        for port in ports {
            let dir = cluster.dir.join(port.to_string());
            cluster.nodes.push(RedisServer::spawn_with(
                port,
                dir,
                &[&CLUSTER_ARGS[..], persistence].concat(),
            ));
        }
        cluster.create();
        wait_until("the new cluster to settle", || cluster.settled());
        Some(cluster)
    }

    /// `redis://127.0.0.1:PORT` for every node, in node order.
    pub fn seeds(&self) -> Vec<String> {
        self.nodes
            .iter()
            .map(|node| format!("redis://127.0.0.1:{}", node.port()))
            .collect()
    }

    /// `redis+cluster://127.0.0.1:P1,...,127.0.0.1:P6`: every node as a
    /// seed, so a store can connect while any of them is down.
    pub fn store_url(&self) -> String {
        let hosts: Vec<String> = self
            .nodes
            .iter()
            .map(|node| format!("127.0.0.1:{}", node.port()))
            .collect();
        format!("redis+cluster://{}", hosts.join(","))
    }

    /// The node that serves `key`'s slot as primary, as a live node sees
    /// it. Between a primary's kill and its failover that is still the
    /// killed node.
    pub fn primary_of(&self, key: &str) -> usize {
        let asked = self.any_live();
        let slot = self.query(asked, &["CLUSTER", "KEYSLOT", key]);
        let slot: usize = slot
            .first()
            .and_then(|slot| slot.parse().ok())
            .unwrap_or_else(|| panic!("CLUSTER KEYSLOT {key} answered {slot:?}"));
        let owners = owners(&self.view(asked).unwrap_or_else(|error| panic!("{error}")));
        owners[slot]
            .and_then(|port| self.index_of(port))
            .unwrap_or_else(|| {
                panic!("node {asked} sees no node of the cluster serving slot {slot}")
            })
    }

    /// A replica of `primary` (the only one in a settled cluster), as the
    /// primary sees it (a live node, when it is down); a running one first.
    pub fn replica_of(&self, primary: usize) -> usize {
        // The primary itself knows its replicas at once; another node learns
        // of them by gossip, which may lag the settling checks.
        let asked = if self.nodes[primary].running() {
            primary
        } else {
            self.any_live()
        };
        let view = self.view(asked).unwrap_or_else(|error| panic!("{error}"));
        let port = self.nodes[primary].port();
        let id = view
            .iter()
            .find(|entry| entry.port == port)
            .map(|entry| entry.id.as_str())
            .unwrap_or_else(|| panic!("node {asked} does not know node {primary}"));
        let mut replicas: Vec<usize> = view
            .iter()
            .filter(|entry| entry.has("slave") && entry.master == id)
            .filter_map(|entry| self.index_of(entry.port))
            .collect();
        replicas.sort_by_key(|replica| !self.nodes[*replica].running());
        *replicas
            .first()
            .unwrap_or_else(|| panic!("node {asked} sees no replica of node {primary}"))
    }

    /// Kills `node` with SIGKILL and waits for it to exit, remembering the
    /// slots it served as a primary for
    /// [`wait_for_failover`](Self::wait_for_failover).
    pub fn kill(&mut self, node: usize) {
        if !self.nodes[node].running() {
            return;
        }
        let view = self.view(node).unwrap_or_else(|error| panic!("{error}"));
        self.slots_when_killed[node] = view
            .into_iter()
            .find(|entry| entry.has("myself") && entry.has("master"))
            .map(|entry| entry.slots)
            .unwrap_or_default();
        self.nodes[node].kill();
    }

    /// Whether `killed` served hash slot `slot` as a primary when it was
    /// last killed.
    pub fn served_when_killed(&self, killed: usize, slot: usize) -> bool {
        self.slots_when_killed[killed]
            .iter()
            .any(|&(first, last)| (first..=last).contains(&slot))
    }

    /// Waits until every live node reports `cluster_state:ok` and sees all
    /// the slots the killed primary served moved to one other, running
    /// node that answers as a primary; returns that node. Panics if
    /// `killed` was a replica or this takes over a minute.
    pub fn wait_for_failover(&self, killed: usize) -> usize {
        assert!(
            !self.nodes[killed].running(),
            "node {killed} was not killed"
        );
        let slots = &self.slots_when_killed[killed];
        assert!(
            !slots.is_empty(),
            "node {killed} served no slots when it was killed (a replica?): nothing fails over"
        );
        wait_until(&format!("node {killed}'s slots to fail over"), || {
            let mut promoted = None;
            for asked in self.live() {
                let info = self.text(asked, &["CLUSTER", "INFO"]);
                if !has_line(&info, "cluster_state:ok") {
                    return Err(format!("node {asked}'s CLUSTER INFO:\n{info}"));
                }
                let owners = owners(&self.view(asked)?);
                for &(first, last) in slots {
                    let range = owners.iter().enumerate().take(last + 1).skip(first);
                    for (slot, owner) in range {
                        let owner = owner.and_then(|port| self.index_of(port));
                        if owner == Some(killed) || owner.is_none() {
                            return Err(format!(
                                "node {asked} sees slot {slot} served by {owner:?}"
                            ));
                        }
                        if promoted.is_some_and(|promoted| Some(promoted) != owner) {
                            return Err(format!(
                                "nodes disagree on who serves slot {slot}: {promoted:?} or {owner:?}"
                            ));
                        }
                        promoted = owner;
                    }
                }
            }
            let promoted = promoted.ok_or("no node is running")?;
            if !self.nodes[promoted].running() {
                return Err(format!(
                    "node {promoted}, which is killed, serves the slots"
                ));
            }
            let replication = self.text(promoted, &["INFO", "replication"]);
            if field(&replication, "role") != Some("master") {
                return Err(format!(
                    "node {promoted} serves the slots but is no primary yet:\n{replication}"
                ));
            }
            Ok(promoted)
        })
    }

    /// Starts `node` again on the same port and directory: it rejoins the
    /// cluster from its `nodes.conf`, as a replica of the node promoted in
    /// its place if it was a primary that failed over, as what it was
    /// otherwise. Waits until the cluster is settled again, as
    /// [`start`](Self::start) does (with killed nodes left out).
    pub fn restart(&mut self, node: usize) {
        self.nodes[node].restart();
        self.slots_when_killed[node].clear();
        wait_until(&format!("node {node} to rejoin the cluster"), || {
            self.settled()
        });
    }

    /// Sends one command to `node` and returns the first line of the
    /// answer, as [`RedisServer::command`] does.
    pub fn command(&self, node: usize, args: &[&str]) -> String {
        redis::command(self.running_port(node), args)
    }

    /// Sends one command to `node` and returns its whole answer, as
    /// [`RedisServer::query`] does. It does not follow `MOVED`
    /// redirections: ask the node that serves the key.
    pub fn query(&self, node: usize, args: &[&str]) -> Vec<String> {
        redis::query(self.running_port(node), args)
    }

    /// Sends `commands` to `node` on one connection and returns each one's
    /// answer as [`query`](Self::query) does. For commands that depend on
    /// an earlier one of the same connection: `WAIT` only counts the
    /// replicas that have this connection's last write (on a new connection
    /// it answers at once, whatever they have), and a replica only answers
    /// reads after `READONLY`.
    pub fn pipeline(&self, node: usize, commands: &[&[&str]]) -> Vec<Vec<String>> {
        redis::pipeline(self.running_port(node), commands)
    }

    /// Whether the cluster is settled, or what is not yet: every live node
    /// says `cluster_state:ok` with all slots served, knows the six nodes
    /// and sees no live one failing; every replica is linked to its primary
    /// and in sync, every primary sees its replicas online. With all nodes
    /// running, also: three primaries with one replica each.
    fn settled(&self) -> Result<(), String> {
        let live = self.live();
        let mut primaries = 0;
        for &node in &live {
            let info = self.text(node, &["CLUSTER", "INFO"]);
            let expected = [
                "cluster_state:ok".to_owned(),
                format!("cluster_slots_assigned:{SLOTS}"),
                format!("cluster_slots_ok:{SLOTS}"),
                format!("cluster_known_nodes:{NODES}"),
            ];
            if let Some(missing) = expected.iter().find(|line| !has_line(&info, line)) {
                return Err(format!(
                    "node {node} does not say {missing} in CLUSTER INFO:\n{info}"
                ));
            }
            let view = self.view(node)?;
            // The cluster bus's roles, not only replication's: a restarted
            // primary has its replication link up (INFO says so) before
            // every node's view has it as a replica, and until then
            // `replica_of` finds none.
            let primaries_seen = view.iter().filter(|entry| entry.has("master")).count();
            if live.len() == NODES && primaries_seen != PRIMARIES {
                return Err(format!(
                    "node {node} sees {primaries_seen} primaries, not {PRIMARIES}"
                ));
            }
            for entry in view {
                let Some(other) = self.index_of(entry.port) else {
                    continue;
                };
                let failing = ["fail", "fail?", "handshake", "noaddr"]
                    .iter()
                    .any(|flag| entry.has(flag));
                if self.nodes[other].running() && (failing || entry.link != "connected") {
                    return Err(format!(
                        "node {node} sees node {other} as {} and {}",
                        entry.flags.join(","),
                        entry.link
                    ));
                }
            }
            let replication = self.text(node, &["INFO", "replication"]);
            match field(&replication, "role") {
                Some("master") => {
                    primaries += 1;
                    let replicas: usize = field(&replication, "connected_slaves")
                        .and_then(|count| count.parse().ok())
                        .unwrap_or(0);
                    let offline = (0..replicas).any(|replica| {
                        !field(&replication, &format!("slave{replica}"))
                            .is_some_and(|replica| replica.contains("state=online"))
                    });
                    if offline || (live.len() == NODES && replicas != 1) {
                        return Err(format!(
                            "primary {node} has not one replica online:\n{replication}"
                        ));
                    }
                }
                Some("slave") => {
                    if field(&replication, "master_link_status") != Some("up")
                        || field(&replication, "master_sync_in_progress") != Some("0")
                    {
                        return Err(format!("replica {node} is not in sync:\n{replication}"));
                    }
                }
                _ => return Err(format!("node {node}'s INFO replication:\n{replication}")),
            }
        }
        if live.len() == NODES && primaries != PRIMARIES {
            return Err(format!("{primaries} primaries, not {PRIMARIES}"));
        }
        Ok(())
    }

    /// Runs `redis-cli --cluster create`, which assigns the slots to three
    /// of the nodes and makes each of the others a replica of one. Its
    /// output goes to a file rather than a pipe, so that waiting for it
    /// with a deadline cannot block on a full pipe.
    fn create(&self) {
        let log = self.dir.join("create.log");
        let file = std::fs::File::create(&log).expect("a log file for redis-cli");
        let mut child = Command::new("redis-cli")
            .args(["--cluster", "create"])
            .args(
                self.nodes
                    .iter()
                    .map(|node| format!("127.0.0.1:{}", node.port())),
            )
            .args(["--cluster-replicas", "1", "--cluster-yes"])
            .stdin(Stdio::null())
            .stdout(file.try_clone().expect("the log file, twice"))
            .stderr(file)
            .spawn()
            .expect("redis-cli starts (it comes with redis-server)");
        let deadline = Instant::now() + SETTLE;
        let status = loop {
            if let Some(status) = child.try_wait().expect("redis-cli is waited for") {
                break status;
            }
            if Instant::now() >= deadline {
                let _ = child.kill();
                let _ = child.wait();
                let output = std::fs::read_to_string(&log).unwrap_or_default();
                panic!("`redis-cli --cluster create` did not finish within {SETTLE:?}:\n{output}");
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let output = std::fs::read_to_string(&log).unwrap_or_default();
        assert!(
            status.success(),
            "`redis-cli --cluster create` failed ({status}):\n{output}"
        );
    }

    /// The nodes that run.
    fn live(&self) -> Vec<usize> {
        (0..NODES)
            .filter(|node| self.nodes[*node].running())
            .collect()
    }

    fn any_live(&self) -> usize {
        *self.live().first().expect("a node of the cluster runs")
    }

    /// The node listening on `port`.
    fn index_of(&self, port: u16) -> Option<usize> {
        self.nodes.iter().position(|node| node.port() == port)
    }

    fn running_port(&self, node: usize) -> u16 {
        assert!(self.nodes[node].running(), "node {node} is killed");
        self.nodes[node].port()
    }

    /// A command's answer as one text (an error too, for the message).
    fn text(&self, node: usize, args: &[&str]) -> String {
        self.query(node, args).join("\n")
    }

    /// `node`'s `CLUSTER NODES`, parsed.
    fn view(&self, node: usize) -> Result<Vec<Entry>, String> {
        let text = self.text(node, &["CLUSTER", "NODES"]);
        text.lines()
            .filter(|line| !line.trim().is_empty())
            .map(|line| {
                Entry::parse(line).ok_or_else(|| format!("node {node}'s CLUSTER NODES:\n{text}"))
            })
            .collect()
    }
}

impl Drop for RedisCluster {
    fn drop(&mut self) {
        // Each node kills itself and removes its directory.
        self.nodes.clear();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// One line of `CLUSTER NODES`:
/// `<id> <ip:port@cport[,hostname]> <flags> <master> <ping-sent>
/// <pong-recv> <config-epoch> <link-state> <slot>...`.
struct Entry {
    id: String,
    port: u16,
    flags: Vec<String>,
    /// The primary's id for a replica, `-` for a primary.
    master: String,
    link: String,
    /// Inclusive ranges; slots being imported or migrated are left out.
    slots: Vec<(usize, usize)>,
}

impl Entry {
    /// `None` for anything else (an error such as `LOADING`).
    fn parse(line: &str) -> Option<Entry> {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [id, address, flags, master, _, _, _, link, slots @ ..] = fields.as_slice() else {
            return None;
        };
        let (address, _bus) = address.split_once('@')?;
        let port = address.rsplit_once(':')?.1.parse().ok()?;
        let slots = slots
            .iter()
            .filter(|slot| !slot.starts_with('['))
            .map(|slot| match slot.split_once('-') {
                Some((first, last)) => Some((first.parse().ok()?, last.parse().ok()?)),
                None => slot.parse().ok().map(|slot| (slot, slot)),
            })
            .collect::<Option<_>>()?;
        Some(Entry {
            id: (*id).to_owned(),
            port,
            flags: flags.split(',').map(str::to_owned).collect(),
            master: (*master).to_owned(),
            link: (*link).to_owned(),
            slots,
        })
    }

    fn has(&self, flag: &str) -> bool {
        self.flags.iter().any(|own| own == flag)
    }
}

/// The port of the primary serving each slot, in one node's view.
fn owners(view: &[Entry]) -> Vec<Option<u16>> {
    let mut owners = vec![None; SLOTS];
    for entry in view.iter().filter(|entry| entry.has("master")) {
        for &(first, last) in &entry.slots {
            for owner in owners.iter_mut().take(last + 1).skip(first) {
                *owner = Some(entry.port);
            }
        }
    }
    owners
}

/// Whether `text` (`CLUSTER INFO`, `INFO`) has the line `line`.
fn has_line(text: &str, line: &str) -> bool {
    text.lines().any(|own| own.trim_end() == line)
}

/// The value of `name:value` in an `INFO` section.
fn field<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    text.lines().find_map(|line| {
        line.trim_end()
            .strip_prefix(name)
            .and_then(|rest| rest.strip_prefix(':'))
    })
}

/// Calls `check` until it succeeds, for at most [`SETTLE`], then panics
/// with what `check` last said was missing.
fn wait_until<T>(what: &str, mut check: impl FnMut() -> Result<T, String>) -> T {
    let deadline = Instant::now() + SETTLE;
    loop {
        match check() {
            Ok(value) => return value,
            Err(missing) if Instant::now() >= deadline => {
                panic!("the Redis cluster: waited {SETTLE:?} for {what}, in vain: {missing}")
            }
            Err(_) => std::thread::sleep(Duration::from_millis(100)),
        }
    }
}

/// `count` ports P where P and P + 10000 (its cluster bus) are both free.
///
/// Taken from 10000..22768, so that both stay below Linux's ephemeral
/// range (32768 and up by default), where [`RedisServer::start`]'s ports
/// and every outgoing connection's come from: those cannot take a node's
/// port between this check and the node's start, or while it is killed.
/// A cursor shared by the process walks the range, so parallel tests'
/// clusters get different ports; it starts at a random place, so other
/// test processes' clusters likely do too.
fn cluster_ports(count: usize) -> Vec<u16> {
    const LOW: u16 = 10000;
    const HIGH: u16 = 32768 - BUS_OFFSET;
    static NEXT: Mutex<Option<u16>> = Mutex::new(None);
    let free = |port: u16| TcpListener::bind(("127.0.0.1", port)).is_ok();
    let mut next = NEXT.lock().unwrap_or_else(PoisonError::into_inner);
    let cursor = next.get_or_insert_with(|| {
        let random = RandomState::new().hash_one(std::process::id());
        LOW + u16::try_from(random % u64::from(HIGH - LOW)).expect("below HIGH - LOW")
    });
    let mut ports = Vec::with_capacity(count);
    for _ in LOW..HIGH {
        let port = *cursor;
        *cursor = if port + 1 == HIGH { LOW } else { port + 1 };
        if free(port) && free(port + BUS_OFFSET) {
            ports.push(port);
            if ports.len() == count {
                return ports;
            }
        }
    }
    panic!("fewer than {count} free pairs of ports P and P + {BUS_OFFSET} for P in {LOW}..{HIGH}");
}
