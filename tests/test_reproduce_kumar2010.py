"""Reproduction of paper 004 (Kumar et al. 2010) section III.B against what the paper reports.

The quick version runs in `make test`; the full one is marked slow and runs
in `make bench`. Each assertion states the paper's claim and the tolerance.
"""

from __future__ import annotations

import math

import bufsim.models as m
import pandas as pd
import pytest
from bufsim.reproduce import kumar2010
from conftest import render_in_chromium


@pytest.fixture(scope="module")
def kumar_table(reproduction_table):
    return reproduction_table("kumar2010")


@pytest.fixture(scope="module")
def kumar(kumar_table):
    return kumar2010.runs.pivot(kumar_table)


def test_kumar_hstcp_above_ninety_percent_at_five_percent(kumar):
    # Paper 004: "HSTCP and AIMD above 90% utilization at a buffer fraction of 0.05".
    for x in kumar2010.design.SYNC:
        assert kumar.loc[0.05, ("highspeed", x)] > 0.9
    # AIMD: 0.911 (quick) / 0.898 (full, 10 x 3000 s) at X = 0.3, lower at
    # larger X: its 10 Gbps sawtooth lasts about 1000 s, so 3000 s runs keep
    # part of the start-up; we allow 0.88.
    assert kumar.loc[0.05, ("aimd", 0.3)] > 0.88


def test_kumar_less_synchronization_more_utilization(kumar):
    # "Lower synchronization further improves the link utilization for HSTCP and AIMD."
    for variant in ("highspeed", "aimd"):
        for frac in (0.01, 0.05):
            assert kumar.loc[frac, (variant, 0.3)] > kumar.loc[frac, (variant, 1.0)]


def test_kumar_cubic_below_hstcp_at_small_buffers(kumar):
    # "HSTCP performs better than CUBIC TCP with various buffer sizes."
    for frac in (0.01, 0.05):
        for x in kumar2010.design.SYNC:
            assert kumar.loc[frac, ("cubic", x)] < kumar.loc[frac, ("highspeed", x)]


def test_kumar_aimd_sync_closed_form():
    # Synchronized halvings, buffer f x BDP: the aggregate window climbs from
    # (1 + f) / 2 to 1 + f. f = 0: the classic 3/4; f = 0.05: 0.785 (hand:
    # a = 0.525, ((1 - 0.2756) / 2 + 0.05) / 0.525 = 0.7851).
    assert m.aimd_sync_utilization(0.0) == pytest.approx(0.75, abs=1e-12)
    assert m.aimd_sync_utilization(0.05) == pytest.approx(0.7851, abs=1e-4)
    assert m.aimd_sync_utilization(1.0) == 1.0


def test_kumar_aimd_sync_closed_form_other_cuts():
    # AIMD(a, b) from a0 = (1 - b)(1 + f): b = 0.25 at f = 0.05 gives
    # a0 = 0.7875 and ((1 - 0.62016) / 2 + 0.05) / 0.2625 = 0.9140; a cut
    # that leaves the window above the BDP plus nothing keeps the link full.
    assert m.aimd_sync_utilization(0.05, 0.25) == pytest.approx(0.9140, abs=1e-4)
    assert m.aimd_sync_utilization(0.05, 0.04) == 1.0


def test_kumar_cubic_sync_closed_form():
    # RFC 9438 eq. (1)-(2), every flow cut to beta W_max at once, buffer
    # f x BDP. f = 0: the mean of 1 - 0.3 s^3 over s in [0, 1], 1 - 0.3 / 4
    # = 0.925 exactly. f = 0.05, by hand: s* = (0.047619 / 0.3)^(1/3) =
    # 0.54127, U = 0.54127 + 1.05 (0.45873 - 0.3 (1 - 0.08584) / 4) = 0.95095.
    assert m.cubic_sync_utilization(0.0) == pytest.approx(0.925, abs=1e-12)
    assert m.cubic_sync_utilization(0.05) == pytest.approx(0.95095, abs=1e-4)
    # beta = 0.8 (a 20% cut) at f = 0: 1 - 0.2 / 4.
    assert m.cubic_sync_utilization(0.0, 0.8) == pytest.approx(0.95, abs=1e-12)
    assert m.cubic_sync_utilization(0.5) == 1.0
    # Numerically: the time average of min(1, (1 + f)(1 - 0.3 s^3)).
    import numpy as np

    s = np.linspace(0.0, 1.0, 200001)
    for f in (0.01, 0.05, 0.2):
        num = np.minimum(1.0, (1 + f) * (1 - 0.3 * s**3)).mean()
        assert m.cubic_sync_utilization(f) == pytest.approx(num, abs=1e-5)


def test_kumar_what_figure_6_would_need():
    # The cut that puts the synchronized laws at the paper's 90% at 5% of
    # BDP: CUBIC keeping 0.4935 of its window (RFC 9438 keeps 0.7), AIMD
    # keeping 0.7225 (Reno 0.5); AIMD equal to CUBIC's 0.951 keeps 0.8242.
    law_c, law_a = kumar2010.runs._cubic_law, kumar2010.runs._aimd_law
    assert m.kept_for(law_c, 0.05, 0.9) == pytest.approx(0.4935, abs=1e-4)
    assert m.kept_for(law_a, 0.05, 0.9) == pytest.approx(0.7225, abs=1e-4)
    cubic = m.cubic_sync_utilization(0.05)
    assert m.kept_for(law_a, 0.05, cubic) == pytest.approx(0.8242, abs=1e-4)
    assert law_c(0.05, m.kept_for(law_c, 0.05, 0.9)) == pytest.approx(0.9, abs=1e-9)


def test_kumar_aimd_follows_the_synchronized_sawtooth_not_the_paper(kumar):
    # Paper 004 figure 6(c): AIMD "more than 90% even for 5% of BDP" at X = 1.
    # bufsim: 0.808 (quick) / 0.816 (full), within 0.05 of the closed form
    # 0.785 and below the paper's 90%.
    u = kumar.loc[0.05, ("aimd", 1.0)]
    assert abs(u - m.aimd_sync_utilization(0.05)) < 0.05
    assert u < 0.9


def test_kumar_choices_measured(kumar_table):
    t = kumar_table

    def u(case, variant, x, frac=0.05):
        return kumar2010.runs._u(t, variant, x, frac, case)

    # eq. (1) literally (decrease = "rate") cuts for every packet's worth of
    # lost fluid: HighSpeed falls from 0.98-1.0 to below 0.7 at 5%.
    for x in kumar2010.design.SYNC:
        assert u("default", "highspeed", x) > 0.95
        assert u("eq. (1) rate decrease", "highspeed", x) < 0.7
    # CUBIC has no rate form; the case is absent rather than wrong.
    assert math.isnan(u("eq. (1) rate decrease", "cubic", 0.3))
    # The m_k draw and policy only matter below X = 1: at X = 1 every flow
    # loses and the runs are identical.
    for v in kumar2010.design.VARIANTS:
        for case in ("m_k = ceil(XN)", "m_k sd 0.5 N", "random flows lose"):
            assert u(case, v, 1.0) == pytest.approx(u("default", v, 1.0), abs=1e-12)
    # The 4 ms default step agrees with 1 ms within 0.005 at X = 1; below,
    # the step moves the congestion events and so the m_k draws: within 0.02
    # (AIMD at X = 0.3, 2 seeds: 0.899 against 0.911).
    for v in kumar2010.design.VARIANTS:
        for x in kumar2010.design.SYNC:
            tol = 0.005 if x == 1.0 else 0.02
            assert u("step 1 ms", v, x) == pytest.approx(u("default", v, x), abs=tol)
    # CUBIC's fast convergence (RFC 9438 section 4.7) lowers W_max every
    # other synchronized cycle: at X = 1, 5%, the fluid reads 0.920 (quick)
    # / 0.918 (full) with it and 0.960 / 0.961 without, against the
    # closed form's 0.951 (no fast convergence), within 0.015: the fluid's
    # windows grow for an RTT past the full buffer before the cut.
    cf = m.cubic_sync_utilization(0.05)
    no_fc = u("no fast convergence", "cubic", 1.0)
    assert abs(no_fc - cf) < 0.015
    assert u("default", "cubic", 1.0) < no_fc - 0.03
    assert u("default", "cubic", 1.0) > 0.9
    assert math.isnan(u("no fast convergence", "aimd", 1.0))
    # Slow start ends at the first congestion event, 1.2-1.5 s into every run.
    first = t.loc[t["case"] == "default", "first_congestion_s"]
    assert first.between(1.2, 1.5).all()


#: Every claim's verdict on the quick table: a claim that moves category fails.
QUICK_VERDICTS = {
    "headline: CUBIC and H-TCP require larger buffers": "differs, unexplained",
    "headline: figure 5, desynchronized fluid matches the simulation": "differs, unexplained",
    "headline: figure 5, X = 1 mismatches the simulation": "differs, unexplained",
    # The fluid at its closest X is 0.004 off the packet engine on average,
    # paper 001's fixed point 0.066; the fluid reads eq. (1) as one cut per
    # congestion event, the tuning.
    "headline: figure 5, closer to the simulation than the Boston model": "agrees after tuning",
    "headline: 6(a): HSTCP at 5% of BDP": "agrees after tuning",
    # AIMD with HighSpeed's cut would meet the paper, but the paper's AIMD
    # flows behave like TCP's (they halve): no explanation.
    "headline: 6(c): AIMD at 5% of BDP": "differs, unexplained",
    # The orderings rest on the one-cut-per-event reading of eq. (1).
    "headline: 6(a), 6(c): lower X, HSTCP and AIMD": "agrees after tuning",
    "6(c): AIMD comparable to HSTCP": "differs, unexplained",
    "6(b): CUBIC at 5% of BDP": "differs, unexplained",
    "6(c): AIMD above CUBIC": "differs, unexplained",
    "6(b): HSTCP above CUBIC": "agrees after tuning",
    # X = 0.6 lies 0.005 above X = 1 from 20% on, where the paper sees no gain.
    "6(b): CUBIC above 20% of BDP": "differs, unexplained",
    "6(d): H-TCP at 5% of BDP": "agrees",
    "headline: section V: X matters little for CUBIC and H-TCP": "differs, unexplained",
    "section III: measured from the first congestion event": "check",
    # The paper calibrates X at 1 Gbps only; the packet sync is a mean
    # where X is a minimum: both bufsim's checks.
    "fluid calibrated by packet, 5% of BDP": "check",
    "X is a minimum, sync_mean a mean": "check",
    "packet engine's synchronization": "check",
}


def test_kumar_verdicts(quick_table):
    c = kumar2010.claims(quick_table("kumar2010"))
    assert dict(zip(c["claim"], c["verdict"])) == QUICK_VERDICTS
    # HSTCP holds only with one cut per congestion event: a tuning, named.
    hstcp = c.set_index("claim").loc["headline: 6(a): HSTCP at 5% of BDP"]
    assert 'fluid.decrease = "event"' in hstcp["tuning"]


def test_kumar_claims_and_report(kumar_table, tmp_path):
    c = kumar2010.claims(kumar_table).set_index("claim")
    assert c["why"].str.len().min() > 60
    # The orderings the paper reports and bufsim's fluid engine does not:
    # CUBIC above 90% at 5% for every X, AIMD below CUBIC. The reasons
    # compare the laws' synchronized closed forms: the paper's figure needs
    # cuts its section III.B does not state.
    for claim, needle in (
        ("headline: 6(c): AIMD at 5% of BDP", "a cut of at most"),
        ("6(b): CUBIC at 5% of BDP", "needs beta below"),
        ("6(c): AIMD above CUBIC", "needs AIMD to keep at least"),
        ("6(c): AIMD comparable to HSTCP", "one packet per RTT"),
        ("headline: section V: X matters little for CUBIC and H-TCP", "m_k"),
    ):
        assert c.loc[claim, "verdict"].startswith("differs"), (claim, c.loc[claim].to_dict())
        assert needle in c.loc[claim, "why"], claim
    # AIMD with HighSpeed's cut (b = 0.2) is above 90% at every X (quick:
    # 0.963), shown beside the claim; the paper's AIMD flows behave like
    # TCP's, which halve, so it explains nothing.
    for claim in ("headline: 6(c): AIMD at 5% of BDP", "6(c): AIMD comparable to HSTCP"):
        assert c.loc[claim, "verdict"] == "differs, unexplained", claim
        assert c.loc[claim, "explained_by"] == "", claim
    assert "HighSpeed's cut (b = 0.2)" in c.loc["headline: 6(c): AIMD at 5% of BDP", "why"]
    assert c.loc["6(c): AIMD above CUBIC", "verdict"] == "differs, unexplained"
    assert c.loc["6(b): CUBIC at 5% of BDP", "bufsim"] > 0.95
    assert c.loc["6(c): AIMD above CUBIC", "bufsim"] < -0.05
    from bufsim.report import reproduction_report

    page = reproduction_report("kumar2010", table=kumar_table)
    for fig in (
        "fig6a_highspeed",
        "fig6b_cubic",
        "fig6c_aimd",
        "fig6d_htcp",
        "choices",
        "calibrated",
        "calibrated_series",
    ):
        assert f'id="fig-{fig}"' in page
    # The calibrated comparison's table is a section of its own.
    # Column names may wrap after "_" (<wbr>): read them whole.
    text = page.replace("<wbr>", "")
    assert 'id="calibrated"' in text and "fluid_cal" in text
    assert 'id="orderings"' in text and "packet_from_event" in text
    assert page.count('class="text agrees"') >= 1 and 'class="text differs"' in page
    path = tmp_path / "kumar2010.html"
    path.write_text(page)
    render_in_chromium(path, tmp_path, "kumar2010")


def test_kumar_cli_writes_the_calibrated_table(kumar_table, quick, monkeypatch, tmp_path):
    # `bufsim reproduce kumar2010` prints and writes the calibrated
    # comparison beside the main table (the fixture's table stands in).
    from bufsim.cli import app
    from typer.testing import CliRunner

    monkeypatch.setattr(kumar2010, "run", lambda quick, progress: kumar_table)
    args = ["reproduce", "kumar2010", "--out", str(tmp_path)] + (["--quick"] if quick else [])
    res = CliRunner().invoke(app, args, env={"COLUMNS": "250"})
    assert res.exit_code == 0, res.output
    assert "Fluid calibrated by packet" in res.output
    written = pd.read_csv(tmp_path / f"kumar2010{'-quick' if quick else ''}-calibrated.csv")
    pd.testing.assert_frame_equal(
        written, kumar2010.runs.calibrated(kumar_table).reset_index(drop=True), check_dtype=False
    )


@pytest.fixture(scope="module")
def kumar_cal(kumar_table):
    return kumar2010.runs.calibrated(kumar_table)


def test_kumar_calibrated_x_is_a_minimum(kumar_cal):
    # Fluid calibrated by packet: X = the packet run's sync_mean. Paper 004
    # eq. (8) makes X a minimum (m_k >= ceil(X N)), so the fluid's own
    # measured sync at that X is at least X (exactly: every event draws
    # whole flows), and at least the packet's; X matched on the measured
    # sync is at most the packet's sync_mean and its fluid sync lies within
    # 0.1 (one flow of ten) of the packet's.
    t = kumar_cal[kumar_cal["packet_sync"].notna()]
    assert len(t) >= 2
    assert (t["packet_sync"].between(0.1, 1.0)).all()
    assert (t["x_matched"] <= t["x_cal"] + 1e-9).all()
    # (A fluid run without a congestion event after the warm-up has no
    # measured sync: NaN, left out.)
    assert (t["fluid_cal_sync"].dropna() >= t["x_cal"][t["fluid_cal_sync"].notna()] - 1e-9).all()
    assert ((t["fluid_matched_sync"] - t["packet_sync"]).abs().dropna() <= 0.1).all()
    # Runs without a congestion event after the warm-up have nothing to
    # calibrate with: their calibrated columns are empty, not invented.
    none = kumar_cal[kumar_cal["packet_sync"].isna()]
    assert (none["packet_events"] == 0).all() and none["fluid_cal"].isna().all()


def test_kumar_calibrated_agrees_only_where_bursts_fit(kumar_table, kumar_cal, quick):
    if quick:
        # The quick version (5% of BDP, 30 s, 10 s warm-up) cannot say
        # whether the calibrated fluid agrees with the packet engine: the
        # packet runs are still filling the pipe (slow start's overshoot
        # leaves the windows at a third of it, 3-9 timeouts), 0.34-0.45
        # against the fluid's 0.62-1.00, whose slow start ends at 1.3-1.5 s.
        # What it asserts is that.
        t = kumar_cal.set_index("variant")
        assert (t["packet"] < 0.5).all() and t["packet_fill_s"].isna().all()
        assert (t["packet_late"] < 0.6).all() and (t["packet_timeouts"] >= 3).all()
        for x in kumar2010.design.SYNC:
            assert t.loc["highspeed", f"fluid_x{x:g}"] > 0.95
            assert (t[f"fluid_x{x:g}"] > t["packet"] + 0.2).all()
        return
    # The full version: 600 s runs (100 s warm-up) at 1%, 5% and 20% of BDP.
    t = kumar_cal.set_index(["variant", "fraction"])
    tol = kumar2010.design.CALIBRATED_TOL  # 0.03 utilization
    # 20%: the calibrated fluid meets the packet engine within 0.005
    # (HSTCP 1.000/1.000, CUBIC 0.991/0.994, H-TCP 0.920/0.924); the packet
    # flows synchronize above the paper's range [0.3, 0.6] and its
    # tolerance of 0.05 (sync_mean 0.75-0.99 at 5% and 20%), and the
    # paper's X = 0.3 would lift H-TCP to 1.000.
    for v in ("highspeed", "cubic", "htcp"):
        assert abs(t.loc[(v, 0.2), "fluid_cal"] - t.loc[(v, 0.2), "packet"]) <= tol, v
        for f in (0.05, 0.2):
            assert t.loc[(v, f), "packet_sync"] > 0.6 + 0.05, (v, f)
    assert t.loc[("htcp", 0.2), "fluid_x0.3"] > t.loc[("htcp", 0.2), "packet"] + 0.05
    # 5%: HSTCP agrees (0.966/0.990); CUBIC and H-TCP sit more than 0.1
    # below the fluid (0.813/0.929, 0.733/0.874), losing at a mean queue
    # under 5% of the buffer (327 and 222 of 7083 packets), and their
    # second halves stay more than 0.07 below (0.853 and 0.759): CUBIC's
    # flows are cut again inside the regrowth from a cut, which the fluid
    # cannot do (test_kumar_orderings_at_packet_level).
    assert (
        abs(t.loc[("highspeed", 0.05), "fluid_cal"] - t.loc[("highspeed", 0.05), "packet"]) <= tol
    )
    for v in ("cubic", "htcp"):
        r = t.loc[(v, 0.05)]
        assert r["fluid_cal"] - r["packet"] > 0.1 and r["packet_queue"] < 0.05 * r["buffer_pkts"]
        assert r["fluid_cal"] - r["packet_late"] > 0.07, v
    # 1%: packet 0.28-0.54 against 0.82-0.95, flat (second half within
    # 0.03), at a mean queue under 25 of 1417 packets: a burst-loss steady
    # state. HSTCP's 0.54 (queue 22) is the top: on the scenario's RTT
    # lattice (80-260 ms in even steps); with the shortest RTT moved by
    # 0.1-0.2 ms it reads 0.33-0.34 (queue 10-11).
    one = kumar_cal[kumar_cal["fraction"] == 0.01]
    assert (one["packet"] < 0.6).all() and (one["fluid_cal"] > 0.8).all()
    assert (one["fluid_cal"] - one["packet"] > 0.3).all()
    assert ((one["packet_late"] - one["packet"]).abs() < 0.03).all()
    assert (one["packet_queue"] < 25).all()
    # AIMD climbs from slow start's overshoot, one packet per RTT: no
    # congestion event at 5% and 20% within 600 s, nothing to calibrate
    # (0.494 then 0.573 in the second half at 5%, 0.937 then 0.994 at 20%).
    for f in (0.05, 0.2):
        assert t.loc[("aimd", f), "packet_events"] == 0
        assert 0.4 < t.loc[("aimd", f), "packet"] < t.loc[("aimd", f), "packet_late"]
    c = kumar2010.claims(kumar_table).set_index("claim")
    # The paper calibrates X at 1 Gbps only (figure 5) and its X is a
    # minimum where sync_mean is a mean: each comparison here is bufsim's
    # check, not the paper's claim.
    for f in ("1%", "5%", "20%"):
        assert c.loc[f"fluid calibrated by packet, {f} of BDP", "verdict"] == "check"
    assert c.loc["packet engine's synchronization", "verdict"] == "check"


@pytest.fixture(scope="module")
def kumar_order(kumar_table):
    return kumar2010.runs.orderings(kumar_table)


def test_kumar_orderings_at_packet_level(kumar_table, kumar_order, quick):
    # Figure 6(b), 6(c) at 5% of BDP in the packet engine: CUBIC and AIMD,
    # senders at line rate ("") and behind 2 Gbps access links.
    t = kumar_order.set_index(["variant", "access"])
    assert set(t.index) == {
        (v, a or "") for v in kumar2010.design.ORDER_VARIANTS for a in kumar2010.design.ORDER_ACCESS
    }
    assert (t["buffer_pkts"] == 7083).all()
    c = kumar2010.claims(kumar_table).set_index("claim")
    claims = (
        "6(b): CUBIC at 5% of BDP",
        "headline: 6(c): AIMD at 5% of BDP",
        "6(c): AIMD above CUBIC",
    )
    if quick:
        # 60 s runs end inside slow start's aftermath (AIMD at line rate has
        # no congestion event after its 10 s warm-up): the claims do not
        # read them and say where the packet check is.
        assert (t["duration_s"] == 60.0).all()
        assert math.isnan(t.loc[("aimd", ""), "packet_from_event"])
        for claim in claims:
            assert "the packet check is in the full version" in c.loc[claim, "why"], claim
        return
    # Full: CUBIC 1000 s, AIMD 3000 s, measured from the first congestion
    # event after the 100 s warm-up (AIMD's at about 1266 s at line rate:
    # slow start's burst losses leave its windows at a third of the pipe).
    # CUBIC reads 0.828 at line rate and 0.840 behind 2 Gbps access links,
    # AIMD 0.879 and 0.899: the paper's ordering holds at packet level, by
    # 0.05 and more.
    for a in ("", "2Gbps"):
        cubic, aimd = t.loc[("cubic", a)], t.loc[("aimd", a)]
        assert cubic["packet_from_event"] < 0.85, a
        assert aimd["packet_from_event"] > cubic["packet_from_event"] + 0.05, a
        # Why: CUBIC's flows lose together (sync 0.95, 0.96) and a second
        # event follows the one before within K / 2 = 11 s in 44% and 40%
        # of the events (a cycle cut twice keeps 0.7^2 = 0.49 of W_max,
        # below the 0.4935 under which the closed form falls below 90%);
        # AIMD's lose apart (sync 0.60 and 0.54; the fluid's X = 0.3: 0.903).
        assert cubic["packet_sync"] > 0.9 and cubic["packet_repeat_events"] >= 0.3, a
        assert aimd["packet_sync"] <= 0.6 and aimd["packet_repeat_events"] == 0.0, a
        # AIMD's level over its whole cycles (3 and 4 of 400-600 s: 0.893 +-
        # 0.071 and 0.906 +- 0.032) follows the synchronized law with the
        # cut its synchronization makes, a share s of the flows halving:
        # aimd_sync_utilization(0.05, s / 2) = 0.889 (s = 0.60) and 0.904
        # (s = 0.54), within 0.005 of the runs, either side of the paper's
        # 90%. Tolerance 0.01: the law takes the flows' windows as equal
        # (at line rate the aggregate window kept 0.66-0.76 at the four
        # events, 0.70 on average, as 1 - s / 2 predicts; traced with
        # per-flow windows).
        law = m.aimd_sync_utilization(0.05, aimd["packet_sync"] / 2)
        assert aimd["packet_cycles_utilization"] == pytest.approx(law, abs=0.01), a
        assert aimd["packet_cycles_cycles"] >= 3, a
    # The fluid's differences stay unexplained: the packet engine, which
    # cuts CUBIC twice a cycle (0.840 behind access links, below 90%), is
    # not the paper's fluid model, and the fluid with HighSpeed's cut is
    # not the paper's AIMD. Figure 6 is the fluid's, over X, which packet
    # runs have not: the packet-level orderings and AIMD's level are
    # bufsim's checks beside it.
    for claim in claims:
        assert c.loc[claim, "verdict"] == "differs, unexplained", claim
    packet = c.loc["6(b), 6(c) at packet level, 5% of BDP"]
    assert packet["bufsim"] > 0.05 and packet["verdict"] == "check"
    level = c.loc["6(c) at packet level: AIMD above 90% at 5% of BDP"]
    assert level["verdict"] == "check"
    assert level["bufsim"] == pytest.approx(0.9, abs=0.02)
    assert "A cycle cut twice" in c.loc["6(b): CUBIC at 5% of BDP", "why"]
    assert "desynchronized" in c.loc["headline: 6(c): AIMD at 5% of BDP", "why"]


def test_kumar_headline_results(quick_table):
    # CUBIC and H-TCP against HSTCP and AIMD, the smallest fraction of the
    # quick grid (0.01, 0.05, 0.2) reaching 90% in the fluid: at X = 0.6
    # CUBIC and H-TCP reach it at 0.01, AIMD only at 0.2, so the least
    # ratio over X is 0.05 (quick, 2 seeds of 1000 s).
    t = quick_table("kumar2010")
    d = kumar2010.runs.pivot(t)
    assert kumar2010.runs.b90(d, "cubic", 0.6) == 0.01
    assert kumar2010.runs.b90(d, "aimd", 0.6) == 0.2
    c = kumar2010.claims(t).set_index("claim")
    head = c[c["headline"]]
    assert list(head.index) == [k for k in QUICK_VERDICTS if k.startswith("headline: ")]
    assert head.iloc[0]["bufsim"] == pytest.approx(0.05)
    # Figure 5's case (paper 001's, 60 s): the packet engine sits on the
    # fluid at X = 1 (largest gap 0.006), 0.032 from X = 0.6 and 0.084 from
    # X = 0.3: the reverse of the paper's ns-2, which matched X = 0.3-0.6.
    f5 = t.attrs["figure5"].set_index("fraction")
    assert list(f5.index) == [0.05, 0.1, 0.2]
    assert float((f5["fluid_x1"] - f5["packet"]).abs().max()) == pytest.approx(0.006, abs=0.01)
    assert head.iloc[1]["bufsim"] == pytest.approx(0.032, abs=0.01)
    assert head.iloc[2]["bufsim"] < 0.03
    # Paper 001's fixed point lies farther from the packet engine than the
    # fluid does at its closest X: 0.066 against 0.004 on average.
    closer = head.loc["headline: figure 5, closer to the simulation than the Boston model"]
    assert closer["bufsim"] == pytest.approx(0.004 / 0.066, abs=0.05)
    boston = kumar2010.runs.boston([0.05, 0.1, 0.2])
    assert boston[0.05] == pytest.approx(0.989, abs=0.002)
