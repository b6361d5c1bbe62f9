"""The congestion-control check suite (``bufsim.checks``): every check quick
here, all of them full under ``-m slow`` (``make bench``).

Measured (quick / full) on the linux stack: Reno's sawtooth at 0.1, 0.25,
0.5 BDP 0.8202 / 0.8206, 0.8912 / 0.8913, 0.9627 / 0.9633 against 0.8176,
0.8929, 0.9643; CUBIC at 0.45 BDP 1.0000, at 0.3 BDP 0.9947 / 0.9948
against 0.9963; one BBR v3 flow at 0.25 BDP 0.9767 / 0.9782 against
>= 0.95; BBR v1's ProbeRTT cost 0.9763 / 0.9766 against 0.98; loss
at 0.25 BDP with 4 flows v1 6.40% / 6.30%, v3 0.43% / 0.62%; Jain with 4
flows starting together v1 0.9980 / 0.9991, v3 0.9759 / 0.9969; BBR v1's
share against 1, 2, 4 CUBIC flows max/min 1.29 / 1.12; DCTCP at K = 12:
utilization 1.0000, 0.9992, 0.9843 (N = 1, 4, 16), mean queue 9.65, 8.70,
11.64 packets; BBR v1's RTT unfairness in deep buffers (2 BDP): the
50 ms flow over the 10 ms flow's 34.1 / 33.5 (Ma et al.'s testbed: 13.9),
the 5 longest-RTT of 10 flows (60-100 ms) over the 5 shortest 1.25 /
2.96. The BBR rows moved when BBR began to set its own window in a fast
recovery (no PRR before it, as Linux's tcp_cong_control); before, v3's
0.9785, v1's loss 5.82%, Jain 0.9972 / 0.9958, 1.18, 32.5 and 3.62 quick.
"""

from __future__ import annotations

import re

import bufsim
import bufsim.checks as checks
import pytest


def _param(c: checks.Check):
    # A check that disagrees with its source stays a failure: strict xfail,
    # its measured numbers and suspected rule in its finding.
    marks = [pytest.mark.xfail(strict=True, reason=c.finding)] if c.finding else []
    return pytest.param(c, id=c.name, marks=marks)


@pytest.mark.parametrize("check", [_param(c) for c in checks.CHECKS])
def test_check_quick(check: checks.Check):
    measured = check.run(quick=True)
    assert check.passes(measured), (
        f"{check.name}: measured {measured:.4f}, expected {check.expectation} ({check.source})"
    )


def test_names_are_unique_and_every_check_cites_a_source():
    names = [c.name for c in checks.CHECKS]
    assert len(names) == len(set(names))
    for c in checks.CHECKS:
        assert c.source and c.tolerance_source and c.quantity, c.name
        assert c.tolerance >= 0, c.name


def test_reno_sawtooth_formula_hand_worked():
    # b = 0: the window runs from BDP/2 to BDP, mean 3/4 (Avrachenkov et al.
    # 2006 Corollary 1). b = 0.25: 3 x 1.5625 / (4 x 1.3125) = 0.89286.
    # b = 0.5: 3 x 2.25 / (4 x 1.75) = 0.96429. b >= 1: 1.
    f = checks.reno_sawtooth_utilization
    assert f(0.0) == pytest.approx(0.75)
    assert f(0.25) == pytest.approx(0.892857, abs=1e-6)
    assert f(0.5) == pytest.approx(0.964286, abs=1e-6)
    assert f(1.0) == f(3.0) == 1.0
    with pytest.raises(ValueError, match="fraction"):
        f(-0.1)


def test_cubic_threshold_is_three_sevenths():
    # 0.7 (1 + b) >= 1 <=> b >= 3/7 = 0.4286 (RFC 9438 beta_cubic 0.7).
    assert checks.CUBIC_FULL_FRACTION == pytest.approx(3 / 7)


def test_verdicts_follow_the_bound():
    c = checks.CHECKS[0]
    assert c.bound == "within"
    assert c.verdict(c.expected + 0.9 * c.tolerance) == "pass"
    assert c.verdict(c.expected - 1.1 * c.tolerance) == "fail"
    low = next(c for c in checks.CHECKS if c.name == "bbr3-shallow-loss")
    assert low.verdict(0.019) == "pass" and low.verdict(0.021) == "fail"
    assert low.expectation == "<= 0.02"
    high = next(c for c in checks.CHECKS if c.name == "bbr1-shallow-loss")
    assert high.verdict(0.021) == "pass" and high.verdict(0.019) == "fail"


def test_run_all_tabulates_measured_against_expected():
    some = [c for c in checks.CHECKS if c.name.startswith(("reno", "dctcp-k7-utilization-16"))]
    t = checks.run_all(quick=True, checks=some)
    assert list(t.columns) == [
        "name",
        "source",
        "quantity",
        "measured",
        "expected",
        "tolerance",
        "bound",
        "verdict",
        "finding",
    ]
    assert len(t) == 4
    reno = t[t["name"].str.startswith("reno")]
    assert (reno["verdict"] == "pass").all()
    # The disagreement shows as a failure with its finding beside it.
    dctcp = t[t["name"] == "dctcp-k7-utilization-16flows"].iloc[0]
    assert dctcp["verdict"] == "fail" and "ecn_reduction" in dctcp["finding"]


@pytest.mark.slow
def test_every_check_full():
    t = checks.run_all(quick=False)
    expected_fail = {c.name for c in checks.CHECKS if c.finding}
    failed = set(t.loc[t["verdict"] == "fail", "name"])
    assert failed == expected_fail, t[["name", "measured", "expected", "verdict"]].to_string()


def test_cli_prints_each_check_and_the_findings():
    from conftest import cli

    r = cli("checks")
    assert r.returncode == 0, r.stderr
    for c in checks.CHECKS:
        assert c.name in r.stdout
    # 18 of 20 pass quick; the failures are the two findings, printed whole.
    known = sum(1 for c in checks.CHECKS if c.finding)
    total = len(checks.CHECKS)
    assert f"{total - known} of {total} checks pass" in r.stdout
    assert "dctcp-k7-utilization-16flows: measured 0.9843" in r.stdout
    assert not re.search(r"\d[eE][-+]?\d", r.stdout), "no e-notation"


def test_ns3_form_puts_every_group_on_ns3s_profile():
    s = checks._scenario(
        "10Mbps",
        "1BDP",
        [
            checks._flow("cubic", 2, tcp_params={"c": 0.4}),
            checks._flow("bbr", 1, tcp_params={"version": 1}),
        ],
        10,
        warmup=1,
    )
    n = checks.ns3_form(s)
    assert [g["stack"] for g in n["flows"]] == ["ns3", "ns3"]
    # The profile gives each variant ns-3.37's rules, the group's own kept.
    assert n["flows"][0]["tcp_params"] == {"c": 0.4}
    cc = [g["cc"] for g in bufsim.Scenario.load(n).normalized["flows"]]
    assert (cc[0]["c"], cc[0]["reno_friendly"], cc[0]["mirror"]) == (0.4, False, "ns-3.37")
    assert (cc[1]["version"], cc[1]["send_quantum"], cc[1]["mirror"]) == (1, "segment", "ns-3.37")
    assert s["flows"][0]["stack"] == "linux", "the check's own scenario is left as written"
    v3 = dict(s, flows=[checks._flow("bbr", 1, tcp_params={"version": 3})])
    with pytest.raises(ValueError, match="tcp_params.version: 3"):
        checks.ns3_form(v3)
    with pytest.raises(ValueError, match="form: 'ns2'"):
        checks.CHECKS[0].run(True, "ns2")


def _check(name: str) -> checks.Check:
    return next(c for c in checks.CHECKS if c.name == name)


def test_rtt_unfairness_on_the_ns3_form_is_ns3s_starvation():
    # The packet engine on the ns-3 form of the pair (ns-3.37's TcpBbr
    # window rules, one-segment quantum): the 10 ms flow starves, 715 times
    # below the 50 ms flow (ns-3.37 itself: 868, see the slow test), where
    # the linux profile holds it at its 3-quanta floor (34.1; 32.5 while
    # the linux profile ran PRR before BBR in a fast recovery).
    pair = _check("bbr1-rtt-unfair-pair")
    assert pair.run(True) == pytest.approx(34.08, rel=0.01)
    assert pair.run(True, "packet-ns3") == pytest.approx(715, rel=0.01)


@pytest.mark.slow
def test_rtt_unfairness_against_ns3():
    # ns-3.37 on the pair's ns-3 form, 30 s (about 10 CPU s): 868 against
    # the packet engine's 715 on the same form; both far above the linux
    # profile's 34.1 and Ma et al.'s 13.9.
    pair = _check("bbr1-rtt-unfair-pair")
    t = checks.run_all(quick=True, checks=[pair], ns3=True)
    row = t.iloc[0]
    assert row["ns3"] == pytest.approx(868, rel=0.05)
    assert row["packet_ns3"] == pytest.approx(715, rel=0.01)
    assert row["ns3"] > 20 * row["measured"]


def test_every_check_marked_ns3_is_one_ns3_runs(monkeypatch):
    # Each ns-3 form passes the ns3 engine's refusals (bufsim.ns3.check:
    # every sender, stack rule and discipline ns-3 has), checked at the
    # check's first run, which then stops.
    from bufsim import ns3
    from bufsim.scenario import Scenario

    class Checked(Exception):
        pass

    def checked(scenario, engine="packet"):
        assert engine == "ns3"
        ns3.check(Scenario.load(scenario))
        raise Checked

    monkeypatch.setattr(checks, "simulate", checked)
    marked = [c for c in checks.CHECKS if c.ns3]
    for c in marked:
        with pytest.raises(Checked):
            c.run(True, "ns3")
    assert len(marked) == 16
    v3 = [c for c in checks.CHECKS if "bbr3" in c.name]
    assert v3 and not any(c.ns3 for c in v3)


def test_cli_ns3_puts_ns3_beside_the_checks_it_ran(monkeypatch, capsys):
    # ns-3 replaced by fixed numbers (the quick ones measured, docs/engines.md):
    # what is under test is the listing, not ns-3.
    import bufsim.cli
    from bufsim import ns3

    some = [_check(n) for n in ("reno-sawtooth-0.25BDP", "bbr3-one-flow-0.25BDP")]
    table = checks.run_all(quick=True, checks=some)
    table["ns3"], table["packet_ns3"] = [0.8833, float("nan")], [0.8852, float("nan")]
    monkeypatch.setattr(checks, "run_all", lambda quick, ns3: table)
    monkeypatch.setattr(ns3, "available", lambda: True)
    bufsim.cli.checks(quick=True, ns3=True)
    out = capsys.readouterr().out
    beside = out[out.index("packet, ns-3 form") :]
    assert re.search(r"reno-sawtooth-0\.25BDP +0\.8912 +0\.8833 +0\.8852", beside), out
    assert "bbr3-one-flow" not in beside.split("ns-3: ns-3.37")[0]


def test_cli_ns3_without_ns3_is_one_error_line(monkeypatch, capsys):
    import bufsim.cli
    import typer
    from bufsim import ns3

    monkeypatch.setattr(ns3, "available", lambda: False)
    with pytest.raises(typer.Exit) as e:
        bufsim.cli.checks(quick=True, ns3=True)
    assert e.value.exit_code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --ns3: ns-3 is not installed; the ns3 engine needs")
    assert err.count("\n") == 1
