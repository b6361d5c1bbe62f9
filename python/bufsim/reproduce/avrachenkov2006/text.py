"""Paper 003's setup, findings and captions: the templates of ``prose.toml``
filled with the runs' numbers and the design's constants.
"""

from __future__ import annotations

import pandas as pd

from bufsim.reproduce import Finding, Prose, prose, templates
from bufsim.reproduce.avrachenkov2006.design import (
    ACCESS_MBPS,
    BDP_PKTS,
    BUFFERS,
    JITTER,
    NS,
    NS3_DURATION,
    PAPER,
    QUICK_NS,
    STACK_FIELDS,
    STARVED,
    TARGET,
)
from bufsim.reproduce.avrachenkov2006.runs import (
    _b0_text,
    _between_access,
    _lt_gain,
    _ns3_text,
    _setting,
    relative_errors,
    summary,
)

#: The prose templates (prose.toml, shipped beside this module).
TEXT = templates(__package__)


def setup() -> Prose:
    """What is reproduced and how bufsim's setup differs from the paper's (Markdown)."""
    return prose(
        TEXT["setup"],
        cap=100.0,
        mss=500.0,
        bdp=BDP_PKTS,
        r5=PAPER[5][0],
        r20=PAPER[20][0],
        cor=75.0,
        target=TARGET,
        b5=PAPER[5][1],
        b20=PAPER[20][1],
        bmin=BUFFERS[0],
        bmax=BUFFERS[-1],
        ns=", ".join(str(n) for n in NS),
        qns=", ".join(str(n) for n in QUICK_NS),
        acc=ACCESS_MBPS,
        jitter=JITTER,
        pns=" and ".join(str(n) for n in PAPER),
        d=1.0,
        rtt4=4.0,
        rtt=6.0,
        ns3dur=NS3_DURATION,
    )


def findings(table: pd.DataFrame) -> list[Finding]:
    """What the runs show, each beside the figure it explains (Markdown, numbers from ``table``)."""
    s = summary(table).set_index("n")
    det = _setting(table, "deterministic")
    smallest = det[det["buffer_pkts"] == det["buffer_pkts"].min()]
    many = smallest[smallest["n"] > 1]
    one = float(smallest[smallest["n"] == 1]["packet"].iloc[0])
    starved = many["packet_starved"] / (many["n"] - 1)
    # The jittered flows at the smallest buffer, N > 1: their rate and how
    # they share it (the fraction of the other flows under STARVED).
    jit = s[s.index > 1]
    jit_starved = jit["jitter_starved_B1"] / (jit.index.to_series() - 1)
    no_acc = s.loc[list(PAPER)]
    err_det = relative_errors(s.reset_index(), "fig8_B0")
    # One jittered flow behind its access link queues there, not at the
    # bottleneck: the jittered B0 is compared for several flows only.
    err_jit = relative_errors(s[s.index > 1].reset_index(), "jitter_B0")
    return [
        Finding(
            "At the smallest buffer the flows collide and time out",
            prose(
                TEXT["findings"]["pareto"],
                b=BUFFERS[0],
                nmin=int(many["n"].min()),
                nmax=int(many["n"].max()),
                to_lo=many["packet_timeouts"].min(),
                to_hi=many["packet_timeouts"].max(),
                to1=float(smallest[smallest["n"] == 1]["packet_timeouts"].iloc[0]),
                u_lo=many["packet"].min(),
                u_hi=many["packet"].max(),
                gap_lo=1 - many["packet"].max() / one,
                gap_hi=1 - many["packet"].min() / one,
                one=one,
                cor=s["corollary1_mbps"].iloc[0],
                top_lo=many["packet_top_share"].min(),
                top_hi=many["packet_top_share"].max(),
                top2_lo=many["packet_top2_share"].min(),
                top2_hi=many["packet_top2_share"].max(),
                st_lo=starved.min(),
                st_hi=starved.max(),
                floor=STARVED,
                acc=ACCESS_MBPS,
                a_lo=no_acc["no_access_links_rate_B1_mbps"].min(),
                a_hi=no_acc["no_access_links_rate_B1_mbps"].max(),
                atop_lo=no_acc["no_access_links_top_share_B1"].min(),
                atop_hi=no_acc["no_access_links_top_share_B1"].max(),
                pns=" and ".join(str(n) for n in PAPER),
                jitter=JITTER,
                jit_lo=jit["jitter_rate_B1_mbps"].min(),
                jit_hi=jit["jitter_rate_B1_mbps"].max(),
                jns=", ".join(str(n) for n in jit.index),
                jshare=prose(
                    ", each taken by one flow: the largest flow carries at least {top:.1%} of the "
                    "goodput and every other flow gets under {floor:.0%} of the link",
                    top=jit["jitter_top_share_B1"].min(),
                    floor=STARVED,
                )
                if (jit_starved == 1).all()
                else prose(
                    ": the largest flow carries at least {top:.1%} of the goodput, and at least "
                    "{st:.0%} of the other flows get under {floor:.0%} of the link",
                    top=jit["jitter_top_share_B1"].min(),
                    st=jit_starved.min(),
                    floor=STARVED,
                ),
                r5=PAPER[5][0],
                r20=PAPER[20][0],
                where="between" if all(_between_access(s, n) for n in PAPER) else "not all between",
            ),
            "pareto",
        ),
        Finding(
            "The paper's flows need about the BDP; delayed ACKs or jitter lower it",
            prose(
                TEXT["findings"]["b0_scan"],
                target=TARGET,
                n5=5,
                n20=20,
                b5=s.loc[5, "packet_B0"],
                b20=s.loc[20, "packet_B0"],
                p5=PAPER[5][1],
                p20=PAPER[20][1],
                f5=s.loc[5, "fluid_B0"],
                f20=s.loc[20, "fluid_B0"],
                sync=min(s.loc[5, "packet_sync_at_B0"], s.loc[20, "packet_sync_at_B0"]),
                sync_hi=max(s.loc[5, "packet_sync_at_B0"], s.loc[20, "packet_sync_at_B0"]),
                na5=s.loc[5, "no_access_links_B0"],
                na20=s.loc[20, "no_access_links_B0"],
                fields=", ".join(
                    f"{k.replace('_', ' ')} {_b0_text(s.loc[5, f'{k}_B0'])}/"
                    f"{_b0_text(s.loc[20, f'{k}_B0'])}"
                    for k in STACK_FIELDS
                ),
                q5=_b0_text(s.loc[5, "ns3_profile_B0"]),
                q20=_b0_text(s.loc[20, "ns3_profile_B0"]),
                lt5=_lt_gain(s, 5),
                lt20=_lt_gain(s, 20),
                two5=2 * 5,
                two20=2 * 20,
                ns3=_ns3_text(table, s),
                jitter=JITTER,
                j5=s.loc[5, "jitter_B0"],
                j20=s.loc[20, "jitter_B0"],
            ),
            "b0_scan",
        ),
        Finding(
            "The rules against the measured B0",
            prose(
                TEXT["findings"]["b0_error"],
                t5=s.loc[5, "eq12_B0"],
                t20=s.loc[20, "eq12_B0"],
                bdp=BDP_PKTS,
                s5=s.loc[5, "stanford"],
                s20=s.loc[20, "stanford"],
                ns=", ".join(str(n) for n in err_det.index),
                one=1,
                b1=_b0_text(s.loc[1, "fig8_B0"], BUFFERS),
                b1acc=s.loc[1, "packet_B0"],
                det=", ".join(err_det.idxmin(axis=1)),
                jns=", ".join(str(n) for n in err_jit.index),
                jit=", ".join(err_jit.idxmin(axis=1)),
            ),
            "b0_error",
        ),
    ]


def captions(table: pd.DataFrame) -> dict[str, Prose]:
    """One sentence per figure of :func:`figures`: what it shows and how to read it."""
    return {
        "pareto": prose(
            TEXT["captions"]["pareto"],
            ns=" and ".join(str(n) for n in PAPER),
        ),
        "b0_scan": prose(
            TEXT["captions"]["b0_scan"],
            ns=" and ".join(str(n) for n in PAPER),
            m=1 - TARGET,
        ),
        "b0_error": prose(
            TEXT["captions"]["b0_error"],
            many=", ".join(
                str(n) for n in sorted(set(_setting(table, "deterministic")["n"])) if n > 1
            ),
            one=1,
        ),
    }
