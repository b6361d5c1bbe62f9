//! The packet-level discrete-event simulator, over each shape of
//! [`Topology`](crate::scenario::Topology):
//! - **one link**, the dumbbell: every flow and background source crosses
//!   one bottleneck queue and link;
//! - **two-way**, one link with its reverse direction (`[reverse]`): ACKs
//!   queue behind the reverse groups' data, theirs behind the forward data
//!   (below);
//! - **a pool of ports** (`[pool]`): copies of one link whose queues share
//!   one buffer under an admission algorithm, each group and background
//!   source at one port;
//! - **a chain** (`links`): links crossed in order, each group over
//!   consecutive links of it, each background source on one;
//! - **a fabric** (`[fabric]`): switches whose egress ports share one
//!   buffer per switch, and hosts; each transfer crosses the ports of its
//!   own path (up to [`crate::scenario::fabric::MAX_HOPS`]), chosen by
//!   ECMP, each background source one port.
//!
//! Each is served by one queue per link (`ports`: the forward links in
//! order, a reverse direction after them).
//!
//! Each TCP flow's data path is: sender -> access link (optional rate limit,
//! then propagation) -> the queue of the first link it crosses -> that link
//! (serialization at capacity C, propagation `delay`; on a chain, the next
//! link's queue and link in turn) -> optional Bernoulli loss -> receiver.
//! ACKs return over an uncongested path. The one-way access delay is
//! `(rtt - 2 * path delay) / 2` each way, so the round-trip propagation
//! delay equals the flow's configured RTT. Poisson background packets join
//! their link's queue directly and leave into a sink after their
//! serialization. With two-way traffic (`reverse`) the ACKs cross a
//! reverse link with its own queue (below). "The bottleneck" below is the
//! link a packet is queued for.
//!
//! Pending events stay O(flows), not O(packets in flight)
//! (`ARCHITECTURE.md` at the repository root gives the design): every FIFO
//! delay line ([`Pipe`]) keeps one event for its head, the bottleneck one
//! for the packet in service, and timers are checked lazily (a deadline read
//! when its event fires, not an event cancelled and pushed again on every
//! ACK). Two delay lines per flow are folded into clocks instead:
//!
//! **The receiver runs behind the bottleneck** by its return delay: the
//! link's propagation, the return path's, and the sender's lag (below). A
//! segment whose serialization ends at `t` waits in the flow's return pipe
//! until `t` plus that delay, when the receiver takes it, and the ACK it
//! sends reaches the sender at once. Past the bottleneck nothing is shared
//! and the receiver's only output is its ACKs, so the sender sees every ACK
//! at the same instant as over separate delay lines (the delayed-ACK timer
//! runs on the receiver's clock: its ACK arrives at the same time too). The
//! return pipe holds 16-byte segments (`Sent`), not ACKs with their SACK
//! blocks, and the receiver's state is read in the same event as the
//! sender's. What is counted at the end of a serialization stays there:
//! `packets_delivered`, a random loss, and goodput
//! (`Collector::delivered_new` takes the instant); at the run's end the
//! receivers take what is still on its way (`rcv_nxt`, goodput).
//!
//! **A delayed-ACK receiver looks ahead.** It answers one segment in two,
//! and an event for a segment it only holds would be an event more per two
//! packets. So after taking the segments due, a receiver takes the next
//! segment at once if it would only hold its ACK ([`Receiver::holds_ack`]),
//! its goodput still credited at its own instant and its delayed-ACK timer
//! started from it. Nothing reads the receiver in between, unless its
//! delayed-ACK timer fires first: then the segment waits for its own event.
//! The collector counts it at its own time: it crossed the bottleneck before
//! the event that takes it early, so if that event comes before the
//! warm-up's end or a boundary of the window's halves or batches, so did its crossing.
//!
//! **The sender runs behind the bottleneck** by its one-way access delay
//! `d`: what it does at engine time `t` is what it does at `t - d` on the
//! path. Its segments join the bottleneck queue as they leave it (at `t`,
//! the instant they would reach the queue after `d` of propagation), and
//! its ACKs take the whole round trip back (`rtt`: the link's propagation,
//! the return path's and `d`). A sender reacts only to its ACKs and its own
//! timers, both seen `d` late, so the queue sees each segment at the same
//! instant as over an access delay line. The access pipe holds only what
//! waits beyond propagation: a send-time jitter or an access link's
//! serialization. Hence:
//! - arrivals of different flows at the same picosecond (frequent with
//!   equal RTTs, the packet times being a lattice) are taken in the order
//!   of the events that sent the packets (over access delay lines, the
//!   order of the lines' events: as arbitrary a tie order, but not the same
//!   one); an arrival at the instant a serialization ends comes after it,
//!   as over any delay line (`engine::queue`: a link's departure first);
//! - what is read from a sender at a time `t` is its state at `t - d`: a
//!   time-series sample of its window, the active and long-flow counts, and
//!   at the end of a run its counters (`packets_sent`, timeouts): the last
//!   `d` of each sender is not simulated, so what it would have sent then is
//!   neither sent nor in flight. A transfer's arrival and end in the flows
//!   table are its sender's (engine time minus `d`), so completion times are
//!   exact; a transfer arriving within `d` of the run's end never starts
//!   (it has no row and does not count in `flows_arrived`);
//! - a closed-loop user's sender keeps the delay line and does not lag: the
//!   user thinks from the end its sender sees, and its next transfer may
//!   start sooner than the last one's lag;
//! - an open-loop group's arrival cap (`max_active`) counts a transfer until
//!   its end reaches the bottleneck's clock, one access delay after its
//!   sender's: it refuses the same arrivals unless it binds (an overload),
//!   then on a count that late.
//!
//! **Two-way traffic** (`reverse`) unfolds the return path: ACKs become
//! packets ([`crate::net::ACK`]) of the other direction's queue (the
//! reverse link's for the forward flows, the forward link's for the
//! reverse groups, whose data crosses the reverse link), their content in
//! the engine's store (`TwoWay`). The receiver then runs one link delay
//! behind the end of a segment's serialization (`return_delay` is the
//! link's delay), and a serialized ACK waits in its flow's ACK line for the
//! link's delay, the access delay and the sender's lag before the sender
//! takes it (`Flow::ack_delay`): over an idle reverse link every ACK
//! reaches its sender one ACK serialization later than over the folded
//! path (the core's tests check the flows' counters are then the same).
//! The look-ahead above stays: a segment whose ACK the receiver only holds
//! sends nothing.
//!
//! Flows come and go (`traffic`): persistent flows hold slots
//! `0..P` of the flow table for the whole run; finite transfers (`count`
//! groups with a `size`, open-loop arrivals, closed-loop users) take a slot
//! when they arrive and give it back to a free list once their transfer is
//! over *and* the slot is quiet: no packet of it in the access pipe, the
//! bottleneck queue or in service (`Flow::in_net`, its ACK packets
//! included), no segment on the return path, no ACK on its ACK line and no
//! delayed-ACK timer pending. A stale retransmission-timer event
//! may still fire for a reused slot; the lazy check (`rto_event_at`) ignores
//! it. So memory stays O(peak active flows) and pending events
//! O(active flows + groups + idle users): one arrival event per open-loop
//! group, one wake-up per thinking user. Quiet slots are collected when the
//! transfer completes and at every `output.interval` sample.

pub(crate) mod collect;
mod ports;
pub mod trace;

use std::collections::BTreeMap;

use rand::RngExt;
use rand_distr::{Distribution, Exp};

use crate::engine::Progress;
use crate::engine::queue::EventQueue;
use crate::engine::rng::{Rng, Stream, stream};
use crate::net::pipe::Pipe;
use crate::net::{
    ACK, Ack, BACKGROUND, CE, CWR, ECT, HANDSHAKE_ACK_SEQ, Packet, SYN_SEQ, is_data, wire_bytes,
};
use crate::output::RunOutput;
use crate::queue::Queued;
use crate::scenario::fabric::{Fabric, MAX_HOPS, Route, transfer_hash};
use crate::scenario::{Scenario, ScenarioError};
use crate::stats::histogram::DelayHistogram;
use crate::tcp::cc::{AnyCc, Mirror};
use crate::tcp::receiver::{AckAction, Receiver};
use crate::tcp::rtt::MAX_RTO;
use crate::tcp::sender::{Sender, SenderConfig};
use crate::tcp::stack::{CongControl, ControlEct, StackDefaults};
use crate::traffic::{GroupTraffic, Kind};
use crate::units::{BitsPerSec, SimTime};
use collect::Collector;
use ports::Ports;
use trace::Trace;

/// Call the progress hook every this many events.
const PROGRESS_EVERY: u64 = 1 << 16;

/// Event-queue slot of port `k`'s "transmission done" event: `k` (the
/// dumbbell's one bottleneck is port 0).
const fn slot_tx_done(k: u32) -> usize {
    k as usize
}

#[derive(Clone, Copy, Debug)]
enum Ev {
    /// Flow (slot) begins: persistent or `count` flow at its start time.
    Start(u32),
    /// Flow `f`'s SYN timer may have expired (checked lazily): resend the SYN.
    SynTimer(u32),
    /// Next Poisson arrival of open-loop group `g`.
    Arrival(u32),
    /// Closed-loop user `u` ends its think time.
    Wake(u32),
    /// Head packet of flow `f`'s access pipe reaches the bottleneck queue.
    AccessHead(u32),
    /// Port `k` (the bottleneck: 0) finished serializing its packet in service.
    TxDone(u32),
    /// The head packet of link `k`'s forward line reaches link `k + 1` (a chain).
    Forward(u32),
    /// Head segment of flow `f`'s return path reaches its receiver.
    Receive(u32),
    /// Head ACK of flow `f`'s ACK line reaches its sender (two-way traffic).
    AckHead(u32),
    /// Flow `f`'s retransmission timer may have expired (checked lazily).
    Rto(u32),
    /// Flow `f`'s pacing timer may have expired (paced senders only, checked lazily).
    Pace(u32),
    /// Flow `f`'s delayed-ACK timer.
    DelAck(u32),
    /// Next packet of Poisson background source `i`.
    Background(u32),
    /// Time-series sample (every `output.interval`).
    Sample,
    /// Statistics start.
    WarmupEnd,
    /// A boundary inside the statistics window: its middle
    /// (`output.halves`) or a batch's end (`output.stop`).
    Boundary,
}

/// Per-flow state on the dumbbell.
///
/// Laid out in declaration order (`repr(C)`), aligned to a cache line: with
/// thousands of flows each event finds its flow's state cold in the cache,
/// so what the access-head, delivery and receive events read (pipe heads,
/// `in_net`, the return path and the receiver) comes first, in the first
/// three lines, then the transmit path and the sender, then the rarely read
/// rest.
#[repr(C, align(64))]
struct Flow {
    /// Segments on the access path (their flow and size are the flow's own).
    access: Pipe<Sent>,
    /// Segments on their way to the receiver, which runs `return_delay`
    /// behind (see the module doc).
    rcv: Pipe<Sent>,
    /// From the end of a segment's serialization at the bottleneck to its
    /// ACK's arrival at the sender, the receiver's lag: the link's and the
    /// return path's propagation, and the sender's lag (see the module doc).
    return_delay: SimTime,
    loss: f64,
    mss: u32,
    /// The ECN bits of the flow's packets without data (SYN, the
    /// handshake's ACK, pure ACKs of a two-way run): [`ECT`] under
    /// `control_ect = "cc"` for a controller that needs ECN, else 0.
    control_ecn: u8,
    /// Its group's traffic class: the queue of a port of several its
    /// packets join (in the padding after `control_ecn`).
    class: u8,
    /// Packets at the bottleneck (queue, service): counted here, in
    /// the flow's own state that the access-head and delivery events read
    /// anyway, to keep those events from touching another cache line.
    in_net: u32,
    /// When the pending delayed-ACK timer fires (`SimTime::MAX`: none).
    delack_at: SimTime,
    /// Transfer in progress (arrival to last ACK); persistent flows: from start.
    active: bool,
    /// Finite transfer (`traffic::Kind` finite, open, closed).
    finite: bool,
    /// Transfer over, slot not yet quiet.
    zombie: bool,
    /// Left slow start (ssthresh finite).
    long: bool,
    /// The queue its data joins first (0: the bottleneck; a pool's port;
    /// a chain's first link it crosses), read with every segment sent, and
    /// the one it leaves last (on a chain, its last link): here they fill
    /// the padding before `receiver`.
    port: u16,
    exit: u16,
    receiver: Receiver,
    /// Propagation left on the access path: 0 when the sender lags, else
    /// the one-way access delay.
    access_delay: SimTime,
    /// How far the sender runs behind the bottleneck's clock: the one-way
    /// access delay, or 0 (see the module doc and [`Flow::new`]).
    lag: SimTime,
    access_free_at: SimTime,
    rto_event_at: SimTime,
    pace_event_at: SimTime,
    jitter: SimTime,
    access_rate: Option<BitsPerSec>,
    sender: Sender,
    access_buffer: u32,
    group: u32,
    /// Closed-loop user owning the transfer ([`NO_USER`]: none).
    user: u32,
    /// ABM's first-RTT priority (`unscheduled`,
    /// [`Topology::first_rtt_bytes`](crate::scenario::Topology::first_rtt_bytes)):
    /// the bytes the transfer may still send before its packets stop
    /// carrying the tag, its extent less every data transmission so far
    /// (retransmissions too); 0 once spent, or without the priority. Each
    /// transfer takes a new `Flow`, so each starts with the whole extent.
    /// (In the padding after `user`.)
    first_rtt_left: u32,
    rtt: SimTime,
    loss_rng: Rng,
    jitter_rng: Rng,
    /// When the last SYN left (`SimTime::MAX`: connected, or no handshake).
    syn_sent: SimTime,
    /// When the first SYN left.
    syn_first: SimTime,
    /// When the pending SYN timer fires (`SimTime::MAX`: none).
    syn_timer: SimTime,
    /// SYNs sent so far.
    syns: u32,
    /// A queue dropped one of its SYNs.
    syn_dropped: bool,
    /// Segments the receiver holds above a hole that were credited as
    /// goodput when they crossed the bottleneck ([`Flow::take`]): segment
    /// number to (end of serialization, bits). Entries leave as `rcv_nxt`
    /// passes them; what is left at the run's end was never delivered in
    /// order and is taken back ([`Collector::undelivered`]).
    held: BTreeMap<u64, (SimTime, f64)>,
    /// Marks of the collector (halves, batches) the receiver has passed,
    /// its `held` segments taken back from each ([`Collector::unmark`]).
    settled: u32,
    /// In a fabric: the ports its data crosses, `port` first and `exit`
    /// last (read only when a packet goes on to the next link).
    hops: [u16; MAX_HOPS],
}

const NO_USER: u32 = u32::MAX;

/// A segment on its flow's access path, packed in one word: the segment
/// number shifted left by [`Sent::ECN_BITS`], the ECN bits below (the flow
/// and the size are the flow's own). A pipe entry is then 16 bytes with its
/// time, not 24 with a [`Packet`]: with thousands of flows the per-flow pipes
/// are cold in the cache, and their reads and writes are the engine's main
/// source of cache misses. Segment numbers stay far below 2^61 (a flow
/// would need decades of simulated time at 10 Gbps).
///
/// On the access path the [`CE`] bit carries the first-RTT tag instead
/// ([`Sent::FIRST_RTT`]): a sender never sets CE (a queue does, after the
/// access path), and [`Sent::packet`] moves it to the packet's own bit
/// ([`Packet::with_unscheduled`]). On the return path it is CE.
#[derive(Clone, Copy, Debug)]
struct Sent(u64);

impl Sent {
    /// Bits of the ECN field ([`ECT`], [`CE`], [`CWR`]).
    const ECN_BITS: u32 = 3;

    /// On the access path: the segment is a first-RTT packet (ABM's
    /// `unscheduled`), in the ECN field's CE bit.
    const FIRST_RTT: u8 = CE;

    fn new(seq: u64, ecn: u8) -> Sent {
        debug_assert!(seq < 1 << (64 - Self::ECN_BITS) && ecn < 1 << Self::ECN_BITS);
        Sent(seq << Self::ECN_BITS | ecn as u64)
    }

    fn seq(self) -> u64 {
        self.0 >> Self::ECN_BITS
    }

    fn ecn(self) -> u8 {
        (self.0 & ((1 << Self::ECN_BITS) - 1)) as u8
    }

    /// The packet of flow `f` (data segments of `mss` bytes; a SYN and
    /// the handshake's ACK of theirs, [`wire_bytes`]) this entry of the
    /// access path stands for, its first-RTT tag moved to its own bit.
    #[inline]
    fn packet(self, f: u32, mss: u32) -> Packet {
        let (seq, ecn) = (self.seq(), self.ecn());
        Packet::new(f, wire_bytes(seq, mss), seq, ecn & !Self::FIRST_RTT)
            .with_unscheduled(ecn & Self::FIRST_RTT != 0)
    }

    /// [`Sent::packet`] of an entry without the first-RTT tag (a flow
    /// sending none), its ECN bits as they are.
    #[inline]
    fn untagged_packet(self, f: u32, mss: u32) -> Packet {
        debug_assert_eq!(self.ecn() & Self::FIRST_RTT, 0);
        Packet::new(f, wire_bytes(self.seq(), mss), self.seq(), self.ecn())
    }
}

impl Flow {
    /// A flow of group `grp` with round-trip propagation `rtt`, sending
    /// `limit` segments; its sender lags (see the module doc) if `lagging`
    /// and it is not a closed-loop user's.
    fn new(
        s: &Scenario,
        g: u32,
        rtt: SimTime,
        limit: u64,
        loss_stream: u32,
        lagging: bool,
        route: Option<&Route>,
    ) -> Flow {
        let grp = &s.flows[g as usize];
        // In a fabric the transfer's route, else its group's links.
        let (path_delay, before_last) = match route {
            Some(r) => (r.delay, r.before_last),
            None => (grp.path_delay, grp.delay_before_last),
        };
        let access = access_delay(rtt, path_delay);
        // A closed-loop user thinks from the end its sender sees: that
        // sender keeps the access delay line.
        let lag = if lagging && grp.kind != Kind::Closed {
            access
        } else {
            SimTime::ZERO
        };
        let cfg = SenderConfig {
            rwnd: grp.rwnd_pkts,
            sack: grp.sack,
            limit,
            ecn: grp.ecn,
            mss_bytes: grp.mss_bytes,
            rules: StackDefaults {
                // ns-3's socket runs its own TcpBbr so; the draft's BBR
                // keeps Linux's (`CongControl::Ns3`), with the ns3
                // profile's PRR there (`CongControl::Ns3Prr`).
                cong_control: match (grp.cc.mirror(), grp.rules.cong_control) {
                    (Mirror::Ns3_37, c) => c,
                    (Mirror::Spec | Mirror::Linux, CongControl::Ns3) => CongControl::Ns3Prr,
                    (Mirror::Spec | Mirror::Linux, _) => CongControl::Rfc,
                },
                ..grp.rules
            },
        };
        Flow {
            sender: Sender::new(cfg, AnyCc::new(&grp.cc)),
            receiver: Receiver::new(grp.sack, grp.rules.delayed_ack)
                .ecn_per_packet(grp.cc.ecn_per_packet())
                .ce_ack(grp.rules.ce_ack)
                .delayed_ack_timing(grp.rules.quick_acks, grp.rules.delack_timeout)
                .push_at(if grp.rules.push_ack { limit } else { u64::MAX }),
            mss: grp.mss_bytes,
            class: grp.class,
            control_ecn: if grp.rules.control_ect == ControlEct::Cc && grp.cc.ecn_per_packet() {
                ECT
            } else {
                0
            },
            access_delay: access - lag,
            // From the end of its serialization on the last link: that
            // link's delay, then back over the whole path and the access;
            // with two-way traffic its ACKs queue, and it is the link's
            // delay alone (the module doc).
            return_delay: match s.topology.reverse() {
                Some(_) => s.link().delay,
                None => rtt - access - before_last + lag,
            },
            lag,
            access_rate: grp.access_rate_bps.map(BitsPerSec),
            access_free_at: SimTime::ZERO,
            access_buffer: grp.access_buffer_pkts,
            access: Pipe::default(),
            rcv: Pipe::default(),
            rto_event_at: SimTime::MAX,
            pace_event_at: SimTime::MAX,
            delack_at: SimTime::MAX,
            in_net: 0,
            loss: grp.loss,
            loss_rng: stream(s.seed, Stream::Loss(loss_stream)),
            jitter: grp.jitter,
            jitter_rng: stream(s.seed, Stream::Jitter(loss_stream)),
            group: g,
            // Validated: at most 1 GB.
            first_rtt_left: s.topology.first_rtt_bytes() as u32,
            port: match (route, grp.reverse) {
                (Some(r), _) => r.ports[0],
                (None, true) => reverse_port(s),
                (None, false) => grp.links.first().map_or(grp.port, |&l| l) as u16,
            },
            exit: match (route, grp.reverse) {
                (Some(r), _) => r.ports[r.len as usize - 1],
                (None, true) => reverse_port(s),
                (None, false) => grp.links.last().map_or(grp.port, |&l| l) as u16,
            },
            hops: route.map_or([0; MAX_HOPS], |r| r.ports),
            rtt,
            active: false,
            finite: limit != u64::MAX,
            zombie: false,
            user: NO_USER,
            long: false,
            syn_sent: SimTime::MAX,
            syn_first: SimTime::MAX,
            syn_timer: SimTime::MAX,
            syns: 0,
            syn_dropped: false,
            held: BTreeMap::new(),
            settled: 0,
        }
    }

    /// ABM's first-RTT tag (`unscheduled`) of a packet the flow sends
    /// ([`Sent::FIRST_RTT`], or 0), as the authors' sender sets it: on
    /// every packet sent while the transfer's data sent so far is below
    /// the extent (a SYN too); each data transmission (`data`), a
    /// retransmission too, spends its bytes.
    #[inline]
    fn first_rtt_tag(&mut self, data: bool) -> u8 {
        if self.first_rtt_left == 0 {
            return 0;
        }
        if data {
            self.first_rtt_left = self.first_rtt_left.saturating_sub(self.mss);
        }
        Sent::FIRST_RTT
    }

    /// In a fabric: the port after `k` on its route.
    #[inline]
    fn next_hop(&self, k: u32) -> u32 {
        let at = self.hops.iter().position(|&h| u32::from(h) == k);
        u32::from(self.hops[at.expect("a port of its route") + 1])
    }

    /// The receiver takes segment `seg` of flow `f`, whose serialization
    /// at the bottleneck ended at `tx_end` and took `tx`: new data counts
    /// as goodput at `tx_end` ([`Collector::delivered_new`]). Returns the
    /// ACK owed at once for earlier segments ([`Receiver::on_ecn`]), then
    /// whether this segment's ACK leaves now.
    fn take(
        &mut self,
        seg: Sent,
        f: u32,
        tx_end: SimTime,
        tx: SimTime,
        col: &mut Collector,
    ) -> (Option<Ack>, AckAction) {
        // The first segment that crossed after a mark: what the receiver
        // holds above a hole now is what the run cut at the mark would
        // take back at its end.
        while (self.settled as usize) < col.mark_count()
            && tx_end >= col.mark_time(self.settled as usize)
        {
            let k = self.settled as usize;
            let t = col.mark_time(k);
            for &(at, bits) in self.held.values() {
                if at < t {
                    col.unmark(k, f, bits);
                }
            }
            self.settled += 1;
        }
        let before = self.receiver.received;
        let nxt = self.receiver.rcv_nxt;
        let owed = self.receiver.on_ecn(seg.ecn());
        let action = self.receiver.on_segment(seg.seq());
        if self.receiver.received > before {
            let bits = col.delivered_new(f, tx_end, tx);
            // Held above a hole: goodput only once the hole is repaired.
            if seg.seq() >= self.receiver.rcv_nxt && bits > 0.0 {
                self.held.insert(seg.seq(), (tx_end, bits));
            }
        }
        if self.receiver.rcv_nxt > nxt && !self.held.is_empty() {
            self.held = self.held.split_off(&self.receiver.rcv_nxt);
        }
        (owed, action)
    }

    /// The receiver holds an ACK from `t` on: start the delayed-ACK timer
    /// of flow `f` unless it runs already.
    fn arm_delack(&mut self, t: SimTime, f: u32, events: &mut EventQueue<Ev>) {
        if self.delack_at == SimTime::MAX {
            self.delack_at = t + self.receiver.delack_timeout;
            events.push(self.delack_at, Ev::DelAck(f));
        }
    }

    /// With two-way traffic, from the end of an ACK's serialization on
    /// its link to the sender (engine time): the link's propagation, the
    /// access path and the sender's lag.
    fn ack_delay(&self, s: &Scenario) -> SimTime {
        let path = s.flows[self.group as usize].path_delay;
        path + access_delay(self.rtt, path) + self.lag
    }

    fn end(&self) -> collect::FlowEnd {
        collect::FlowEnd {
            rcv_nxt: self.receiver.rcv_nxt,
            mss: self.mss,
            stats: self.sender.stats,
            srtt: self.sender.srtt(),
            cwnd: self.sender.w.cwnd,
            long: self.long,
            syn_lost: self.syn_dropped && self.syn_sent != SimTime::MAX,
        }
    }
}

/// Put `item` in the slot of `items` that `free` gives back (the last one
/// freed), or in a new one at the end; returns its index.
fn place<T>(items: &mut Vec<T>, free: &mut Vec<u32>, item: T) -> u32 {
    match free.pop() {
        Some(i) => {
            items[i as usize] = item;
            i
        }
        None => {
            items.push(item);
            (items.len() - 1) as u32
        }
    }
}

/// The port of a reverse group's data, which crosses the reverse link
/// (`reverse`; resolved only with one).
fn reverse_port(s: &Scenario) -> u16 {
    let k = s.topology.reverse_port();
    k.expect("validated: reverse groups run over a reverse link") as u16
}

/// The one-way access delay of a flow of round trip `rtt` whose path
/// crosses links of one-way delay `path_delay`: what of the round trip
/// is not the links', halved.
fn access_delay(rtt: SimTime, path_delay: SimTime) -> SimTime {
    SimTime((rtt.0 - 2 * path_delay.0) / 2)
}

/// Two-way traffic (`reverse`): the ACKs that queue, and what the
/// forward senders see of them.
struct TwoWay {
    /// An ACK's size on the wire, bytes.
    ack_size: u32,
    /// The content of each ACK packet in a queue or being serialized, at
    /// the index its packet carries as `seq`; `free` holds the unused ones.
    store: Vec<Ack>,
    free: Vec<u32>,
    /// Per flow slot: ACKs past their link, on their way to the sender.
    lines: Vec<Pipe<Ack>>,
    /// ACKs a receiver just sent (reused, empty between events).
    sent: Vec<Ack>,
    /// Per flow slot: when its sender last took an ACK (`MAX`: none yet).
    last_ack: Vec<SimTime>,
    /// The forward senders' ACK inter-arrival times in the statistics
    /// window, their sum of squares (s^2), and how many were shorter than
    /// the flow's segment takes on the forward link (compressed).
    gaps: DelayHistogram,
    gaps_sq: f64,
    compressed: u64,
    /// ACKs the two links dropped in the statistics window.
    drops: u64,
}

impl TwoWay {
    /// The measures of ACK compression (Zhang, Shenker & Clark 1991; Mogul,
    /// "Observing TCP dynamics in real networks", SIGCOMM 1992: an ACK
    /// arriving closer to the last than the bottleneck spaced their
    /// segments): `ack_gap_mean_s`, `ack_gap_p50_s`, `ack_gap_cv` (their
    /// standard deviation over their mean), `ack_compression` (the share of
    /// gaps shorter than a segment's serialization on the forward link),
    /// over the forward senders' ACKs in the statistics window, and
    /// `ack_drops`.
    ///
    /// Nothing to measure (no gap: fewer than two ACKs at every sender in
    /// the window), each is 0 as the queue delays are with no packet
    /// through the queue (docs/python-api.md): no gap, none compressed, no
    /// spread. A zero mean with gaps (ACKs in the same picosecond) gives a
    /// CV of 0 too.
    fn summary(&self) -> Vec<(String, f64)> {
        let n = self.gaps.count() as f64;
        let (mean, cv, compressed) = if n > 0.0 {
            let mean = self.gaps.mean_s();
            let sd = (self.gaps_sq / n - mean * mean).max(0.0).sqrt();
            let cv = if mean > 0.0 { sd / mean } else { 0.0 };
            (mean, cv, self.compressed as f64 / n)
        } else {
            (0.0, 0.0, 0.0)
        };
        vec![
            ("ack_gap_mean_s".to_string(), mean),
            ("ack_gap_p50_s".into(), self.gaps.quantile_s(0.5)),
            ("ack_gap_cv".into(), cv),
            ("ack_compression".into(), compressed),
            ("ack_drops".into(), self.drops as f64),
        ]
    }
}

/// Flow `flow`'s receiver sends `ack`: its sender takes it at once, or
/// with two-way traffic it waits in `queued` to cross a link.
#[inline(always)]
fn answer(
    flow: &mut Flow,
    ack: Ack,
    now: SimTime,
    out: &mut Vec<u64>,
    queued: Option<&mut Vec<Ack>>,
) {
    match queued {
        None => flow.sender.on_ack(&ack, now, out),
        Some(q) => q.push(ack),
    }
}

/// A Poisson background source.
struct Bg {
    rng: Rng,
    exp: Exp<f64>,
    size: u32,
    seq: u64,
    port: u32,
    class: u8,
}

/// Refuse what the packet engine cannot simulate (beyond schema validation).
/// Every TCP variant and queue discipline of the scenario schema is
/// implemented; nothing is refused today.
pub fn check(_s: &Scenario) -> Result<(), ScenarioError> {
    Ok(())
}

/// The simulator state.
struct Sim<'s> {
    s: &'s Scenario,
    now: SimTime,
    events: EventQueue<Ev>,
    flows: Vec<Flow>,
    bgs: Vec<Bg>,
    /// The bottleneck, a pool's ports (each a copy of the link), or a
    /// chain's links.
    ports: Ports,
    col: Collector,
    /// Segments a sender just emitted, empty between events (reused).
    out: Vec<u64>,
    /// Persistent flows: slots `0..persistent`.
    persistent: usize,
    traffic: Vec<GroupTraffic>,
    group_active: Vec<u32>,
    free: Vec<u32>,
    zombies: Vec<u32>,
    user_group: Vec<u32>,
    next_id: u64,
    /// The bottleneck's packet trace (`output.trace`); `None`: not recorded.
    trace: Option<Box<Trace>>,
    /// Senders lag (the module doc); false only in the tests below.
    lagging: bool,
    /// Senders tag first-RTT packets (ABM's `unscheduled`,
    /// [`Topology::first_rtt_bytes`](crate::scenario::Topology::first_rtt_bytes)).
    first_rtt: bool,
    /// Two-way traffic (`reverse`): its port
    /// ([`Topology::reverse_port`](crate::scenario::Topology::reverse_port);
    /// `u32::MAX` without) and its ACKs.
    rev: u32,
    two_way: Option<Box<TwoWay>>,
    /// The fabric (`[fabric]`), whose transfers each take a route.
    fabric: Option<&'s Fabric>,
}

/// Salts of a transfer's hashes ([`transfer_hash`]): its hosts, its ECMP.
const HOSTS_SALT: u64 = 1;
const ECMP_SALT: u64 = 2;

/// In a fabric, the route of transfer `id` of group `g`: its hosts drawn
/// (those its group does not name) from the hash of `id`, or for an
/// incast's `k`-th transfer from that of its burst's first, `base`
/// ([`Fabric::hosts_of`]); its leaf-spine link by ECMP, a hash of `id`
/// and the run's seed.
fn fabric_route(s: &Scenario, fab: &Fabric, g: u32, id: u64, burst: (u64, u32)) -> Route {
    let grp = &s.flows[g as usize];
    let hash = |base| transfer_hash(s.seed, base, HOSTS_SALT);
    let (base, k) = burst;
    let (src, dst) = match (&grp.incast, grp.src, grp.dst) {
        (Some(q), ..) => fab.query_hosts(q.client, hash(base), k),
        // Servers drawn for a given client: a burst's.
        (None, None, Some(_)) => fab.hosts_of(grp.src, grp.dst, hash(base), k),
        (None, ..) => fab.hosts_of(grp.src, grp.dst, hash(id), 0),
    };
    fab.route(src, dst, transfer_hash(s.seed, id, ECMP_SALT))
}

/// Run the packet engine on a validated scenario (see [`check`]).
pub fn run(s: &Scenario, progress: Progress) -> RunOutput {
    run_lagging(s, progress, true)
}

/// [`run`], with senders lagging (the module doc) or not: the same packets
/// at the bottleneck at the same instants, as the tests below show.
fn run_lagging(s: &Scenario, progress: Progress, lagging: bool) -> RunOutput {
    let mut sim = Sim::new(s, lagging);
    let completed = sim.run(progress);
    let mut out = sim.finish();
    out.completed = completed;
    out
}

impl<'s> Sim<'s> {
    fn new(s: &'s Scenario, lagging: bool) -> Sim<'s> {
        let mut events = EventQueue::new();
        let mut flows = Vec::with_capacity(s.total_flows());
        let mut groups = Vec::with_capacity(s.total_flows());
        // Persistent flows first (slots 0..P, one loss stream each).
        for (g, grp) in s
            .flows
            .iter()
            .enumerate()
            .filter(|(_, grp)| grp.kind == Kind::Persistent)
        {
            for k in 0..grp.count as usize {
                let id = flows.len() as u32;
                let route = s
                    .topology
                    .fabric()
                    .map(|f| fabric_route(s, f, g as u32, u64::from(id), (u64::from(id), 0)));
                let rtt = route.map_or(grp.rtts[k], |r| r.rtt());
                let flow = Flow::new(s, g as u32, rtt, u64::MAX, id, lagging, route.as_ref());
                events.push(grp.starts[k] + flow.lag, Ev::Start(id));
                flows.push(flow);
                groups.push((g as u32, rtt));
            }
        }
        let persistent = flows.len();
        let mut bgs = Vec::new();
        for (i, b) in s.background.iter().enumerate() {
            let pps = b.rate_bps / (8.0 * b.packet_size_bytes as f64);
            let mut rng = stream(s.seed, Stream::Background(i as u32));
            let exp = Exp::new(pps).expect("validated positive rate");
            let first = SimTime::from_secs_f64(exp.sample(&mut rng));
            events.push(first, Ev::Background(i as u32));
            bgs.push(Bg {
                rng,
                exp,
                size: b.packet_size_bytes,
                seq: 0,
                port: b.links.first().map_or(b.port, |&l| l),
                class: b.class,
            });
        }
        events.push(s.output.interval, Ev::Sample);
        if s.warmup > SimTime::ZERO {
            events.push(s.warmup, Ev::WarmupEnd);
        }
        // Boundaries inside the statistics window: its batches' ends
        // (output.stop; the halves are made of batches), else its middle.
        if let Some(stop) = &s.output.stop {
            for i in 1..stop.batches {
                events.push(stop.boundary(i, s.warmup, s.duration), Ev::Boundary);
            }
        } else if s.output.halves {
            events.push(SimTime((s.warmup.0 + s.duration.0) / 2), Ev::Boundary);
        }
        let traffic: Vec<GroupTraffic> = s
            .flows
            .iter()
            .enumerate()
            .map(|(g, grp)| {
                let rtt = grp
                    .rtt_draw
                    .clone()
                    .unwrap_or(crate::traffic::RttDraw::Fixed(SimTime::ZERO));
                GroupTraffic::new(
                    s.seed,
                    g as u32,
                    grp.size.clone(),
                    rtt,
                    grp.think,
                    grp.arrival_rate_per_s
                        .map(|r| r / f64::from(grp.arrival_burst)),
                    grp.arrival_every,
                )
            })
            .collect();
        let mut sim = Sim {
            s,
            now: SimTime::ZERO,
            events,
            flows,
            bgs,
            ports: Ports::new(s),
            col: Collector::new(s, groups),
            out: Vec::with_capacity(64),
            persistent,
            traffic,
            group_active: vec![0; s.flows.len()],
            free: Vec::new(),
            zombies: Vec::new(),
            user_group: Vec::new(),
            next_id: persistent as u64,
            trace: s.output.trace.then(|| Box::new(Trace::new())),
            lagging,
            first_rtt: s.topology.first_rtt_bytes() > 0,
            rev: s.topology.reverse_port().unwrap_or(u32::MAX),
            two_way: s.topology.reverse().map(|r| {
                Box::new(TwoWay {
                    ack_size: r.ack_size_bytes,
                    store: Vec::new(),
                    free: Vec::new(),
                    lines: Vec::new(),
                    sent: Vec::new(),
                    last_ack: Vec::new(),
                    gaps: DelayHistogram::default(),
                    gaps_sq: 0.0,
                    compressed: 0,
                    drops: 0,
                })
            }),
            fabric: s.topology.fabric(),
        };
        // Finite `count` flows (sizes drawn in slot order), open-loop arrival
        // processes, closed-loop users (each starts with a think time).
        for (g, grp) in s.flows.iter().enumerate() {
            let g32 = g as u32;
            match grp.kind {
                Kind::Persistent => {}
                Kind::Finite => {
                    for k in 0..grp.count as usize {
                        let f = sim.add_transfer(g32, grp.rtts[k], NO_USER, None);
                        let at = grp.starts[k] + sim.flows[f as usize].lag;
                        sim.events.push(at, Ev::Start(f));
                    }
                }
                Kind::Open => {
                    let first = grp.begin + sim.traffic[g].gap();
                    sim.events.push(first, Ev::Arrival(g32));
                }
                Kind::Closed => {
                    for _ in 0..grp.users.unwrap_or(0) {
                        let u = sim.user_group.len() as u32;
                        sim.user_group.push(g32);
                        let at = grp.begin + sim.traffic[g].think();
                        sim.events.push(at, Ev::Wake(u));
                    }
                }
            }
        }
        sim
    }

    /// Take a slot for a new finite transfer of group `g` (not started
    /// yet); in a fabric its route sets its RTT, `burst` being an incast's
    /// first transfer's id and this one's place in the burst.
    fn add_transfer(&mut self, g: u32, rtt: SimTime, user: u32, burst: Option<(u64, u32)>) -> u32 {
        let size = self.traffic[g as usize].size();
        let id = self.next_id;
        self.next_id += 1;
        let route = self
            .fabric
            .map(|fab| fabric_route(self.s, fab, g, id, burst.unwrap_or((id, 0))));
        let rtt = route.map_or(rtt, |r| r.rtt());
        let mut flow = Flow::new(
            self.s,
            g,
            rtt,
            size,
            id as u32,
            self.lagging,
            route.as_ref(),
        );
        flow.user = user;
        let f = place(&mut self.flows, &mut self.free, flow);
        // An incast's responses carry their query: its first one's id.
        let query = self.s.flows[g as usize]
            .incast
            .and(burst)
            .map(|(base, _)| base);
        self.col.new_transfer(f, g, rtt, id, self.now, size, query);
        if let Some(t) = self
            .two_way
            .as_mut()
            .and_then(|tw| tw.last_ack.get_mut(f as usize))
        {
            *t = SimTime::MAX;
        }
        self.group_active[g as usize] += 1;
        f
    }

    /// Flow `f` begins: active now; with connection setup its SYN leaves,
    /// else its data.
    fn begin(&mut self, f: u32) {
        let now = self.now;
        let flow = &mut self.flows[f as usize];
        flow.active = true;
        self.col.flow_started(f, now, flow.lag);
        if self.s.flows[flow.group as usize].rules.handshake {
            self.send_syn(f);
        } else {
            self.pump(f);
        }
    }

    /// Flow `f` sends a SYN, the path's packet as any segment (it queues,
    /// and a full queue drops it), and arms the SYN timer: the group's
    /// `initial_rto` if set, else the profile's [`Stack::syn_timeout`],
    /// doubled for each SYN before (RFC 6298 section
    /// 5.5), at most the ceiling of RTOs ([`MAX_RTO`]).
    ///
    /// [`Stack::syn_timeout`]: crate::tcp::stack::Stack::syn_timeout
    fn send_syn(&mut self, f: u32) {
        let now = self.now;
        let flow = &mut self.flows[f as usize];
        let grp = &self.s.flows[flow.group as usize];
        let first = grp.rules.initial_rto.unwrap_or(grp.stack.syn_timeout());
        let wait = first.times(1 << flow.syns.min(16)).min(MAX_RTO);
        if flow.syns == 0 {
            flow.syn_first = now;
        }
        flow.syns += 1;
        flow.syn_sent = now;
        flow.syn_timer = now + wait;
        self.events.push(flow.syn_timer, Ev::SynTimer(f));
        self.out.push(SYN_SEQ);
        self.transmit(f);
    }

    /// Flow `f`'s SYN timer: its SYN-ACK has not come, send the SYN again
    /// (a stale event, connected or re-armed since, does nothing). Counted
    /// as a timeout of the flow.
    fn syn_timer(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        if flow.syn_sent == SimTime::MAX || flow.syn_timer != self.now {
            return;
        }
        flow.sender.stats.timeouts += 1;
        self.send_syn(f);
    }

    /// Flow `f`'s SYN-ACK arrives: the handshake's ACK leaves
    /// ([`HANDSHAKE_ACK_SEQ`]), then data. The SYN's round trip is the
    /// first RTT sample, from the last SYN (the SYN-ACK echoes that SYN's
    /// timestamp) or, as ns-3 times it, the first ([`Sender::connected`]),
    /// unless a SYN timed out and the profile says otherwise
    /// ([`Stack::after_lost_syn`]). A SYN-ACK of an earlier SYN arriving
    /// after the connection is set up does nothing.
    ///
    /// [`Stack::after_lost_syn`]: crate::tcp::stack::Stack::after_lost_syn
    fn connected(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        if flow.syn_sent == SimTime::MAX {
            return;
        }
        let stack = self.s.flows[flow.group as usize].stack;
        let lost = (flow.syns > 1).then(|| stack.after_lost_syn(flow.syns - 1));
        flow.sender
            .connected(self.now - flow.syn_sent, self.now - flow.syn_first, lost);
        flow.syn_sent = SimTime::MAX;
        flow.syn_timer = SimTime::MAX;
        self.out.push(HANDSHAKE_ACK_SEQ);
        self.transmit(f);
        self.pump(f);
        self.after_sender(f);
    }

    /// An arrival of open-loop group `g`: its `arrival_burst` transfers
    /// (one, or an incast), and the next arrival.
    fn arrival(&mut self, g: u32) {
        let gap = self.traffic[g as usize].gap();
        self.events.push(self.now + gap, Ev::Arrival(g));
        let grp = &self.s.flows[g as usize];
        let (cap, burst) = (grp.max_active.unwrap_or(u32::MAX), grp.arrival_burst);
        let base = self.next_id;
        for k in 0..burst {
            if self.group_active[g as usize] >= cap {
                self.col.refused();
                continue;
            }
            let rtt = self.traffic[g as usize].rtt();
            let f = self.add_transfer(g, rtt, NO_USER, Some((base, k)));
            let lag = self.flows[f as usize].lag;
            if lag > SimTime::ZERO {
                self.events.push(self.now + lag, Ev::Start(f));
            } else {
                self.begin(f);
            }
        }
    }

    /// Closed-loop user `u` starts its next transfer.
    fn wake(&mut self, u: u32) {
        let g = self.user_group[u as usize];
        let rtt = self.traffic[g as usize].rtt();
        let f = self.add_transfer(g, rtt, u, None);
        self.begin(f);
    }

    /// After ACKs or a timeout of flow `f`: note leaving slow start, and
    /// complete a finite transfer whose last packet is acknowledged.
    fn after_sender(&mut self, f: u32) {
        let now = self.now;
        let flow = &mut self.flows[f as usize];
        if !flow.active {
            self.try_free(f);
            return;
        }
        if !flow.long && flow.sender.w.ssthresh.is_finite() {
            flow.long = true;
            self.col.left_slow_start(f, now);
        }
        if flow.finite && flow.sender.done() {
            flow.active = false;
            flow.zombie = true;
            let (g, user, end) = (flow.group, flow.user, flow.end());
            self.col.transfer_end(f, now, flow.lag, &end, true);
            self.group_active[g as usize] -= 1;
            if user != NO_USER {
                let think = self.traffic[g as usize].think();
                self.events.push(now + think, Ev::Wake(user));
            }
            if !self.try_free(f) {
                self.zombies.push(f);
            }
        }
    }

    /// Give zombie slot `f` back to the free list if it is quiet; true when freed
    /// (or not a zombie any more).
    fn try_free(&mut self, f: u32) -> bool {
        let flow = &mut self.flows[f as usize];
        if !flow.zombie {
            return true;
        }
        let quiet = flow.access.is_empty()
            && flow.rcv.is_empty()
            && flow.delack_at == SimTime::MAX
            && flow.in_net == 0
            && self
                .two_way
                .as_ref()
                .is_none_or(|tw| tw.lines.get(f as usize).is_none_or(Pipe::is_empty));
        if quiet {
            flow.zombie = false;
            self.free.push(f);
        }
        quiet
    }

    /// Free the zombie slots that have become quiet.
    fn sweep_zombies(&mut self) {
        let mut z = std::mem::take(&mut self.zombies);
        z.retain(|&f| !self.try_free(f));
        self.zombies = z;
    }

    fn run(&mut self, progress: Progress) -> bool {
        let mut end = self.s.duration;
        let mut n: u64 = 0;
        while let Some((t, ev)) = self.events.pop() {
            if t > end {
                break;
            }
            self.now = t;
            n += 1;
            if n.is_multiple_of(PROGRESS_EVERY) && !progress(t) {
                self.col.events += n;
                return false;
            }
            match ev {
                Ev::Start(f) => self.begin(f),
                Ev::SynTimer(f) => self.syn_timer(f),
                Ev::Arrival(g) => self.arrival(g),
                Ev::Wake(u) => self.wake(u),
                Ev::AccessHead(f) if self.first_rtt => self.access_head::<true>(f),
                Ev::AccessHead(f) => self.access_head::<false>(f),
                Ev::TxDone(k) => self.tx_done(k),
                Ev::Forward(k) => self.forward(k),
                Ev::Receive(f) => self.receive(f),
                Ev::AckHead(f) => self.ack_head(f),
                Ev::Rto(f) => self.rto(f),
                Ev::Pace(f) => self.pace(f),
                Ev::DelAck(f) => self.delack(f),
                Ev::Background(i) => self.background(i),
                Ev::Sample => {
                    let cwnd = self.flows_cwnd();
                    self.col.sample(t, &mut self.ports, &cwnd);
                    self.ports.sample(t, self.s.output.interval);
                    self.events.push(t + self.s.output.interval, Ev::Sample);
                    self.sweep_zombies();
                }
                Ev::WarmupEnd => {
                    let at: Vec<u64> = self.flows.iter().map(|f| f.sender.stats.sent).collect();
                    // The ports' counters restart before the collector's
                    // first mark copies them.
                    self.ports.warmup_end(t);
                    self.col.warmup_end(t, &mut self.ports, &at);
                }
                Ev::Boundary => {
                    if self.col.boundary(t, &mut self.ports) {
                        // output.stop: the verdicts are known. The events
                        // due at this instant still run, as at `duration`.
                        end = t;
                    }
                }
            }
        }
        self.now = end;
        self.col.events += n;
        true
    }

    /// The persistent flows' congestion windows (packets) for the time
    /// series: 0 before a flow starts, as the fluid engine and ns-3's
    /// `CongestionWindow` trace report it (no connection, no window).
    fn flows_cwnd(&self) -> Vec<f64> {
        if self.s.output.cwnd {
            self.flows[..self.persistent]
                .iter()
                .map(|f| if f.active { f.sender.w.cwnd } else { 0.0 })
                .collect()
        } else {
            Vec::new()
        }
    }

    /// Let flow `f` send what its windows allow and arm its timer.
    fn pump(&mut self, f: u32) {
        self.drive(f, |flow, now, out| flow.sender.pump(now, out));
    }

    /// Run `op` on flow `f` with the (empty) segment buffer, then transmit
    /// the segments it emitted and arm the RTO event.
    #[inline]
    fn drive(&mut self, f: u32, op: impl FnOnce(&mut Flow, SimTime, &mut Vec<u64>)) {
        op(&mut self.flows[f as usize], self.now, &mut self.out);
        self.transmit(f);
    }

    /// Send the segments in [`Sim::out`] (and empty it): each joins the
    /// bottleneck queue now, or waits in flow `f`'s access pipe when it
    /// reaches the queue later (send-time jitter, access serialization, a
    /// sender that does not lag; see the module doc). Arm the RTO event.
    fn transmit(&mut self, f: u32) {
        let flow = &self.flows[f as usize];
        let ect = if flow.sender.ecn_capable() { ECT } else { 0 };
        let tagging = flow.first_rtt_left > 0;
        // Taken out of `self` for the loop: a segment that joins the
        // bottleneck queue at once needs `self` whole.
        let out = std::mem::take(&mut self.out);
        // ABM's first-RTT tag (`unscheduled`): a send loop of its own, out
        // of line, so that the one without it carries no tag code (the
        // single link's packet rate; `make bench`).
        if tagging {
            self.send_first_rtt(f, &out, ect);
        } else {
            self.send::<false>(f, &out, ect);
        }
        self.col.sent += out.len() as u64;
        self.out = out;
        self.out.clear();
        let flow = &mut self.flows[f as usize];
        let deadline = flow.sender.deadline();
        if deadline < flow.rto_event_at {
            flow.rto_event_at = deadline;
            self.events.push(deadline, Ev::Rto(f));
        }
        let pace = flow.sender.pace_deadline();
        if pace < flow.pace_event_at {
            flow.pace_event_at = pace;
            self.events.push(pace, Ev::Pace(f));
        }
    }

    /// [`Sim::send`] with the first-RTT tag, out of line: the single
    /// link's send path stays as it was.
    #[cold]
    #[inline(never)]
    fn send_first_rtt(&mut self, f: u32, out: &[u64], ect: u8) {
        self.send::<true>(f, out, ect);
    }

    /// [`Sim::transmit`]'s loop over the segments `out` of flow `f`, data
    /// ECN bits `ect`; `TAG`: the flow has first-RTT bytes left
    /// ([`Flow::first_rtt_tag`]).
    #[inline(always)]
    fn send<const TAG: bool>(&mut self, f: u32, out: &[u64], ect: u8) {
        let now = self.now;
        for &seq in out.iter() {
            let flow = &mut self.flows[f as usize];
            let data = is_data(seq);
            // A SYN and the handshake's ACK: ECT by `control_ect` (RFC
            // 3168 sections 6.1.1 and 6.1.4: off; Linux and ns-3 with
            // DCTCP: on).
            let first = if TAG { flow.first_rtt_tag(data) } else { 0 };
            let pkt = if !data {
                Sent::new(seq, flow.control_ecn | first)
            } else {
                let cwr = if flow.sender.take_cwr() { CWR } else { 0 };
                Sent::new(seq, ect | cwr | first)
            };
            // Send-time jitter (ns-2's overhead_), drawn only when configured.
            let send = if flow.jitter > SimTime::ZERO {
                now + SimTime(flow.jitter_rng.random_range(0..=flow.jitter.0))
            } else {
                now
            };
            let depart = match flow.access_rate {
                Some(rate) => {
                    // Packets waiting at the access link (the one being
                    // serialized excluded): its backlog over one packet's time.
                    let tx = rate.tx_time(flow.mss);
                    let backlog = flow.access_free_at.saturating_sub(now);
                    if backlog.0.div_ceil(tx.0.max(1)) > flow.access_buffer as u64 {
                        self.col.access_drop(f);
                        continue;
                    }
                    let start = flow.access_free_at.max(send);
                    flow.access_free_at = start
                        + if data {
                            tx
                        } else {
                            rate.tx_time(wire_bytes(seq, flow.mss))
                        };
                    flow.access_free_at
                }
                None => {
                    // No serialization: packets leave in order, each at its
                    // (jittered) send time.
                    flow.access_free_at = flow.access_free_at.max(send);
                    flow.access_free_at
                }
            };
            let at = depart + flow.access_delay;
            // At the queue now, and nothing of the flow's ahead of it.
            if at == now && flow.access.is_empty() {
                flow.in_net += 1;
                let p = if TAG {
                    pkt.packet(f, flow.mss)
                } else {
                    pkt.untagged_packet(f, flow.mss)
                };
                let p = p.with_class(flow.class);
                let port = flow.port;
                self.arrive(p, u32::from(port));
                continue;
            }
            if flow.access.push(at, pkt) {
                self.events.push(at, Ev::AccessHead(f));
            }
        }
    }

    /// Flow `f`'s segments whose time on the access path is over join
    /// their first queue. `TAG`: the run's senders tag first-RTT packets
    /// ([`Sim::first_rtt`]), whose tag moves from the entry to the packet
    /// ([`Sent::packet`]); without, the entry's bits are the packet's as
    /// they are, and the single link's path carries no tag code.
    fn access_head<const TAG: bool>(&mut self, f: u32) {
        loop {
            let flow = &mut self.flows[f as usize];
            let Some(sent) = flow.access.pop_ready(self.now) else {
                break;
            };
            flow.in_net += 1;
            let pkt = if TAG {
                sent.packet(f, flow.mss)
            } else {
                sent.untagged_packet(f, flow.mss)
            };
            let pkt = pkt.with_class(flow.class);
            let port = flow.port;
            self.arrive(pkt, u32::from(port));
        }
        if let Some(t) = self.flows[f as usize].access.head_time() {
            self.events.push(t, Ev::AccessHead(f));
        } else {
            self.try_free(f);
        }
    }

    /// The flows table's id of packet `p`'s flow (`None`: background).
    #[inline]
    fn trace_id(col: &Collector, p: &Packet) -> Option<u64> {
        (p.flow() != BACKGROUND).then(|| col.flow_id(p.flow()))
    }

    /// A packet reaches the queue of port `k` (the bottleneck: 0).
    ///
    /// Always inlined into its two callers, the send loop and the access
    /// pipe's head: every packet takes this path.
    #[inline(always)]
    fn arrive(&mut self, pkt: Packet, k: u32) {
        let now = self.now;
        if let Some(tr) = &mut self.trace {
            tr.enqueue(now, Self::trace_id(&self.col, &pkt), &pkt);
        }
        self.ports.enqueue(k, pkt, now);
        self.drain_drops(k);
        debug_assert!(
            self.trace
                .as_ref()
                .is_none_or(|t| t.waiting() == self.ports.occupancy().pkts)
        );
        if self.ports.get(k).in_service.is_none() {
            self.start_tx(k);
        }
    }

    /// Report the packets port `k`'s queue dropped (at arrival, or at the
    /// head for CoDel) to the collector.
    #[inline(always)]
    fn drain_drops(&mut self, k: u32) {
        // Usually none: no call then.
        if !self.ports.get(k).queue.drops.is_empty() {
            self.report_drops(k);
        }
    }

    #[inline(never)]
    fn report_drops(&mut self, k: u32) {
        let now = self.now;
        for (p, reason) in self.ports.get(k).queue.drops.drain(..) {
            if let Some(tr) = &mut self.trace {
                tr.dropped(now, Self::trace_id(&self.col, &p), &p, reason);
            }
            if p.flow() != BACKGROUND {
                let flow = &mut self.flows[p.flow() as usize];
                flow.in_net -= 1;
                flow.syn_dropped |= !p.is_ack() && p.seq == SYN_SEQ;
            }
            if p.is_ack() {
                let tw = self.two_way.as_mut().expect("ACK packets in a two-way run");
                tw.free.push(p.seq as u32);
                tw.drops += u64::from(now >= self.s.warmup);
            } else if k == self.rev {
                self.col.reverse_drop(p.flow());
            } else {
                self.col.queue_drop(now, p.flow());
            }
        }
    }

    /// Port `k`'s link is free: serialize the next packet of its queue.
    fn start_tx(&mut self, k: u32) {
        let now = self.now;
        let next = self.ports.get(k).queue.dequeue(now);
        self.drain_drops(k);
        if let Some(Queued { pkt: p, since }) = next {
            if let Some(tr) = &mut self.trace {
                tr.dequeue(now, Self::trace_id(&self.col, &p), &p);
                debug_assert_eq!(tr.waiting(), self.ports.occupancy().pkts);
            }
            // The bottleneck's queueing delays count every packet that
            // waited in it, a flow's those of its data: on the reverse
            // link, a reverse group's (a two-way run's).
            let waited = now - since;
            if k != self.rev {
                let flow = if p.is_ack() { BACKGROUND } else { p.flow() };
                self.col.dequeued(flow, waited);
            } else if !p.is_ack() {
                self.col.flow_waited(p.flow(), waited);
            }
            self.ports.dequeued(k, waited);
            let port = self.ports.get(k);
            let done = now + port.tx_time(p.size());
            port.tx_start = now;
            port.in_service = Some(p);
            // A slot per port pops before other events at its instant,
            // but every pop scans the slots: a fabric's many ports take
            // the wheel instead (a tie with an arrival then goes by the
            // order the events were pushed in).
            if self.fabric.is_none() {
                self.events.push_slot(slot_tx_done(k), done, Ev::TxDone(k));
            } else {
                self.events.push(done, Ev::TxDone(k));
            }
        }
    }

    fn tx_done(&mut self, k: u32) {
        let now = self.now;
        let port = &mut self.ports.get(k);
        let p = port
            .in_service
            .take()
            .expect("TxDone without a packet in service");
        port.busy += now - port.tx_start;
        self.start_tx(k);
        self.deliver(p, k);
    }

    /// A packet's serialization on link `k` ended: on a chain it goes on to
    /// the next link unless this is its flow's last; else it leaves for its
    /// receiver, which runs the return delay behind (the module doc).
    /// Background packets cross one link.
    fn deliver(&mut self, p: Packet, k: u32) {
        if p.flow() == BACKGROUND {
            self.col.delivered += 1;
            return;
        }
        if p.is_ack() {
            self.ack_sent(p);
            return;
        }
        let f = p.flow();
        let flow = &mut self.flows[f as usize];
        if u32::from(flow.exit) != k {
            let port = self.ports.get(k);
            let at = self.now + port.delay;
            if port.fwd.push(at, p) {
                self.events.push(at, Ev::Forward(k));
            }
            return;
        }
        flow.in_net -= 1;
        if flow.loss > 0.0 && flow.loss_rng.random::<f64>() < flow.loss {
            self.col.random_drop(f);
            return;
        }
        self.col.delivered += 1;
        let at = self.now + flow.return_delay;
        if flow.rcv.push(at, Sent::new(p.seq, p.ecn())) {
            self.events.push(at, Ev::Receive(f));
        }
    }

    /// The packets at the head of link `k`'s forward line reach the next
    /// link: `k + 1` on a chain, the next of its flow's route in a fabric.
    fn forward(&mut self, k: u32) {
        while let Some(p) = self.ports.get(k).fwd.pop_ready(self.now) {
            let next = match self.fabric {
                None => k + 1,
                Some(_) => self.flows[p.flow() as usize].next_hop(k),
            };
            self.arrive(p, next);
        }
        if let Some(t) = self.ports.get(k).fwd.head_time() {
            self.events.push(t, Ev::Forward(k));
        }
    }

    /// The head segment of flow `f`'s return path reaches its receiver,
    /// `return_delay` after its serialization ended: the receiver takes the
    /// segments due now, its ACKs reach the sender at once, and the sender
    /// sends what they allow. With two-way traffic its ACKs join the queue
    /// of the other direction's link instead ([`Sim::send_acks`]).
    fn receive(&mut self, f: u32) {
        let now = self.now;
        let (mss, exit) = (self.flows[f as usize].mss, self.flows[f as usize].exit);
        let tx = self.ports.get(u32::from(exit)).tx_time(mss);
        let Sim {
            flows,
            col,
            events,
            out,
            two_way,
            ..
        } = self;
        let mut queued = two_way.as_deref_mut().map(|tw| &mut tw.sent);
        let flow = &mut flows[f as usize];
        let tx_end = now - flow.return_delay;
        let mut acked = false;
        let mut syn_ack = false;
        while let Some(seg) = flow.rcv.pop_ready(now) {
            if seg.seq() == SYN_SEQ {
                // The receiver answers a SYN with a SYN-ACK: at the sender
                // now, or with two-way traffic across the other direction's
                // queue, an ACK packet whose `ack` is SYN_SEQ.
                match queued.as_deref_mut() {
                    Some(q) => {
                        q.push(Ack {
                            ack: SYN_SEQ,
                            ..Ack::default()
                        });
                        acked = true;
                    }
                    None => syn_ack = true,
                }
                continue;
            }
            if seg.seq() == HANDSHAKE_ACK_SEQ {
                // The handshake's ACK: the receiver's connection is set
                // up, and nothing answers it.
                continue;
            }
            let (owed, action) = flow.take(seg, f, tx_end, tx, col);
            // A per-packet (DCTCP) echo's CE state changed: the delayed ACK
            // owed for earlier segments leaves first, with the old state.
            if let Some(owed) = owed {
                answer(flow, owed, now, out, queued.as_deref_mut());
                acked = true;
            }
            match action {
                AckAction::Now => {
                    let ack = flow.receiver.ack();
                    answer(flow, ack, now, out, queued.as_deref_mut());
                    // An ACK sent stops the delayed-ACK timer: the next held
                    // segment starts a full one (Linux tcp_event_ack_sent ->
                    // inet_csk_clear_xmit_timer(ICSK_TIME_DACK); ns-3
                    // TcpSocketBase::SendEmptyPacket cancels m_delAckEvent).
                    // The timer's event, if any, is left to find itself stale.
                    flow.delack_at = SimTime::MAX;
                    acked = true;
                }
                AckAction::Delay => flow.arm_delack(now, f, events),
            }
        }
        // Look ahead (the module doc): the next segment, if the receiver
        // would only hold its ACK, is taken now instead of by an event of
        // its own. Nothing reads the receiver before that segment's time
        // but a delayed-ACK timer that fires first.
        if let Some(&(at, seg)) = flow.rcv.head()
            && is_data(seg.seq())
            && flow.receiver.holds_ack(seg.seq(), seg.ecn())
            && flow.delack_at > at
        {
            flow.rcv.pop();
            let (owed, action) = flow.take(seg, f, at - flow.return_delay, tx, col);
            debug_assert!(owed.is_none() && action == AckAction::Delay);
            flow.arm_delack(at, f, events);
        }
        // A delayed ACK leaves the sender as it was: nothing to send, its
        // timers armed already (`transmit` would push no event).
        match (acked, queued.is_some()) {
            (true, false) => {
                self.transmit(f);
                self.after_sender(f);
            }
            (true, true) => self.send_acks(f),
            (false, _) => {
                self.try_free(f);
            }
        }
        if syn_ack {
            self.connected(f);
        }
        if let Some(t) = self.flows[f as usize].rcv.head_time() {
            self.events.push(t, Ev::Receive(f));
        }
    }

    /// Flow `f`'s delayed-ACK timer (on the receiver's clock, see the
    /// module doc): an ACK still owed reaches the sender at once, or with
    /// two-way traffic joins the other direction's queue.
    fn delack(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        if flow.delack_at != self.now {
            // Stale: an ACK left since this timer started (the receive path).
            self.try_free(f);
            return;
        }
        flow.delack_at = SimTime::MAX;
        if !flow.receiver.on_delack_timer() {
            self.try_free(f);
        } else if let Some(tw) = self.two_way.as_mut() {
            tw.sent.push(flow.receiver.ack());
            self.send_acks(f);
        } else {
            self.drive(f, |flow, now, out| {
                flow.sender.on_ack(&flow.receiver.ack(), now, out);
            });
            self.after_sender(f);
        }
    }

    /// Two-way traffic: the ACKs flow `f`'s receiver just sent
    /// ([`TwoWay::sent`]) join, as packets, the queue of the link that
    /// carries them: the reverse link's for a forward flow, the forward
    /// link's for a reverse group's.
    fn send_acks(&mut self, f: u32) {
        let tw = self.two_way.as_mut().expect("a two-way run");
        let mut sent = std::mem::take(&mut tw.sent);
        let port = if u32::from(self.flows[f as usize].port) == self.rev {
            0
        } else {
            self.rev
        };
        for ack in sent.drain(..) {
            let tw = self.two_way.as_mut().expect("a two-way run");
            let i = place(&mut tw.store, &mut tw.free, ack);
            // A pure ACK (the SYN-ACK too): ECT by `control_ect`.
            let ecn = ACK | self.flows[f as usize].control_ecn;
            let pkt = Packet::new(f, tw.ack_size, u64::from(i), ecn);
            self.flows[f as usize].in_net += 1;
            self.arrive(pkt, port);
        }
        self.two_way.as_mut().expect("a two-way run").sent = sent;
    }

    /// Two-way traffic: ACK packet `p` finished its serialization and
    /// leaves its link for its sender, [`Flow::ack_delay`] away.
    fn ack_sent(&mut self, p: Packet) {
        let f = p.flow() as usize;
        let tw = self.two_way.as_mut().expect("a two-way run");
        let ack = tw.store[p.seq as usize];
        tw.free.push(p.seq as u32);
        if tw.lines.len() <= f {
            tw.lines.resize_with(f + 1, Pipe::default);
            tw.last_ack.resize(f + 1, SimTime::MAX);
        }
        let flow = &mut self.flows[f];
        flow.in_net -= 1;
        let at = self.now + flow.ack_delay(self.s);
        if tw.lines[f].push(at, ack) {
            self.events.push(at, Ev::AckHead(f as u32));
        }
    }

    /// Two-way traffic: the ACKs at the head of flow `f`'s ACK line reach
    /// its sender, which sends what they allow. A forward sender's ACK
    /// inter-arrival times are measured ([`TwoWay::summary`]).
    fn ack_head(&mut self, f: u32) {
        let now = self.now;
        let Sim {
            s,
            flows,
            out,
            two_way,
            ..
        } = self;
        let tw = two_way.as_deref_mut().expect("a two-way run");
        let flow = &mut flows[f as usize];
        // An ACK closer to the last than the flow's segments leave the
        // forward link is compressed.
        let measured = !s.flows[flow.group as usize].reverse && now >= s.warmup;
        let spacing = BitsPerSec(s.link().capacity_bps).tx_time(flow.mss);
        let mut syn_ack = false;
        while let Some(ack) = tw.lines[f as usize].pop_ready(now) {
            if ack.ack == SYN_SEQ {
                syn_ack = true;
                continue;
            }
            let last = std::mem::replace(&mut tw.last_ack[f as usize], now);
            if measured && last != SimTime::MAX {
                let gap = now - last;
                tw.gaps.record(gap);
                tw.gaps_sq += gap.as_secs_f64().powi(2);
                tw.compressed += u64::from(gap < spacing);
            }
            flow.sender.on_ack(&ack, now, out);
        }
        let next = tw.lines[f as usize].head_time();
        self.transmit(f);
        self.after_sender(f);
        if syn_ack {
            self.connected(f);
        }
        if let Some(t) = next {
            self.events.push(t, Ev::AckHead(f));
        }
    }

    /// Lazy retransmission timer: the event may be stale (deadline moved later).
    fn rto(&mut self, f: u32) {
        let now = self.now;
        let flow = &mut self.flows[f as usize];
        if flow.rto_event_at != now {
            return; // superseded by an earlier event
        }
        flow.rto_event_at = SimTime::MAX;
        let deadline = flow.sender.deadline();
        if deadline == SimTime::MAX {
            return;
        }
        self.drive(f, |flow, now, out| {
            if deadline <= now {
                flow.sender.on_timer(now, out);
            }
        });
        self.after_sender(f);
    }

    /// Lazy pacing timer (one pending event per paced flow at most).
    fn pace(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        if flow.pace_event_at != self.now {
            return; // superseded
        }
        flow.pace_event_at = SimTime::MAX;
        self.drive(f, |flow, now, out| flow.sender.on_pace(now, out));
        self.after_sender(f);
    }

    fn background(&mut self, i: u32) {
        let now = self.now;
        let bg = &mut self.bgs[i as usize];
        let pkt = Packet::new(BACKGROUND, bg.size, bg.seq, 0).with_class(bg.class);
        bg.seq += 1;
        let gap = SimTime::from_secs_f64(bg.exp.sample(&mut bg.rng)).max(SimTime(1));
        self.events.push(now + gap, Ev::Background(i));
        self.col.sent += 1;
        let port = bg.port;
        self.arrive(pkt, port);
    }

    fn finish(mut self) -> RunOutput {
        let now = self.now;
        // Data packets in the network (ACK packets are no packets sent).
        let acks = self
            .two_way
            .as_ref()
            .map_or(0, |tw| (tw.store.len() - tw.free.len()) as u64);
        let in_flight = self
            .flows
            .iter()
            .map(|f| f.access.len() as u64)
            .sum::<u64>()
            + self.ports.in_network()
            - acks;
        // Segments past the bottleneck that their (lagging) receivers have
        // not taken yet were delivered within the run: their goodput and
        // `rcv_nxt` count; the ACKs they would send reach no sender in it.
        for (f, flow) in self.flows.iter_mut().enumerate() {
            let tx = self.ports.get(u32::from(flow.exit)).tx_time(flow.mss);
            while let Some((at, seg)) = flow.rcv.pop() {
                flow.take(seg, f as u32, at - flow.return_delay, tx, &mut self.col);
            }
            // Goodput is the data delivered in order: what still waits
            // above a hole never reached the application.
            for (_, (at, bits)) in std::mem::take(&mut flow.held) {
                self.col
                    .undelivered(f as u32, at, bits, flow.settled as usize);
            }
        }
        for f in 0..self.flows.len() {
            let flow = &self.flows[f];
            if flow.finite && flow.active {
                self.col
                    .transfer_end(f as u32, now, flow.lag, &flow.end(), false);
            }
        }
        let per_flow: Vec<collect::FlowEnd> = self.flows[..self.persistent]
            .iter()
            .map(Flow::end)
            .collect();
        self.col.slots = self.flows.len();
        let events = self
            .trace
            .is_some()
            .then(|| trace::event_names(self.ports.reasons()));
        let mut out = self.col.finish(now, &mut self.ports, in_flight, &per_flow);
        let ports = self.ports.summary(now, self.s.warmup);
        out.summary.extend(ports);
        if let Some(tw) = &self.two_way {
            out.summary.extend(tw.summary());
        }
        for (name, col) in self.ports.timeseries() {
            out.timeseries.push(name, col);
        }
        if let Some(tr) = self.trace.take() {
            out.trace = tr.into_table();
            out.trace_events = events.unwrap_or_default();
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lagging senders put every packet in the bottleneck queue at the same
    /// picosecond as senders behind an access delay line, and a transfer's
    /// row is the same: the whole trace and the rows bit for bit, one flow
    /// at a time (packets of different flows can tie at a picosecond, and
    /// a tie's order may differ: the module doc) with SACK and delayed ACKs,
    /// behind a slower access link with send-time jitter and random loss,
    /// with a window-dependent increase, and as `count` transfers.
    #[test]
    fn lagging_senders_feed_the_queue_as_over_access_lines() {
        let groups = [
            serde_json::json!({"count": 1, "tcp": "newreno", "sack": true, "delayed_ack": true,
                               "rtt": "63.7ms"}),
            serde_json::json!({"count": 1, "tcp": "cubic", "rtt": "91.3ms", "access_rate": "4Mbps",
                               "jitter": "0.05ms", "loss": 0.002}),
            serde_json::json!({"count": 1, "tcp": "highspeed", "rtt": "171.1ms"}),
            serde_json::json!({"count": 4, "tcp": "newreno", "rtt": "37.3ms", "size": "400pkt",
                               "start": {"stagger": "3s"}}),
        ];
        for mut g in groups {
            // Its numbers are the rfc profile's: pinned.
            g["stack"] = "rfc".into();
            let v = serde_json::json!({
                "duration": "12s", "warmup": "1s", "seed": 5,
                "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "30pkt"},
                "flows": [g], "output": {"trace": true},
            });
            let s = Scenario::from_json(&v.to_string()).unwrap();
            let (lag, line) = (
                run_lagging(&s, &mut |_| true, true),
                run_lagging(&s, &mut |_| true, false),
            );
            assert!(
                lag.trace.rows() > 3_000,
                "{g}: {} trace rows",
                lag.trace.rows()
            );
            let rxt: f64 = lag.flows.get("retransmits").unwrap().iter().sum();
            assert!(rxt >= 10.0, "{g}: {rxt} retransmissions");
            assert!(lag.trace == line.trace, "{g}: the traces differ");
            if s.flows[0].kind == Kind::Finite {
                // The first starts in the warm-up: no row.
                assert_eq!(lag.flows.rows(), 3, "{g}");
                // Bit for bit (a NaN, as `query` outside an incast, is
                // not == itself).
                let bits = |t: &crate::output::Table| -> Vec<Vec<u64>> {
                    t.columns
                        .iter()
                        .map(|(_, v)| v.iter().map(|x| x.to_bits()).collect())
                        .collect()
                };
                assert!(
                    bits(&lag.flows) == bits(&line.flows),
                    "{g}: the transfers' rows differ"
                );
            }
        }
    }

    #[test]
    fn sent_gives_back_the_packet() {
        let p = Sent::new((1 << 60) + 3, ECT | CWR).packet(7, 1500);
        assert_eq!(
            (p.flow(), p.size(), p.seq, p.ecn()),
            (7, 1500, (1 << 60) + 3, ECT | CWR)
        );
        assert!(!p.is_unscheduled());
        // The first-RTT tag rides in the CE bit of the access path and
        // leaves it for the packet's own bit: the packet is not CE.
        let p = Sent::new(SYN_SEQ, ECT | CWR | Sent::FIRST_RTT).packet(7, 1500);
        assert_eq!(
            (p.size(), p.seq, p.ecn(), p.is_unscheduled()),
            (crate::net::SYN_BYTES, SYN_SEQ, ECT | CWR, true)
        );
    }

    /// ABM's first-RTT tag (`unscheduled`) is on exactly the first
    /// ceil(bytes / mss) data transmissions of a transfer, retransmissions
    /// counted, and on its SYN while they last; each transfer starts over;
    /// without the table, or under another algorithm, on none.
    #[test]
    fn the_first_rtt_tag_covers_a_transfers_first_bytes_sent() {
        let sim_of = |algorithm: &str, unscheduled: Option<serde_json::Value>| {
            let mut pool =
                serde_json::json!({"size": "100pkt", "ports": 2, "algorithm": algorithm});
            if let Some(u) = unscheduled {
                pool["unscheduled"] = u;
            }
            // Behind a 1 Gbps access link the segments wait in the access
            // pipe, where the test reads them.
            let v = serde_json::json!({
                "duration": "1s",
                "link": {"capacity": "100Mbps", "delay": "1ms"},
                "pool": pool,
                "flows": [{"count": 2, "size": "100pkt", "rtt": "10ms", "mss": "1500B",
                           "access_rate": "1Gbps"}],
            });
            Scenario::from_json(&v.to_string()).unwrap()
        };
        // The tags of flow `f`'s transmissions of `seqs`, in order.
        let sent = |sim: &mut Sim, f: u32, seqs: &[u64]| -> Vec<bool> {
            sim.out.extend_from_slice(seqs);
            sim.transmit(f);
            let flow = &mut sim.flows[f as usize];
            let mss = flow.mss;
            std::iter::from_fn(|| flow.access.pop())
                .map(|(_, e)| {
                    let p = e.packet(f, mss);
                    assert_eq!(p.ecn() & CE, 0, "not CE");
                    p.is_unscheduled()
                })
                .collect()
        };
        // 10 KB of 1500-byte segments: ceil(10000 / 1500) = 7 tagged.
        let s = sim_of("abm", Some(serde_json::json!({"bytes": "10KB"})));
        let mut sim = Sim::new(&s, true);
        assert_eq!(sent(&mut sim, 0, &[0, 1, 2, 3, 4]), [true; 5]);
        // Two retransmissions spend the last of it: 7 of 7.
        assert_eq!(sent(&mut sim, 0, &[0, 1]), [true; 2]);
        assert_eq!(sent(&mut sim, 0, &[5, 6, 7, 8, 9]), [false; 5]);
        // Another transfer: its SYN and its handshake's ACK tagged, not
        // spending the extent; then 7 data segments.
        assert_eq!(sent(&mut sim, 1, &[SYN_SEQ, HANDSHAKE_ACK_SEQ]), [true; 2]);
        let mut want = vec![true; 7];
        want.push(false);
        assert_eq!(sent(&mut sim, 1, &(0..8).collect::<Vec<_>>()), want);
        // A new transfer in flow 0's slot starts over (a new `Flow`).
        let f = sim.add_transfer(0, SimTime::from_secs_f64(0.01), NO_USER, None);
        assert_eq!(sent(&mut sim, f, &[0, 1, 2, 3, 4, 5, 6, 7]), want);
        // An extent of one segment: the first transmission only.
        let s = sim_of("abm", Some(serde_json::json!({"bytes": "1B"})));
        let mut sim = Sim::new(&s, true);
        assert_eq!(sent(&mut sim, 0, &[0, 0, 1]), [true, false, false]);
        // Off: without the table, or under another algorithm.
        for s in [
            sim_of("abm", None),
            sim_of("dt", Some(serde_json::json!({"bytes": "10KB"}))),
        ] {
            let mut sim = Sim::new(&s, true);
            assert_eq!(sent(&mut sim, 0, &[SYN_SEQ, 0, 1, 2]), [false; 4]);
        }
    }
}
