//! What a run records (`[output]`, [`Output`]) and its sequential early
//! stop (`[output.stop]`, [`Stop`]).

use super::*;

/// What to record.
#[derive(Clone, Debug, Serialize)]
pub struct Output {
    /// Sampling interval of the time series.
    #[serde(serialize_with = "units::ser_secs", rename = "interval_s")]
    pub interval: SimTime,
    /// Record per-flow congestion windows in the time series.
    pub cwnd: bool,
    /// Transfers of more than this many bytes are "large" in the flows table
    /// (default 100KB, paper 002 section 4.2: "large (>100KB) and small (<100KB)").
    pub large_flow_bytes: u64,
    /// Record a packet trace at the bottleneck: one row per enqueue, drop and
    /// dequeue (packet engine only; default false).
    pub trace: bool,
    /// Measure each half of the statistics window too: the summary gains
    /// `<metric>_half1` and `<metric>_half2` for the window metrics
    /// (packet engine only; default false). Halves that disagree say the
    /// run has not converged.
    pub halves: bool,
    /// End the run at a batch boundary once every verdict it names is
    /// known (packet engine only; `None`: run to `duration`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop: Option<Stop>,
}

/// `output.stop`: a sequential test that ends a run early.
///
/// The statistics window is cut into `batches` equal batches. At the end of
/// batch `k` (`min_batches <= k < batches`) each verdict `metric op bound`
/// is tested on the `k` batch values of its metric (batch means, each
/// batch's value computed as the window's): with mean `m`, sample standard
/// deviation `s` and `h = t(q, k - 1) s / sqrt(k)`, the verdict is known
/// once `bound` lies outside `(m - h, m + h)`. The run stops at the first
/// boundary where every verdict is known; the summary then covers the
/// window up to there (`end_s`, `batches_run`).
///
/// Error: `q = 1 - (1 - confidence) / (batches - min_batches)` splits the
/// error over the boundaries where a run may stop (Bonferroni), so a run
/// stops on the wrong side of a bound with probability at most
/// `1 - confidence`, if its batch values are independent and normal
/// (batches much longer than the metric's correlation time; the batch
/// means method, Law & Kelton, *Simulation Modeling and Analysis*, 5th ed.,
/// section 9.5.3). A metric equal in every batch reads as known.
#[derive(Clone, Debug, Serialize)]
pub struct Stop {
    /// Batches in the statistics window (default 10).
    pub batches: u32,
    /// Batches measured before the first test (default 4).
    pub min_batches: u32,
    /// Probability that a stopped run's verdicts are right (default 0.95).
    pub confidence: f64,
    /// The verdicts to know before stopping.
    pub decide: Vec<Decide>,
}

/// One verdict of [`Stop`]: whether summary metric `metric` is `op` `bound`.
#[derive(Clone, Debug, Serialize)]
pub struct Decide {
    /// A window metric's summary name ([`Stop::METRICS`], or
    /// `goodput_bps_group<g>`).
    pub metric: String,
    /// `">="` or `"<="`.
    pub op: String,
    /// In the metric's unit (a fraction, seconds, packets or bits/s).
    pub bound: f64,
}

impl Stop {
    /// The window metrics a run can stop on (besides `goodput_bps_group<g>`):
    /// each is measured batch by batch as over the whole window. Jain's index
    /// and flow completion times are not: over a batch they measure another
    /// thing than over the window.
    pub const METRICS: &[&str] = &[
        "utilization",
        "goodput_bps",
        "drop_rate",
        "mean_queue_pkts",
        "mean_queue_delay_s",
        "p50_queue_delay_s",
        "p99_queue_delay_s",
    ];

    /// Start of batch boundary `i` (`0..=batches`) of the window `[warmup, duration]`.
    pub fn boundary(&self, i: u32, warmup: SimTime, duration: SimTime) -> SimTime {
        let span = (duration.0 - warmup.0) as u128;
        SimTime(warmup.0 + (span * u128::from(i) / u128::from(self.batches)) as u64)
    }
}

/// What to record, the sampling interval checked against the run's
/// `duration`; `groups` flow groups (for `output.stop`).
pub(super) fn resolve_output(
    out: RawOutput,
    duration: SimTime,
    groups: usize,
) -> Result<Output, ScenarioError> {
    let large_flow = out.large_flow.map(|s| s.0).unwrap_or(100_000);
    check(large_flow > 0, "output.large_flow", || {
        format!("must be > 0B, got {large_flow}B")
    })?;
    let interval = out
        .interval
        .map(|d| d.0)
        .unwrap_or(SimTime::from_millis(100));
    check(interval > SimTime::ZERO, "output.interval", || {
        format!("must be > 0s, got {interval}")
    })?;
    check(
        duration.0 / interval.0.max(1) <= 10_000_000,
        "output.interval",
        || {
            format!(
                "{interval} gives more than 10 million samples over duration {duration}: raise output.interval or shorten duration"
            )
        },
    )?;

    Ok(Output {
        interval,
        cwnd: out.cwnd.unwrap_or(false),
        large_flow_bytes: large_flow,
        trace: out.trace.unwrap_or(false),
        halves: out.halves.unwrap_or(false),
        stop: out.stop.map(|st| resolve_stop(st, groups)).transpose()?,
    })
}

/// `output.stop`, checked; `groups` flow groups.
pub(super) fn resolve_stop(raw: RawStop, groups: usize) -> Result<Stop, ScenarioError> {
    let batches = raw.batches.unwrap_or(10);
    check((2..=1000).contains(&batches), "output.stop.batches", || {
        format!("must be between 2 and 1000, got {batches}")
    })?;
    let min_batches = raw.min_batches.unwrap_or(4.min(batches));
    check(
        (2..=batches).contains(&min_batches),
        "output.stop.min_batches",
        || format!("must be between 2 and output.stop.batches ({batches}), got {min_batches}"),
    )?;
    let confidence = raw.confidence.unwrap_or(0.95);
    check(
        confidence > 0.0 && confidence < 1.0,
        "output.stop.confidence",
        || format!("must be between 0 and 1 (exclusive), got {confidence}"),
    )?;
    check(!raw.decide.is_empty(), "output.stop.decide", || {
        "must name at least one verdict, e.g. {metric = \"utilization\", op = \">=\", bound = 0.98}"
            .into()
    })?;
    let mut decide = Vec::with_capacity(raw.decide.len());
    for (i, d) in raw.decide.into_iter().enumerate() {
        let path = |f: &str| format!("output.stop.decide[{i}].{f}");
        let group = d
            .metric
            .strip_prefix("goodput_bps_group")
            .and_then(|g| g.parse::<usize>().ok());
        let known = Stop::METRICS.contains(&d.metric.as_str()) || group.is_some_and(|g| g < groups);
        check(known, &path("metric"), || {
            format!(
                "unknown metric {:?}: one of {}, or goodput_bps_group<g> for a flow group g below {groups}",
                d.metric,
                Stop::METRICS.join(", ")
            )
        })?;
        check(d.op == ">=" || d.op == "<=", &path("op"), || {
            format!("must be \">=\" or \"<=\", got {:?}", d.op)
        })?;
        check(d.bound.is_finite(), &path("bound"), || {
            format!("must be a finite number, got {}", d.bound)
        })?;
        decide.push(Decide {
            metric: d.metric,
            op: d.op,
            bound: d.bound,
        });
    }
    Ok(Stop {
        batches,
        min_batches,
        confidence,
        decide,
    })
}
