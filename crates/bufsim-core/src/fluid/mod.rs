//! The fluid engine: ODE models of TCP windows and the bottleneck queue.
//!
//! * `model = "mgt"` ([`mgt`]): per-flow window ODEs in the
//!   Misra-Gong-Towsley form of paper 004 eqs. (1)-(5), drop-tail (eq. (4))
//!   or RED, with paper 004's loss-synchronization module (section II.C-D)
//!   when `fluid.sync` is set;
//! * `model = "hybrid"` ([`hybrid`]): paper 003's aggregate AIMD hybrid
//!   model, whose mean rate and queue Theorem 1 gives in closed form.
//!
//! Both take the same [`Scenario`] as the packet engine and return the same
//! [`RunOutput`]. Call [`check`] first: it refuses, with a field path, what
//! has no fluid form; [`run`] never panics on a checked scenario.

pub mod cc;
pub mod hybrid;
pub mod mgt;
pub mod red;
pub mod stats;
pub mod sync;

use crate::engine::Progress;
use crate::output::RunOutput;
use crate::queue::red::{RedMode, RedVariant};
use crate::queue::{QdiscConfig, fluid_qdiscs};
use crate::scenario::{Decrease, FluidModel, Scenario, ScenarioError, Topology, err};
use crate::tcp::cc::CcConfig;

/// The default integration step (the shortest RTT / 20, at least 1 us) must
/// fit 4 times in the shortest RTT; when it does not, the RTT is what to change.
/// (A `fluid.step` the user wrote was checked when the scenario was read.)
fn check_default_step(s: &Scenario) -> Result<(), ScenarioError> {
    if s.fluid.step_given {
        return Ok(());
    }
    let step = s.fluid.step;
    for (g, grp) in s.flows.iter().enumerate() {
        if let Some(r) = grp.rtts.iter().copied().min()
            && step.0 > r.0 / 4
        {
            return Err(err(
                format!("flows[{g}].rtt"),
                format!(
                    "RTT {r} is too short for the fluid engine: it integrates in steps of at least 1us and needs 4 per RTT (RTT >= 4us); use engine=\"packet\""
                ),
            ));
        }
    }
    Ok(())
}

/// Refuse what the fluid engine cannot model, naming the field, the value and
/// what is allowed.
pub fn check(s: &Scenario) -> Result<(), ScenarioError> {
    let link = match &s.topology {
        Topology::Link {
            link,
            reverse: None,
        } => link,
        Topology::Pool { .. } => {
            return Err(err(
                "pool",
                "the fluid engine models one link with its own buffer, not ports sharing a pool: use engine=\"packet\"",
            ));
        }
        Topology::Fabric { .. } => {
            return Err(err(
                "fabric",
                "the fluid engine models one link with its own buffer, not a fabric of switches \
                 sharing buffers over paths of links: use engine=\"packet\"",
            ));
        }
        Topology::Chain { .. } => {
            return Err(err(
                "links",
                "the fluid engine models one bottleneck, not a chain of them: use engine=\"packet\"",
            ));
        }
        Topology::Link {
            reverse: Some(_), ..
        } => {
            return Err(err(
                "reverse",
                "the fluid engine's ACKs return over an uncongested path (its windows change at the \
                 data's rate, Misra, Gong & Towsley 2000): it does not queue ACKs behind reverse \
                 traffic; use engine=\"packet\"",
            ));
        }
    };
    if let Some(c) = &link.classes {
        return Err(err(
            "link.queues",
            format!(
                "the fluid engine models one queue per link, not {} queues of traffic classes: use \
                 engine=\"packet\"",
                c.queues.len()
            ),
        ));
    }
    let q = link.queue.name();
    if !link.queue.has_fluid() {
        return Err(err(
            "link.qdisc",
            format!(
                "the fluid engine models {} only, got {q:?}: use engine=\"packet\"",
                fluid_qdiscs().join(" and ")
            ),
        ));
    }
    if let QdiscConfig::Red(c) = &link.queue {
        //= The fluid RED (fluid/red.rs, MGT) has a fixed max_p, drops (never
        //= marks) and counts packets: refuse what it would silently ignore.
        let refused = [
            (
                c.adaptive,
                "adaptive",
                "true: the fluid RED model keeps max_p fixed; set adaptive = false",
            ),
            (
                c.ecn,
                "ecn",
                "true: the fluid RED model drops and never marks; set ecn = false",
            ),
            (
                c.mode == RedMode::Bytes,
                "mode",
                "\"bytes\": the fluid RED model counts the queue in packets; set mode = \"packets\"",
            ),
            (
                c.wait,
                "wait",
                "true: the fluid RED model has no per-packet count to space its drops by; set wait = false",
            ),
            (
                c.variant == RedVariant::Ns3,
                "variant",
                "\"ns3\": the fluid RED model has none of ns-3's per-packet rules (no drop with \
                 one packet in the disc, the count); set variant = \"floyd\"",
            ),
        ];
        if let Some((_, field, why)) = refused.iter().find(|(on, _, _)| *on) {
            return Err(err(
                format!("link.qdisc_params.{field}"),
                format!("{why} or use engine=\"packet\""),
            ));
        }
    }
    if s.output.trace {
        return Err(err(
            "output.trace",
            "true: the fluid engine has no packets to trace; set trace = false or use engine=\"packet\"",
        ));
    }
    if s.output.halves {
        return Err(err(
            "output.halves",
            "true: the fluid engine measures the whole window only; set halves = false or use engine=\"packet\"",
        ));
    }
    if s.output.stop.is_some() {
        return Err(err(
            "output.stop",
            "the fluid engine has no batches to stop on (its runs are deterministic and run to duration); remove output.stop or use engine=\"packet\"",
        ));
    }
    check_default_step(s)?;
    let hybrid = s.fluid.model == FluidModel::Hybrid;
    if hybrid {
        if s.flows.is_empty() {
            return Err(err(
                "flows",
                "the hybrid model (fluid.model = \"hybrid\") needs at least one TCP flow",
            ));
        }
        if q != "droptail" {
            return Err(err(
                "link.qdisc",
                format!(
                    "the hybrid model (fluid.model = \"hybrid\") is defined for droptail only (paper 003 Theorem 1), got {q:?}"
                ),
            ));
        }
    }
    for (g, grp) in s.flows.iter().enumerate() {
        let p = |f: &str| format!("flows[{g}].{f}");
        if grp.kind != crate::traffic::Kind::Persistent {
            let field = match grp.kind {
                crate::traffic::Kind::Open => "arrival",
                crate::traffic::Kind::Closed => "users",
                _ => "size",
            };
            return Err(err(
                p(field),
                format!(
                    "{:?} traffic: the fluid engine models persistent flows only; remove {field} or use engine=\"packet\"",
                    grp.kind
                ),
            ));
        }
        if hybrid && !matches!(grp.cc, CcConfig::Aimd(_) | CcConfig::NewReno(_)) {
            return Err(err(
                p("tcp"),
                format!(
                    "the hybrid model (fluid.model = \"hybrid\") is paper 003's AIMD model: allowed are aimd, newreno, reno; got {:?}",
                    grp.cc.name()
                ),
            ));
        }
        if let Err(why) = grp.cc.fluid_law() {
            return Err(err(
                p("tcp"),
                format!("{:?}: {why}; use engine=\"packet\"", grp.cc.name()),
            ));
        }
        if !hybrid && s.fluid.decrease == Decrease::Rate && !grp.cc.has_rate_form() {
            return Err(err(
                p("tcp"),
                format!(
                    "{:?} has no rate form (its window depends on the time of the last loss): use fluid.decrease = \"event\", or tcp {}",
                    grp.cc.name(),
                    crate::tcp::cc::rate_form_variants().join(", ")
                ),
            ));
        }
        if let Some(a) = grp.access_rate_bps {
            return Err(err(
                p("access_rate"),
                format!(
                    "{a}bps: the fluid engine does not model access links; remove access_rate or use engine=\"packet\""
                ),
            ));
        }
        if grp.loss > 0.0 {
            return Err(err(
                p("loss"),
                format!(
                    "{}: random path loss has no fluid form in this engine; set it to 0 or use engine=\"packet\"",
                    grp.loss
                ),
            ));
        }
        // Name the stack profile when the value came from it. A value of
        // the default profile (the group names neither the field nor a
        // stack) is left out, not refused: the fluid laws model no stack,
        // and a scenario means a stack only when it names one.
        let from = match grp.stack {
            crate::tcp::stack::Stack::Rfc => String::new(),
            st => format!(" (from stack = {:?})", st.name()),
        };
        if grp.rules.hystart && !grp.defaulted.hystart {
            return Err(err(
                p("hystart"),
                format!(
                    "true{from}: HyStart++ ends slow start on a rise of the per-ACK RTT, which the fluid laws do not resolve; set hystart = false or use engine=\"packet\""
                ),
            ));
        }
        if grp.rules.delayed_ack && !grp.defaulted.delayed_ack {
            return Err(err(
                p("delayed_ack"),
                format!(
                    "true{from}: the fluid laws assume one ACK per packet; set delayed_ack = false or use engine=\"packet\""
                ),
            ));
        }
    }
    Ok(())
}

/// Run the fluid model the scenario selects. `progress` is called every
/// 100000 steps with the simulated time; when it returns false the run stops
/// and the output has `completed = false`. The scenario must pass [`check`]
/// (a scenario that does not is run as far as it can be modelled).
pub fn run(s: &Scenario, progress: Progress) -> RunOutput {
    match s.fluid.model {
        FluidModel::Hybrid if !s.flows.is_empty() => hybrid::run(s, progress),
        _ => mgt::run(s, progress),
    }
}
