//! Timed harness (not criterion: one round is seconds of real network and
//! process time): three gateway instances on one real `redis-server`, each
//! serving Kandev over streamable HTTP with its control API, and
//! `GATEWAY_BENCH_SESSIONS` (default 1,000) 2025-era rmcp sessions of one
//! principal on each.
//!
//! - **fan-out**: the time from the control API's answer to a profile
//!   replacement (made through instance 0) to the last `list_changed`
//!   received by the 3 × N sessions; `GATEWAY_BENCH_ROUNDS` rounds (default
//!   20), alternating two profiles.
//! - **restart**: Redis is killed and started again; the time from Redis
//!   answering again to the last session hearing a replacement made as soon
//!   as the control API accepts it (which includes the instances noticing,
//!   reconnecting and reloading), and until the control API accepted it.
//!
//! `cargo bench -p mcp-profiles-bench --bench gateway`

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_profiles_bench::gateways::{CountingClient, Gateway, Heard};
use mcp_profiles_bench::results::env_usize;
use mcp_profiles_bench::sessions::connect_clients;
use mcp_profiles_tests::client::http_transport;
use mcp_profiles_tests::redis::RedisServer;
use rmcp::service::{RoleClient, RunningService};

const TOKEN: &str = "bench-control-token";
const PROFILES: [&str; 2] = [
    r#"{"surface":"kanban-task","capabilities":["user-question"]}"#,
    r#"{"surface":"configuration"}"#,
];

/// `PUT /api/v1/agents/alice`; the status.
async fn put(http: &reqwest::Client, instance: &Gateway, profile: &str) -> u16 {
    let profile: serde_json::Value = serde_json::from_str(profile).unwrap();
    http.put(format!("{}/api/v1/agents/alice", instance.control))
        .bearer_auth(TOKEN)
        .json(&serde_json::json!({ "profile": profile }))
        .send()
        .await
        .map(|response| response.status().as_u16())
        .unwrap_or(0)
}

fn summary(label: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    println!(
        "{label}: n={} min={:.1} ms median={:.1} ms p90={:.1} ms max={:.1} ms",
        samples.len(),
        ms(samples[0]),
        ms(at(0.5)),
        ms(at(0.9)),
        ms(samples[samples.len() - 1])
    );
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(run());
}

async fn run() {
    let Some(mut redis) = RedisServer::start() else {
        return;
    };
    let per_instance = env_usize("GATEWAY_BENCH_SESSIONS", 1000);
    let rounds = env_usize("GATEWAY_BENCH_ROUNDS", 20);
    let http = reqwest::Client::new();
    let instances = [
        Gateway::start(&redis.url(), TOKEN).await,
        Gateway::start(&redis.url(), TOKEN).await,
        Gateway::start(&redis.url(), TOKEN).await,
    ];
    assert_eq!(put(&http, &instances[0], PROFILES[0]).await, 200);
    let grant = http
        .post(format!("{}/api/v1/tokens", instances[0].control))
        .bearer_auth(TOKEN)
        .json(&serde_json::json!({"token": "alice-token", "principal": "alice"}))
        .send()
        .await
        .unwrap();
    assert_eq!(grant.status().as_u16(), 200);

    let heard = Arc::new(Heard::default());
    let started = Instant::now();
    let mut sessions: Vec<RunningService<RoleClient, CountingClient>> = Vec::new();
    for instance in &instances {
        let per = per_instance / 50 * 50;
        sessions.extend(
            connect_clients(
                per,
                50,
                |_| http_transport(&instance.mcp, Some("alice-token")),
                |_| CountingClient(Arc::clone(&heard)),
            )
            .await,
        );
    }
    let total = sessions.len();
    println!(
        "{total} sessions on 3 instances connected in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    // Let every session's standalone stream open before measuring.
    tokio::time::sleep(Duration::from_secs(2)).await;

    let mut fanout = Vec::new();
    let mut answers = Vec::new();
    for round in 0..rounds {
        let target = total * (round + 1);
        let asked = Instant::now();
        assert_eq!(
            put(&http, &instances[0], PROFILES[(round + 1) % 2]).await,
            200
        );
        let answered = Instant::now();
        tokio::time::timeout(Duration::from_secs(60), heard.wait_for(target))
            .await
            .expect("every session hears the replacement");
        fanout.push(answered.elapsed());
        answers.push(answered - asked);
    }
    summary("control API answer", answers);
    summary(&format!("answer -> last of {total} notifications"), fanout);

    let mut restart = Vec::new();
    let mut accepted = Vec::new();
    let mut heard_so_far = total * rounds;
    for round in 0..5 {
        redis.kill();
        redis.restart();
        let back = Instant::now();
        let profile = PROFILES[(rounds + round + 1) % 2];
        while put(&http, &instances[(round + 1) % 3], profile).await != 200 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        accepted.push(back.elapsed());
        heard_so_far += total;
        tokio::time::timeout(Duration::from_secs(60), heard.wait_for(heard_so_far))
            .await
            .expect("every session hears the change made after the restart");
        restart.push(back.elapsed());
    }
    summary("Redis back -> control API accepts a change", accepted);
    summary(
        &format!("Redis back -> last of {total} notifications"),
        restart,
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        heard.count(),
        heard_so_far,
        "a session heard a change twice"
    );
    println!("every session heard every change exactly once ({heard_so_far} notifications)");
    drop(sessions);
}
