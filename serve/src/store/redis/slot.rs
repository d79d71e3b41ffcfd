//! The Redis Cluster hash slot of a key: where the cluster keeps it, and
//! so which primary a command on it goes to.

/// The Redis Cluster hash slot of `key`: CRC16 (XMODEM) of its hash tag,
/// or of the whole key without one, modulo 16384.
pub(super) fn slot(key: &[u8]) -> u16 {
    let tagged = key
        .iter()
        .position(|&byte| byte == b'{')
        .and_then(|open| {
            let rest = &key[open + 1..];
            rest.iter()
                .position(|&byte| byte == b'}')
                .filter(|&close| close > 0)
                .map(|close| &rest[..close])
        })
        .unwrap_or(key);
    crc16(tagged) % 16384
}

fn crc16(bytes: &[u8]) -> u16 {
    bytes.iter().fold(0u16, |mut crc, &byte| {
        crc ^= u16::from(byte) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
        crc
    })
}

#[cfg(test)]
mod tests {
    use super::{crc16, slot};

    #[test]
    fn slots_are_redis_clusters() {
        // From the Redis Cluster specification and `CLUSTER KEYSLOT`.
        assert_eq!(slot(b"123456789"), 0x31C3);
        assert_eq!(slot(b"foo"), 12182);
        assert_eq!(slot(b"{user1000}.following"), slot(b"user1000"));
        assert_eq!(
            slot(b"foo{}{bar}"),
            crc16(b"foo{}{bar}") % 16384,
            "an empty tag: the whole key"
        );
        assert_eq!(slot(b"foo{{bar}}zap"), slot(b"{bar"));
    }
}
