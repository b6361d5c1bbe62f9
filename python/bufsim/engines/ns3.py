"""The ns3 engine (``engine="ns3"``): the scenario run in the installed ns-3
by :mod:`bufsim.ns3`'s C++ driver, to check the packet engine against a
simulator researchers trust. One module of :data:`bufsim.engines.ENGINES`:
it says what the engine is; :mod:`bufsim.ns3` does the work."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bufsim import _core, fmt
from bufsim.scenario import Scenario, scenario_error

label = "ns-3"
transfers = True
#: advise can run it at the recommended buffer (``--verify-ns3``).
verifies = True


def why_unavailable() -> str:
    """Why ns-3 cannot run here, one line ('' when it can)."""
    from bufsim import ns3

    return "" if ns3.available() else ns3.INSTALL_HINT


def _no_fabric(scenario: Scenario) -> None:
    """Refuse a fabric (``[fabric]``). Here, not in the driver's module,
    whose source keys the stored ns3 runs (its ``build``)."""
    if "fabric" in scenario.normalized:
        raise scenario_error(
            "fabric",
            "the ns3 engine builds one bottleneck or a chain of point-to-point links; "
            "ns-3.37's point-to-point devices share no buffer, so a fabric's switches cannot "
            "be built: use engine='packet'",
        )


def _no_initial_rto(scenario: Scenario) -> None:
    """Refuse ``flows[].initial_rto``. ns-3.37 has it as two attributes
    the driver does not set: TcpSocket ``ConnTimeout`` (3 s), the SYN's
    wait (TcpSocketBase::SendEmptyPacket: "m_rto = m_cnTimeout *
    backoffCount"), and RttEstimator ``InitialEstimation`` (1 s), from
    which data's RTO before a sample is "Max(m_rtt->GetEstimate() +
    Max(m_clockGranularity, m_rtt->GetVariation() * 4), m_minRto)". Here,
    not in the driver's module, whose source keys the stored ns3 runs."""
    from bufsim.ns3 import group_paths

    norm = scenario.normalized
    for where, g in zip(group_paths(norm), norm["flows"], strict=True):
        if "initial_rto_s" in g:
            raise scenario_error(
                f"{where}.initial_rto",
                f"{fmt.metric('initial_rto_s', g['initial_rto_s'])}: the ns3 engine keeps "
                "ns-3.37's initial RTO (ConnTimeout 3 s for the SYN, InitialEstimation 1 s for "
                "data); remove initial_rto or use engine='packet' or engine='ns2'",
            )


def _no_red_wait(scenario: Scenario) -> None:
    """Refuse RED's ``wait``: the driver sets ns-3's ``Wait`` false (Floyd
    and Jacobson's spacing, the packet engine's default). Here, not in the
    driver's module, whose source keys the stored ns3 runs."""
    norm = scenario.normalized
    links = [(f"links[{i}]", k) for i, k in enumerate(norm.get("links") or [])] or [
        ("link", norm["link"])
    ]
    if "reverse" in norm:
        links.append(("reverse", norm["reverse"]["link"]))
    for where, link in links:
        if link["qdisc"] == "red" and link["qdisc_params"]["wait"]:
            raise scenario_error(
                f"{where}.qdisc_params.wait",
                "true: the ns3 engine runs RedQueueDisc with Wait false; set wait = false or "
                "use engine='packet' or engine='ns2'",
            )


def check(scenario: Scenario) -> None:
    """Refuse what ns-3 cannot express (:func:`bufsim.ns3.check`).

    Raises
    ------
    ScenarioError
        Naming the field, its value and what the ns3 engine allows.
    """
    _no_fabric(scenario)
    _no_initial_rto(scenario)
    _no_red_wait(scenario)
    from bufsim import ns3

    ns3.check(scenario)


def estimate(scenario: Scenario) -> dict[str, Any]:
    """What a run costs: ns-3 simulates the packet engine's packets, so its
    work and memory are counted as the packet engine's (its time is far
    longer, see ``bufsim validate-engines``)."""
    return dict(scenario.resolved.estimate("packet"))


def run(scenario: Scenario, progress: Callable[[float], Any] | None = None) -> dict[str, Any]:
    """ns-3's raw outputs in the packet engine's shape, with ns-3's version
    in ``provenance`` (``ns3_version``).

    Raises
    ------
    ScenarioError
        What ns-3 cannot express.
    EngineError
        ns-3 missing, or its driver failed.
    """
    _no_fabric(scenario)
    _no_initial_rto(scenario)
    _no_red_wait(scenario)
    from bufsim import ns3

    raw = ns3.run(scenario, progress)
    raw["provenance"] = {**raw.get("provenance", {}), "ns3_version": raw.pop("ns3_version")}
    return raw


def version() -> str:
    """The installed ns-3's version (:func:`bufsim.ns3.version`)."""
    from bufsim import ns3

    return ns3.version()


def build() -> str:
    """``version+ns3-<ns-3 version>-<hash>`` (:func:`bufsim.ns3.build`: the
    driver and its scenario mapping), so a change to the Rust engines keeps
    the (costly) ns-3 runs."""
    from bufsim import ns3

    return f"{_core.__version__}+ns3-{ns3.build()}"
