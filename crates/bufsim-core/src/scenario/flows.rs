//! TCP flow groups (`[[flows]]`): the resolved [`FlowGroup`] and its
//! resolvers (RTTs, access link, stack profile and loss-recovery rules,
//! start times).

use super::*;

/// A group of TCP flows with the same settings (per-flow RTTs and starts resolved).
#[derive(Clone, Debug, Serialize)]
pub struct FlowGroup {
    /// Number of flows.
    pub count: u32,
    /// Congestion-control variant and its parameters, defaults filled in
    /// (normalized as `tcp`, the variant's canonical name, and `cc`).
    #[serde(flatten, serialize_with = "crate::tcp::cc::ser_tcp_and_cc")]
    pub cc: CcConfig,
    /// Round-trip propagation delay of each flow.
    #[serde(serialize_with = "units::ser_secs_vec", rename = "rtts_s")]
    pub rtts: Vec<SimTime>,
    /// The mean of the law `rtts` are drawn from (`uniform`: (a + b) / 2; a
    /// tree: its nodes' mean), None where they are not drawn. The link's BDP
    /// uses it, so that a BDP-relative buffer is one value per scenario
    /// whatever the seed.
    #[serde(skip)]
    pub rtt_law_mean: Option<SimTime>,
    /// Full data packet size on the wire, bytes (headers are not modeled separately).
    pub mss_bytes: u32,
    /// Access link rate of each flow, bits/s (None: not limited).
    pub access_rate_bps: Option<f64>,
    /// Drop-tail buffer of each flow's access link, packets waiting (with
    /// an access rate only; default 1000, Linux's `txqueuelen`).
    pub access_buffer_pkts: u32,
    /// Each packet leaves the sender after a random delay uniform in
    /// [0, jitter] (order kept), breaking the phase effects of identical
    /// deterministic flows (ns-2's `overhead_`); 0 by default.
    #[serde(serialize_with = "units::ser_secs", rename = "jitter_s")]
    pub jitter: SimTime,
    /// Receiver window cap, packets (None: unlimited).
    pub rwnd_pkts: Option<u32>,
    /// Start time of each flow.
    #[serde(serialize_with = "units::ser_secs_vec", rename = "starts_s")]
    pub starts: Vec<SimTime>,
    /// The stack profile whose defaults filled the fields left unset
    /// (`tcp::stack`).
    pub stack: Stack,
    /// The group's stack rules: its profile's (`stack`), each field the
    /// group sets over it (`tcp::stack`), carried by value by its
    /// senders and receivers; flattened, each rule a field of the
    /// normalized group.
    #[serde(flatten)]
    pub rules: StackDefaults,
    /// Selective acknowledgments (RFC 2018 / RFC 6675 recovery).
    pub sack: bool,
    /// `hystart` and `delayed_ack` came from the default profile: the group
    /// names neither the field nor a stack. The fluid engine, which models
    /// neither, leaves such a value out where it refuses one named
    /// (`fluid::check`). Not part of the normalized scenario.
    #[serde(skip)]
    pub defaulted: Defaulted,
    /// Bernoulli loss probability of data packets on this group's path (after the bottleneck).
    pub loss: f64,
    /// ECN-capable (RFC 3168): an AQM with `ecn` marks these flows' packets
    /// instead of dropping them early, and the sender answers ECE.
    pub ecn: bool,
    /// How transfers come and go: `persistent` (`count` flows, no `size`),
    /// `finite` (`count` flows with a `size`), `open` (`arrival`), `closed`
    /// (`users`). Open and closed groups have `count = 0` and empty
    /// `rtts`/`starts`: their transfers are created during the run.
    pub kind: Kind,
    /// Transfer sizes (finite, open, closed), packets of `mss_bytes`.
    pub size: Option<SizeDist>,
    /// Mean transfer size, packets (rounded draws; see `traffic::size`).
    pub mean_size_pkts: Option<f64>,
    /// Open loop: transfers arriving per second (with a burst, the
    /// arrivals' rate times the burst).
    pub arrival_rate_per_s: Option<f64>,
    /// Open loop: transfers starting together at each arrival (an incast
    /// when above 1; absent from the normalized scenario when 1).
    #[serde(skip_serializing_if = "is_one")]
    pub arrival_burst: u32,
    /// Open loop: the period of periodic arrivals (`every`); absent for
    /// Poisson arrivals.
    #[serde(
        serialize_with = "units::ser_opt_secs",
        rename = "arrival_every_s",
        skip_serializing_if = "Option::is_none"
    )]
    pub arrival_every: Option<SimTime>,
    /// Open loop: offered load `rate * mean size * mss * 8 / capacity`.
    pub offered_load: Option<f64>,
    /// Closed loop: number of users.
    pub users: Option<u32>,
    /// Closed loop: think time between a completion and the user's next transfer.
    pub think: Option<ThinkDist>,
    /// Open loop: cap on simultaneously active transfers (arrivals beyond it are refused).
    pub max_active: Option<u32>,
    /// Open and closed loop: how each transfer's RTT is drawn.
    pub rtt_draw: Option<RttDraw>,
    /// Open and closed loop: when arrivals (or users) begin.
    #[serde(serialize_with = "units::ser_secs", rename = "begin_s")]
    pub begin: SimTime,
    /// Harmonic mean of the group's RTTs, seconds (paper 002's effective RTT).
    pub rtt_harmonic_mean_s: f64,
    /// The port of the `pool` its data leaves by (0 without a pool; absent
    /// from the normalized scenario when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub port: u32,
    /// The links of a chain (`links`) it crosses, consecutive indices, in
    /// order (empty without a chain, and then absent).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<u32>,
    /// One-way propagation over the links it crosses (`link.delay`
    /// without a chain).
    #[serde(skip)]
    pub path_delay: SimTime,
    /// One-way propagation over the links it crosses before its last.
    #[serde(skip)]
    pub delay_before_last: SimTime,
    /// A group of `reverse.flows`: its data crosses the reverse link and
    /// its ACKs the forward one (absent from the normalized scenario when
    /// false). Reverse groups follow the forward ones in `flows`.
    #[serde(skip_serializing_if = "is_false")]
    pub reverse: bool,
    /// Its traffic class: the queue of the link's `queues` its data joins
    /// (0, absent from the normalized scenario, by default).
    #[serde(skip_serializing_if = "classes::is_class0")]
    pub class: u8,
    /// In a fabric: the host its transfers leave from (`src`; `None`:
    /// drawn per transfer, absent from the normalized scenario).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub src: Option<u32>,
    /// In a fabric: the host its transfers go to (`dst`; `None`: drawn).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dst: Option<u32>,
    /// In a fabric: the incast query workload its transfers make up
    /// (`incast`; absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incast: Option<fabric::Incast>,
}

/// Default access-link buffer, packets (Linux's default `txqueuelen`).
pub const DEFAULT_ACCESS_BUFFER_PKTS: u64 = 1000;

/// Upper bound on the total number of flows (keeps memory and run time sane).
pub const MAX_FLOWS: u64 = 1_000_000;

/// The path of field `field` of flow group `i` (for errors).
pub(super) fn group_path(i: usize, field: &str) -> String {
    format!("flows[{i}].{field}")
}

/// What of the link and the run a flow group's fields are checked against.
pub(super) struct GroupContext {
    /// Bottleneck capacity (the least of the links it crosses), bits/s.
    pub(super) cap: f64,
    /// One-way delay of the links it crosses.
    pub(super) delay: SimTime,
    /// What `delay` is, for errors (`link.delay`).
    pub(super) delay_what: String,
    /// The run's duration.
    pub(super) duration: SimTime,
}

/// Resolve flow group `i`: its kind and size, variant, RTTs, access link,
/// stack, starts and traffic, drawing random RTTs and starts from `rng` (in
/// that order) and adding its flows to `total`.
pub(super) fn resolve_group(
    i: usize,
    f: RawFlows,
    at: &GroupContext,
    rng: &mut Rng,
    total: &mut u64,
) -> Result<FlowGroup, ScenarioError> {
    let p = |field: &str| group_path(i, field);
    let (cap, delay, duration) = (at.cap, at.delay, at.duration);
    // Kind of group (traffic::Kind): count / arrival / users are exclusive.
    let kind = match (&f.arrival, f.users) {
        (Some(_), Some(_)) => {
            return Err(err(
                p("users"),
                "a group is open loop (arrival) or closed loop (users), not both: split it into two [[flows]] groups",
            ));
        }
        (Some(_), None) => Kind::Open,
        (None, Some(_)) => Kind::Closed,
        (None, None) if f.size.is_some() => Kind::Finite,
        (None, None) => Kind::Persistent,
    };
    let dynamic = matches!(kind, Kind::Open | Kind::Closed);
    if dynamic {
        if let Some(c) = f.count {
            return Err(err(
                p("count"),
                format!(
                    "{c}: an open-loop (arrival) or closed-loop (users) group creates its flows during the run; remove count"
                ),
            ));
        }
        check(f.size.is_some(), &p("size"), || {
            format!(
                "missing: an {} group needs a transfer size, e.g. size = {{exponential = \"50pkt\"}}",
                if kind == Kind::Open {
                    "open-loop (arrival)"
                } else {
                    "closed-loop (users)"
                }
            )
        })?;
    }
    let count = if dynamic { 0 } else { f.count.unwrap_or(1) };
    check(dynamic || count >= 1, &p("count"), || {
        format!("must be >= 1, got {count}")
    })?;
    let users = match f.users {
        None => None,
        Some(u) => {
            check((1..=MAX_FLOWS as i64).contains(&u), &p("users"), || {
                format!("must be a whole number of users from 1 to {MAX_FLOWS}, got {u}")
            })?;
            Some(u as u32)
        }
    };
    *total += count as u64 + users.unwrap_or(0) as u64;
    check(*total <= MAX_FLOWS, &p("count"), || {
        format!("total number of flows {total} exceeds the limit of {MAX_FLOWS}")
    })?;
    let n = count as usize;
    let tcp = f.tcp.as_deref().unwrap_or("newreno");
    // The profile's tcp_params under the group's (`Stack::cc_params`).
    let stack = group_profile(&f, i)?;
    let cc = CcConfig::from_params(tcp, &stack.tcp_params(tcp, f.tcp_params.as_ref())).map_err(
        |(key, msg)| {
            if key.is_empty() {
                return err(p("tcp"), msg);
            }
            let given = f.tcp_params.as_ref().is_some_and(|m| m.contains_key(&key));
            let from = match stack.cc_params(tcp).contains_key(&key) && !given {
                true => format!(" (from stack = {:?})", stack.name()),
                false => String::new(),
            };
            err(p(&format!("tcp_params.{key}")), format!("{msg}{from}"))
        },
    )?;
    //= RFC 8257 section 3.3: a DCTCP sender's packets are ECN-capable (its
    //= reaction is to the marks): `ecn` defaults to true and false is refused.
    let ecn = match f.ecn {
        Some(false) if cc.ecn_per_packet() => {
            return Err(err(
                p("ecn"),
                format!(
                    "tcp = {:?} needs ECN (it reacts to the fraction of CE-marked packets, \
                     RFC 8257): set ecn = true or leave it out, got false",
                    cc.name()
                ),
            ));
        }
        Some(e) => e,
        None => cc.ecn_per_packet(),
    };
    let Some(rtt_spec) = f.rtt.clone() else {
        return Err(err(format!("flows[{i}]"), "missing field `rtt`"));
    };
    let (rtts, rtt_draw) = group_rtts(&rtt_spec, i, n, dynamic, (delay, &at.delay_what), rng)?;
    let mss = f.mss.map(|s| s.0).unwrap_or(1500);
    check((64..=65_535).contains(&mss), &p("mss"), || {
        format!("must be between 64B and 65535B, got {mss}B")
    })?;
    let (access, access_buffer, jitter, rwnd) = group_access(&f, i, mss)?;
    let r = group_stack(&f, i)?;
    check(r.sack || !cc.needs_sack(), &p("sack"), || {
        format!(
            "tcp = {:?} needs sack = true: its delivery-rate samples count the segments \
             each ACK delivers by SACK (without SACK they stop in every recovery), got false",
            cc.name()
        )
    })?;
    let (begin, starts) = group_starts(&f, i, n, dynamic, duration, rng)?;
    let loss = f.loss.unwrap_or(0.0);
    check((0.0..1.0).contains(&loss), &p("loss"), || {
        format!("must be a probability in [0, 1), got {loss}")
    })?;
    let t = group_traffic(&f, i, kind, mss, cap, duration)?;
    let hm = match &rtt_draw {
        Some(d) => d.harmonic_mean_s(),
        None => harmonic_mean(&rtts.iter().map(|t| t.as_secs_f64()).collect::<Vec<_>>()),
    };
    Ok(FlowGroup {
        kind,
        size: t.size,
        mean_size_pkts: t.mean_size,
        arrival_rate_per_s: t.rate,
        arrival_burst: t.burst,
        arrival_every: t.every,
        offered_load: t.load,
        users,
        think: t.think,
        max_active: t.max_active,
        rtt_draw,
        begin,
        rtt_harmonic_mean_s: hm,
        port: 0,
        links: Vec::new(),
        reverse: false,
        class: 0,
        src: None,
        dst: None,
        incast: None,
        path_delay: delay,
        delay_before_last: SimTime::ZERO,
        count: count as u32,
        cc,
        rtt_law_mean: if dynamic {
            None
        } else {
            rtt_law_mean(&rtt_spec)
        },
        rtts,
        mss_bytes: mss as u32,
        access_rate_bps: access,
        access_buffer_pkts: access_buffer as u32,
        jitter,
        rwnd_pkts: rwnd.map(|w| w as u32),
        starts,
        stack: r.stack,
        sack: r.sack,
        defaulted: r.defaulted,
        rules: r.rules,
        ecn,
        loss,
    })
}

/// The mean of the law a group's RTTs are drawn from: `uniform` on [a, b]
/// and a tree's uniformly chosen node (`traffic::tree`); None where the
/// RTTs are given rather than drawn.
pub(super) fn rtt_law_mean(spec: &RttSpec) -> Option<SimTime> {
    match spec {
        RttSpec::Uniform(a, b) => Some(SimTime(((a.0 as u128 + b.0 as u128) / 2) as u64)),
        RttSpec::Tree(t) => {
            let nodes = t.node_rtts().ok()?;
            let sum: u128 = nodes.iter().map(|r| r.0 as u128).sum();
            Some(SimTime((sum / nodes.len().max(1) as u128) as u64))
        }
        RttSpec::Fixed(_) | RttSpec::List(_) | RttSpec::Range(..) => None,
    }
}

/// A flow group's RTTs (one per flow; drawn from `rng` for a tree or a
/// uniform range), or for open and closed loop how each transfer draws its
/// RTT; every RTT must cover the bottleneck's delay both ways.
pub(super) fn group_rtts(
    spec: &RttSpec,
    i: usize,
    n: usize,
    dynamic: bool,
    (delay, delay_what): (SimTime, &str),
    rng: &mut Rng,
) -> Result<(Vec<SimTime>, Option<RttDraw>), ScenarioError> {
    let p = |field: &str| group_path(i, field);
    let rtt_spec = spec.clone();
    let rtts: Vec<SimTime> = match spec.clone() {
        _ if dynamic => Vec::new(),
        RttSpec::Tree(t) => {
            let nodes = t.node_rtts().map_err(|m| err(p("rtt"), m))?;
            (0..n)
                .map(|_| nodes[rng.random_range(0..nodes.len())])
                .collect()
        }
        RttSpec::Fixed(t) => vec![t; n],
        RttSpec::List(v) => {
            check(v.len() == n, &p("rtt"), || {
                format!(
                    "list has {} values but count is {n}: give one RTT per flow",
                    v.len()
                )
            })?;
            v
        }
        RttSpec::Range(a, b) => {
            check(a <= b, &p("rtt"), || format!("min {a} must be <= max {b}"))?;
            (0..n)
                .map(|k| {
                    if n == 1 {
                        a
                    } else {
                        SimTime(a.0 + ((b.0 - a.0) as u128 * k as u128 / (n - 1) as u128) as u64)
                    }
                })
                .collect()
        }
        RttSpec::Uniform(a, b) => {
            check(a <= b, &p("rtt"), || {
                format!("uniform bounds [{a}, {b}]: the first must be <= the second")
            })?;
            (0..n)
                .map(|_| SimTime(rng.random_range(a.0..=b.0)))
                .collect()
        }
    };
    // Open and closed loop: each transfer draws its RTT (a range is uniform here).
    let rtt_draw = if dynamic {
        Some(match rtt_spec {
            RttSpec::Fixed(t) => RttDraw::Fixed(t),
            RttSpec::List(v) => {
                check(!v.is_empty(), &p("rtt"), || {
                    "the list is empty: give at least one RTT".into()
                })?;
                RttDraw::Choice(v)
            }
            RttSpec::Range(a, b) | RttSpec::Uniform(a, b) => {
                check(a <= b, &p("rtt"), || format!("min {a} must be <= max {b}"))?;
                RttDraw::Uniform(a, b)
            }
            RttSpec::Tree(t) => RttDraw::Choice(t.node_rtts().map_err(|m| err(p("rtt"), m))?),
        })
    } else {
        None
    };
    let support: Vec<SimTime> = rtt_draw.as_ref().map(|d| d.support()).unwrap_or_default();
    for (k, &r) in rtts.iter().chain(support.iter()).enumerate() {
        check(r >= delay.times(2) && r > SimTime::ZERO, &p("rtt"), || {
            format!(
                "RTT {r} of flow {k} is shorter than twice {delay_what} ({}): the round trip includes the bottleneck both ways",
                delay.times(2)
            )
        })?;
    }
    Ok((rtts, rtt_draw))
}

/// A flow group's access link (rate, buffer in packets), send jitter and
/// receiver window (packets).
#[allow(clippy::type_complexity)]
pub(super) fn group_access(
    f: &RawFlows,
    i: usize,
    mss: u64,
) -> Result<(Option<f64>, u64, SimTime, Option<u64>), ScenarioError> {
    let p = |field: &str| group_path(i, field);
    let access = f.access_rate.map(|r| r.0.0);
    if let Some(a) = access {
        check(a > 0.0, &p("access_rate"), || {
            format!("must be > 0bps, got {a}bps")
        })?;
    }
    let access_buffer = match f.access_buffer.map(|b| b.0) {
        Some(_) if access.is_none() => {
            return Err(err(
                p("access_buffer"),
                "needs access_rate: without a rate limit the access link never queues",
            ));
        }
        None => DEFAULT_ACCESS_BUFFER_PKTS,
        Some(BufferSize::Packets(k)) => k,
        Some(BufferSize::Bytes(b)) => b / mss,
        // At the access rate (`access` is set: checked above).
        Some(BufferSize::Time(t)) => {
            let rate = access.unwrap_or(0.0);
            (rate * t.as_secs_f64() / 8.0).round() as u64 / mss
        }
        Some(BufferSize::Bdp(_)) => {
            return Err(err(
                p("access_buffer"),
                "must be in packets (\"100pkt\"), bytes (\"150KB\") or a time at the access rate (\"1ms\"), not a BDP fraction",
            ));
        }
    };
    check(
        (1..=100_000_000).contains(&access_buffer),
        &p("access_buffer"),
        || {
            format!(
                "must hold from one packet ({mss}B) to 100000000 packets, got {access_buffer} packets"
            )
        },
    )?;
    let jitter = f.jitter.map(|d| d.0).unwrap_or(SimTime::ZERO);
    check(jitter <= SimTime::from_millis(1000), &p("jitter"), || {
        format!("must be at most 1s, got {jitter}")
    })?;
    let rwnd = match f.rwnd.map(|b| b.0) {
        None => None,
        Some(BufferSize::Packets(k)) => Some(k),
        Some(BufferSize::Bytes(b)) => Some(b / mss),
        Some(BufferSize::Bdp(_) | BufferSize::Time(_)) => {
            return Err(err(
                p("rwnd"),
                "must be in packets (\"64pkt\") or bytes (\"64KB\"), not a BDP fraction or a time",
            ));
        }
    };
    if let Some(w) = rwnd {
        check((1..=u32::MAX as u64 / 2).contains(&w), &p("rwnd"), || {
            format!(
                "must be from one packet ({mss}B) to {} packets, got {w} packets",
                u32::MAX / 2
            )
        })?;
    }
    Ok((access, access_buffer, jitter, rwnd))
}

/// Which of a group's per-packet stack features came from the default
/// profile, the group naming neither the field nor a stack
/// ([`FlowGroup::defaulted`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Defaulted {
    /// `hystart` is the default profile's.
    pub hystart: bool,
    /// `delayed_ack` is the default profile's.
    pub delayed_ack: bool,
}

/// A flow group's stack profile and the rules it resolves to.
pub(super) struct Recovery {
    pub(super) stack: Stack,
    pub(super) sack: bool,
    pub(super) defaulted: Defaulted,
    pub(super) rules: StackDefaults,
}

/// The rule a flow field names (`name`), or the profile's `default` when
/// the field is unset; an unknown name is an error at `path` listing the
/// allowed ones.
pub(super) fn named_rule<T: NamedRule>(
    name: Option<&str>,
    default: T,
    path: String,
) -> Result<T, ScenarioError> {
    match name {
        None => Ok(default),
        Some(name) => T::parse(name).ok_or_else(|| {
            err(
                path,
                format!("unknown rule {name:?}; allowed: {}", T::names()),
            )
        }),
    }
}

/// A flow group's stack profile (`flows[].stack`).
pub(super) fn group_profile(f: &RawFlows, i: usize) -> Result<Stack, ScenarioError> {
    match f.stack.as_deref() {
        None => Ok(Stack::default()),
        Some(name) => Stack::parse(name).ok_or_else(|| {
            err(
                group_path(i, "stack"),
                format!(
                    "unknown stack profile {name:?}; allowed: {}",
                    Stack::ALL.map(Stack::name).join(", ")
                ),
            )
        }),
    }
}

/// A flow group's stack profile and loss-recovery settings (the profile
/// fills what the group leaves unset, `tcp::stack`).
pub(super) fn group_stack(f: &RawFlows, i: usize) -> Result<Recovery, ScenarioError> {
    let p = |field: &str| group_path(i, field);
    let stack = group_profile(f, i)?;
    let profile = stack.defaults();
    let sack = f.sack.unwrap_or(true);
    let prr_variant = named_rule(
        f.prr_variant.as_deref(),
        profile.prr_variant,
        p("prr_variant"),
    )?;
    // Without SACK only ns-3's PRR runs: TcpPrrRecovery over the pipe
    // ns-3.37's BytesInFlight() guesses from duplicate ACKs (AddRenoSack).
    let reno_prr = prr_variant == PrrVariant::Ns3;
    let prr = match f.prr {
        Some(true) if !sack && !reno_prr => {
            return Err(err(
                p("prr"),
                "true needs sack = true (PRR paces a recovery by the SACK pipe estimate, RFC 9937) \
                 or prr_variant = \"ns3\" (ns-3's PRR over the pipe it guesses from duplicate ACKs)",
            ));
        }
        Some(v) => v,
        None => profile.prr && (sack || reno_prr),
    };
    let rack = match f.recovery.as_deref() {
        None => profile.rack && sack,
        Some("rfc6675") => false,
        Some("rack") if sack => true,
        Some("rack") => {
            return Err(err(
                p("recovery"),
                "\"rack\" needs sack = true: RACK-TLP detects losses from SACKed segments (RFC 8985)",
            ));
        }
        Some(other) => {
            return Err(err(
                p("recovery"),
                format!(
                    "unknown loss recovery {other:?}; allowed: \"rfc6675\" (DupThresh, RFC 6675) or \"rack\" (RACK-TLP, RFC 8985)"
                ),
            ));
        }
    };
    let rto_ssthresh = named_rule(
        f.rto_ssthresh.as_deref(),
        profile.rto_ssthresh,
        p("rto_ssthresh"),
    )?;
    let rto_collapse = named_rule(
        f.rto_collapse.as_deref(),
        profile.rto_collapse,
        p("rto_collapse"),
    )?;
    let rto_timer = named_rule(f.rto_timer.as_deref(), profile.rto_timer, p("rto_timer"))?;
    let recovery_entry = named_rule(
        f.recovery_entry.as_deref(),
        profile.recovery_entry,
        p("recovery_entry"),
    )?;
    let sack_pipe = named_rule(f.sack_pipe.as_deref(), profile.sack_pipe, p("sack_pipe"))?;
    let recovery_exit = named_rule(
        f.recovery_exit.as_deref(),
        profile.recovery_exit,
        p("recovery_exit"),
    )?;
    let rtt_sampling = named_rule(
        f.rtt_sampling.as_deref(),
        profile.rtt_sampling,
        p("rtt_sampling"),
    )?;
    let cut_from = named_rule(f.cut_from.as_deref(), profile.cut_from, p("cut_from"))?;
    let ecn_reduction = named_rule(
        f.ecn_reduction.as_deref(),
        profile.ecn_reduction,
        p("ecn_reduction"),
    )?;
    let ce_ack = named_rule(f.ce_ack.as_deref(), profile.ce_ack, p("ce_ack"))?;
    let control_ect = named_rule(
        f.control_ect.as_deref(),
        profile.control_ect,
        p("control_ect"),
    )?;
    let abc = match &f.abc {
        None => stack.slow_start(f.tcp.as_deref().unwrap_or("newreno")),
        Some(v) => SlowStart::parse(v).ok_or_else(|| {
            err(
                p("abc"),
                format!(
                    "{v}: allowed are false (one segment per ACK, RFC 5681), true (every acknowledged \
                     segment up to ssthresh, Linux) or \"uncapped\" (every one, no cap: ns-3.37's CUBIC)"
                ),
            )
        })?,
    };
    let iw = f.initial_window.unwrap_or(profile.initial_window as i64);
    check((1..=1000).contains(&iw), &p("initial_window"), || {
        format!("must be a whole number of packets from 1 to 1000, got {iw}")
    })?;
    let min_rto = f.min_rto.map(|d| d.0).unwrap_or(profile.min_rto);
    check(min_rto >= SimTime::from_millis(1), &p("min_rto"), || {
        format!("must be >= 1ms, got {min_rto}")
    })?;
    let initial_rto = f.initial_rto.map(|d| d.0);
    if let Some(t) = initial_rto {
        //= RFC 6298 (2.1): 1 s before a sample; (2.5): a maximum "at least
        //= 60 seconds" (rtt::MAX_RTO); below 1 ms a timer would beat the
        //= round trip of any link bufsim simulates.
        check(
            t >= SimTime::from_millis(1) && t <= crate::tcp::rtt::MAX_RTO,
            &p("initial_rto"),
            || format!("must be at least 1ms and at most 60s, got {t}"),
        )?;
    }
    let delack_timeout = f
        .delack_timeout
        .map(|d| d.0)
        .unwrap_or(profile.delack_timeout);
    //= RFC 5681 section 4.2 (RFC 1122 4.2.3.2): the delay "MUST be less
    //= than 0.5 seconds".
    check(
        delack_timeout >= SimTime::from_millis(1) && delack_timeout < SimTime::from_millis(500),
        &p("delack_timeout"),
        || {
            format!(
                "must be at least 1ms and less than 500ms (RFC 5681 section 4.2), got {delack_timeout}"
            )
        },
    )?;
    let quick_acks = f.quick_acks.unwrap_or(profile.quick_acks as i64);
    check((0..=1000).contains(&quick_acks), &p("quick_acks"), || {
        format!("must be a whole number of segments from 0 to 1000, got {quick_acks}")
    })?;
    Ok(Recovery {
        stack,
        sack,
        defaulted: Defaulted {
            hystart: f.stack.is_none() && f.hystart.is_none(),
            delayed_ack: f.stack.is_none() && f.delayed_ack.is_none(),
        },
        rules: StackDefaults {
            initial_window: iw as u32,
            min_rto,
            initial_rto,
            delayed_ack: f.delayed_ack.unwrap_or(profile.delayed_ack),
            prr,
            prr_variant,
            rack,
            hystart: f.hystart.unwrap_or(profile.hystart),
            abc,
            rto_ssthresh,
            rto_collapse,
            rto_timer,
            recovery_entry,
            sack_pipe,
            recovery_exit,
            rtt_sampling,
            cut_from,
            ecn_reduction,
            ce_ack,
            control_ect,
            handshake: f.connection_setup.unwrap_or(profile.handshake),
            delack_timeout,
            quick_acks: quick_acks as u32,
            push_ack: f.push_ack.unwrap_or(profile.push_ack),
            limited_transmit: f.limited_transmit.unwrap_or(profile.limited_transmit),
            partial_ack_retransmit: f
                .partial_ack_retransmit
                .unwrap_or(profile.partial_ack_retransmit),
            dupack_growth: f.dupack_growth.unwrap_or(profile.dupack_growth),
            cong_control: profile.cong_control,
        },
    })
}

/// When a flow group starts: each flow's start (drawn from `rng` for a
/// uniform range), or for open and closed loop when arrivals begin.
pub(super) fn group_starts(
    f: &RawFlows,
    i: usize,
    n: usize,
    dynamic: bool,
    duration: SimTime,
    rng: &mut Rng,
) -> Result<(SimTime, Vec<SimTime>), ScenarioError> {
    let p = |field: &str| group_path(i, field);
    let mut begin = SimTime::ZERO;
    let starts: Vec<SimTime> = match f.start.clone().unwrap_or(StartSpec::At(SimTime::ZERO)) {
        StartSpec::At(t) if dynamic => {
            begin = t;
            check(t < duration, &p("start"), || {
                format!("arrivals begin at {t}, not before duration {duration}")
            })?;
            Vec::new()
        }
        _ if dynamic => {
            return Err(err(
                p("start"),
                "an open- or closed-loop group takes one start time (when its arrivals or users begin), e.g. start = \"10s\"",
            ));
        }
        StartSpec::At(t) => vec![t; n],
        StartSpec::Stagger(s) => (0..n as u64).map(|k| s.times(k)).collect(),
        StartSpec::Uniform(a, b) => {
            check(a <= b, &p("start"), || {
                format!("uniform bounds [{a}, {b}]: the first must be <= the second")
            })?;
            (0..n)
                .map(|_| SimTime(rng.random_range(a.0..=b.0)))
                .collect()
        }
    };
    if let Some(&late) = starts.iter().max() {
        check(late < duration, &p("start"), || {
            format!("a flow starts at {late}, not before duration {duration}")
        })?;
    }
    Ok((begin, starts))
}
