//! `link.queues` and `link.scheduler`: a port's several queues, one per
//! traffic class ([`crate::queue::classes`]), and the `class` the flow
//! groups and background sources name.
//!
//! ```toml
//! [link]
//! scheduler = "dwrr"           # or "strict" (the default)
//! [[link.queues]]
//! class = 0                    # 0-7, each once
//! weight = 1                   # dwrr only
//! [[link.queues]]
//! class = 1
//! weight = 3
//! qdisc = "red"                # default: link.qdisc with its params
//! buffer = "200pkt"            # default: link.buffer
//! alpha = 0.5                  # with a [pool]: the class's threshold factor
//! ```

use serde::Deserialize;
use serde_json::{Map, Value};

use super::{
    Background, Buf, BufferMode, FlowGroup, Link, Pool, ScenarioError, Topology, buffer_size,
    check, check_alpha, choose, err, link_info,
};
use crate::queue::QdiscConfig;
use crate::queue::classes::{ClassQueue, ClassSet, MAX_CLASSES, MAX_WEIGHT, Scheduler};
use crate::queue::shared::Algorithm;

/// `[[link.queues]]`: one queue of the port, as written.
#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub(super) struct RawQueue {
    class: i64,
    #[serde(default)]
    qdisc: Option<String>,
    #[serde(default)]
    qdisc_params: Option<Map<String, Value>>,
    #[serde(default)]
    weight: Option<i64>,
    #[serde(default)]
    buffer: Option<Buf>,
    #[serde(default)]
    alpha: Option<f64>,
}

/// Whether a class is 0 (the default, absent from the normalized scenario).
pub(super) fn is_class0(c: &u8) -> bool {
    *c == 0
}

/// The queues of the link at `path` (`link.queues`, `link.scheduler`),
/// each one's discipline and buffer defaulting to the link's (`link`,
/// resolved); `None` without `queues`.
pub(super) fn resolve(
    path: &str,
    scheduler: Option<String>,
    queues: Option<Vec<RawQueue>>,
    link: &Link,
    pool: Option<&Pool>,
) -> Result<Option<ClassSet>, ScenarioError> {
    let Some(raw) = queues else {
        check(scheduler.is_none(), &format!("{path}.scheduler"), || {
            format!(
                "{:?} schedules several queues: give {path}.queues ([[{path}.queues]] tables)",
                scheduler.as_deref().unwrap_or_default()
            )
        })?;
        return Ok(None);
    };
    let scheduler = choose(
        scheduler,
        Scheduler::Strict,
        Scheduler::NAMES,
        &format!("{path}.scheduler"),
        "scheduler",
    )?;
    let n = raw.len();
    check(
        (1..=MAX_CLASSES).contains(&n),
        &format!("{path}.queues"),
        || format!("must hold 1 to {MAX_CLASSES} queues, got {n}"),
    )?;
    let mut seen = [None; MAX_CLASSES];
    let mut out = Vec::with_capacity(n);
    for (i, q) in raw.into_iter().enumerate() {
        let p = |field: &str| format!("{path}.queues[{i}].{field}");
        let class = q.class;
        check(
            (0..MAX_CLASSES as i64).contains(&class),
            &p("class"),
            || format!("must be between 0 and {}, got {class}", MAX_CLASSES - 1),
        )?;
        if let Some(j) = seen[class as usize] {
            return Err(err(
                p("class"),
                format!(
                    "class {class} has a queue already ({path}.queues[{j}]): one queue per class"
                ),
            ));
        }
        seen[class as usize] = Some(i);
        let weight = match (q.weight, scheduler) {
            (None, _) => 1,
            (Some(w), Scheduler::Dwrr) => {
                check(
                    (1..=i64::from(MAX_WEIGHT)).contains(&w),
                    &p("weight"),
                    || format!("must be a whole number between 1 and {MAX_WEIGHT}, got {w}"),
                )?;
                w as u32
            }
            (Some(w), Scheduler::Strict) => {
                return Err(err(
                    p("weight"),
                    format!(
                        "{w}: weights share the link under {path}.scheduler = \"dwrr\", not \"strict\" \
                         (the default)"
                    ),
                ));
            }
        };
        let (mode, buffer_pkts, buffer_bytes) = match q.buffer {
            Some(b) => buffer_size(
                b.0,
                &p("buffer"),
                link.capacity_bps,
                link.bdp_pkts,
                u64::from(link.packet_size_bytes),
            )?,
            None => (link.buffer_mode, link.buffer_pkts, link.buffer_bytes),
        };
        let info = link_info(link.packet_size_bytes, mode, link.capacity_bps);
        // Without qdisc and qdisc_params: the link's discipline as
        // resolved; qdisc_params alone: the link's discipline with them.
        let queue = match (q.qdisc, q.qdisc_params) {
            (None, None) => link.queue,
            (name, params) => {
                let name = name.unwrap_or_else(|| link.queue.name().to_string());
                QdiscConfig::from_params(&name, &params.unwrap_or_default(), info).map_err(
                    |(key, msg)| {
                        if key.is_empty() {
                            err(p("qdisc"), msg)
                        } else {
                            err(p(&format!("qdisc_params.{key}")), msg)
                        }
                    },
                )?
            }
        };
        if let Some(a) = q.alpha {
            check(pool.is_some(), &p("alpha"), || {
                format!("{a}: alpha is a class's factor of a [pool]'s threshold: add a [pool]")
            })?;
            check_alpha(a, &p("alpha"))?;
        }
        out.push(ClassQueue {
            class: class as u8,
            queue,
            weight,
            buffer_pkts,
            buffer_bytes,
            bytes_mode: mode == BufferMode::Bytes,
            alpha: q.alpha,
        });
    }
    Ok(Some(ClassSet {
        scheduler,
        queues: out,
    }))
}

/// Check the queues against the rest of the scenario and give the flow
/// groups and background sources their `class` (`groups`, `bgs`: as
/// written, in order): classes live on one link or a pool's ports (`links`,
/// a chain's, hold none), a pool's algorithm acts on each queue, and every
/// class named has a queue.
pub(super) fn assign(
    topology: &Topology,
    flows: &mut [FlowGroup],
    groups: Vec<Option<i64>>,
    background: &mut [Background],
    bgs: Vec<Option<i64>>,
) -> Result<(), ScenarioError> {
    let (link, pool) = (topology.first(), topology.pool());
    for (i, l) in topology.chain().unwrap_or(&[]).iter().enumerate() {
        check(l.classes.is_none(), &format!("links[{i}].queues"), || {
            "several queues per port are on one link (link) or a pool's ports, not on a chain (links)"
                .into()
        })?;
    }
    if let (Some(p), Some(set)) = (pool, &link.classes) {
        check(p.algorithm != Algorithm::Abm, "pool.algorithm", || {
            "\"abm\" with several queues per port (link.queues) is not modelled (each queue's \
             drain rate): use static, complete, dt or lqd"
                .into()
        })?;
        if p.algorithm == Algorithm::Lqd {
            for (i, q) in set.queues.iter().enumerate() {
                check(
                    q.queue.is_fifo(),
                    &format!("link.queues[{i}].qdisc"),
                    || {
                        format!(
                            "\"lqd\" pushes a packet out of the longest queue's tail, and {:?} serves \
                         several queues: use a FIFO discipline (droptail, red, codel, pie, threshold)",
                            q.queue.name()
                        )
                    },
                )?;
            }
        }
    }
    let classes: Vec<u8> = match &link.classes {
        Some(set) => set.queues.iter().map(|q| q.class).collect(),
        None => vec![0],
    };
    let resolve = |c: Option<i64>, path: String| -> Result<u8, ScenarioError> {
        let Some(c) = c else {
            return Ok(0);
        };
        check(
            classes.iter().any(|&k| i64::from(k) == c),
            &path,
            || match &link.classes {
                None => format!(
                    "{c}: the link has one queue (class 0): give [[link.queues]] for more classes"
                ),
                Some(_) => format!(
                    "{c}: no queue of link.queues has this class: allowed are {}",
                    classes
                        .iter()
                        .map(|k| k.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            },
        )?;
        Ok(c as u8)
    };
    // Classes 0-7 only are ever allowed (the queues' range): a packet's
    // class has three bits.
    debug_assert!(classes.iter().all(|&c| (c as usize) < MAX_CLASSES));
    for (i, (g, c)) in flows.iter_mut().zip(groups).enumerate() {
        g.class = resolve(c, format!("flows[{i}].class"))?;
    }
    for (i, (b, c)) in background.iter_mut().zip(bgs).enumerate() {
        b.class = resolve(c, format!("background[{i}].class"))?;
    }
    Ok(())
}
