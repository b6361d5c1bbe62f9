//! Traffic beside and within the flow groups: open-loop background sources
//! (`[[background]]`, [`Background`]) and a group's transfer sizes,
//! arrivals, think times and cap on active transfers (the `traffic` module's
//! laws, checked against the link and the run).

use super::*;

/// Background traffic kinds (`background[].kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BackgroundKind {
    /// Poisson packet arrivals of a fixed size (paper 000 section IV.B).
    Poisson,
}

impl BackgroundKind {
    /// The names a scenario may give.
    pub const NAMES: &[(&str, BackgroundKind)] = &[("poisson", BackgroundKind::Poisson)];
}

/// Open-loop background traffic crossing the bottleneck.
#[derive(Clone, Debug, Serialize)]
pub struct Background {
    /// Kind.
    pub kind: BackgroundKind,
    /// Mean rate, bits/s.
    pub rate_bps: f64,
    /// Packet size, bytes.
    pub packet_size_bytes: u32,
    /// The port of the `pool` it crosses (0 without a pool; absent from the
    /// normalized scenario when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub port: u32,
    /// The link of a chain it crosses, as a one-element list (empty
    /// without a chain, and then absent).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<u32>,
    /// Its traffic class (as a flow group's).
    #[serde(skip_serializing_if = "classes::is_class0")]
    pub class: u8,
}

/// Background traffic, each source's rate checked against the link's
/// capacity `cap` (bits/s).
pub(super) fn resolve_background(
    raw: Vec<RawBackground>,
    caps: &[f64],
    ports: u32,
) -> Result<Vec<Background>, ScenarioError> {
    let n_links = caps.len();
    let mut background = Vec::new();
    for (i, b) in raw.into_iter().enumerate() {
        let p = |field: &str| format!("background[{i}].{field}");
        let kind = choose(
            Some(b.kind),
            BackgroundKind::Poisson,
            BackgroundKind::NAMES,
            &p("kind"),
            "background kind",
        )?;
        let rate = b.rate.0.0;
        check(rate > 0.0, &p("rate"), || {
            format!("must be > 0bps, got {rate}bps")
        })?;
        // On a chain, the one link it crosses (default the first).
        let links = match b.links {
            Some(v) if n_links > 1 => resolve_links(Some(&v), &p("links"), n_links, false)?,
            None if n_links > 1 => vec![0],
            v => {
                resolve_links(v.as_deref(), &p("links"), n_links, false)?;
                Vec::new()
            }
        };
        let (cap, what) = match links.first() {
            Some(&k) => (caps[k as usize], format!("links[{k}].capacity")),
            None => (caps[0], "link.capacity".to_string()),
        };
        check(rate < 10.0 * cap, &p("rate"), || {
            format!("{rate}bps is more than 10 times {what}: the queue would only overflow")
        })?;
        let ps = b.packet_size.0;
        check((40..=65_535).contains(&ps), &p("packet_size"), || {
            format!("must be between 40B and 65535B, got {ps}B")
        })?;
        background.push(Background {
            kind,
            rate_bps: rate,
            packet_size_bytes: ps as u32,
            port: resolve_port(b.port, &p("port"), ports)?,
            links,
            class: 0,
        });
    }

    Ok(background)
}

/// A flow group's traffic (the `traffic` module): sizes, arrivals, think
/// times and the cap on active transfers.
pub(super) struct Traffic {
    pub(super) size: Option<SizeDist>,
    pub(super) mean_size: Option<f64>,
    /// Transfers per second (open loop).
    pub(super) rate: Option<f64>,
    pub(super) load: Option<f64>,
    /// Transfers per arrival, and the period of periodic arrivals.
    pub(super) burst: u32,
    pub(super) every: Option<SimTime>,
    pub(super) think: Option<ThinkDist>,
    pub(super) max_active: Option<u32>,
}

/// A flow group's traffic, checked against its kind, the link's capacity
/// (bits/s) and the run's duration.
pub(super) fn group_traffic(
    f: &RawFlows,
    i: usize,
    kind: Kind,
    mss: u64,
    cap: f64,
    duration: SimTime,
) -> Result<Traffic, ScenarioError> {
    let p = |field: &str| group_path(i, field);
    // Traffic: sizes, arrivals, users (traffic module).
    let size = match &f.size {
        None => None,
        Some(v) => Some(
            SizeDist::parse(v, mss as u32)
                .map_err(|(sub, m)| err(format!("{}{sub}", p("size")), m))?,
        ),
    };
    let mean_size = size.as_ref().map(|d| d.mean_pkts());
    let (rate, load, burst, every) = match &f.arrival {
        None => (None, None, 1, None),
        Some(v) => {
            let a = Arrival::parse(v).map_err(|m| err(p("arrival"), m))?;
            let bits = mean_size.expect("checked: open loop has a size") * mss as f64 * 8.0;
            let n = f64::from(a.burst);
            // Transfers per second: `rate` and `every` count arrivals of
            // `burst` transfers each; `load` is in transfers' bytes.
            let r = match a.epochs {
                Epochs::Rate(r) => r * n,
                Epochs::Load(l) => l * cap / bits,
                Epochs::Every(t) => n / t.as_secs_f64(),
            };
            let every = match a.epochs {
                Epochs::Every(t) => Some(t),
                _ => None,
            };
            (Some(r), Some(r * bits / cap), a.burst, every)
        }
    };
    if let Some(r) = rate {
        check(r * duration.as_secs_f64() <= 1e9, &p("arrival"), || {
            format!("{r:.4} flows/s over {duration} is more than 1e9 flows")
        })?;
    }
    let think = match (&f.think, kind) {
        (None, Kind::Closed) => {
            return Err(err(
                p("think"),
                "missing: closed-loop users need a think time, e.g. think = \"5s\" (exponential mean)",
            ));
        }
        (None, _) => None,
        (Some(_), k) if k != Kind::Closed => {
            return Err(err(
                p("think"),
                "only closed-loop groups (users = U) think between transfers",
            ));
        }
        (Some(v), _) => Some(ThinkDist::parse(v).map_err(|m| err(p("think"), m))?),
    };
    let max_active = match (f.max_active, kind) {
        (None, Kind::Open) => Some(DEFAULT_MAX_ACTIVE),
        (None, _) => None,
        (Some(m), Kind::Open) => {
            check(
                (1..=MAX_FLOWS as i64).contains(&m),
                &p("max_active"),
                || format!("must be a whole number of flows from 1 to {MAX_FLOWS}, got {m}"),
            )?;
            Some(m as u32)
        }
        (Some(m), _) => {
            return Err(err(
                p("max_active"),
                format!("{m}: only open-loop groups (arrival) have a cap on active flows"),
            ));
        }
    };
    Ok(Traffic {
        size,
        mean_size,
        rate,
        load,
        burst,
        every,
        think,
        max_active,
    })
}
