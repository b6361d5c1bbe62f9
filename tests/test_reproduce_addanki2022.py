"""Reproduction of ABM (Addanki et al., SIGCOMM 2022) against what its
abstract and the authors' run script report.

The quick version runs in `make test`; the full one is marked slow and runs
in `make bench`. Each assertion states the script's value or the paper's
claim and the tolerance.
"""

from __future__ import annotations

import math

import bufsim
import pandas as pd
import pytest
from bufsim import reproduce
from bufsim.reproduce import addanki2022
from bufsim.reproduce.addanki2022 import authors, design
from conftest import render_in_chromium


@pytest.fixture(scope="module")
def abm_table(reproduction_table):
    return reproduction_table("addanki2022")


def test_abm_setup_is_the_run_scripts():
    # run-main.sh: BUFFER = 9.6 * 1024 * (SERVERS + LINKS * SPINES) * 10
    # with 32 servers per leaf, 4 links, 2 spines: 3,932,160 B per switch.
    assert design.BUFFER_BYTES == 3_932_160
    # A request of 30% of it over the 32 servers: 36,864 B each.
    assert design.incast_bytes(0.3) == 36_864
    # Short flows: under the base BDP, 10 Gbps x 80 us = 100,000 B.
    assert design.SHORT_BYTES == 100_000
    # The uplinks carry the script's load: 32/63 of bufsim's random pairs
    # cross the spine, a leaf's 32 hosts over its 8 uplinks (4:1).
    for load in design.LOADS:
        per_leaf = design.host_load(load) * 64 * 10e9 * 32 / 63 / 2
        assert per_leaf == pytest.approx(load * 80e9, rel=1e-12)
    scn = bufsim.Scenario.load(design.scenario("abm", 0.4, 0.3, quick=True)).normalized
    fab = scn["fabric"]
    assert (fab["leaves"], fab["spines"], fab["hosts"], fab["links_per_pair"]) == (2, 2, 64, 4)
    pool = fab["switches"][0]["pool"]
    # Every switch the script's buffer; ABM's alpha the data class's (0.5)
    # and its interval one base RTT (8 links of 10 us).
    assert pool["size_bytes"] == 3_932_160 and pool["alpha"] == 0.5
    assert pool["interval_s"] == pytest.approx(80e-6)
    assert all(s["pool"]["size_bytes"] == 3_932_160 for s in fab["switches"])
    # ABM with the authors' first-RTT priority (alphaUnsched 1024 over
    # RTTBytes, the base BDP); abm-plain without it.
    assert pool["unscheduled"] == {"alpha": 1024.0, "bytes": 100_000}
    plain = bufsim.Scenario.load(design.scenario("abm-plain", 0.4, 0.3, quick=True)).normalized
    assert plain["fabric"]["switches"][0]["pool"]["algorithm"] == "abm"
    assert "unscheduled" not in plain["fabric"]["switches"][0]["pool"]
    # One web search group and one incast group: every host a client at 2
    # queries per second (128 per second), 32 servers each answering 27
    # segments of 1400 B (36,864 B) in one window.
    assert len(scn["flows"]) == 2
    incast = scn["flows"][1]
    q = incast["incast"]
    assert (q["servers"], q["server_pkts"], q["response_bytes"]) == (32, 27, 32 * 36_864)
    assert q["rate_per_s"] == pytest.approx(2 * 64) and "client" not in q
    assert incast["initial_window_pkts"] == 27
    # The script's web search sizes: its CSV's mean (the DCTCP paper's CDF
    # with finer points under 10 KB), 1,711,000 B within 0.1%.
    web = scn["flows"][0]
    assert web["mean_size_pkts"] * 1400 == pytest.approx(1.711e6, rel=1e-3)
    assert web["initial_window_pkts"] == 55 and web["min_rto_s"] == pytest.approx(0.01)
    # abm-evaluation.cc's 200 us InitialEstimation under its 10 ms MinRto,
    # and its 10 ms ConnTimeout: a 10 ms RTO before the first sample.
    assert web["initial_rto_s"] == incast["initial_rto_s"] == pytest.approx(0.01)


def test_abm_bad_algorithm_is_named_by_field():
    with pytest.raises(bufsim.ScenarioError, match=r"^fabric\.algorithm"):
        bufsim.Scenario.load(design.scenario("fifo", 0.4, 0.3, quick=True))


def test_abm_p99_counts_unfinished_transfers_as_lower_bounds():
    # 200 transfers of ideal time 1 ms: 197 finished at slowdown 2, three
    # unfinished that had run 50 ms at the end (slowdown reached 50). The
    # parser's index int(200 x 0.99) - 1 = 197 falls on an unfinished one:
    # the p99 is 50, a lower bound.
    n = 200
    part = pd.DataFrame(
        {
            "finished": [1.0] * (n - 3) + [0.0] * 3,
            "slowdown": [2.0] * (n - 3) + [math.nan] * 3,
            "start_s": [0.0] * (n - 3) + [0.05] * 3,
            "ideal_fct_s": [1e-3] * n,
        }
    )
    p99, censored = addanki2022.runs._p99(part, end_s=0.1)
    assert p99 == pytest.approx(50.0) and censored == 1.0
    # With one unfinished transfer the index lands on a finished one (2.0),
    # and the unfinished one lies above it: exact.
    part.loc[n - 3 : n - 2, ["finished", "slowdown"]] = [1.0, 2.0]
    p99, censored = addanki2022.runs._p99(part, end_s=0.1)
    assert p99 == pytest.approx(2.0) and censored == 0.0


def test_abm_runs_measure_the_switches(abm_table, quick):
    t = abm_table
    n = len(addanki2022.runs.cases(quick))
    assert len(t) == n == (34 if quick else 81)
    cubic = t[t["tcp"] == "cubic"].set_index(["algorithm", "sweep", "load", "burst"])
    # Complete sharing and LQD let the queues take the whole buffer (p99
    # occupancy above 99%); the static partition caps each port at 1/40
    # of it, so a leaf holds under 30% (quick: 13-20%); DT's alpha 0.5
    # holds a congested queue at a third (quick: 71-82% over the leaf's
    # several queues), ABM's threshold over the congested queues less at
    # every point (quick: 31% without the first-RTT priority, 31-66% with
    # it; full: ABM 0.64 against DT 0.72 at the largest request).
    occ = cubic["occupancy_p99"].groupby(level="algorithm")
    assert occ.min()["complete"] > 0.99 and occ.min()["lqd"] > 0.99
    assert occ.max()["static"] < 0.3
    each = cubic["occupancy_p99"].unstack("algorithm")
    assert (each["abm"] < each["dt"]).all()
    assert occ.max()["abm-plain"] < 0.4
    # DCTCP's marking at 65 packets keeps short flows near their ideal
    # time (quick: p99 2.9) where CUBIC's lost first windows wait on the
    # script's 10 ms initial RTO (quick: p99 130-590).
    dctcp = t[t["tcp"] == "dctcp"]
    assert dctcp["short_p99"].max() < 5 < cubic["short_p99"].min()
    # Open-loop web search: the uplinks carry about the offered load (0.4
    # of the uplinks; quick: 0.50-0.51 under DT, as the 0.1 s window's
    # heavy-tailed arrivals offer 9% more than asked at seed 1 and the
    # retransmissions of what the down ports drop cross the uplinks too).
    dt = cubic.xs("dt", level="algorithm")
    assert dt.xs(0.4, level="load")["uplink_util"].between(0.38, 0.55).all()


QUICK_VERDICTS = {
    # The authors' output puts the 94% on figure 6 (a), the incast's
    # responses (95% at load 0.8). bufsim's best there is 69% at load 0.8,
    # where DT's p99 is a lower bound: the reduction could reach 94%.
    "headline: up to 94% lower p99 slowdown of the incast's short flows than DT": "undecided",
    "headline: ABM below DT for short flows under the largest burst": "agrees",
    "ABM below DT for short flows at the highest load": "agrees",
    "headline: ABM below DT for the incast under the largest burst": "agrees",
    # "Up to 76%" is the largest over three transports, to the abstract's
    # whole percent: DCTCP's best at most 77%. Here 82% (quick) overshoots
    # it by 5 points, as the authors' own output at the same requests does
    # (82%; 88% over all five): the paper's simulator differs the same way.
    "headline: DCTCP's incast, up to 76% lower p99 slowdown than DT": "differs, explained",
    # Quick, 0.1 s of flows: ABM's uplinks carry 0.93 of DT's (full: 0.997).
    "headline: ABM's uplink throughput against DT's at the highest load": "differs, unexplained",
    # ABM's incast p99 spans 1.39x over the loads, DT's 2.81x (the
    # authors': 1.03x and 2.03x).
    "figure 6 (a): ABM's incast tail steadier over the loads than DT's": "agrees",
    # At load 0.8: ABM 149 against FAB 192 and CS 684 (the authors' 10.7,
    # 139 and 184).
    "figure 6 (a): ABM below FAB and CS for the incast at the highest load": "agrees",
    # A leaf's p99 occupancy under ABM 33% of the buffer, DT's 82%: the
    # abstract's bounded drain time read as figure 6 (c)'s ordering.
    "figure 6 (c): ABM holds less of the buffer than DT at the highest load": "agrees",
    # ABM's incast p99 slowdown 149 against the authors' 10.7 (DT's 480
    # against their 214).
    "figure 6 (a): the size of ABM's incast tail at the highest load": "differs, unexplained",
    # ABM's short flows' p99 slowdown 150 against the authors' 16.0: 2.5%
    # of bufsim's short transfers wait an RTO, none of the authors'.
    "figure 6 (b): the size of ABM's short-flow tail at the highest load": "differs, unexplained",
    # ABM over DT at 75%: 0.181 against the authors' 0.180 (quick; the
    # full run's 3 s of flows give 0.95).
    "figure 9 (b): DCTCP's incast at the largest request, ABM over DT": "agrees",
    # 3.44 KiB: ABM 12.3 against DT 166 (the authors' 8.9 and 294).
    "figure 11 (a): ABM below DT for DCTCP's incast at the smallest buffer": "agrees",
}


def test_abm_verdicts(quick_table):
    c = addanki2022.claims(quick_table("addanki2022"))
    assert dict(zip(c["claim"], c["verdict"])) == QUICK_VERDICTS


def test_abm_headline_results(quick_table):
    # Quick, one seed, flows launched over 0.1 s. The incast's reductions
    # over the loads (figure 6 (a)): 37% at 0.4, 69% at 0.8 where DT's p99
    # is a lower bound (so the best could reach 94%: undecided); under the
    # largest burst ABM is below DT for short flows (ratio 0.51) and for
    # the incast (0.64); DCTCP's best reduction is 82%, the authors' 82%
    # at the same requests.
    c = addanki2022.claims(quick_table("addanki2022")).set_index("claim")
    head = c[c["headline"]]
    assert list(head.index) == [k for k in QUICK_VERDICTS if k.startswith("headline: ")]
    assert head.iloc[0]["bufsim"] == pytest.approx(0.689, abs=0.005)
    assert head.iloc[0]["spread"] == math.inf and "69%*" in head.iloc[0]["why"]
    assert "load 0.8: 95%" in head.iloc[0]["why"]
    assert head.iloc[1]["bufsim"] == pytest.approx(0.511, abs=0.005)
    assert head.iloc[2]["bufsim"] == pytest.approx(0.643, abs=0.005)
    dctcp = head.iloc[3]
    assert dctcp["bufsim"] == pytest.approx(0.819, abs=0.005)
    # The authors' 82% at the same requests is told beside it.
    assert "burst 0.75: 82%" in dctcp["why"]
    assert (head["measured_by"] != "").all()
    # ns-2 has no shared buffer: its cell gives the authors' ns-3 output
    # where they published the point (the best reduction; ABM's p99 over
    # DT's), the reason where not (the uplink samples).
    assert head["ns2"].isna().all()
    assert list(head["ns2_why"]) == [
        "authors' ns-3: 0.95",
        "authors' ns-3: 0.5982",
        "authors' ns-3: 0.2008",
        "authors' ns-3: 0.8201",
        "no shared buffer",
    ]
    assert dctcp["explained_by"].startswith("the authors' ns-3.35 output")


def test_abm_authors_output_is_the_parsers_reading():
    # authors_p99.csv: the 75 fcts-single files of inet-tub/ns3-datacenter
    # at 40b8430 (CUBIC's 5 algorithms x 9 points, DT and ABM under DCTCP,
    # TIMELY and PowerTCP at 5 requests each) and the 36 fcts-buffer files
    # (DT, ABM and IB under DCTCP and PowerTCP at 6 buffer sizes).
    paper = authors.published()
    assert len(paper) == 111 and paper["file"].is_unique
    assert (paper["series"] == "buffer").sum() == 36
    assert authors.COMMIT.startswith("40b8430")

    def gain(tcp, col, load, burst):
        dt, abm = (authors.value(tcp, a, col, load, burst) for a in ("dt", "abm"))
        return 1 - abm / dt

    # Figure 6 (a), load 0.8: DT 214.2 -> ABM 10.7, the abstract's 94%
    # (95%); figure 6 (b) there: 75.1 -> 16.0 (79%), web short flows' best.
    assert authors.value("cubic", "dt", "incast_p99", 0.8, 0.3) == pytest.approx(214.221)
    assert gain("cubic", "incast_p99", 0.8, 0.3) == pytest.approx(0.950, abs=0.001)
    assert gain("cubic", "short_p99", 0.8, 0.3) == pytest.approx(0.787, abs=0.001)
    # Figure 9 (b), DCTCP: 98.5 -> 11.9 at 37.5% (88%).
    assert gain("dctcp", "incast_p99", 0.4, 0.375) == pytest.approx(0.879, abs=0.001)
    # Figure 11 (a), DCTCP at 3.44 KiB: DT 293.6, ABM 8.87; at 9.6 KiB the
    # buffer sweep's own run (DT 9.59), apart from figure 9's (10.86).
    assert authors.value("dctcp", "dt", "incast_p99", 0.4, 0.25, 3.44) == pytest.approx(293.573)
    assert authors.value("dctcp", "abm", "incast_p99", 0.4, 0.25, 3.44) == pytest.approx(8.87164)
    assert authors.value("dctcp", "dt", "incast_p99", 0.4, 0.25, 9.6) == pytest.approx(9.58677)
    assert authors.value("dctcp", "dt", "incast_p99", 0.4, 0.25) == pytest.approx(10.8597)
    # Figure 9 shows DT and ABM only; figure 7 keeps the load sweep's 30%.
    assert set(paper.loc[paper["figures"].str.contains("9"), "algorithm"]) == {"dt", "abm"}
    assert "7a" in authors.figures("cubic", "fab", 0.4, 0.3)
    # The parser's rules: short = web flows under 100,000 B; the p99 the
    # sorted list's element int(0.99 n) - 1 (of 200: the 198th, index 197).
    flows = pd.DataFrame(
        {
            "flowsize": [1e3] * 200 + [1e5, 5e4],
            "incast": [0] * 200 + [0, 1],
            "slowdown": list(range(1, 201)) + [999.0, 7.0],
            "fct": [1e6] * 199 + [2e7] + [1e6, 1e6],
            "basefct": [1e5] * 202,
        }
    )
    p = authors.point(flows)
    assert p["short_p99"] == 198 and p["short_n"] == 200 and p["incast_p99"] == 7.0
    # One short flow of 200 took the 10 ms RTO past its ideal time.
    assert p["short_rto"] == pytest.approx(1 / 200)


def test_abm_best_reduction_is_undecided_where_a_lower_bound_could_move_it():
    # Two points: 50% exact, 30% with DT's p99 a lower bound (its true
    # reduction could be up to 100%): the best lies in [0.5, 1], so "at
    # least 94%" is undecided. With ABM's p99 the lower bound instead, the
    # 30% could only fall: the best is 50%, decided.
    def table(dt_cens, abm_cens):
        rows = []
        for x, dt, abm, cd, ca in ((0.4, 100, 50, 0, 0), (0.8, 100, 70, dt_cens, abm_cens)):
            for alg, v, cens in (("dt", dt, cd), ("abm", abm, ca)):
                rows.append(
                    {
                        "sweep": "load",
                        "algorithm": alg,
                        "load": x,
                        "burst": 0.3,
                        "incast_p99": float(v),
                        "incast_p99_censored": float(cens),
                    }
                )
        return pd.DataFrame(rows)

    best, lo, hi = addanki2022.runs._best(addanki2022.runs.gains(table(1, 0), "incast_p99", "load"))
    assert (best, lo, hi) == (pytest.approx(0.5), pytest.approx(0.5), 1.0)
    best, lo, hi = addanki2022.runs._best(addanki2022.runs.gains(table(0, 1), "incast_p99", "load"))
    assert (best, lo, hi) == (pytest.approx(0.5), pytest.approx(0.5), pytest.approx(0.5))


def test_abm_claims_and_report(abm_table, tmp_path):
    c = addanki2022.claims(abm_table).set_index("claim")
    assert c["why"].str.len().min() > 40
    # ABM's buffer occupancy has no number of the authors' (their samples,
    # tor-*.stat, were not in the copy of their repository read here): the
    # claim on it is an ordering against DT, its ns-2.35 cell says so.
    occ = c.loc["figure 6 (c): ABM holds less of the buffer than DT at the highest load"]
    assert occ["ns2_why"] == "no authors' occupancy" and occ["tolerance_source"].startswith(
        "the abstract's 'bounded buffer drain time'"
    )
    # What bufsim does not run is named in the setup, each with its reason.
    text = addanki2022.setup()
    for needle in ("FAB", "IB", "TIMELY", "PowerTCP", "first-RTT priority", "authors_p99.csv"):
        assert needle in text, needle
    tables = addanki2022.tables(abm_table)
    assert set(tables["not_run"][1]["what"]) == set(design.NOT_RUN)
    # Figures 8, 10 and 12: bufsim refuses abm with several queues per port
    # (figure 12's intervals run with 8 priorities); no theta-PowerTCP.
    for fig in ("figure 8", "figure 10", "figure 12"):
        (why,) = [v for k, v in design.NOT_RUN.items() if fig in k]
        assert "queues per port" in why, fig
    (fig8,) = [v for k, v in design.NOT_RUN.items() if "figure 8" in k]
    assert "theta-PowerTCP" in fig8
    assert len(tables["authors"][1]) == 111
    from bufsim.report import reproduction_report

    page = reproduction_report("addanki2022", table=abm_table)
    for fig in ("load", "burst", "dctcp", "buffer"):
        assert f'id="fig-{fig}"' in page
    # The full run's verdicts are kept with the code (81 runs): the quick
    # report names those that differ from them (a claim kept under its name).
    if abm_table.attrs.get("quick"):
        full = reproduce.full_verdicts("addanki2022")
        moved = sum(full[k] != v for k, v in c["verdict"].items())
        if moved:
            verdicts = "verdicts differ" if moved > 1 else "verdict differs"
            assert f"{moved} {verdicts} from the full run's verdicts kept" in page
    assert "authors_p99.csv" in page
    path = tmp_path / "addanki2022.html"
    path.write_text(page)
    render_in_chromium(path, tmp_path, "addanki2022")
