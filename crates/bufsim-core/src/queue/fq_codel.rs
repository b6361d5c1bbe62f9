//! FQ-CoDel, RFC 8290: flows hashed into `flows` queues, each with its own
//! CoDel state, served by deficit round robin with separate lists of new
//! and old flows; on overflow packets are dropped from the head of the
//! queue holding the most bytes, up to half its bytes or `drop_batch`
//! packets (section 4.1).
//!
//! The hash: TCP flow `f` goes to queue `f % flows` (the flow id stands for
//! the 5-tuple hash); background packets, many small flows, are spread by
//! sequence number.

use std::collections::VecDeque;

use serde::Serialize;

use super::codel::{CODEL_REASONS, CodelConfig, CodelState};
use super::{
    Discipline, DropReason, Drops, Fifo, Limit, LinkInfo, Occupancy, QueueDisc, Queued, Setup,
    fattest,
};
use crate::net::{BACKGROUND, Packet};
use crate::params::{PErr, Params};
use crate::units::SimTime;

#[derive(Clone, Copy, PartialEq, Eq)]
enum List {
    None,
    New,
    Old,
}

/// FQ-CoDel, RFC 8290.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct FqCodelConfig {
    /// The CoDel parameters of every queue.
    #[serde(flatten)]
    pub codel: CodelConfig,
    /// DRR quantum, bytes (RFC 8290 section 5.1: 1514, the MTU plus the
    /// Ethernet header; default here `link.packet_size`).
    pub quantum_bytes: u32,
    /// Number of flow queues (hash buckets).
    pub flows: u32,
    /// Most packets one overflow drops from the fattest queue.
    pub drop_batch: u32,
}

impl QueueDisc for FqCodel {
    const NAME: &'static str = "fq_codel";
    const DROP_REASONS: &'static [&'static str] = CODEL_REASONS;
    type Config = FqCodelConfig;
    fn read(p: &mut Params, link: LinkInfo) -> Result<FqCodelConfig, PErr> {
        Ok(FqCodelConfig {
            codel: CodelConfig::read(p)?,
            quantum_bytes: p.size("quantum", link.packet_size, 64, 1 << 20)?,
            //= RFC 8290 section 5.1: "flows ... 1024".
            flows: p.num("flows", 1024.0, 1.0, 65_536.0)? as u32,
            //= Linux sch_fq_codel.c fq_codel_drop (drop_batch_size 64, since
            //= commit 9d18562a, 2016) and ns-3.37 FqCoDelQueueDisc attribute
            //= DropBatchSize (64); RFC 8290 section 4.1 drops up to half the
            //= fat queue's backlog, as they do. 1: one packet per overflow.
            drop_batch: p.num("drop_batch", 64.0, 1.0, 65_536.0)? as u32,
        })
    }
    fn new(cfg: FqCodelConfig, q: &Setup) -> FqCodel {
        FqCodel::with_config(cfg, q.limit, q.link.packet_size)
    }
}

/// FQ-CoDel state.
pub struct FqCodel {
    cfg: FqCodelConfig,
    limit: Limit,
    mtu: u32,
    queues: Vec<Fifo>,
    codel: Vec<CodelState>,
    deficit: Vec<i64>,
    on: Vec<List>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
}

impl FqCodel {
    /// FQ-CoDel with these parameters; `mtu` is the largest packet.
    pub fn with_config(cfg: FqCodelConfig, limit: Limit, mtu: u32) -> FqCodel {
        let n = cfg.flows as usize;
        FqCodel {
            cfg,
            limit,
            mtu,
            queues: (0..n).map(|_| Fifo::default()).collect(),
            codel: vec![CodelState::default(); n],
            deficit: vec![0; n],
            on: vec![List::None; n],
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
        }
    }

    #[inline]
    fn slot(&self, p: &Packet) -> usize {
        let key = if p.flow() == BACKGROUND {
            p.seq.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32
        } else {
            p.flow() as u64
        };
        (key % self.cfg.flows as u64) as usize
    }
}

impl Discipline for FqCodel {
    fn enqueue(&mut self, pkt: Packet, occ: Occupancy, now: SimTime, drops: &mut Drops) {
        let i = self.slot(&pkt);
        self.queues[i].push(pkt, now);
        if self.on[i] == List::None {
            //= RFC 8290 section 4.1: a queue not on either list is added to the
            //= tail of the list of new queues, its deficit set to the quantum.
            self.on[i] = List::New;
            self.deficit[i] = self.cfg.quantum_bytes as i64;
            self.new_flows.push_back(i as u32);
        }
        if !self.limit.fits(occ, pkt.size()) {
            //= RFC 8290 section 4.1: over the limit, packets are dropped
            //= "from the head of the queue with the largest current byte
            //= count", until half its backlog or the drop batch is gone
            //= (Linux fq_codel_drop: "threshold = maxbacklog >> 1", "while
            //= (++i < max_packets && len < threshold)"; ns-3.37
            //= FqCoDelQueueDisc::FqCoDelDrop, the same loop).
            let others = self.new_flows.iter().chain(&self.old_flows).copied();
            let best = fattest(&self.queues, i, others);
            let half = self.queues[best].bytes / 2;
            let (mut count, mut len) = (0, 0);
            loop {
                let p = self.queues[best].pop().expect("fattest queue is not empty");
                len += u64::from(p.pkt.size());
                count += 1;
                drops.push((p.pkt, DropReason::OVERFLOW));
                if count >= self.cfg.drop_batch || len >= half || self.queues[best].is_empty() {
                    break;
                }
            }
        }
    }

    fn dequeue(&mut self, _occ: Occupancy, now: SimTime, drops: &mut Drops) -> Option<Queued> {
        loop {
            //= RFC 8290 section 4.2: serve the new list first, then the old.
            let (i, from_new) = match self.new_flows.front() {
                Some(&i) => (i as usize, true),
                None => match self.old_flows.front() {
                    Some(&i) => (i as usize, false),
                    None => return None,
                },
            };
            if self.deficit[i] <= 0 {
                //= section 4.2: "if the deficit is not positive, add the quantum
                //= and move the queue to the tail of the old list".
                self.deficit[i] += self.cfg.quantum_bytes as i64;
                if from_new {
                    self.new_flows.pop_front();
                } else {
                    self.old_flows.pop_front();
                }
                self.old_flows.push_back(i as u32);
                self.on[i] = List::Old;
                continue;
            }
            let p =
                self.codel[i].dequeue(&self.cfg.codel, self.mtu, &mut self.queues[i], now, drops);
            match p {
                Some(p) => {
                    self.deficit[i] -= p.pkt.size() as i64;
                    return Some(p);
                }
                None => {
                    //= section 4.2: an empty queue from the new list moves to the
                    //= old list (so it cannot regain priority at once); an empty
                    //= queue from the old list is removed.
                    if from_new {
                        self.new_flows.pop_front();
                        if self.old_flows.is_empty() {
                            self.on[i] = List::None;
                        } else {
                            self.old_flows.push_back(i as u32);
                            self.on[i] = List::Old;
                        }
                    } else {
                        self.old_flows.pop_front();
                        self.on[i] = List::None;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 10-packet FQ-CoDel holding 8 packets of flow 0 and 2 of flow 1.
    fn full(drop_batch: u32) -> (FqCodel, Occupancy) {
        let cfg = FqCodelConfig {
            codel: CodelConfig::default(),
            quantum_bytes: 1000,
            flows: 16,
            drop_batch,
        };
        let mut q = FqCodel::with_config(cfg, Limit::Packets(10), 1000);
        let mut drops = vec![];
        let mut occ = Occupancy::default();
        for (flow, seq) in (0..8).map(|s| (0, s)).chain((0..2).map(|s| (1, s))) {
            q.enqueue(
                Packet::new(flow, 1000, seq, 0),
                occ,
                SimTime::ZERO,
                &mut drops,
            );
            occ.pkts += 1;
            occ.bytes += 1000;
        }
        assert!(drops.is_empty());
        (q, occ)
    }

    #[test]
    fn overflow_drops_half_the_fattest_queue_from_its_head() {
        // Flow 1's packet arrives at a full queue: flow 0 holds the most
        // bytes (8 packets), so its head goes, 4 packets (half its bytes)
        // with the default batch of 64, one with drop_batch = 1.
        for (batch, dropped) in [(64, vec![0, 1, 2, 3]), (1, vec![0])] {
            let (mut q, occ) = full(batch);
            let mut drops = vec![];
            q.enqueue(Packet::new(1, 1000, 2, 0), occ, SimTime::ZERO, &mut drops);
            let seqs: Vec<u64> = drops.iter().map(|(p, _)| p.seq).collect();
            assert!(
                drops
                    .iter()
                    .all(|(p, r)| p.flow() == 0 && *r == DropReason::OVERFLOW)
            );
            assert_eq!(seqs, dropped, "drop_batch {batch}");
        }
        // A batch smaller than half stops at the batch.
        let (mut q, occ) = full(3);
        let mut drops = vec![];
        q.enqueue(Packet::new(1, 1000, 2, 0), occ, SimTime::ZERO, &mut drops);
        assert_eq!(drops.len(), 3);
    }
}
