//! FIFO drop-tail: drop an arrival when the buffer is full, counting packets
//! or bytes.

use super::{Discipline, Drops, Fifo, Limit, LinkInfo, Occupancy, QueueDisc, Queued, Setup};
use crate::net::Packet;
use crate::params::{NoParams, PErr, Params};
use crate::units::SimTime;

/// Drop-tail policy.
pub struct DropTail {
    limit: Limit,
    fifo: Fifo,
}

impl DropTail {
    /// A drop-tail buffer with this limit.
    pub fn with_limit(limit: Limit) -> DropTail {
        DropTail {
            limit,
            fifo: Fifo::default(),
        }
    }
}

impl QueueDisc for DropTail {
    const NAME: &'static str = "droptail";
    const FIFO: bool = true;
    //= paper 004 eq. (4): the fluid queue drops what exceeds the buffer.
    const FLUID: bool = true;
    type Config = NoParams;
    fn read(_p: &mut Params, _link: LinkInfo) -> Result<NoParams, PErr> {
        Ok(NoParams)
    }
    fn new(_cfg: NoParams, q: &Setup) -> DropTail {
        DropTail::with_limit(q.limit)
    }
}

impl Discipline for DropTail {
    #[inline]
    fn push_out(&mut self) -> Option<Packet> {
        self.fifo.pop_back()
    }
    #[inline]
    fn enqueue(&mut self, pkt: Packet, occ: Occupancy, now: SimTime, drops: &mut Drops) {
        self.fifo.push_or_overflow(pkt, now, self.limit, occ, drops);
    }
    #[inline]
    fn dequeue(&mut self, _occ: Occupancy, _now: SimTime, _drops: &mut Drops) -> Option<Queued> {
        self.fifo.pop()
    }
}
