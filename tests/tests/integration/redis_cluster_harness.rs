//! The Redis Cluster harness itself, before any store relies on it: a
//! write acknowledged by the replica survives its primary's death, the
//! replica takes over, and the dead primary comes back as its replica.
//! Skipped, saying so, without `redis-server` (see
//! `mcp_profiles_tests::redis`).

use mcp_profiles_tests::redis_cluster::RedisCluster;

#[test]
fn a_killed_primary_fails_over_to_its_replica_and_rejoins_as_one() {
    let Some(mut cluster) = RedisCluster::start() else {
        return;
    };
    assert_eq!(cluster.seeds().len(), 6);
    assert!(
        cluster
            .store_url()
            .starts_with("redis+cluster://127.0.0.1:")
    );
    assert_eq!(cluster.store_url().matches(',').count(), 5);

    let key = "profile:harness";
    let primary = cluster.primary_of(key);
    let replica = cluster.replica_of(primary);
    assert_ne!(primary, replica);
    // One connection: WAIT counts the replicas that have this
    // connection's last write.
    let answers = cluster.pipeline(primary, &[&["SET", key, "v"], &["WAIT", "1", "10000"]]);
    assert_eq!(answers, [vec!["OK"], vec!["1"]]);
    // A replica answers reads only after READONLY on the same connection.
    let answers = cluster.pipeline(replica, &[&["READONLY"], &["GET", key]]);
    assert_eq!(answers, [vec!["OK"], vec!["v"]]);

    cluster.kill(primary);
    let promoted = cluster.wait_for_failover(primary);
    assert_eq!(
        promoted, replica,
        "the killed primary's only replica takes over"
    );
    assert_eq!(cluster.primary_of(key), promoted);
    assert_eq!(cluster.query(promoted, &["GET", key]), ["v"]);

    cluster.restart(primary);
    assert_eq!(cluster.primary_of(key), promoted);
    assert_eq!(cluster.replica_of(promoted), primary);
    let replicas = (0..6)
        .filter(|node| {
            cluster
                .query(*node, &["INFO", "replication"])
                .concat()
                .contains("master_link_status:up")
        })
        .count();
    assert_eq!(replicas, 3);
    let answers = cluster.pipeline(primary, &[&["READONLY"], &["GET", key]]);
    assert_eq!(answers, [vec!["OK"], vec!["v"]]);
}
