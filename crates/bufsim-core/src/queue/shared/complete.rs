//! Complete sharing: any queue takes an arrival while the pool has room
//! for it, whatever the others hold (Irland 1978; Choudhury & Hahne 1998:
//! one port may then take the whole pool and starve the
//! others, which the dynamic threshold was designed to prevent).

/// Whether an arrival of `a` fits in a pool of `b` holding `total`:
/// `total + a <= b`.
#[inline]
pub fn admits(total: u64, a: u64, b: u64) -> bool {
    total + a <= b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admits_while_the_pool_has_room() {
        assert!(admits(499, 1, 500));
        assert!(!admits(500, 1, 500));
        assert!(admits(498_500, 1500, 500_000));
        assert!(!admits(498_501, 1500, 500_000));
    }
}
