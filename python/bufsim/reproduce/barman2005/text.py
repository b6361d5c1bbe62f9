"""Paper 001's setup, findings and captions: the templates of ``prose.toml``
filled with the runs' numbers and the design's constants.
"""

from __future__ import annotations

import math

import pandas as pd

from bufsim.reproduce import (
    Finding,
    Prose,
    prose,
    templates,
)
from bufsim.reproduce.barman2005.design import (
    BASE,
    BASE_25,
    FULL_BUFFER_PKTS,
    TWO_FLOW_BUFFERS,
    TWO_FLOW_RTTS_MS,
)
from bufsim.reproduce.barman2005.runs import (
    _bdp_25,
    _ns2_at,
    ared_scenario,
    gbps25,
    ns2_runs,
    shared_loss_ratio,
    two_flows,
)

#: The prose templates (prose.toml, shipped beside this module).
TEXT = templates(__package__)


def setup() -> Prose:
    """What is reproduced and how bufsim's setup differs from the paper's (Markdown)."""
    ared_1g, ared_25g = (ared_scenario(b)["link"]["qdisc_params"] for b in (BASE, BASE_25))
    return prose(
        TEXT["setup"],
        n=10,
        cap=1.0,
        d=50.0,
        r0=115.5,
        r1=124.5,
        rm=120.0,
        mss=1.0,
        bdp=FULL_BUFFER_PKTS,
        l1=0.9,
        f1=0.1,
        l2=0.98,
        f2=0.2,
        cap2=2.5,
        a1=ared_1g["min_th"],
        a2=ared_1g["max_th"],
        b1=ared_25g["min_th"],
        b2a=ared_25g["max_th"],
        d2=10.0,
        q0=38.0,
        q1=142.0,
        b2=6250,
        p35=0.35,
        real=6250 / _bdp_25()[1],
        rl=TWO_FLOW_RTTS_MS[0],
        rs=TWO_FLOW_RTTS_MS[1],
        bu=TWO_FLOW_BUFFERS["under-buffered"],
        bo=TWO_FLOW_BUFFERS["over-buffered"],
    )


def findings(table: pd.DataFrame) -> list[Finding]:
    """What the runs show, each beside the figure it explains (Markdown, numbers from ``table``)."""
    t = table.set_index("fraction")
    g = gbps25(table).set_index("fraction")
    two = two_flows(table).set_index("case")
    n = ns2_runs(table)
    return [
        Finding(
            "Drop-tail: the packet engine's bursts cost utilization at small buffers",
            prose(
                TEXT["findings"]["utilization"],
                f1=0.1,
                f0=min(t.index),
                m1=t.loc[0.1, "model"],
                p1=t.loc[0.1, "packet"],
                u1=t.loc[0.1, "fluid"],
                p0=t.loc[min(t.index), "packet"],
                m0=t.loc[min(t.index), "model"],
                s1=t.loc[0.1, "packet_sync"],
            ),
            "utilization",
        ),
        Finding(
            "RED: synchronized early drops keep the link below the fixed point",
            prose(
                TEXT["findings"]["red"],
                f1=0.1,
                f2=0.2,
                a1=t.loc[0.1, "red_ared_packet"],
                a2=t.loc[0.2, "red_ared_packet"],
                n1=_ns2_at(n, "red", "utilization", 0.1),
                n2=_ns2_at(n, "red", "utilization", 0.2),
                r1=t.loc[0.1, "red_packet"],
                r2=t.loc[0.2, "red_packet"],
                m1=t.loc[0.1, "red_model"],
                m2=t.loc[0.2, "red_model"],
                s=t.loc[0.2, "red_ared_packet_sync"],
            ),
            "red",
        ),
        Finding(
            "At 2.5 Gbps the smallest buffer is a low-utilization state",
            prose(
                TEXT["findings"]["utilization_25g"],
                cap=2.5,
                p=g["packet"].iloc[0],
                m=g["model"].iloc[0],
                q=g["packet_queue"].iloc[0],
            ),
            "utilization_25g",
        ),
        Finding(
            "Two flows: the shorter RTT gets more",
            prose(
                TEXT["findings"]["two_flows"],
                rs=TWO_FLOW_RTTS_MS[1],
                rl=TWO_FLOW_RTTS_MS[0],
                ru=two.loc["under-buffered", "ratio"],
                ro=two.loc["over-buffered", "ratio"],
            )
            + _two_flows_ns2(two, n),
            "two_flows",
        ),
    ]


def _two_flows_ns2(two: pd.DataFrame, n: pd.DataFrame) -> str:
    """ns-2.35's two-flow ratios beside the ratios for losses both flows
    share (:func:`shared_loss_ratio`), where ns-2 ran them (the full
    version)."""
    nu, no = (_ns2_at(n, k, "ratio") for k in ("under-buffered", "over-buffered"))
    if math.isnan(nu) or math.isnan(no):
        return ""
    su, so = (
        shared_loss_ratio(float(two.loc[k, "rtt_ratio_queue"]))
        for k in ("under-buffered", "over-buffered")
    )
    return " " + prose(TEXT["findings"]["two_flows_ns2"], nu=nu, no=no, su=su, so=so)


def captions(table: pd.DataFrame) -> dict[str, Prose]:
    """One sentence per figure of :func:`figures`: what it shows and how to read it."""
    return {
        "utilization": prose(
            TEXT["captions"]["utilization"],
            cap=1.0,
        ),
        "red": prose(TEXT["captions"]["red"]),
        "utilization_25g": prose(
            TEXT["captions"]["utilization_25g"],
            cap=2.5,
        ),
        "red_25g": prose(
            TEXT["captions"]["red_25g"],
            cap=2.5,
        ),
        "two_flows": prose(TEXT["captions"]["two_flows"]),
    }
