//! The network's links: a link with its buffer and queue discipline
//! ([`Link`]), the buffer shared by a pool of ports ([`Pool`]), the return
//! direction of two-way traffic ([`Reverse`]), and the resolvers that build
//! them from `link`, `links`, `[pool]` and `[reverse]` (buffer sizes and
//! BDPs, chain paths, pool ports).

use super::*;

/// Whether the drop-tail limit counts packets or bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BufferMode {
    /// The buffer holds at most `buffer_pkts` packets.
    Packets,
    /// The buffer holds at most `buffer_bytes` bytes.
    Bytes,
}

/// The bottleneck link, its buffer and its queue discipline.
#[derive(Clone, Debug, Serialize)]
pub struct Link {
    /// Capacity, bits/s.
    pub capacity_bps: f64,
    /// One-way propagation delay of the bottleneck link.
    #[serde(serialize_with = "units::ser_secs", rename = "delay_s")]
    pub delay: SimTime,
    /// Buffer in packets (in byte mode: bytes / packet_size).
    pub buffer_pkts: u64,
    /// Buffer in bytes (in packet mode: packets * packet_size).
    pub buffer_bytes: u64,
    /// Whether the limit is enforced in packets or bytes.
    pub buffer_mode: BufferMode,
    /// Reference packet size for BDP and packet counts, bytes.
    pub packet_size_bytes: u32,
    /// The RTT that `"xBDP"` buffers refer to.
    #[serde(serialize_with = "units::ser_secs", rename = "bdp_rtt_s")]
    pub bdp_rtt: SimTime,
    /// Bandwidth-delay product, packets of `packet_size_bytes`.
    pub bdp_pkts: f64,
    /// The queue discipline and its parameters, defaults filled in
    /// (normalized as `qdisc`, its name, and `qdisc_params`, durations in
    /// seconds under `_s` keys).
    #[serde(flatten, serialize_with = "crate::queue::ser_qdisc")]
    pub queue: QdiscConfig,
    /// Several queues, one per traffic class, and their scheduler
    /// (`link.queues`, `link.scheduler`; absent: the one queue above).
    #[serde(flatten)]
    pub classes: Option<crate::queue::classes::ClassSet>,
}

impl Link {
    /// What a queue discipline knows of this link.
    pub fn info(&self) -> LinkInfo {
        link_info(self.packet_size_bytes, self.buffer_mode, self.capacity_bps)
    }

    /// The buffer limit, in the buffer's unit.
    pub fn limit(&self) -> Limit {
        match self.buffer_mode {
            BufferMode::Packets => Limit::Packets(self.buffer_pkts),
            BufferMode::Bytes => Limit::Bytes(self.buffer_bytes),
        }
    }
}

/// What a queue discipline knows of a link of capacity `cap` (bits/s) whose
/// buffer counts in `mode`, with reference packets of `packet_size` bytes.
pub(super) fn link_info(packet_size: u32, mode: BufferMode, cap: f64) -> LinkInfo {
    LinkInfo {
        packet_size,
        bytes_mode: mode == BufferMode::Bytes,
        capacity_bps: cap,
    }
}

/// ABM's priority for a transfer's first-RTT ("unscheduled") packets, as
/// the authors' implementation has it (Addanki et al., "ABM", SIGCOMM
/// 2022; `inet-tub/ns3-datacenter`: the sender's `RTTBytes` and
/// `UnSchedTag` in `TcpSocketBase`, `alphaUnsched` in
/// `GenQueueDisc::ActiveBufferManagement`): a sender tags each packet it
/// sends while the bytes of data it has sent in the transfer, every
/// transmission counted (retransmissions too), are below `bytes`; ABM
/// admits a tagged packet under the threshold with `alpha` in place of
/// the pool's (its class's) factor. A burst of new transfers, which no
/// congestion signal has reached yet, may then take most of the free
/// buffer. `pool.unscheduled` and `fabric.unscheduled`; the other
/// algorithms ignore it (as they ignore `alpha`), so one table serves a
/// sweep over the algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Unscheduled {
    /// The factor of a tagged packet's threshold (> 0; default 1024, the
    /// implementation's `alphaUnsched`).
    pub alpha: f64,
    /// How many bytes of each transfer are tagged: the transmissions that
    /// start below it (> 0; default one base-RTT BDP, as the authors' run
    /// script sets `RTTBytes`: a pool's link's BDP, `link.bdp_rtt` at its
    /// capacity; a fabric's host rate over its longest path's round trip).
    pub bytes: u64,
}

/// FAB's flow-aware priority (Apostolaki, Vanbever & Ghobadi, "FAB:
/// Toward Flow-aware Buffer Sharing on Programmable Switches", 2019; as
/// the ABM authors implement it, [`shared::fab`]): each port counts each
/// flow's bytes, from 0 again after `window` of silence; a packet whose
/// flow's count, its own bytes included, is below `bytes` is admitted under
/// the dynamic threshold with `alpha`, others with their class's.
/// `pool.fab` and `fabric.fab`, read under `fab` only: the other
/// algorithms ignore the table (as they ignore `alpha` and `unscheduled`),
/// so one scenario serves a sweep over the algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Fab {
    /// The silence after which a flow's count restarts (> 0, at most 1 s;
    /// default 5 ms, the authors' `FabWindow`).
    #[serde(serialize_with = "units::ser_secs", rename = "window_s")]
    pub window: SimTime,
    /// The count below which a flow's packets have the priority (> 0B, at
    /// most 1GB; default 15 packets of the link's size, the authors'
    /// `FabThreshold`).
    pub bytes: u64,
    /// The priority's factor of the threshold (> 0; default 1024, the
    /// authors' `alphaUnsched`).
    pub alpha: f64,
}

/// A buffer shared by several egress ports, each a copy of the scenario's
/// `link` with its own flows, and admission by a buffer-management
/// algorithm ([`crate::queue::shared`], one file each): by default the
/// dynamic threshold (Choudhury & Hahne, "Dynamic queue length thresholds
/// for shared-memory packet switches", IEEE/ACM ToN 6(2), 1998, section
/// III): a packet joins port `i`'s queue `Q_i` only while `Q_i < alpha (B -
/// Q)`, `Q` the pool's occupancy and `B` its size, and if it fits in what
/// is left of the pool. At the threshold's fixed point one busy port holds
/// `alpha B / (1 + alpha)` and `n` equally busy ports `alpha B / (1 + n
/// alpha)` each; the rest is kept free for ports that become busy. The
/// queues count in the pool's unit (`mode`).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Pool {
    /// Number of egress ports (`link` is each one's copy).
    pub ports: u32,
    /// The buffer-management algorithm (`pool.algorithm`, default `dt`).
    pub algorithm: Algorithm,
    /// The threshold's factor `alpha` (> 0; `dt` and `abm` use it, the
    /// others ignore it, so that a sweep over `pool.algorithm` may keep it).
    pub alpha: f64,
    /// ABM's update interval of the congested queues' count (`abm` only).
    #[serde(
        serialize_with = "units::ser_opt_secs",
        rename = "interval_s",
        skip_serializing_if = "Option::is_none"
    )]
    pub interval: Option<SimTime>,
    /// ABM's priority for a transfer's first-RTT packets
    /// (`pool.unscheduled`, `abm` only; `None`: every packet's threshold
    /// uses `alpha`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unscheduled: Option<Unscheduled>,
    /// FAB's flow-aware priority (`pool.fab`, `fab` only: `None` under
    /// another algorithm).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fab: Option<Fab>,
    /// ABM's saturation length of a queue, the pool's unit (`abm` only).
    #[serde(skip)]
    pub sat: u64,
    /// Pool size, packets (in byte mode: bytes / `link.packet_size`).
    pub size_pkts: u64,
    /// Pool size, bytes (in packet mode: packets * `link.packet_size`).
    pub size_bytes: u64,
    /// Whether the pool and its threshold count packets or bytes.
    pub mode: BufferMode,
}

impl Pool {
    /// `(q, total, a, b)` in the pool's unit: the port's queue, the pool's
    /// occupancy, a packet of `size` bytes (1 in packets) and the pool.
    #[inline]
    pub fn amounts(&self, port: Occupancy, total: Occupancy, size: u32) -> (u64, u64, u64, u64) {
        match self.mode {
            BufferMode::Packets => (port.pkts, total.pkts, 1, self.size_pkts),
            BufferMode::Bytes => (port.bytes, total.bytes, u64::from(size), self.size_bytes),
        }
    }

    /// A queue's length in the pool's unit.
    #[inline]
    pub fn len(&self, occ: Occupancy) -> u64 {
        match self.mode {
            BufferMode::Packets => occ.pkts,
            BufferMode::Bytes => occ.bytes,
        }
    }

    /// Whether a packet of `size` bytes may join a queue holding `port`
    /// while the pool holds `total` (both before the arrival), `n` being
    /// ABM's congested queues ([`shared::abm::Congestion`]), `alpha` the
    /// queue's class's factor (Hahne & Choudhury, "Dynamic queue length
    /// thresholds for multiple loss priorities", IEEE/ACM ToN 10(3), 2002:
    /// class `c`'s threshold `alpha_c (B - Q)`; `self.alpha` with one class)
    /// and `parts` the queues the static partition splits the pool into;
    /// `priority`: the packet has its algorithm's priority, for ABM the
    /// first-RTT tag, for FAB a flow count below `fab.bytes`
    /// ([`Pool::priority_alpha`]). For `lqd`, whether it fits
    /// without pushing a packet out.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn admits(
        &self,
        port: Occupancy,
        total: Occupancy,
        size: u32,
        n: f64,
        alpha: f64,
        parts: u32,
        priority: bool,
    ) -> bool {
        let (q, total, a, b) = self.amounts(port, total, size);
        match self.algorithm {
            Algorithm::Dt => shared::dt::admits(alpha, q, total, a, b),
            Algorithm::Static => {
                let share = shared::static_partition::share(b, parts);
                shared::static_partition::admits(q, a, share)
            }
            Algorithm::Complete | Algorithm::Lqd => shared::complete::admits(total, a, b),
            // One class per port: each queue drains at its port's rate
            // (the module says why).
            Algorithm::Abm => {
                shared::abm::admits(self.priority_alpha(priority, alpha), n, q, total, a, b, 1.0)
            }
            Algorithm::Fab => {
                shared::fab::admits(self.priority_alpha(priority, alpha), q, total, a, b)
            }
        }
    }

    /// The factor a packet of a queue of class factor `alpha` meets:
    /// under ABM `unscheduled.alpha` for one tagged as a transfer's
    /// first-RTT packet (`priority`) when the pool has [`Unscheduled`]
    /// (the paper's alpha_p; `alpha` is `self.alpha` there, one queue per
    /// port being the only form ABM takes); under FAB `fab.alpha` for one
    /// whose flow's count is below `fab.bytes` (`priority`); else `alpha`.
    #[inline]
    pub fn priority_alpha(&self, priority: bool, alpha: f64) -> f64 {
        match (self.algorithm, self.unscheduled, self.fab) {
            (Algorithm::Abm, Some(u), _) if priority => u.alpha,
            (Algorithm::Fab, _, Some(f)) if priority => f.alpha,
            _ => alpha,
        }
    }

    /// The bytes of each transfer its senders tag as first-RTT packets:
    /// `unscheduled.bytes` under `abm`, else 0 (nothing tagged: no other
    /// algorithm reads the tag).
    pub fn first_rtt_bytes(&self) -> u64 {
        match (self.algorithm, self.unscheduled) {
            (Algorithm::Abm, Some(u)) => u.bytes,
            _ => 0,
        }
    }
}

/// The bottleneck's return direction (`[reverse]`, two-way traffic): a
/// link from the receivers' side back to the senders' with its own
/// capacity, buffer and discipline, and the same propagation delay and
/// packet size as `link`. The forward flows' ACKs queue there as packets
/// of `ack_size_bytes`, beside the data of the reverse flow groups, whose
/// ACKs queue on the forward link in turn (Zhang, Shenker & Clark,
/// "Observations on the dynamics of a congestion control algorithm: the
/// effects of two-way traffic", SIGCOMM 1991).
#[derive(Clone, Debug, Serialize)]
pub struct Reverse {
    /// The reverse link.
    pub link: Link,
    /// An ACK's size on the wire, bytes (every ACK the same: IP and TCP
    /// headers; SACK options are not counted).
    pub ack_size_bytes: u32,
}

/// The network the flows cross: one link (two-way when it has a reverse
/// direction), a pool of ports sharing one buffer, or a chain of links.
/// Each shape carries what it needs and nothing else, so a pool with a
/// reverse link or a chain with a pool cannot be built (`resolve` refuses
/// them in the raw scenario, naming the field). A fabric (`[fabric]`) is
/// the general shape beside them: switches grouping ports, each with its
/// own shared buffer, each transfer a path of ports.
///
/// The packet engine serves one queue per forward link, in order (its
/// ports `0..`, [`Topology::queue_links`]), and a reverse link's after
/// them ([`Topology::reverse_port`]). The normalized scenario writes it as
/// the user did: `link`, and `pool`, `links` or `reverse` beside it.
#[derive(Clone, Debug)]
pub enum Topology {
    /// One bottleneck link (`link`, or `links` of one), and its return
    /// direction when traffic runs both ways (`[reverse]`; `None`: ACKs
    /// return over an uncongested path).
    Link {
        /// The link.
        link: Link,
        /// Its return direction, two-way traffic.
        reverse: Option<Reverse>,
    },
    /// A buffer shared by `pool.ports` egress ports, each a copy of `link`
    /// (`[pool]`).
    Pool {
        /// Each port's link.
        link: Link,
        /// The shared buffer and its admission algorithm.
        pool: Pool,
    },
    /// Two or more links crossed in order (`links`), each with its own
    /// buffer and discipline.
    Chain {
        /// The links, in order.
        links: Vec<Link>,
    },
    /// Switches, each with one buffer shared by its egress ports, and
    /// hosts (`[fabric]`, [`super::fabric`]): each transfer crosses a path
    /// of its ports.
    Fabric {
        /// The switches, ports and links.
        fabric: Box<super::fabric::Fabric>,
    },
}

impl Topology {
    /// The first link: the one link, a pool's ports' link, or a chain's
    /// first (what the scenario's `link` names).
    pub fn first(&self) -> &Link {
        match self {
            Topology::Link { link, .. } | Topology::Pool { link, .. } => link,
            Topology::Chain { links } => &links[0],
            Topology::Fabric { fabric } => &fabric.links[0],
        }
    }

    /// The forward queues of the packet engine, in port order: the one
    /// link, a pool's ports (copies of its link), or a chain's links.
    pub fn queue_links(&self) -> Vec<&Link> {
        match self {
            Topology::Link { link, .. } => vec![link],
            Topology::Pool { link, pool } => vec![link; pool.ports as usize],
            Topology::Chain { links } => links.iter().collect(),
            Topology::Fabric { fabric } => fabric.links.iter().collect(),
        }
    }

    /// The links' capacities in order, bits/s: the one link's (a pool's
    /// ports share one link's), or each of a chain's.
    pub fn capacities(&self) -> Vec<f64> {
        match self {
            Topology::Link { link, .. } | Topology::Pool { link, .. } => vec![link.capacity_bps],
            Topology::Chain { links } => links.iter().map(|l| l.capacity_bps).collect(),
            Topology::Fabric { fabric } => fabric.links.iter().map(|l| l.capacity_bps).collect(),
        }
    }

    /// The fabric, if the topology is one.
    pub fn fabric(&self) -> Option<&super::fabric::Fabric> {
        match self {
            Topology::Fabric { fabric } => Some(fabric),
            _ => None,
        }
    }

    /// The shared buffer, if the topology is a pool.
    pub fn pool(&self) -> Option<&Pool> {
        match self {
            Topology::Pool { pool, .. } => Some(pool),
            _ => None,
        }
    }

    /// The bytes of each transfer its sender tags as first-RTT packets
    /// ([`Pool::first_rtt_bytes`]; 0 without a shared buffer).
    pub fn first_rtt_bytes(&self) -> u64 {
        match self {
            Topology::Pool { pool, .. } => pool.first_rtt_bytes(),
            Topology::Fabric { fabric } => fabric
                .switches
                .first()
                .map_or(0, |sw| sw.pool.first_rtt_bytes()),
            Topology::Link { .. } | Topology::Chain { .. } => 0,
        }
    }

    /// The return direction, if traffic runs both ways over one link.
    pub fn reverse(&self) -> Option<&Reverse> {
        match self {
            Topology::Link { reverse, .. } => reverse.as_ref(),
            _ => None,
        }
    }

    /// A chain's links in order (`None` for one link or a pool).
    pub fn chain(&self) -> Option<&[Link]> {
        match self {
            Topology::Chain { links } => Some(links),
            _ => None,
        }
    }

    /// Ports a flow group or background source may name: a pool's ports,
    /// else 1.
    pub fn ports(&self) -> u32 {
        self.pool().map_or(1, |p| p.ports)
    }

    /// How many forward queues the packet engine serves (the length of
    /// [`Topology::queue_links`]).
    pub fn forward_ports(&self) -> u32 {
        match self {
            Topology::Link { .. } => 1,
            Topology::Pool { pool, .. } => pool.ports,
            Topology::Chain { links } => links.len() as u32,
            Topology::Fabric { fabric } => fabric.links.len() as u32,
        }
    }

    /// The packet engine's port of the reverse link: the one after the
    /// forward queues (`None` without a reverse direction).
    pub fn reverse_port(&self) -> Option<u32> {
        self.reverse().map(|_| self.forward_ports())
    }
}

/// Most links a chain may hold.
pub const MAX_LINKS: u32 = 64;

/// What a link's table says before the flows are known: its path in the
/// scenario (`link` or `links[i]`), capacity, delay and discipline's name,
/// and the rest as written.
pub(super) struct LinkHead {
    pub(super) path: String,
    pub(super) cap: f64,
    pub(super) delay: SimTime,
    pub(super) qdisc: String,
    pub(super) raw: RawLink,
}

pub(super) fn link_head(path: String, raw: RawLink) -> Result<LinkHead, ScenarioError> {
    let cap = raw.capacity.0.0;
    check(cap > 0.0, &format!("{path}.capacity"), || {
        format!("must be > 0bps, got {cap}bps")
    })?;
    check(cap <= 1e13, &format!("{path}.capacity"), || {
        format!("{cap}bps exceeds the 10Tbps limit")
    })?;
    let qdisc = raw.qdisc.clone().unwrap_or_else(|| "droptail".into());
    check(
        QDISCS.contains(&qdisc.as_str()),
        &format!("{path}.qdisc"),
        || {
            format!(
                "unknown queue discipline {qdisc:?}: allowed are {}",
                QDISCS.join(", ")
            )
        },
    )?;
    Ok(LinkHead {
        cap,
        delay: raw.delay.0,
        qdisc,
        path,
        raw,
    })
}

/// A link with its buffer and discipline resolved: its packet size (default
/// `first_mss`, else 1500 B), its BDP over the flows' RTTs `bdp_rtts` (else
/// twice its delay), and `pool` (taken by the first link: its size in the
/// link's terms, then the resolved pool) whose size is the buffer's default.
pub(super) fn resolve_link(
    h: LinkHead,
    first_mss: Option<u64>,
    bdp_rtts: &[SimTime],
    pool: &mut Option<RawPool>,
) -> Result<(Link, Option<Pool>), ScenarioError> {
    let (path, cap, delay) = (h.path.as_str(), h.cap, h.delay);
    let packet_size = h.raw.packet_size.map(|s| s.0).or(first_mss).unwrap_or(1500);
    check(
        (64..=65_535).contains(&packet_size),
        &format!("{path}.packet_size"),
        || format!("must be between 64B and 65535B, got {packet_size}B"),
    )?;
    let bdp_rtt = match h.raw.bdp_rtt {
        Some(d) => d.0,
        None if !bdp_rtts.is_empty() => SimTime(
            (bdp_rtts.iter().map(|t| t.0 as u128).sum::<u128>() / bdp_rtts.len() as u128) as u64,
        ),
        None => delay.times(2),
    };
    let bdp_pkts = cap * bdp_rtt.as_secs_f64() / (8.0 * packet_size as f64);
    let size = |b: BufferSize, path: &str| buffer_size(b, path, cap, bdp_pkts, packet_size);
    let pool = match pool.take() {
        Some(raw) => {
            let (mode, size_pkts, size_bytes) = size(raw.size.0, "pool.size")?;
            // A first-RTT tag's default extent: the link's BDP in bytes.
            let bdp_bytes = (cap * bdp_rtt.as_secs_f64() / 8.0).round() as u64;
            Some(resolve_pool(
                raw,
                mode,
                (size_pkts, size_bytes),
                packet_size as u32,
                bdp_bytes,
            )?)
        }
        None => None,
    };
    // Without a pool the link's buffer is required; with one it is each
    // port's own limit beside the threshold, by default the pool's size.
    let (mode, buffer_pkts, buffer_bytes) = match (h.raw.buffer, &pool) {
        (Some(b), _) => size(b.0, &format!("{path}.buffer"))?,
        (None, Some(p)) => (p.mode, p.size_pkts, p.size_bytes),
        (None, None) => return Err(err(path, "missing field `buffer`")),
    };
    // Queue discipline (its defaults depend on the packet size and buffer mode).
    let info = link_info(packet_size as u32, mode, cap);
    let params = h.raw.qdisc_params.unwrap_or_default();
    let queue = QdiscConfig::from_params(&h.qdisc, &params, info).map_err(|(key, msg)| {
        if key.is_empty() {
            err(format!("{path}.qdisc"), msg)
        } else {
            err(format!("{path}.qdisc_params.{key}"), msg)
        }
    })?;
    let mut link = Link {
        capacity_bps: cap,
        delay,
        buffer_pkts,
        buffer_bytes,
        buffer_mode: mode,
        packet_size_bytes: packet_size as u32,
        bdp_rtt,
        bdp_pkts,
        queue,
        classes: None,
    };
    link.classes = classes::resolve(path, h.raw.scheduler, h.raw.queues, &link, pool.as_ref())?;
    Ok((link, pool))
}

/// The links of a chain a flow group (`several`) or a background source
/// crosses, given at `path` as consecutive indices in order, among `n`
/// links (default: all of them).
pub(super) fn resolve_links(
    given: Option<&[i64]>,
    path: &str,
    n: usize,
    several: bool,
) -> Result<Vec<u32>, ScenarioError> {
    let Some(v) = given else {
        return Ok((0..n as u32).collect());
    };
    check(!v.is_empty(), path, || {
        "the list is empty: give the links it crosses, e.g. [0, 1]".into()
    })?;
    check(several || v.len() == 1, path, || {
        format!("{v:?}: background packets cross one link of a chain, e.g. [1]")
    })?;
    for &k in v {
        check((0..n as i64).contains(&k), path, || {
            if n == 1 {
                format!("{v:?}: there is one link (0) without a chain (links = [...])")
            } else {
                format!(
                    "{v:?}: link {k} is not between 0 and {} (links has {n})",
                    n - 1
                )
            }
        })?;
    }
    check(v.windows(2).all(|w| w[1] == w[0] + 1), path, || {
        format!("{v:?}: give consecutive links in order, e.g. [1, 2, 3]")
    })?;
    Ok(v.iter().map(|&k| k as u32).collect())
}

/// A buffer `b` at `path` on a link of `cap` bits/s whose BDP is `bdp_pkts`
/// packets of `packet_size` bytes: its unit, packets and bytes.
pub(super) fn buffer_size(
    b: BufferSize,
    path: &str,
    cap: f64,
    bdp_pkts: f64,
    packet_size: u64,
) -> Result<(BufferMode, u64, u64), ScenarioError> {
    let (mode, pkts, bytes) = match b {
        BufferSize::Packets(k) => (BufferMode::Packets, k, k.saturating_mul(packet_size)),
        BufferSize::Bytes(b) => (BufferMode::Bytes, b / packet_size, b),
        // What the link sends in that time: a byte-mode buffer, as the
        // memory a vendor's figure describes.
        BufferSize::Time(t) => {
            let b = (cap * t.as_secs_f64() / 8.0).round() as u64;
            (BufferMode::Bytes, b / packet_size, b)
        }
        BufferSize::Bdp(frac) => {
            check(bdp_pkts > 0.0, path, || {
                "a BDP fraction needs a non-zero RTT: set link.bdp_rtt or add flows".into()
            })?;
            let k = (frac * bdp_pkts).round();
            check(k <= 100_000_000.0, path, || {
                format!("{frac} BDP is {k} packets, past the limit of 100,000,000")
            })?;
            let k = k as u64;
            (BufferMode::Packets, k, k * packet_size)
        }
    };
    check(pkts >= 1, path, || {
        format!("must hold at least one packet of {packet_size}B, got {bytes}B ({pkts} packets)")
    })?;
    check(pkts <= 100_000_000, path, || {
        format!("{pkts} packets exceeds the limit of 100,000,000")
    })?;
    Ok((mode, pkts, bytes))
}

/// Most ports one pool feeds (each is a server of the packet engine).
pub const MAX_PORTS: u32 = 64;

/// Most bytes of a transfer `unscheduled.bytes` may tag (1 GB: far past
/// any base-RTT BDP; the senders count it in 32 bits).
pub const MAX_UNSCHEDULED_BYTES: u64 = 1_000_000_000;

/// `pool.fab` resolved under `fab` (its defaults if absent; `None` under
/// another algorithm, which ignores it), packets of `packet_size` bytes.
fn resolve_fab(
    raw: Option<RawFab>,
    algorithm: Algorithm,
    packet_size: u32,
) -> Result<Option<Fab>, ScenarioError> {
    if algorithm != Algorithm::Fab {
        return Ok(None);
    }
    let raw = raw.unwrap_or_default();
    let window = raw.window.map_or(shared::fab::DEFAULT_WINDOW, |d| d.0);
    check(
        window > SimTime::ZERO && window <= SimTime::from_secs_f64(1.0),
        "pool.fab.window",
        || format!("must be > 0s and at most 1s, got {window}"),
    )?;
    let bytes = raw
        .bytes
        .map_or(shared::fab::DEFAULT_PKTS * u64::from(packet_size), |b| b.0);
    check(
        (1..=MAX_UNSCHEDULED_BYTES).contains(&bytes),
        "pool.fab.bytes",
        || format!("must be > 0B and at most 1GB, got {bytes}B"),
    )?;
    let alpha = check_alpha(
        raw.alpha.unwrap_or(shared::fab::DEFAULT_ALPHA),
        "pool.fab.alpha",
    )?;
    Ok(Some(Fab {
        window,
        bytes,
        alpha,
    }))
}

/// `[pool]`, its size resolved (`mode`, packets and bytes), `bdp_bytes`
/// the default extent of its first-RTT tag (`unscheduled.bytes`).
pub(super) fn resolve_pool(
    raw: RawPool,
    mode: BufferMode,
    (size_pkts, size_bytes): (u64, u64),
    packet_size: u32,
    bdp_bytes: u64,
) -> Result<Pool, ScenarioError> {
    let ports = raw.ports;
    check(
        (1..=i64::from(MAX_PORTS)).contains(&ports),
        "pool.ports",
        || format!("must be between 1 and {MAX_PORTS}, got {ports}"),
    )?;
    let algorithm = match raw.algorithm.as_deref() {
        None => Algorithm::default(),
        Some(name) => Algorithm::from_name(name).ok_or_else(|| {
            let names: Vec<&str> = Algorithm::ALL.iter().map(|a| a.name()).collect();
            err(
                "pool.algorithm",
                format!("must be one of {}, got {name:?}", names.join(", ")),
            )
        })?,
    };
    // Choudhury & Hahne's alpha: 1 is their example's and a common switch
    // default; powers of two from 1/64 to 64 are what switch chips offer.
    let alpha = check_alpha(raw.alpha.unwrap_or(1.0), "pool.alpha")?;
    let interval = match (raw.interval, algorithm) {
        (None, Algorithm::Abm) => Some(shared::abm::DEFAULT_INTERVAL),
        (Some(Dur(t)), Algorithm::Abm) => {
            check(
                t > SimTime::ZERO && t <= SimTime::from_secs_f64(1.0),
                "pool.interval",
                || format!("must be > 0s and at most 1s, got {t}"),
            )?;
            Some(t)
        }
        (Some(Dur(t)), a) => {
            return Err(err(
                "pool.interval",
                format!(
                    "{t}: only the abm algorithm has an update interval, not pool.algorithm {:?}",
                    a.name()
                ),
            ));
        }
        (None, _) => None,
    };
    let unscheduled = match raw.unscheduled {
        None => None,
        Some(u) => {
            let alpha = check_alpha(
                u.alpha.unwrap_or(shared::abm::DEFAULT_UNSCHEDULED_ALPHA),
                "pool.unscheduled.alpha",
            )?;
            let bytes = u.bytes.map_or(bdp_bytes, |b| b.0);
            check(
                (1..=MAX_UNSCHEDULED_BYTES).contains(&bytes),
                "pool.unscheduled.bytes",
                || match u.bytes {
                    Some(_) => format!("must be > 0B and at most 1GB, got {bytes}B"),
                    None => format!(
                        "its default, one BDP of the link, is {bytes}B: give bytes, \
                         more than 0B and at most 1GB"
                    ),
                },
            )?;
            Some(Unscheduled { alpha, bytes })
        }
    };
    let fab = resolve_fab(raw.fab, algorithm, packet_size)?;
    // ABM's saturation: 20 packets, in the pool's unit.
    let sat = match mode {
        BufferMode::Packets => shared::abm::SAT_PKTS,
        BufferMode::Bytes => shared::abm::SAT_PKTS * u64::from(packet_size),
    };
    Ok(Pool {
        ports: ports as u32,
        algorithm,
        alpha,
        interval,
        unscheduled,
        fab,
        sat,
        size_pkts,
        size_bytes,
        mode,
    })
}

/// The port a flow group or background source at `path` names, checked
/// against the pool's ports (0 without a pool).
pub(super) fn resolve_port(
    port: Option<i64>,
    path: &str,
    ports: u32,
) -> Result<u32, ScenarioError> {
    let Some(k) = port else { return Ok(0) };
    check((0..i64::from(ports)).contains(&k), path, || {
        if ports == 1 {
            format!("{k}: there is one port (0) without a [pool] of several")
        } else {
            format!(
                "must be between 0 and {} (pool.ports - 1), got {k}",
                ports - 1
            )
        }
    })?;
    Ok(k as u32)
}
