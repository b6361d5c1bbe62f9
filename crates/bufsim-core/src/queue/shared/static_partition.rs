//! Static partition: each of the pool's `ports` ports owns `floor(b /
//! ports)` of it and no port may use another's share, as dedicated
//! per-port buffers (the "complete partitioning" of Irland, "Buffer
//! management in a packet switch", IEEE Trans. Commun. 26(3), 1978, and
//! the baseline of Choudhury & Hahne 1998).

/// Port `ports`' share of a pool of `b`: `floor(b / ports)` (rounded down,
/// so that the shares together never exceed the pool).
#[inline]
pub fn share(b: u64, ports: u32) -> u64 {
    b / u64::from(ports.max(1))
}

/// Whether an arrival of `a` joins a queue holding `q` whose share is
/// `share`: `q + a <= share` (in packets, `q < share`).
#[inline]
pub fn admits(q: u64, a: u64, share: u64) -> bool {
    q + a <= share
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_port_holds_its_share_and_no_more() {
        // 500 packets over 4 ports: 125 each; over 3: 166 (not 167: the
        // three shares would exceed the pool).
        assert_eq!(share(500, 4), 125);
        assert_eq!(share(500, 3), 166);
        assert!(admits(124, 1, 125));
        assert!(!admits(125, 1, 125));
        // Bytes: a 1500-byte packet fits while it ends within the share.
        assert!(admits(123_500, 1500, 125_000));
        assert!(!admits(123_501, 1500, 125_000));
    }
}
