//! Settings of the fluid engine (`[fluid]`, [`Fluid`]): its model, step,
//! loss synchronization and decrease form. The packet engine ignores them.

use super::*;

/// Fluid models the fluid engine offers (`fluid.model`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FluidModel {
    /// Per-flow window ODEs of Misra-Gong-Towsley as in paper 004 eqs. (1)-(5).
    Mgt,
    /// Paper 003's aggregate AIMD hybrid model, for Theorem 1.
    Hybrid,
}

impl FluidModel {
    /// The names a scenario may give.
    pub const NAMES: &[(&str, FluidModel)] =
        &[("mgt", FluidModel::Mgt), ("hybrid", FluidModel::Hybrid)];
}

/// Window-decrease forms of the fluid engine (`fluid.decrease`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decrease {
    /// A flow reduces its window once per congestion event it records, as
    /// TCP's fast recovery does (RFC 6582).
    Event,
    /// Paper 004 eq. (1) literally: dW/dt = -b W lambda(t - R).
    Rate,
}

impl Decrease {
    /// The names a scenario may give.
    pub const NAMES: &[(&str, Decrease)] = &[("event", Decrease::Event), ("rate", Decrease::Rate)];
}

/// Which flows record the loss at a congestion event (`fluid.sync_policy`;
/// the fluid engine's loss-synchronization module, `fluid::sync`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SyncPolicy {
    /// The m_k flows with the highest arrival rate (paper 004 section II.D.1:
    /// "P l_k is the set of m_k flows with highest sending rates").
    HighestRate,
    /// m_k flows chosen uniformly at random.
    Random,
    /// Every flow (m_k ignored; the same as X = 1).
    All,
}

impl SyncPolicy {
    /// The names a scenario may give, with their policies.
    pub const NAMES: &[(&str, SyncPolicy)] = &[
        ("highest_rate", SyncPolicy::HighestRate),
        ("random", SyncPolicy::Random),
        ("all", SyncPolicy::All),
    ];
}

/// Settings of the fluid engine (`[fluid]`), defaults filled in. The packet
/// engine ignores them.
#[derive(Clone, Debug, Serialize)]
pub struct Fluid {
    /// `step`: fixed integration step. Default: the shortest RTT / 20, rounded
    /// down to a whole microsecond and capped at 4 ms (4 ms for paper 004's
    /// 80-260 ms RTTs): utilizations of paper 004's 10 Gbps scenarios then
    /// agree with 1 ms steps within 0.4%.
    #[serde(serialize_with = "units::ser_secs", rename = "step_s")]
    pub step: SimTime,
    /// `model`: `"mgt"` (default) or `"hybrid"`.
    pub model: FluidModel,
    /// `sync`: the minimum synchronized fraction X of paper 004 eq. (8), in
    /// (0, 1]. Absent (None): no loss-synchronization module; the overflow is
    /// split among all flows in proportion to their rates (eq. (5)). In the
    /// hybrid model, the fraction n~/n of flows signalled at each congestion.
    pub sync: Option<f64>,
    /// `sync_policy`: which flows record the loss at a congestion event:
    /// `"highest_rate"` (default, as paper 004 section II.D), `"random"`, `"all"`.
    pub sync_policy: SyncPolicy,
    /// `sync_sd`: standard deviation of the normal draw of m_k, as a fraction
    /// of N. The draw is centred on X N and clipped to [X N, N] (paper 004
    /// gives neither mean nor sd; X is its "minimum level of
    /// synchronization"). The default (1 - X)/4 puts the middle of [X N, N]
    /// at +2 sd: the mean synchronized fraction is about X + 0.1 (1 - X), and
    /// an event that hits all N flows is rare unless X = 1.
    pub sync_sd: f64,
    /// `decrease`: `"event"` (default: a flow reduces its window once per
    /// congestion event it records, as TCP's fast recovery does, RFC 6582) or
    /// `"rate"` (paper 004 eq. (1) literally: dW/dt = -b W lambda(t - R)).
    pub decrease: Decrease,
    /// Whether `step` was written in the scenario (else it is the default).
    #[serde(skip)]
    pub step_given: bool,
}

pub(super) fn resolve_fluid(f: RawFluid, rtts: &[SimTime]) -> Result<Fluid, ScenarioError> {
    let model = choose(
        f.model,
        FluidModel::Mgt,
        FluidModel::NAMES,
        "fluid.model",
        "fluid model",
    )?;
    let decrease = choose(
        f.decrease,
        Decrease::Event,
        Decrease::NAMES,
        "fluid.decrease",
        "decrease form",
    )?;
    if let Some(x) = f.sync {
        check(x > 0.0 && x <= 1.0, "fluid.sync", || {
            format!("the minimum synchronized fraction X must be in (0, 1], got {x}")
        })?;
    } else {
        let hint = "is set but fluid.sync is absent: set fluid.sync (X in (0, 1]) to enable the loss-synchronization module";
        check(f.sync_policy.is_none(), "fluid.sync_policy", || hint.into())?;
        check(f.sync_sd.is_none(), "fluid.sync_sd", || hint.into())?;
    }
    let sync_policy = choose(
        f.sync_policy,
        SyncPolicy::HighestRate,
        SyncPolicy::NAMES,
        "fluid.sync_policy",
        "policy",
    )?;
    let sync_sd = f
        .sync_sd
        .unwrap_or_else(|| f.sync.map(|x| (1.0 - x) / 4.0).unwrap_or(0.0));
    check((0.0..=10.0).contains(&sync_sd), "fluid.sync_sd", || {
        format!("must be a fraction of the number of flows between 0 and 10, got {sync_sd}")
    })?;
    let min_rtt = rtts.iter().copied().min();
    let step = match f.step {
        Some(d) => d.0,
        None => {
            let us = min_rtt
                .map(|r| r.0 / 20 / 1_000_000)
                .unwrap_or(4_000)
                .clamp(1, 4_000);
            SimTime::from_micros(us)
        }
    };
    // A step the user wrote is checked here; the default step's limit (set
    // by the RTTs, which the packet engine also reads) is the fluid engine's
    // check (`fluid::check`), so that a scenario the fluid engine cannot
    // integrate still runs on the packet engine. The number of steps is the
    // run's cost (`cost.rs`), limited before a run starts.
    if f.step.is_some() {
        check(step >= SimTime::from_micros(1), "fluid.step", || {
            format!("must be >= 1us, got {step}")
        })?;
        if let Some(r) = min_rtt {
            check(step.0 <= r.0 / 4, "fluid.step", || {
                format!(
                    "{step} is longer than a quarter of the shortest RTT {r}: the delayed loss feedback needs at least 4 steps per RTT"
                )
            })?;
        }
    }
    Ok(Fluid {
        step,
        step_given: f.step.is_some(),
        model,
        sync: f.sync,
        sync_policy,
        sync_sd,
        decrease,
    })
}
