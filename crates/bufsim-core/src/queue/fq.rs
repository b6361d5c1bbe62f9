//! Per-flow fair queueing by deficit round robin (Shreedhar and Varghese,
//! "Efficient fair queuing using deficit round robin", SIGCOMM 1995) with a
//! shared buffer and drop from the longest queue on overflow, as paper 000
//! section V.B ("per-flow fair queuing in ns2 with a drop from longest
//! queue discard policy"; Suter et al., INFOCOM 1998).
//!
//! Each TCP flow has its own queue (the flow id stands for the 5-tuple
//! hash). Background packets model many small flows (paper 000 section II):
//! they are spread over `background_flows` queues by sequence number. Open-
//! and closed-loop traffic creates flows during the run: their queues are
//! added when their first packet arrives. When
//! the shared buffer overflows, the arriving packet joins its queue and the
//! tail packet of the longest queue (in bytes) is dropped; if the arrival's
//! own queue is the longest, that is the arrival itself. A flow sending
//! below its fair rate keeps a short queue and loses nothing.

use std::collections::VecDeque;

use serde::Serialize;

use super::{
    Discipline, DropReason, Drops, Fifo, Limit, LinkInfo, Occupancy, QueueDisc, Queued, Setup,
    fattest,
};
use crate::net::{BACKGROUND, Packet};
use crate::params::{PErr, Params};
use crate::units::SimTime;

/// Per-flow fair queueing by deficit round robin (Shreedhar and Varghese
/// 1995) with a shared buffer and drop from the longest queue on overflow
/// (paper 000 section V.B; Suter et al. 1998).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct FqConfig {
    /// DRR quantum, bytes (default: `link.packet_size`, one full packet per round).
    pub quantum_bytes: u32,
    /// Background packets are hashed on their sequence number into this
    /// many queues (each Poisson packet stands for a packet of one of many
    /// small flows, paper 000 section II); 1 makes the background one flow.
    pub background_flows: u32,
}

/// A full buffer pushed the packet out of the longest queue.
pub const LONGEST_QUEUE: DropReason = DropReason::own(0);

impl QueueDisc for Fq {
    const NAME: &'static str = "fq";
    const DROP_REASONS: &'static [&'static str] = &["longest_queue"];
    type Config = FqConfig;
    fn read(p: &mut Params, link: LinkInfo) -> Result<FqConfig, PErr> {
        Ok(FqConfig {
            quantum_bytes: p.size("quantum", link.packet_size, 64, 1 << 20)?,
            background_flows: p.num("background_flows", 1024.0, 1.0, 1e6)? as u32,
        })
    }
    fn new(cfg: FqConfig, q: &Setup) -> Fq {
        Fq::with_config(cfg, q.limit, q.tcp_flows)
    }
}

/// DRR fair queueing with longest-queue drop.
pub struct Fq {
    cfg: FqConfig,
    limit: Limit,
    tcp_flows: u32,
    queues: Vec<Fifo>,
    deficit: Vec<i64>,
    active: VecDeque<u32>,
}

impl Fq {
    /// A fair queue for `tcp_flows` TCP flows plus the background.
    pub fn with_config(cfg: FqConfig, limit: Limit, tcp_flows: u32) -> Fq {
        let n = tcp_flows as usize + cfg.background_flows as usize;
        Fq {
            cfg,
            limit,
            tcp_flows,
            queues: (0..n).map(|_| Fifo::default()).collect(),
            deficit: vec![0; n],
            active: VecDeque::with_capacity(n.min(4096)),
        }
    }

    /// The queue of packet `p`: the flows known at the start first, then the
    /// background queues, then flows created during the run.
    #[inline]
    fn slot(&self, p: &Packet) -> usize {
        let (known, bg) = (self.tcp_flows as usize, self.cfg.background_flows as usize);
        if p.flow() == BACKGROUND {
            known + (p.seq % bg as u64) as usize
        } else if (p.flow() as usize) < known {
            p.flow() as usize
        } else {
            known + bg + (p.flow() as usize - known)
        }
    }
}

impl Discipline for Fq {
    fn enqueue(&mut self, pkt: Packet, occ: Occupancy, now: SimTime, drops: &mut Drops) {
        let i = self.slot(&pkt);
        if i >= self.queues.len() {
            self.queues.resize_with(i + 1, Fifo::default);
            self.deficit.resize(i + 1, 0);
        }
        let was_empty = self.queues[i].is_empty();
        self.queues[i].push(pkt, now);
        if was_empty {
            //= Shreedhar & Varghese 1995 section 3.1: a queue that becomes
            //= active joins the tail of the ActiveList; its first turn adds one
            //= Quantum (credited here, as Linux sch_drr does).
            self.deficit[i] = self.cfg.quantum_bytes as i64;
            self.active.push_back(i as u32);
        }
        if !self.limit.fits(occ, pkt.size()) {
            //= paper 000 section V.B: drop from the longest queue (Suter et al.
            //= 1998, "Longest Queue Drop"); the longest in bytes, its tail packet.
            let best = fattest(&self.queues, i, self.active.iter().copied());
            let p = self.queues[best]
                .pop_back()
                .expect("longest queue is not empty");
            drops.push((p, LONGEST_QUEUE));
            if self.queues[best].is_empty() {
                self.active.retain(|&j| j as usize != best);
            }
        }
    }

    fn dequeue(&mut self, _occ: Occupancy, _now: SimTime, _drops: &mut Drops) -> Option<Queued> {
        let quantum = self.cfg.quantum_bytes as i64;
        while let Some(&i) = self.active.front() {
            let q = &mut self.queues[i as usize];
            let size = q.front().expect("active queues hold packets").pkt.size() as i64;
            if self.deficit[i as usize] >= size {
                //= section 3.1: "while DeficitCounter >= size of head packet:
                //= DeficitCounter -= size; send".
                self.deficit[i as usize] -= size;
                let p = q.pop();
                if q.is_empty() {
                    //= section 3.1: an emptied queue leaves the ActiveList and
                    //= its DeficitCounter is reset to 0.
                    self.deficit[i as usize] = 0;
                    self.active.pop_front();
                }
                return p;
            }
            //= section 3.1: a queue whose head no longer fits its
            //= DeficitCounter ends its turn and moves to the tail; it gets its
            //= next Quantum for the next turn.
            self.deficit[i as usize] += quantum;
            self.active.pop_front();
            self.active.push_back(i);
        }
        None
    }
}
