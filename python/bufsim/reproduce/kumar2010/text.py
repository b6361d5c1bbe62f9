"""Paper 004's setup, findings and captions: the templates of ``prose.toml``
filled with the runs' numbers and the design's constants.
"""

from __future__ import annotations

import pandas as pd

from bufsim.models.synchronized import aimd_sync_utilization, cubic_sync_utilization, kept_for
from bufsim.reproduce import Finding, Prose, prose, templates
from bufsim.reproduce.kumar2010.design import (
    AIMD_REGAIN_S,
    B_RENO,
    BDP_PKTS,
    BETA_CUBIC,
    LEVEL,
    ORDER_ACCESS,
    ORDER_DURATION,
    PANELS,
    SYNC,
)
from bufsim.reproduce.kumar2010.runs import (
    _aimd_law,
    _cubic_law,
    _no_packet_text,
    _packet,
    _packet_order_text,
    _packet_text,
    _u,
    calibrated,
)

#: The prose templates (prose.toml, shipped beside this module).
TEXT = templates(__package__)


def setup() -> Prose:
    """What is reproduced and how bufsim's setup differs from the paper's (Markdown)."""
    return prose(
        TEXT["setup"],
        n=10,
        cap=10.0,
        d=10.0,
        r0=80.0,
        r1=260.0,
        rm=170.0,
        mss=1500.0,
        bdp=BDP_PKTS,
        xs=", ".join(f"{x:g}" for x in SYNC),
        runs=10,
        dur=3000.0,
        l=LEVEL,
        f=0.05,
        seeds=10,
        warm=300.0,
        dc=float(ORDER_DURATION["cubic"][0].removesuffix("s")),
        da=float(ORDER_DURATION["aimd"][0].removesuffix("s")),
        acc=ORDER_ACCESS[1],
        ow=float(ORDER_DURATION["aimd"][1].removesuffix("s")),
    )


def findings(table: pd.DataFrame) -> list[Finding]:
    """What the runs show, each beside the figure it explains (Markdown, numbers from ``table``)."""
    cal = calibrated(table)
    out = [
        Finding(
            "At X = 1 utilization follows the depth of the cut",
            prose(
                TEXT["findings"]["cut_depth"],
                t=AIMD_REGAIN_S,
                f=0.05,
                hs=_u(table, "highspeed", 1.0, 0.05),
                cu=_u(table, "cubic", 1.0, 0.05),
                ai=_u(table, "aimd", 1.0, 0.05),
                l=LEVEL,
                ccf=cubic_sync_utilization(0.05, BETA_CUBIC),
                cf=aimd_sync_utilization(0.05, B_RENO),
                bmin=kept_for(_cubic_law, 0.05, LEVEL),
                b=BETA_CUBIC,
                keep=kept_for(_aimd_law, 0.05, LEVEL),
                reno=1.0 - B_RENO,
            ),
            "fig6b_cubic",
        ),
        Finding(
            "Figure 6's orderings at packet level",
            prose(
                TEXT["findings"]["packet_orderings"],
                f=0.05,
                cu=_packet_text(table, "cubic"),
                ai=_packet_text(table, "aimd"),
                order=_packet_order_text(table),
            )
            if _packet(table) is not None
            else prose(TEXT["findings"]["packet_none"], f=0.05, no=_no_packet_text()),
            "",
        ),
        Finding(
            "HSTCP needs one cut per congestion event",
            prose(
                TEXT["findings"]["one_cut"],
                cap=10.0,
                f=0.05,
                rate=min(_u(table, "highspeed", x, 0.05, "eq. (1) rate decrease") for x in SYNC),
                l=LEVEL,
            ),
            "fig6a_highspeed",
        ),
    ]
    ok = cal[cal["packet_sync"].notna()]
    if len(ok):
        # The heading follows the measured synchronization, against the
        # paper's X of 0.3-0.6 (section III.B).
        more = ok["packet_sync"].max() > SYNC[1]
        out.append(
            Finding(
                "The packet engine's flows synchronize more than the paper's X"
                if more
                else "The packet engine's flows synchronize within the paper's X",
                prose(
                    TEXT["findings"]["calibrated"],
                    dur=cal.attrs["duration_s"],
                    lo=ok["packet_sync"].min(),
                    hi=ok["packet_sync"].max(),
                    fl=ok["fluid_cal"].min(),
                    fh=ok["fluid_cal"].max(),
                    pl=ok["packet"].min(),
                    ph=ok["packet"].max(),
                    ql=ok["packet_queue"].min(),
                    qh=ok["packet_queue"].max(),
                ),
                "calibrated",
            )
        )
    return out


def captions(table: pd.DataFrame) -> dict[str, Prose]:
    """One sentence per figure of :func:`figures`: what it shows and how to read it."""
    out: dict[str, Prose] = {
        f"fig6{letter}_{v}": prose(
            TEXT["captions"]["panel"],
            letter=letter,
            name=name,
        )
        for v, (letter, name) in PANELS.items()
    }
    out["choices"] = prose(
        TEXT["captions"]["choices"],
        f=0.05,
    )
    out["calibrated"] = prose(TEXT["captions"]["calibrated"])
    out["calibrated_series"] = prose(TEXT["captions"]["calibrated_series"])
    return out
