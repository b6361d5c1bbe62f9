//! FIFO drop-tail: drop an arrival when the buffer is full, counting packets
//! or bytes.

use super::{Discipline, Drops, Fifo, Limit, Occupancy};
use crate::net::Packet;
use crate::units::SimTime;

/// Drop-tail policy.
pub struct DropTail {
    limit: Limit,
    fifo: Fifo,
}

impl DropTail {
    /// A drop-tail buffer with this limit.
    pub fn new(limit: Limit) -> DropTail {
        DropTail {
            limit,
            fifo: Fifo::default(),
        }
    }
}

impl Discipline for DropTail {
    #[inline]
    fn enqueue(&mut self, pkt: Packet, occ: Occupancy, _now: SimTime, drops: &mut Drops) {
        self.fifo.push_or_overflow(pkt, self.limit, occ, drops);
    }
    #[inline]
    fn dequeue(&mut self, _occ: Occupancy, _now: SimTime, _drops: &mut Drops) -> Option<Packet> {
        self.fifo.pop()
    }
}
