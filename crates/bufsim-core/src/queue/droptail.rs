//! FIFO drop-tail: drop an arrival when the buffer is full, counting packets
//! or bytes.

use super::{Discipline, DropReason, Occupancy};
use crate::net::Packet;
use crate::units::SimTime;

/// The buffer limit.
#[derive(Clone, Copy, Debug)]
pub enum Limit {
    /// At most this many packets waiting.
    Packets(u64),
    /// At most this many bytes waiting.
    Bytes(u64),
}

/// Drop-tail policy.
#[derive(Clone, Copy, Debug)]
pub struct DropTail {
    limit: Limit,
}

impl DropTail {
    /// A drop-tail buffer with this limit.
    pub fn new(limit: Limit) -> DropTail {
        DropTail { limit }
    }
}

impl Discipline for DropTail {
    #[inline]
    fn admit(&mut self, pkt: &Packet, occ: Occupancy, _now: SimTime) -> Result<(), DropReason> {
        let fits = match self.limit {
            Limit::Packets(k) => occ.pkts < k,
            Limit::Bytes(b) => occ.bytes + pkt.size as u64 <= b,
        };
        if fits { Ok(()) } else { Err(DropReason::Overflow) }
    }
}
