//! `[fabric]`: a network of switches, each with one buffer shared by its
//! egress ports under a buffer-management algorithm ([`Pool`], one per
//! switch), the links between them and the hosts; each transfer crosses a
//! path of ports, chosen by ECMP where there are several. Its one form
//! today is the two-tier `leaf_spine` (Alizadeh et al., "CONGA",
//! SIGCOMM 2014, section 2; the setup of Addanki et al., "ABM", SIGCOMM
//! 2022, section 5.1): `leaves` leaf switches of `hosts_per_leaf` hosts
//! each, every leaf joined to every one of `spines` spine switches by
//! `links_per_pair` parallel links.
//!
//! ```toml
//! [fabric]
//! leaves = 2
//! spines = 2
//! hosts_per_leaf = 16
//! links_per_pair = 4
//! host_rate = "10Gbps"
//! fabric_rate = "10Gbps"          # default: host_rate
//! delay = "10us"                  # every link's
//! buffer_per_port_per_gbps = "9.6KB"   # or buffer = "2MB" per switch
//! spine_buffer = "1MB"            # a spine's, if not as a leaf's
//! algorithm = "dt"                # as pool.algorithm
//! alpha = 1
//! unscheduled = { alpha = 1024, bytes = "100KB" }   # abm: first-RTT priority
//! fab = { window = "5ms", bytes = "21000B", alpha = 1024 }   # fab: its priority
//! qdisc = "red"                   # every port's, as link.qdisc
//! ```
//!
//! The ports, as the engine numbers them (`N = leaves x hosts_per_leaf`
//! hosts, `P = links_per_pair`): host `h`'s NIC uplink `host<h>.up` (`h`),
//! leaf `l`'s downlink to its `i`-th host `leaf<l>.down<i>` (`N + l H +
//! i`), leaf `l`'s uplink `j` to spine `s`, `leaf<l>.up<s P + j>`, and
//! spine `s`'s downlink `j` to leaf `l`, `spine<s>.down<l P + j>`. A
//! transfer between hosts of one leaf crosses the NIC and the leaf's
//! downlink; between leaves, the NIC, a leaf uplink, a spine downlink and
//! the leaf downlink (four links). The NICs' queues have their own buffer
//! (`nic_buffer`), not a switch's.

use super::*;

/// Most ports a path crosses (a leaf-spine's: NIC, leaf up, spine down,
/// leaf down).
pub const MAX_HOPS: usize = 4;

/// The switch of a port that belongs to none (a host's NIC).
pub const NO_SWITCH: u32 = u32::MAX;

/// Most hosts a fabric holds.
pub const MAX_HOSTS: u32 = 16_384;

/// Most parallel links between a leaf and a spine.
pub const MAX_LINKS_PER_PAIR: u32 = 64;

/// The leaf-spine form's sizes.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct LeafSpine {
    /// Leaf (top-of-rack) switches.
    pub leaves: u32,
    /// Spine switches.
    pub spines: u32,
    /// Hosts under each leaf.
    pub hosts_per_leaf: u32,
    /// Parallel links between each leaf and each spine.
    pub links_per_pair: u32,
}

/// One switch: its name, its shared buffer and the egress ports on it.
#[derive(Clone, Debug, Serialize)]
pub struct Switch {
    /// `leaf<l>` or `spine<s>`.
    pub name: String,
    /// Its buffer and the admission algorithm (`ports`: its port count).
    pub pool: Pool,
    /// Its egress ports, engine indices.
    #[serde(rename = "port_indices")]
    pub ports: Vec<u32>,
}

/// A fabric, generated from its form.
#[derive(Clone, Debug, Serialize)]
pub struct Fabric {
    /// Always `leaf_spine` today.
    pub form: &'static str,
    /// The form's sizes.
    #[serde(flatten)]
    pub leaf_spine: LeafSpine,
    /// Hosts in all.
    pub hosts: u32,
    /// Host links' rate (NIC uplinks and leaf downlinks), bits/s.
    pub host_rate_bps: f64,
    /// Leaf-spine links' rate, bits/s.
    pub fabric_rate_bps: f64,
    /// Every link's one-way propagation delay.
    #[serde(serialize_with = "units::ser_secs", rename = "delay_s")]
    pub delay: SimTime,
    /// Each port's link (capacity, delay, its own limit, discipline), in
    /// engine order.
    #[serde(skip)]
    pub links: Vec<Link>,
    /// Each port's name (`leaf0.down3`), in engine order.
    #[serde(rename = "ports")]
    pub names: Vec<String>,
    /// Each port's switch, an index of `switches` ([`NO_SWITCH`]: a NIC).
    #[serde(skip)]
    pub switch_of: Vec<u32>,
    /// The switches: the leaves, then the spines.
    pub switches: Vec<Switch>,
}

/// The ports a transfer crosses, in order, and its propagation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Route {
    /// Engine port indices, `len` of them.
    pub ports: [u16; MAX_HOPS],
    /// How many ports.
    pub len: u8,
    /// One-way propagation over them.
    pub delay: SimTime,
    /// One-way propagation over them before the last.
    pub before_last: SimTime,
}

impl Route {
    /// The round trip: each link's delay both ways (ACKs return over the
    /// path's propagation without queueing).
    pub fn rtt(&self) -> SimTime {
        self.delay.times(2)
    }
}

/// An incast query workload (`flows[].incast`), the partition-aggregate
/// pattern of Alizadeh et al., "DCTCP", SIGCOMM 2010, section 2.3.1, as
/// ABM's setup runs it (Addanki et al., SIGCOMM 2022, section 5.1:
/// requests of a fraction of the buffer, 2 per second): at Poisson epochs
/// of `rate_per_s` a client asks `servers` other hosts for a response of
/// `response_bytes` in all; each server sends `server_pkts` packets, all
/// starting together, and the query completes with its last response.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Incast {
    /// Servers each query asks, distinct hosts other than the client.
    pub servers: u32,
    /// The response a query asks for, all servers together, bytes.
    pub response_bytes: u64,
    /// Each server's part, packets of the group's `mss` (the response
    /// split evenly and rounded up: within one packet per server).
    pub server_pkts: u64,
    /// Queries per second (Poisson).
    pub rate_per_s: f64,
    /// The client, a host; `None`: drawn per query.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client: Option<u32>,
}

impl Incast {
    /// The keys an `incast` table may hold.
    pub const KEYS: &[&str] = &["servers", "response", "rate", "client"];

    /// Parse group `i`'s `incast` table in a fabric of `hosts` hosts whose
    /// leaf switches hold `buffer` bytes (what `response = "0.3 buffer"`
    /// is a fraction of: the client's switch's), its packets `mss` bytes.
    pub(super) fn parse(
        v: &Value,
        i: usize,
        hosts: u32,
        buffer: u64,
        mss: u64,
    ) -> Result<Incast, ScenarioError> {
        let p = |field: &str| group_path(i, &format!("incast.{field}"));
        let shape = "{servers = 16, response = \"0.3 buffer\" (or bytes, \"500KB\"), \
                     rate = \"2/s\"} and optionally client = <host>";
        let Value::Object(m) = v else {
            return Err(err(
                group_path(i, "incast"),
                format!("expected a table {shape}, got {v}"),
            ));
        };
        for k in m.keys() {
            check(Self::KEYS.contains(&k.as_str()), &p(k), || {
                format!("unknown key: allowed are {}", Self::KEYS.join(", "))
            })?;
        }
        let need = |k: &str| {
            m.get(k)
                .ok_or_else(|| err(p(k), format!("missing: an incast is {shape}")))
        };
        let most = hosts - 1;
        let sv = need("servers")?;
        let servers = sv
            .as_u64()
            .filter(|n| (1..=u64::from(most)).contains(n))
            .ok_or_else(|| {
                err(
                    p("servers"),
                    format!(
                        "must be a whole number of servers from 1 to {most} (the hosts other \
                         than the client), got {sv}"
                    ),
                )
            })? as u32;
        let rv = need("response")?;
        let response = match rv {
            Value::String(s) => {
                let t = s.trim();
                if let Some(x) = t.strip_suffix("buffer") {
                    let x: f64 = x.trim().parse().map_err(|_| {
                        err(
                            p("response"),
                            format!(
                                "{s:?}: expected a fraction before \"buffer\", e.g. \"0.3 buffer\""
                            ),
                        )
                    })?;
                    check(x > 0.0 && x <= 100.0, &p("response"), || {
                        format!("{s:?}: the fraction of the buffer must be in (0, 100]")
                    })?;
                    (x * buffer as f64).round() as u64
                } else {
                    units::parse_bytes(t).map_err(|e| {
                        err(
                            p("response"),
                            format!(
                                "{}; or a fraction of the switch buffer, \"0.3 buffer\"",
                                e.0
                            ),
                        )
                    })?
                }
            }
            o => {
                return Err(err(
                    p("response"),
                    format!(
                        "expected a size such as \"500KB\" or a fraction of the switch buffer \
                         such as \"0.3 buffer\", got {o}"
                    ),
                ));
            }
        };
        check(response > 0, &p("response"), || {
            format!("must be > 0B, got {rv}")
        })?;
        let rate = need("rate")?;
        let rate_per_s = match Arrival::parse(&serde_json::json!({ "rate": rate })) {
            Ok(Arrival {
                epochs: Epochs::Rate(r),
                ..
            }) => r,
            Ok(_) => unreachable!("a rate parses to a rate"),
            Err(m) => {
                let m = m.strip_prefix("rate: ").unwrap_or(&m).to_string();
                return Err(err(p("rate"), format!("{m} (queries per second, Poisson)")));
            }
        };
        let client = match m.get("client") {
            None => None,
            Some(c) => Some(
                c.as_u64()
                    .filter(|&h| h < u64::from(hosts))
                    .ok_or_else(|| {
                        err(
                            p("client"),
                            format!("must be a host from 0 to {most}, got {c}"),
                        )
                    })? as u32,
            ),
        };
        let mss = mss.max(1);
        Ok(Incast {
            servers,
            response_bytes: response,
            server_pkts: response.div_ceil(u64::from(servers)).div_ceil(mss),
            rate_per_s,
            client,
        })
    }
}

/// SplitMix64's finalizer (Steele, Lea & Flood, "Fast splittable
/// pseudorandom number generators", OOPSLA 2014): a well-mixed 64-bit hash
/// of `x`.
pub fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Hash of a transfer's id under the run's seed, with a `salt` per use:
/// the same for the same transfer whatever else runs (a run is one thread;
/// parallel workers run whole runs), so ECMP and host draws are
/// bit-identical whatever the worker count.
pub fn transfer_hash(seed: u64, id: u64, salt: u64) -> u64 {
    mix(mix(seed ^ salt.wrapping_mul(0xD6E8_FEB8_6659_FD93)) ^ id)
}

impl Fabric {
    /// Hosts per leaf, links per pair and the host count, as `usize`.
    fn dims(&self) -> (u32, u32, u32, u32, u32) {
        let f = self.leaf_spine;
        (
            f.leaves,
            f.spines,
            f.hosts_per_leaf,
            f.links_per_pair,
            self.hosts,
        )
    }

    /// Host `h`'s NIC uplink.
    pub fn nic(&self, h: u32) -> u32 {
        h
    }

    /// The leaf's downlink to host `h`.
    pub fn leaf_down(&self, h: u32) -> u32 {
        self.hosts + h
    }

    /// Leaf `l`'s uplink `j` to spine `s`.
    pub fn leaf_up(&self, l: u32, s: u32, j: u32) -> u32 {
        let (_, ss, _, p, n) = self.dims();
        2 * n + (l * ss + s) * p + j
    }

    /// Spine `s`'s downlink `j` to leaf `l`.
    pub fn spine_down(&self, s: u32, l: u32, j: u32) -> u32 {
        let (ls, ss, _, p, n) = self.dims();
        2 * n + ls * ss * p + (s * ls + l) * p + j
    }

    /// The route from host `src` to host `dst` (distinct), its leaf-spine
    /// link chosen by ECMP from the transfer's hash `h`: uplink and spine
    /// among `spines x links_per_pair` by `h`, the spine's parallel
    /// downlink by other bits of `h` (each switch hashes on its own).
    pub fn route(&self, src: u32, dst: u32, h: u64) -> Route {
        debug_assert!(src != dst && src < self.hosts && dst < self.hosts);
        let (_, ss, hpl, p, _) = self.dims();
        let (ls, ld) = (src / hpl, dst / hpl);
        let d = self.delay;
        let mut ports = [0u16; MAX_HOPS];
        let len = if ls == ld {
            ports[0] = self.nic(src) as u16;
            ports[1] = self.leaf_down(dst) as u16;
            2
        } else {
            let c = (h % u64::from(ss * p)) as u32;
            let (s, j) = (c / p, c % p);
            let j2 = ((h >> 32) % u64::from(p)) as u32;
            ports[0] = self.nic(src) as u16;
            ports[1] = self.leaf_up(ls, s, j) as u16;
            ports[2] = self.spine_down(s, ld, j2) as u16;
            ports[3] = self.leaf_down(dst) as u16;
            4
        };
        Route {
            ports,
            len,
            delay: d.times(u64::from(len)),
            before_last: d.times(u64::from(len) - 1),
        }
    }

    /// The longest route's one-way propagation.
    pub fn max_delay(&self) -> SimTime {
        let hops = if self.leaf_spine.leaves > 1 { 4 } else { 2 };
        self.delay.times(hops)
    }

    /// The client and `k`-th server of an incast query (`client`, else
    /// drawn from the query's hash `h`): servers are the `k`-th host after
    /// the one another hash of `h` draws, so a query's are distinct.
    /// Returns (server, client): the response's source and destination.
    pub fn query_hosts(&self, client: Option<u32>, h: u64, k: u32) -> (u32, u32) {
        let c = client.unwrap_or((h % u64::from(self.hosts)) as u32);
        self.hosts_of(None, Some(c), mix(h), k)
    }

    /// The hosts of a transfer of a group with hosts `src`, `dst` (`None`:
    /// drawn), from hash `h`; an incast's `k`-th transfer of a burst
    /// (`dst` given, `src` drawn) takes the `k`-th server after the one
    /// `h` draws, so a burst of up to `hosts - 1` has distinct servers.
    pub fn hosts_of(&self, src: Option<u32>, dst: Option<u32>, h: u64, k: u32) -> (u32, u32) {
        let n = u64::from(self.hosts);
        // The `r`-th host other than `x`.
        let other = |x: u32, r: u64| {
            let r = (r % (n - 1)) as u32;
            if r >= x { r + 1 } else { r }
        };
        match (src, dst) {
            (Some(s), Some(d)) => (s, d),
            (Some(s), None) => (s, other(s, h)),
            (None, Some(d)) => (other(d, h.wrapping_add(u64::from(k))), d),
            (None, None) => {
                let s = (h % n) as u32;
                (s, other(s, h >> 32))
            }
        }
    }
}

/// Resolve a scenario with a `[fabric]`: its switches, ports and links,
/// then its flow groups, each transfer between hosts.
pub(super) fn resolve_scenario(raw: RawScenario, run: Run) -> Result<Scenario, ScenarioError> {
    let (seed, duration) = (run.seed, run.duration);
    let fab = raw.fabric.expect("called with a fabric");
    for (given, field, what) in [
        (raw.link.is_some(), "link", "its links are the fabric's"),
        (raw.links.is_some(), "links", "its links are the fabric's"),
        (raw.pool.is_some(), "pool", "each switch has its buffer"),
        (
            raw.reverse.is_some(),
            "reverse",
            "ACKs return over the path's propagation without queueing",
        ),
    ] {
        check(!given, field, || {
            format!(
                "not with a [fabric] ({what}): remove {field}, and set rates, delays and the \
                 discipline in [fabric]"
            )
        })?;
    }
    let form = fab.form.clone().unwrap_or_else(|| "leaf_spine".into());
    check(form == "leaf_spine", "fabric.form", || {
        format!("unknown form {form:?}: allowed is leaf_spine")
    })?;
    let count = |v: i64, field: &str, max: u32| -> Result<u32, ScenarioError> {
        check((1..=i64::from(max)).contains(&v), field, || {
            format!("must be a whole number from 1 to {max}, got {v}")
        })?;
        Ok(v as u32)
    };
    let leaves = count(fab.leaves, "fabric.leaves", 1024)?;
    let spines = count(fab.spines, "fabric.spines", 1024)?;
    let hpl = count(fab.hosts_per_leaf, "fabric.hosts_per_leaf", MAX_HOSTS)?;
    let p = count(
        fab.links_per_pair.unwrap_or(1),
        "fabric.links_per_pair",
        MAX_LINKS_PER_PAIR,
    )?;
    let hosts = u64::from(leaves) * u64::from(hpl);
    check(
        (2..=u64::from(MAX_HOSTS)).contains(&hosts),
        "fabric.hosts_per_leaf",
        || {
            format!(
                "{hpl}: leaves x hosts_per_leaf is {hosts} hosts; a fabric holds 2 to {MAX_HOSTS}"
            )
        },
    )?;
    let hosts = hosts as u32;
    let nports = 2 * u64::from(hosts) + 2 * u64::from(leaves) * u64::from(spines) * u64::from(p);
    check(
        nports <= u64::from(u16::MAX),
        "fabric.links_per_pair",
        || {
            format!(
                "{p}: the fabric would have {nports} ports, more than the {} the engine numbers",
                u16::MAX
            )
        },
    )?;
    let rate = |r: f64, field: &str| {
        check(r > 0.0 && r <= 1e13, field, || {
            format!("must be > 0bps and at most 10Tbps, got {r}bps")
        })
    };
    let host_rate = fab.host_rate.0.0;
    rate(host_rate, "fabric.host_rate")?;
    let fabric_rate = fab.fabric_rate.map_or(host_rate, |r| r.0.0);
    rate(fabric_rate, "fabric.fabric_rate")?;
    let delay = fab.delay.0;
    check(
        delay > SimTime::ZERO && delay <= SimTime::from_secs_f64(1.0),
        "fabric.delay",
        || format!("must be > 0s and at most 1s, got {delay}"),
    )?;
    // A switch's buffer: bytes, or per port per Gbps of its ports' rates
    // (ABM's setup: 9.6 KB per port per Gbps, Broadcom Tomahawk's ratio).
    let per_port = match (fab.buffer, fab.buffer_per_port_per_gbps) {
        (Some(_), Some(_)) => {
            return Err(err(
                "fabric.buffer_per_port_per_gbps",
                "give buffer (bytes per switch) or buffer_per_port_per_gbps, not both",
            ));
        }
        (None, None) => {
            return Err(err(
                "fabric",
                "missing the switches' buffer: give buffer (e.g. \"2MB\", per switch) or \
                 buffer_per_port_per_gbps (e.g. \"9.6KB\")",
            ));
        }
        (Some(Size(b)), None) => Err(b),
        (None, Some(Size(b))) => Ok(b),
    };
    let gbps = |r: f64| r / 1e9;
    let leaf_gbps = f64::from(hpl) * gbps(host_rate) + f64::from(spines * p) * gbps(fabric_rate);
    let spine_gbps = f64::from(leaves * p) * gbps(fabric_rate);
    let (leaf_bytes, spine_bytes) = match per_port {
        Err(b) => (b, b),
        Ok(b) => (
            (b as f64 * leaf_gbps).round() as u64,
            (b as f64 * spine_gbps).round() as u64,
        ),
    };
    let buffer_field = if per_port.is_ok() {
        "fabric.buffer_per_port_per_gbps"
    } else {
        "fabric.buffer"
    };
    // A spine's own buffer (`spine_buffer`, bytes): the leaves' stay as
    // `buffer` sizes them, so that `advise` can search one tier with the
    // other fixed.
    let spine_bytes = fab.spine_buffer.map_or(spine_bytes, |Size(b)| b);
    let spine_field = if fab.spine_buffer.is_some() {
        "fabric.spine_buffer"
    } else {
        buffer_field
    };

    // Flow groups: between hosts, each transfer's RTT its path's.
    let mut rng = stream(seed, Stream::Scenario);
    let mut total = 0;
    let mut flows = Vec::with_capacity(raw.flows.len());
    let group_classes: Vec<Option<i64>> = raw.flows.iter().map(|f| f.class).collect();
    let max_delay = SimTime(delay.0 * if leaves > 1 { 4 } else { 2 });
    for (i, mut f) in raw.flows.into_iter().enumerate() {
        let p = |field: &str| group_path(i, field);
        // An incast: its responses are the group's transfers, `servers`
        // per query at Poisson epochs, each of a fixed size.
        let mss = f.mss.map_or(1500, |s| s.0);
        let incast = match f.incast.take() {
            None => None,
            Some(v) => Some(Incast::parse(&v, i, hosts, leaf_bytes, mss)?),
        };
        if let Some(q) = &incast {
            for (given, field) in [
                (f.size.is_some(), "size"),
                (f.arrival.is_some(), "arrival"),
                (f.count.is_some(), "count"),
                (f.users.is_some(), "users"),
                (f.hosts.is_some(), "hosts"),
                (f.src.is_some(), "src"),
                (f.dst.is_some(), "dst"),
            ] {
                check(!given, &p(field), || {
                    format!(
                        "not with incast, which sets its responses' sizes, arrivals and hosts: \
                         remove {field} (the client is incast.client)"
                    )
                })?;
            }
            f.size = Some(Value::String(format!("{}pkt", q.server_pkts)));
            f.arrival = Some(serde_json::json!({
                "rate": format!("{}/s", q.rate_per_s),
                "burst": q.servers,
            }));
            f.dst = q.client.map(i64::from);
        }
        check(f.rtt.is_none(), &p("rtt"), || {
            "in a fabric each transfer's RTT is its path's (every link's delay both ways): \
             remove rtt"
                .into()
        })?;
        check(f.port.is_none(), &p("port"), || {
            "a fabric's transfers leave by their host's NIC: remove port".into()
        })?;
        check(f.links.is_none(), &p("links"), || {
            "a fabric's transfers cross their path's links: remove links".into()
        })?;
        if let Some(h) = &f.hosts {
            check(h == "random", &p("hosts"), || {
                format!("unknown {h:?}: allowed is \"random\" (or give src and dst)")
            })?;
            check(f.src.is_none() && f.dst.is_none(), &p("hosts"), || {
                "\"random\" draws both hosts: remove src and dst, or hosts".into()
            })?;
        }
        let host = |v: Option<i64>, field: &str| -> Result<Option<u32>, ScenarioError> {
            let Some(v) = v else { return Ok(None) };
            check((0..i64::from(hosts)).contains(&v), &p(field), || {
                format!(
                    "must be a host from 0 to {} (leaves x hosts_per_leaf - 1), got {v}",
                    hosts - 1
                )
            })?;
            Ok(Some(v as u32))
        };
        let (src, dst) = (host(f.src, "src")?, host(f.dst, "dst")?);
        check(src.is_none() || src != dst, &p("dst"), || {
            format!(
                "{}: a transfer runs between two hosts, and src is the same",
                dst.unwrap_or(0)
            )
        })?;
        f.rtt = Some(RttSpec::Fixed(max_delay.times(2)));
        // `load` is a fraction of the host links' rate: of every host's
        // with both hosts drawn (the offered load per host), else of the
        // one host's link (the sender's, or an incast's client's).
        let senders = if src.is_none() && dst.is_none() && incast.is_none() {
            hosts
        } else {
            1
        };
        let at = GroupContext {
            cap: host_rate * f64::from(senders),
            delay: max_delay,
            delay_what: "the longest path's delays".into(),
            duration,
        };
        let mut g = resolve_group(i, f, &at, &mut rng, &mut total)?;
        g.src = src;
        g.dst = dst;
        g.incast = incast;
        g.path_delay = max_delay;
        g.delay_before_last = max_delay - delay;
        flows.push(g);
    }

    // The ports' links: four kinds (NIC, leaf down, leaf up, spine down).
    let first_mss = flows.first().map(|g| u64::from(g.mss_bytes));
    let rtts = [max_delay.times(2)];
    let make = |cap: f64, buffer: BufferSize| -> Result<Link, ScenarioError> {
        let raw = RawLink {
            capacity: Rate(BitsPerSec(cap)),
            delay: Dur(delay),
            buffer: Some(Buf(buffer)),
            bdp_rtt: None,
            packet_size: fab.packet_size,
            qdisc: fab.qdisc.clone(),
            qdisc_params: fab.qdisc_params.clone(),
            scheduler: fab.scheduler.clone(),
            queues: fab.queues.clone(),
        };
        let (link, _) = resolve_link(
            link_head("fabric".into(), raw)?,
            first_mss,
            &rtts,
            &mut None,
        )?;
        Ok(link)
    };
    let nic_buffer = fab
        .nic_buffer
        .map_or(BufferSize::Packets(DEFAULT_ACCESS_BUFFER_PKTS), |b| b.0);
    let nic = make(host_rate, nic_buffer).map_err(|e| {
        let path = e.path.replace("fabric.buffer", "fabric.nic_buffer");
        err(path, e.message)
    })?;
    let at = |field: &'static str| {
        move |e: ScenarioError| err(e.path.replace("fabric.buffer", field), e.message)
    };
    let leaf_down = make(host_rate, BufferSize::Bytes(leaf_bytes)).map_err(at(buffer_field))?;
    let leaf_up = make(fabric_rate, BufferSize::Bytes(leaf_bytes)).map_err(at(buffer_field))?;
    let spine_down = make(fabric_rate, BufferSize::Bytes(spine_bytes)).map_err(at(spine_field))?;
    let pkt = nic.packet_size_bytes;
    // The algorithm, alpha, interval and first-RTT priority, checked as a
    // pool's are; the priority's extent by default one base-RTT BDP of a
    // host's link over the longest path (the authors' `RTTBytes`).
    let bdp_bytes = (host_rate * max_delay.times(2).as_secs_f64() / 8.0).round() as u64;
    let pool_of = |bytes: u64, ports: u32| -> Result<Pool, ScenarioError> {
        let raw = RawPool {
            size: Buf(BufferSize::Bytes(bytes)),
            ports: 1,
            alpha: fab.alpha,
            algorithm: fab.algorithm.clone(),
            interval: fab.interval,
            unscheduled: fab.unscheduled,
            fab: fab.fab,
        };
        let size = (bytes / u64::from(pkt), bytes);
        let mut pool = resolve_pool(raw, BufferMode::Bytes, size, pkt, bdp_bytes)
            .map_err(|e| err(e.path.replace("pool.", "fabric."), e.message))?;
        pool.ports = ports;
        Ok(pool)
    };

    let mut fabric = Fabric {
        form: "leaf_spine",
        leaf_spine: LeafSpine {
            leaves,
            spines,
            hosts_per_leaf: hpl,
            links_per_pair: p,
        },
        hosts,
        host_rate_bps: host_rate,
        fabric_rate_bps: fabric_rate,
        delay,
        links: Vec::with_capacity(nports as usize),
        names: Vec::with_capacity(nports as usize),
        switch_of: Vec::with_capacity(nports as usize),
        switches: Vec::new(),
    };
    for l in 0..leaves {
        let pool = pool_of(leaf_bytes, hpl + spines * p)?;
        fabric.switches.push(Switch {
            name: format!("leaf{l}"),
            pool,
            ports: Vec::new(),
        });
    }
    for s in 0..spines {
        let pool = pool_of(spine_bytes, leaves * p)?;
        fabric.switches.push(Switch {
            name: format!("spine{s}"),
            pool,
            ports: Vec::new(),
        });
    }
    let add = |fabric: &mut Fabric, link: &Link, name: String, sw: u32| {
        let k = fabric.links.len() as u32;
        fabric.links.push(link.clone());
        fabric.names.push(name);
        fabric.switch_of.push(sw);
        if sw != NO_SWITCH {
            fabric.switches[sw as usize].ports.push(k);
        }
    };
    for h in 0..hosts {
        add(&mut fabric, &nic, format!("host{h}.up"), NO_SWITCH);
    }
    for h in 0..hosts {
        let name = format!("leaf{}.down{}", h / hpl, h % hpl);
        add(&mut fabric, &leaf_down, name, h / hpl);
    }
    for l in 0..leaves {
        for u in 0..spines * p {
            add(&mut fabric, &leaf_up, format!("leaf{l}.up{u}"), l);
        }
    }
    for s in 0..spines {
        for d in 0..leaves * p {
            add(
                &mut fabric,
                &spine_down,
                format!("spine{s}.down{d}"),
                leaves + s,
            );
        }
    }
    debug_assert_eq!(fabric.links.len() as u64, nports);
    // Each switch's pool counts its own ports (leaf: hosts + uplinks).
    debug_assert!(
        fabric
            .switches
            .iter()
            .all(|s| s.pool.ports as usize == s.ports.len())
    );

    let algorithm = fabric.switches[0].pool.algorithm;
    if let Some(set) = &nic.classes {
        check(algorithm != Algorithm::Abm, "fabric.algorithm", || {
            "\"abm\" with several queues per port (fabric.queues) is not modelled (each \
             queue's drain rate): use static, complete, dt or lqd"
                .into()
        })?;
        if algorithm == Algorithm::Lqd {
            for (i, q) in set.queues.iter().enumerate() {
                check(
                    q.queue.is_fifo(),
                    &format!("fabric.queues[{i}].qdisc"),
                    || {
                        format!(
                            "\"lqd\" pushes a packet out of the longest queue's tail, and {:?} \
                         serves several queues: use a FIFO discipline",
                            q.queue.name()
                        )
                    },
                )?;
            }
        }
    }
    check(
        algorithm != Algorithm::Lqd || nic.queue.is_fifo(),
        "fabric.algorithm",
        || {
            format!(
                "\"lqd\" pushes a packet out of the longest queue's tail, and fabric.qdisc {:?} \
                 serves several queues: use a FIFO discipline",
                nic.queue.name()
            )
        },
    )?;
    // Background sources: Poisson packets on one port each (`port`, an
    // engine index), which leave at the end of that port's link.
    let bg_classes: Vec<Option<i64>> = raw.background.iter().map(|b| b.class).collect();
    for (i, b) in raw.background.iter().enumerate() {
        check(b.port.is_some(), &format!("background[{i}].port"), || {
            format!(
                "missing: in a fabric a background source names the port it crosses, 0 to {} \
                 (docs/howto/fabric.md numbers them)",
                nports - 1
            )
        })?;
    }
    let mut background =
        resolve_background(raw.background, &[host_rate], nports as u32).map_err(|e| {
            let m = e
                .message
                .replace("(pool.ports - 1)", "(the fabric's ports - 1)")
                .replace("link.capacity", "fabric.host_rate");
            err(e.path, m)
        })?;
    let topology = Topology::Fabric {
        fabric: Box::new(fabric),
    };
    classes::assign(
        &topology,
        &mut flows,
        group_classes,
        &mut background,
        bg_classes,
    )
    .map_err(|e| err(e.path.replace("link.", "fabric."), e.message))?;
    run.finish(topology, flows, background, &rtts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaf_spine(extra: Value) -> Result<Scenario, ScenarioError> {
        let mut v = serde_json::json!({
            "duration": "1s",
            "fabric": {"leaves": 2, "spines": 2, "hosts_per_leaf": 4, "links_per_pair": 3,
                       "host_rate": "10Gbps", "delay": "10us",
                       "buffer_per_port_per_gbps": "9.6KB"},
            "flows": [{"hosts": "random", "size": "websearch", "arrival": {"load": 0.4}}],
        });
        for (k, x) in extra.as_object().unwrap() {
            v["fabric"][k] = x.clone();
        }
        Scenario::from_json(&v.to_string())
    }

    #[test]
    fn leaf_spine_numbers_its_ports_and_sizes_its_buffers() {
        let s = leaf_spine(serde_json::json!({})).unwrap();
        let f = s.topology.fabric().unwrap();
        // 8 NICs, 8 leaf downlinks, 2 x 2 x 3 leaf uplinks and as many
        // spine downlinks.
        assert_eq!(f.links.len(), 8 + 8 + 12 + 12);
        assert_eq!(f.names[f.nic(5) as usize], "host5.up");
        assert_eq!(f.names[f.leaf_down(5) as usize], "leaf1.down1");
        assert_eq!(f.names[f.leaf_up(1, 1, 2) as usize], "leaf1.up5");
        assert_eq!(f.names[f.spine_down(1, 0, 2) as usize], "spine1.down2");
        // 9.6 KB per port per Gbps: a leaf's 4 + 6 ports of 10 Gbps hold
        // 960 KB, a spine's 6 ports 576 KB.
        assert_eq!(f.switches[0].pool.size_bytes, 960_000);
        assert_eq!(f.switches[2].pool.size_bytes, 576_000);
        // A spine's own buffer leaves the leaves' as they were.
        let t = leaf_spine(serde_json::json!({"spine_buffer": "1MB"})).unwrap();
        let g = t.topology.fabric().unwrap();
        let sizes: Vec<u64> = g.switches.iter().map(|w| w.pool.size_bytes).collect();
        assert_eq!(sizes, [960_000, 960_000, 1_000_000, 1_000_000]);
        let e = leaf_spine(serde_json::json!({"spine_buffer": "0B"})).unwrap_err();
        assert_eq!(e.path, "fabric.spine_buffer", "{}", e.message);
        assert_eq!(f.switches[0].ports.len(), 10);
        assert!(
            f.switches
                .iter()
                .all(|w| w.pool.ports as usize == w.ports.len())
        );
        // Every port of a route belongs to the switch it leaves.
        let r = f.route(0, 6, 12345);
        assert_eq!(r.len, 4);
        assert_eq!(f.switch_of[r.ports[1] as usize], 0);
        assert_eq!(f.switch_of[r.ports[2] as usize], 2 + (12345 % 6) as u32 / 3);
        assert_eq!(f.switch_of[r.ports[3] as usize], 1);
        assert_eq!(r.rtt(), SimTime::from_micros(80));
        let r = f.route(0, 3, 7);
        assert_eq!((r.len, r.ports[1] as u32), (2, f.leaf_down(3)));
        // Load 0.4 of 8 hosts' 10 Gbps: 32 Gbps of websearch transfers.
        let g = &s.flows[0];
        let bits = g.mean_size_pkts.unwrap() * 1500.0 * 8.0;
        let rate = g.arrival_rate_per_s.unwrap();
        assert!((rate * bits / 32e9 - 1.0).abs() < 1e-9, "{rate}/s");
    }

    #[test]
    fn ecmp_and_host_draws_are_even() {
        // 120,000 transfers over 6 (spine, link) choices: 20,000 each, a
        // binomial's sd of 0.6%; each within 3% is 5 sd.
        let s = leaf_spine(serde_json::json!({})).unwrap();
        let f = s.topology.fabric().unwrap();
        let mut ups = [0u32; 6];
        let mut srcs = [0u32; 8];
        for id in 0..120_000u64 {
            let r = f.route(0, 7, transfer_hash(1, id, 2));
            ups[(r.ports[1] as u32 - f.leaf_up(0, 0, 0)) as usize] += 1;
            let (a, b) = f.hosts_of(None, None, transfer_hash(1, id, 1), 0);
            assert_ne!(a, b);
            srcs[a as usize] += 1;
        }
        for c in ups {
            assert!((f64::from(c) / 20_000.0 - 1.0).abs() < 0.03, "{ups:?}");
        }
        for c in srcs {
            assert!((f64::from(c) / 15_000.0 - 1.0).abs() < 0.03, "{srcs:?}");
        }
        // An incast's burst of 7 to host 2 takes the 7 other hosts once each.
        let mut seen: Vec<u32> = (0..7).map(|k| f.hosts_of(None, Some(2), 99, k).0).collect();
        seen.sort_unstable();
        assert_eq!(seen, vec![0, 1, 3, 4, 5, 6, 7]);
    }

    #[test]
    fn the_first_rtt_priority_defaults_to_one_bdp_and_serializes_only_when_set() {
        let n = |extra: Value| -> Value {
            let s = leaf_spine(extra).unwrap();
            serde_json::from_str(&s.to_json()).unwrap()
        };
        // Off: absent from every switch's pool, and no packet tagged.
        let off = n(serde_json::json!({"algorithm": "abm"}));
        assert!(
            off["fabric"]["switches"][0]["pool"]
                .get("unscheduled")
                .is_none()
        );
        let s = leaf_spine(serde_json::json!({"algorithm": "abm"})).unwrap();
        assert_eq!(s.topology.first_rtt_bytes(), 0);
        // Given without its fields: alpha 1024 (the authors' alphaUnsched)
        // and one BDP of a host link over the longest path, 10 Gbps x 8 x
        // 10 us = 100,000 bytes (the authors' RTTBytes).
        let on = n(serde_json::json!({"algorithm": "abm", "unscheduled": {}}));
        for sw in on["fabric"]["switches"].as_array().unwrap() {
            assert_eq!(
                sw["pool"]["unscheduled"],
                serde_json::json!({"alpha": 1024.0, "bytes": 100_000})
            );
        }
        let s = leaf_spine(serde_json::json!({"algorithm": "abm", "unscheduled": {}})).unwrap();
        assert_eq!(s.topology.first_rtt_bytes(), 100_000);
        let s = leaf_spine(
            serde_json::json!({"algorithm": "abm", "unscheduled": {"alpha": 8, "bytes": "30KB"}}),
        )
        .unwrap();
        let pool = s.topology.fabric().unwrap().switches[3].pool;
        assert_eq!(
            (
                pool.priority_alpha(true, pool.alpha),
                pool.priority_alpha(false, pool.alpha)
            ),
            (8.0, 1.0)
        );
        assert_eq!(s.topology.first_rtt_bytes(), 30_000);
        // Another algorithm keeps the table (a sweep over the algorithm)
        // and ignores it: nothing is tagged.
        let dt = leaf_spine(serde_json::json!({"unscheduled": {"bytes": "30KB"}})).unwrap();
        assert_eq!(dt.topology.first_rtt_bytes(), 0);
    }

    #[test]
    fn fields_are_checked_by_name() {
        let bad = [
            (
                serde_json::json!({"leaves": 0}),
                "fabric.leaves",
                "from 1 to 1024, got 0",
            ),
            (
                serde_json::json!({"links_per_pair": 65}),
                "fabric.links_per_pair",
                "got 65",
            ),
            (
                serde_json::json!({"form": "fat_tree"}),
                "fabric.form",
                "leaf_spine",
            ),
            (
                serde_json::json!({"buffer": "1MB"}),
                "fabric.buffer_per_port_per_gbps",
                "not both",
            ),
            (
                serde_json::json!({"algorithm": "red"}),
                "fabric.algorithm",
                "dt",
            ),
            (serde_json::json!({"alpha": -1.0}), "fabric.alpha", "> 0"),
            (
                serde_json::json!({"unscheduled": {"alpha": -1.0}}),
                "fabric.unscheduled.alpha",
                "must be > 0 and at most 1000000, got -1",
            ),
            (
                serde_json::json!({"unscheduled": {"bytes": "0B"}}),
                "fabric.unscheduled.bytes",
                "must be > 0B and at most 1GB, got 0B",
            ),
            (
                serde_json::json!({"unscheduled": {"bytes": "2GB"}}),
                "fabric.unscheduled.bytes",
                "got 2000000000B",
            ),
            (
                serde_json::json!({"unscheduled": {"bytes": 100}}),
                "fabric.unscheduled.bytes",
                "expected a string with a unit",
            ),
            (
                serde_json::json!({"unscheduled": {"alpha": 2, "rtt": "80us"}}),
                "fabric.unscheduled.rtt",
                "unknown field",
            ),
            (serde_json::json!({"delay": "0s"}), "fabric.delay", "> 0s"),
            (
                serde_json::json!({"qdisc": "wfq"}),
                "fabric.qdisc",
                "unknown queue discipline",
            ),
            (
                serde_json::json!({"hosts_per_leaf": 20000}),
                "fabric.hosts_per_leaf",
                "16384",
            ),
        ];
        for (extra, path, msg) in bad {
            let e = leaf_spine(extra.clone()).unwrap_err();
            assert_eq!(e.path, path, "{extra}: {e}");
            assert!(e.message.contains(msg), "{extra}: {e}");
        }
        let flows = |g: Value| {
            let mut v = serde_json::json!({
                "duration": "1s",
                "fabric": {"leaves": 1, "spines": 1, "hosts_per_leaf": 4,
                           "host_rate": "10Gbps", "delay": "10us", "buffer": "1MB"},
            });
            v["flows"] = serde_json::json!([g]);
            Scenario::from_json(&v.to_string())
        };
        let e = flows(serde_json::json!({"src": 4, "dst": 0, "size": "10pkt"})).unwrap_err();
        assert_eq!(e.path, "flows[0].src");
        assert!(
            e.message.contains("from 0 to 3") && e.message.contains("got 4"),
            "{e}"
        );
        let e = flows(serde_json::json!({"src": 1, "dst": 1, "size": "10pkt"})).unwrap_err();
        assert_eq!(e.path, "flows[0].dst");
        let e = flows(serde_json::json!({"rtt": "1ms", "size": "10pkt"})).unwrap_err();
        assert_eq!(e.path, "flows[0].rtt");
        let e = flows(serde_json::json!({"hosts": "all", "size": "10pkt"})).unwrap_err();
        assert_eq!(e.path, "flows[0].hosts");
        let mut v = serde_json::json!({
            "duration": "1s",
            "link": {"capacity": "10Gbps", "delay": "10us", "buffer": "100pkt"},
            "flows": [{"rtt": "1ms", "dst": 2}],
        });
        let e = Scenario::from_json(&v.to_string()).unwrap_err();
        assert_eq!(e.path, "flows[0].dst");
        v["fabric"] = serde_json::json!({"leaves": 1, "spines": 1, "hosts_per_leaf": 4,
                                         "host_rate": "10Gbps", "delay": "10us",
                                         "buffer": "1MB"});
        let e = Scenario::from_json(&v.to_string()).unwrap_err();
        assert_eq!(e.path, "link");
    }
    #[test]
    fn an_incast_is_parsed_field_by_field() {
        let with = |q: Value| {
            let mut v = serde_json::json!({
                "duration": "1s",
                "fabric": {"leaves": 2, "spines": 2, "hosts_per_leaf": 4, "links_per_pair": 3,
                           "host_rate": "10Gbps", "delay": "10us",
                           "buffer_per_port_per_gbps": "9.6KB"},
            });
            v["flows"] = serde_json::json!([{"incast": q}]);
            Scenario::from_json(&v.to_string())
        };
        // A leaf of 4 + 6 ports of 10 Gbps holds 960,000 bytes: 0.3 of it
        // is 288,000 bytes, over 7 servers 41,143 bytes each, 28 packets
        // of 1500 bytes (294,000 bytes in all, within 7 packets).
        let s = with(serde_json::json!({"servers": 7, "response": "0.3 buffer",
                                        "rate": "2/s"}))
        .unwrap();
        let g = &s.flows[0];
        let q = g.incast.unwrap();
        assert_eq!(
            (q.servers, q.response_bytes, q.server_pkts),
            (7, 288_000, 28)
        );
        assert_eq!(g.arrival_burst, 7);
        assert!((g.arrival_rate_per_s.unwrap() - 14.0).abs() < 1e-12);
        assert_eq!((g.src, g.dst), (None, None));
        let s = with(serde_json::json!({"servers": 2, "response": "100KB",
                                        "rate": "1/ms", "client": 5}))
        .unwrap();
        let q = s.flows[0].incast.unwrap();
        assert_eq!(
            (q.response_bytes, q.server_pkts, q.client),
            (100_000, 34, Some(5))
        );
        assert_eq!(s.flows[0].dst, Some(5));
        let bad = [
            (serde_json::json!(3), "flows[0].incast", "expected a table"),
            (
                serde_json::json!({"servers": 8, "response": "1MB", "rate": "2/s"}),
                "flows[0].incast.servers",
                "from 1 to 7",
            ),
            (
                serde_json::json!({"servers": 2, "response": "0.3", "rate": "2/s"}),
                "flows[0].incast.response",
                "\"0.3 buffer\"",
            ),
            (
                serde_json::json!({"servers": 2, "response": "0 buffer", "rate": "2/s"}),
                "flows[0].incast.response",
                "(0, 100]",
            ),
            (
                serde_json::json!({"servers": 2, "response": "1MB", "rate": "2"}),
                "flows[0].incast.rate",
                "/s",
            ),
            (
                serde_json::json!({"servers": 2, "response": "1MB"}),
                "flows[0].incast.rate",
                "missing",
            ),
            (
                serde_json::json!({"servers": 2, "response": "1MB", "rate": "2/s",
                                   "client": 8}),
                "flows[0].incast.client",
                "from 0 to 7, got 8",
            ),
            (
                serde_json::json!({"servers": 2, "response": "1MB", "rate": "2/s",
                                   "size": "1MB"}),
                "flows[0].incast.size",
                "allowed are servers, response, rate, client",
            ),
        ];
        for (q, path, msg) in bad {
            let e = with(q.clone()).unwrap_err();
            assert_eq!(e.path, path, "{q}: {e}");
            assert!(e.message.contains(msg), "{q}: {e}");
        }
        // Fields the incast sets are refused beside it, by name.
        let mut v = serde_json::json!({
            "duration": "1s",
            "fabric": {"leaves": 1, "spines": 1, "hosts_per_leaf": 4,
                       "host_rate": "10Gbps", "delay": "10us", "buffer": "1MB"},
            "flows": [{"size": "10pkt",
                       "incast": {"servers": 2, "response": "1MB", "rate": "2/s"}}],
        });
        let e = Scenario::from_json(&v.to_string()).unwrap_err();
        assert_eq!(e.path, "flows[0].size", "{e}");
        v.as_object_mut().unwrap().remove("fabric");
        v["link"] = serde_json::json!({"capacity": "10Gbps", "delay": "10us",
                                       "buffer": "100pkt"});
        v["flows"][0].as_object_mut().unwrap().remove("size");
        v["flows"][0]["rtt"] = serde_json::json!("1ms");
        let e = Scenario::from_json(&v.to_string()).unwrap_err();
        assert_eq!(e.path, "flows[0].incast", "{e}");
    }

    #[test]
    fn a_query_asks_distinct_servers_of_one_client() {
        // 8 hosts: a query of 7 takes every host but its client, for
        // clients drawn or named; clients drawn evenly (10,000 queries,
        // 1,250 a host, a binomial's sd of 2.8%: within 12% is 4 sd).
        let s = leaf_spine(serde_json::json!({})).unwrap();
        let f = s.topology.fabric().unwrap();
        let mut clients = [0u32; 8];
        for id in 0..10_000u64 {
            let h = transfer_hash(1, id, 1);
            let (_, c) = f.query_hosts(None, h, 0);
            clients[c as usize] += 1;
            let mut servers: Vec<u32> = (0..7)
                .map(|k| {
                    let (srv, cl) = f.query_hosts(None, h, k);
                    assert_eq!(cl, c);
                    srv
                })
                .collect();
            servers.sort_unstable();
            servers.dedup();
            assert_eq!(servers.len(), 7);
            assert!(!servers.contains(&c));
        }
        for n in clients {
            assert!((f64::from(n) / 1250.0 - 1.0).abs() < 0.12, "{clients:?}");
        }
        assert_eq!(f.query_hosts(Some(3), 77, 2).1, 3);
    }
}
