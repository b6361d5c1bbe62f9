"""The bufsim command line: run, validate, demo, errors and Ctrl-C."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import bufsim
import pytest
from conftest import BASE, cli, default_sigint

SCENARIO = """
name = "cli-test"
duration = "20s"
warmup = "2s"

[link]
capacity = "10Mbps"
delay = "20ms"
buffer = "0.5BDP"

[[flows]]
count = 2
rtt = ["60ms", "100ms"]
mss = "1000B"
"""


def test_run_writes_result(tmp_path):
    (tmp_path / "s.toml").write_text(SCENARIO)
    p = cli("run", "s.toml", "--out", "out", cwd=tmp_path, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "utilization" in p.stdout
    r = bufsim.Result.load(tmp_path / "out")
    direct = bufsim.simulate(tmp_path / "s.toml")
    assert r.summary == pytest.approx(direct.summary)
    assert r.flows.equals(direct.flows)
    assert r.provenance["engine"] == "packet"
    assert json.loads((tmp_path / "out" / "scenario.json").read_text())["link"]["buffer_pkts"] == 50


def test_validate_prints_normalized(tmp_path):
    (tmp_path / "s.toml").write_text(SCENARIO)
    p = cli("validate", "s.toml", "--json", cwd=tmp_path, timeout=120)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["flows"][0]["rtts_s"] == [0.06, 0.1]
    # Without --json: what the scenario describes and each engine's cost.
    p = cli("validate", "s.toml", cwd=tmp_path, timeout=120)
    assert p.returncode == 0, p.stderr
    out = " ".join(p.stdout.split())
    assert "valid" in out and "RTT 60 ms to 100 ms" in out
    assert "packet engine: can run it here: about" in out and "packets" in out


def test_bad_scenario_is_a_clear_error(tmp_path):
    (tmp_path / "s.toml").write_text(SCENARIO.replace('"10Mbps"', "10"))
    p = cli("run", "s.toml", cwd=tmp_path, timeout=120)
    assert p.returncode == 2
    assert "link.capacity" in p.stderr and "unit" in p.stderr
    assert "Traceback" not in p.stderr


def test_ctrl_c_stops_cleanly(tmp_path):
    # A long run interrupted by SIGINT exits 130 and writes nothing.
    (tmp_path / "s.toml").write_text(
        SCENARIO.replace('"20s"', '"2000s"').replace('"10Mbps"', '"1Gbps"')
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "bufsim.cli", "-v", "run", "s.toml", "--out", "out"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,  # SIGINT as a terminal's Ctrl-C finds it
    )
    # Interrupt once the engine runs (its -v log line says so), not after a
    # fixed sleep: on a busy machine the imports alone can take seconds.
    started = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        started.append(line)
        if "packet engine, seed" in line or not line:
            break
    assert "packet engine, seed" in started[-1], started
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "interrupted" in err
    assert not (tmp_path / "out").exists()


def test_readme_quickstart_commands_exist():
    readme = (Path(__file__).parents[1] / "README.md").read_text()
    quick = readme.split("## Quickstart", 1)[1]
    block = quick.split("```", 2)[1]
    assert block.split("\n")[1:3] == ["make demo", "make test"]
    assert os.path.isfile(Path(__file__).parents[1] / ".ci" / "run")


def test_version_and_python_dash_m():
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "bufsim", "--version"], capture_output=True, text=True
    )
    assert out.returncode == 0 and out.stdout.strip() == f"bufsim {bufsim.__version__}"


def test_package_is_typed():
    from pathlib import Path

    assert (Path(bufsim.__file__).parent / "py.typed").is_file()


def test_help_keeps_brackets_and_shows_no_type_tags_on_flags():
    import subprocess
    import sys

    env = {**os.environ, "COLUMNS": "80"}
    out = subprocess.run(
        [sys.executable, "-m", "bufsim", "sweep", "--help"], capture_output=True, text=True, env=env
    )
    assert out.returncode == 0
    text = " ".join(out.stdout.split())
    assert "[grid], [[zip]]" in text  # no longer eaten as markup
    assert "<bool>" not in text  # flags take no value


def test_run_summary_is_compact_with_consistent_units(tmp_path):
    import subprocess
    import sys

    (tmp_path / "s.toml").write_text(SCENARIO)
    env = {**os.environ, "COLUMNS": "80"}
    cmd = [sys.executable, "-m", "bufsim", "run", "s.toml", "--out", "out"]
    short = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, env=env).stdout
    rows = [line for line in short.splitlines() if line.startswith("│")]
    assert 5 <= len(rows) <= 12, short  # fits a 24-line terminal
    assert "drops_codel" not in short and "Mbps" in short
    full = subprocess.run(
        [*cmd, "--all"], cwd=tmp_path, capture_output=True, text=True, env=env
    ).stdout
    # Every rate in bit/s with a prefix (group goodput too), whole-run counters marked,
    # no zero counters of disciplines not in use.
    assert "goodput_bps_group0" in full and "e+06" not in full
    assert "packets_dropped (whole run)" in full and "drops_codel" not in full
    js = subprocess.run(
        [*cmd, "--json"], cwd=tmp_path, capture_output=True, text=True, env=env
    ).stdout
    assert 0 < json.loads(js)["utilization"] <= 1


def test_tables_fit_80_columns(tmp_path):
    """At 80 columns no header or value is cut ("…") and no line is longer."""
    (tmp_path / "s.toml").write_text(SCENARIO.replace('"20s"', '"4s"'))
    (tmp_path / "spec.toml").write_text(
        'base = "s.toml"\nengines = ["packet", "fluid"]\nseeds = [1, 2]\n'
        '[grid]\n"link.buffer" = ["0.1BDP", "100pkt"]\n"link.delay" = ["10ms", "20ms"]\n'
    )
    env = {**os.environ, "COLUMNS": "80"}
    for args in (
        ["run", "s.toml"],
        ["run", "s.toml", "--all"],
        ["sweep", "spec.toml", "--workers", "0"],
        ["results"],
        ["reproduce", "list"],
        ["demo", "--quick"],
        ["examples"],
    ):
        p = cli(*args, cwd=tmp_path, env=env, timeout=300)
        assert p.returncode == 0, (args, p.stderr)
        assert "…" not in p.stdout, (args, p.stdout)
        assert max(len(line) for line in p.stdout.splitlines()) <= 80, (args, p.stdout)


def test_long_work_prints_plain_progress_lines_when_stderr_is_no_terminal(monkeypatch, capsys):
    # A log or CI captures stderr: no bar is drawn there, so the run, the
    # sweep and the search say what they do, how far and an ETA in plain
    # lines (every 10 s; here at every step), all through one Lines.
    from bufsim import cli as cli_module
    from bufsim.advise import AdviseProgress
    from bufsim.sweep import progress

    monkeypatch.setattr(progress, "LINE_EVERY_S", 0.0)
    _, say = cli_module._advise_progress(terminal=False)
    say(AdviseProgress("packet bisection", "packet bisection 2/7: 45 packets", 3, 12))
    lines = progress.Lines("demo [packet]")
    lines(25.0, 100.0, "s simulated")
    sweep = progress.for_stderr("sweep spec")
    sweep({"done": 2, "total": 8, "failed": 0, "cached": 0})
    lines.say("running auge2006 section V ...")
    err = capsys.readouterr().err.splitlines()
    assert re.fullmatch(
        r"advise: packet bisection 2/7: 45 packets: 3/12 runs, \d+ s elapsed, ETA \d+ s", err[0]
    ), err
    assert re.fullmatch(r"demo \[packet\]: 25/100 s simulated, \d+ s elapsed, ETA \d+ s", err[1])
    assert re.fullmatch(r"sweep spec: 2/8 points, \d+ s elapsed, ETA \d+ s", err[2])
    assert re.fullmatch(
        r"demo \[packet\]: running auge2006 section V \.\.\. \(\d+ s elapsed\)", err[3]
    )


def test_run_progress_goes_to_stderr_even_when_stdout_is_a_terminal(tmp_path, monkeypatch):
    # `bufsim run s.toml 2>log` on a terminal: stdout is a terminal, stderr
    # a file. The progress follows stderr: plain lines in the log (here at
    # every step), no bar on stdout.
    from bufsim import cli as cli_module
    from bufsim.sweep import progress
    from rich.console import Console
    from typer.testing import CliRunner

    # 100 Mbps: enough events for the engine to call progress (every 2^16).
    (tmp_path / "s.toml").write_text(SCENARIO.replace('"10Mbps"', '"100Mbps"'))
    monkeypatch.setattr(progress, "LINE_EVERY_S", 0.0)
    monkeypatch.setattr(cli_module, "console", Console(force_terminal=True, width=100))
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(cli_module.app, ["run", "s.toml", "--out", "out", "--store", ""])
    assert res.exit_code == 0, res.output
    lines = res.stderr.splitlines()
    assert lines and all(
        re.fullmatch(r"cli-test \[packet\]: [\d.]+/20 s simulated, \d+ s elapsed(, ETA \d+ s)?", x)
        for x in lines
    ), lines
    done = [float(x.split(": ")[1].split("/")[0]) for x in lines]
    assert done == sorted(done) and 0 < done[-1] <= 20
    assert "simulated" not in res.stdout and "utilization" in res.stdout


def test_report_of_a_sweep_spec_says_how_far_it_is(tmp_path, monkeypatch):
    # `bufsim report spec.toml` runs the sweep: its points done and an ETA
    # on stderr (not a terminal here), then the page states the base
    # scenario and what was swept.
    from bufsim import cli as cli_module
    from bufsim.sweep import progress
    from typer.testing import CliRunner

    (tmp_path / "s.toml").write_text(SCENARIO.replace('"20s"', '"4s"'))
    (tmp_path / "spec.toml").write_text(
        'name = "two-buffers"\nbase = "s.toml"\n[grid]\n"link.buffer" = ["10pkt", "100pkt"]\n'
    )
    monkeypatch.setattr(progress, "LINE_EVERY_S", 0.0)
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(cli_module.app, ["report", "spec.toml", "-o", "r.html"])
    assert res.exit_code == 0, res.output
    lines = res.stderr.splitlines()
    assert [x.split(",")[0] for x in lines] == [
        "sweep two-buffers: 1/2 points",
        "sweep two-buffers: 2/2 points",
    ], lines
    page = (tmp_path / "r.html").read_text()
    assert "Base scenario" in page and "RTT 60 ms to 100 ms" in page
    assert '<td class="text">link.buffer</td><td class="text">10pkt, 100pkt</td>' in page


def test_validate_takes_what_advise_takes_and_prices_both(tmp_path):
    # No duration: derived from the time scales as advise derives it, and
    # the cost of a run and of an advise search (with and without --quick)
    # printed before anyone starts one.
    path = tmp_path / "port.toml"
    path.write_text(
        'name = "port"\n[link]\ncapacity = "1Gbps"\ndelay = "10ms"\nbuffer = "100pkt"\n'
        '[[flows]]\ncount = 50\ntcp = "cubic"\nrtt = {min = "20ms", max = "100ms"}\n'
    )
    out = cli("validate", str(path), cwd=tmp_path, timeout=120)
    assert out.returncode == 0, out.stderr
    text = " ".join(out.stdout.split())
    assert "derived from the scenario's time scales" in text
    full = re.search(r"advise for utilization>=0.98: about (\d+) packet runs of (\S+ s)", text)
    quick = re.search(r"advise --quick for utilization>=0.98: about (\d+) packet runs", text)
    assert full and quick and int(quick.group(1)) < int(full.group(1))
    from bufsim import fmt, limits
    from bufsim.advise import cost, with_time_scales

    c = cost(str(path))
    assert int(full.group(1)) == c["packet_runs"]
    # Priced in time too: CPU seconds at the packet engine's rate.
    cpu = fmt.metric("cpu_s", c["packets"] / limits.PACKETS_PER_CPU_S)
    packets = fmt.number(float(f"{c['packets']:.3g}"))  # written out, three digits
    assert f"{packets} in all: about {cpu} of CPU" in text
    run = limits.estimate(with_time_scales(str(path))[0], "packet")["work"]
    cpu = fmt.metric("cpu_s", run / limits.PACKETS_PER_CPU_S)
    about = fmt.number(float(f"{run:.3g}"))
    assert f"packet engine: can run it here: about {about} packets (about {cpu} of CPU)" in text
    # -O as advise takes it: the search for a loss objective bisects for
    # its own edge, so it costs what advise.cost says for that objective.
    out = cli("validate", str(path), "-O", "drop_rate<=0.001", cwd=tmp_path, timeout=120)
    text = " ".join(out.stdout.split())
    loss = cost(str(path), ["drop_rate<=0.001"])["packet_runs"]
    assert loss != c["packet_runs"]
    assert f"advise for drop_rate<=0.001: about {loss} packet runs" in text
    bad = cli("validate", str(path), "-O", "util>=2", cwd=tmp_path, timeout=120)
    assert bad.returncode == 2 and "unknown metric 'util'" in bad.stderr


RICH = """
name = "rich"
duration = "20s"
warmup = "2s"

[link]
capacity = "100Mbps"
delay = "10ms"
buffer = "30000B"
qdisc = "red"
qdisc_params = { ecn = true }

[[flows]]
count = 3
tcp = "cubic"
tcp_params = { c = 0.2 }
rtt = ["20ms", "40ms", "60ms"]
stack = "linux"
min_rto = "5ms"
connection_setup = false
access_rate = "1Gbps"
rwnd = "64pkt"
ecn = true
loss = 0.001
start = { uniform = ["0s", "2s"] }

[[flows]]
count = 4
stack = "rfc"
rtt = "50ms"
size = { pareto = { shape = 1.2, min = "10pkt" } }
recovery = "rfc6675"
delayed_ack = true

[[flows]]
users = 5
stack = "rfc"
rtt = { min = "20ms", max = "80ms" }
size = "100kB"
think = "1s"

[[background]]
kind = "poisson"
rate = "10Mbps"
packet_size = "500B"
"""


def test_validate_states_the_scenario_in_full(tmp_path):
    # Every field a run assumes, in words with units: the queue
    # discipline's parameters, a buffer counted in bytes, the stack's
    # fields set over its profile (a group naming stack = "linux" with
    # min_rto = "5ms" is not "stack linux" alone), starts, size laws,
    # think times, the access link, rwnd, ECN, loss and the background.
    (tmp_path / "s.toml").write_text(RICH)
    p = cli("validate", "s.toml", cwd=tmp_path, timeout=120)
    assert p.returncode == 0, p.stderr
    out = " ".join(p.stdout.split())
    lines = bufsim.Scenario.load(tmp_path / "s.toml").describe()
    assert all(line in out for line in lines), out
    assert lines[1] == (
        "link: 100 Mbps, one-way delay 10 ms, red (adaptive off, ecn on, gentle on, hard_drop off, interval "
        "500 ms, max_p 0.1, max_th 15, min_th 5, mode bytes, variant floyd, w_q 0.002, wait off), "
        "buffer 30 kB "
        "counted in bytes (20 packets of 1.5 kB), BDP 389 packets of 1.5 kB at RTT 46.67 ms"
    )  # RTT: the mean of the groups' RTT laws' means, 40, 50 and 50 ms.
    starts = bufsim.Scenario.load(tmp_path / "s.toml").normalized["flows"][0]["starts_s"]
    assert 0 <= min(starts) < max(starts) <= 2
    assert lines[2].startswith("flows[0]: 3 long-lived flows starting between ")
    assert lines[2].endswith(
        ", cubic, stack linux (set over it: min RTO 5 ms, handshake off), 1.5 kB packets, "
        "RTT 20 ms to 60 ms"
    )
    assert lines[3].startswith(
        "flows[0] TCP: cubic (beta 0.7, c 0.2, fast_convergence on, mirror none, "
        "reno_friendly on), "
        "initial window 10 packets, min RTO 5 ms, handshake off, SACK on, RACK-TLP, PRR on"
    )
    assert lines[4] == (
        "flows[0] path: access link 1 Gbps with a 1000-packet buffer, receive window "
        "64 packets, ECN on, send jitter up to 0 s, random loss 0.001"
    )
    assert lines[5].startswith(
        "flows[1]: 4 transfers starting at 0 s, Pareto sizes (shape 1.2, at least 10 packets), "
        "mean 60.51 packets, newreno, stack rfc (set over it: delayed ACKs on), 1.5 kB packets"
    )  # recovery = "rfc6675" is the rfc profile's own: nothing set over it.
    # 100 kB of 1500 B packets: 66.67, each transfer rounded up to 67.
    assert lines[8].startswith(
        "flows[2]: 5 closed-loop users from 0 s, exponential think time 1 s, transfers of "
        "67 packets, newreno, stack rfc, 1.5 kB packets, RTT uniform on 20 ms to 80 ms"
    )
    assert "background[0]: Poisson packets at 10 Mbps, 500 B each" in lines


def test_the_advice_tables_show_lower_bounds_as_such(monkeypatch):
    # At 10 packets seed 1's p99 FCT (0.3 s) is only a lower bound, so the
    # mean there is one too: the tables print ">= 300 ms" and the trade-off
    # says the objective (<= 500 ms) cannot be judged there rather than
    # that it holds or fails; utilization at 10 packets (0.8) fails.
    from io import StringIO

    from bufsim import cli as cli_module
    from rich.console import Console
    from test_advise import _hand_made_advice

    out = StringIO()
    monkeypatch.setattr(cli_module, "console", Console(file=out, width=200))
    cli_module._print_advice(_hand_made_advice(), verbose=True)
    text = out.getvalue()
    trade = text[text.index("The trade-off") :]
    row10 = next(
        x for x in trade.splitlines() if x.count("│") > 2 and x.split("│")[1].strip() == "10"
    )
    assert ">= 300 ms (cannot be judged)" in row10 and "0.8 (fails)" in row10
    # The compact table and -v's full one.
    bdp = [x for x in text.splitlines() if x.split()[:2] == ["1", "BDP"]]
    assert len(bdp) == 2 and all(">= 300 ms" in x for x in bdp)
    assert "O1 0.8, O2 >= 300 ms: not met" in bdp[0]


def test_the_run_table_shows_completions_per_finite_group(monkeypatch):
    # Two finite groups: besides the pooled completions and p99 FCT, each
    # group's (an incast that finished 2 of 100 beside a web mix that
    # finished 88%), with a lower bound shown as one.
    from io import StringIO
    from types import SimpleNamespace

    from bufsim import cli as cli_module
    from rich.console import Console

    s = {
        "flows_started_small": 200.0,
        "flows_completed_small": 90.0,
        "completion_small": 0.45,
        "fct_p99_small_s": 0.5,
        "fct_p99_small_s_censored": 1.0,
    }
    for g, done in ((0, 0.02), (1, 0.88)):
        s |= {
            f"flows_started_small_group{g}": 100.0,
            f"completion_small_group{g}": done,
            f"fct_p99_small_s_group{g}": 0.5 if g == 0 else 0.012,
            f"fct_p99_small_s_group{g}_censored": 1.0 if g == 0 else 0.0,
        }
    out = StringIO()
    monkeypatch.setattr(cli_module, "console", Console(file=out, width=120))
    cli_module.print_summary(SimpleNamespace(summary=s), "t")
    text = out.getvalue()
    rows = {
        x.split("│")[1].strip(): x.split("│")[2].strip()
        for x in text.splitlines()
        if x.count("│") == 3
    }
    assert rows["completion_small_group0"] == "0.02" and rows["completion_small_group1"] == "0.88"
    assert rows["fct_p99_small_s_group0"] == ">= 500 ms"
    assert rows["fct_p99_small_s_group1"] == "12 ms"
    assert rows["fct_p99_small_s"] == ">= 500 ms"


def test_reproduce_refuses_a_bad_scheduler_or_workers_before_running(tmp_path):
    from bufsim import cli as cli_module
    from typer.testing import CliRunner

    res = CliRunner().invoke(
        cli_module.app, ["reproduce", "auge2006", "--scheduler", "nowhere", "--out", str(tmp_path)]
    )
    assert res.exit_code != 0
    assert "scheduler 'nowhere': not a Dask scheduler address" in res.output
    res = CliRunner().invoke(cli_module.app, ["reproduce", "auge2006", "--workers", "-1"])
    assert res.exit_code != 0 and "--workers" in res.output
    assert not (tmp_path / "runs").exists()


def test_verbose_works_after_the_subcommand_too(tmp_path):
    from bufsim.cli import _verbose_first

    assert _verbose_first(["run", "s.toml", "-vv", "-q"]) == ["-vv", "run", "s.toml", "-q"]
    assert _verbose_first(["--verbose", "run", "x"]) == ["--verbose", "run", "x"]
    assert _verbose_first(["run", "x", "--", "-v"]) == ["run", "x", "--", "-v"]
    (tmp_path / "s.toml").write_text(SCENARIO.replace('"20s"', '"4s"'))
    p = cli("run", "s.toml", "-q", "-v", cwd=tmp_path, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "bufsim" in p.stderr and "INFO" in p.stderr, p.stderr  # the log lines of -v


# ----------------------------------------------------------------------------- no dead ends


def _invoke(args: list[str], cwd: Path, monkeypatch):
    """``bufsim ARGS`` in this process, from ``cwd``, at 80 columns."""
    from bufsim.cli import app
    from typer.testing import CliRunner

    monkeypatch.chdir(cwd)
    monkeypatch.setenv("COLUMNS", "80")
    return CliRunner().invoke(app, args)


def test_run_prints_a_row_per_flow(tmp_path, monkeypatch):
    # getting-started.md: `bufsim run first.toml` prints "a summary table, then per-flow rows".
    (tmp_path / "s.toml").write_text(SCENARIO.replace('"20s"', '"3s"'))
    r = _invoke(["run", "s.toml", "--out", "out", "--store", ""], tmp_path, monkeypatch)
    assert r.exit_code == 0, r.output
    flows = bufsim.Result.load(tmp_path / "out").flows.sort_values("flow")
    rows = re.findall(r"^\s+(\d+)\s+0\s+(\d+) ms\s+(\S+ [kM]bps)\s", r.stdout, flags=re.M)
    assert [(int(f), int(rtt)) for f, rtt, _ in rows] == [(0, 60), (1, 100)], r.stdout
    # Each row's goodput is the flow's, as fmt writes it.
    from bufsim import fmt

    assert [g for _, _, g in rows] == [fmt.metric("goodput_bps", g) for g in flows["goodput_bps"]]


def test_many_flows_get_rows_with_flows_only(tmp_path, monkeypatch):
    (tmp_path / "s.toml").write_text(
        SCENARIO.replace('"20s"', '"3s"')
        .replace("count = 2", "count = 25")
        .replace('rtt = ["60ms", "100ms"]', 'rtt = "60ms"')
    )
    r = _invoke(["run", "s.toml", "--out", "a", "--store", ""], tmp_path, monkeypatch)
    assert r.exit_code == 0, r.output
    assert "25 flows: --flows prints a row for each" in r.stdout
    r = _invoke(["run", "s.toml", "--out", "b", "--store", "", "--flows"], tmp_path, monkeypatch)
    assert r.exit_code == 0, r.output
    rows = re.findall(r"^\s+(\d+)\s+0\s+60 ms\s", r.stdout, flags=re.M)
    assert [int(f) for f in rows] == list(range(25))


def test_sweep_has_the_limit_its_hint_names(tmp_path, monkeypatch):
    import tomli_w

    (tmp_path / "s.toml").write_text(tomli_w.dumps({**BASE, "duration": "0.5s", "warmup": "0s"}))
    (tmp_path / "spec.toml").write_text(
        'base = "s.toml"\n[grid]\n"link.buffer" = ["5pkt", "10pkt", "20pkt", "40pkt"]\n'
    )
    args = ["sweep", "spec.toml", "--store", "st", "--workers", "0"]
    r = _invoke([*args, "--limit", "2"], tmp_path, monkeypatch)
    assert r.exit_code == 0, r.output
    assert "first 2 of 4 rows (--limit 0: all)" in " ".join(r.stdout.split())
    r = _invoke([*args, "--limit", "0"], tmp_path, monkeypatch)
    assert r.exit_code == 0, r.output
    for b in ("5pkt", "10pkt", "20pkt", "40pkt"):
        assert re.search(rf"^\s+{b}\s", r.stdout, flags=re.M), r.stdout
    assert "first" not in r.stdout
    assert "4 points: 0 ran, 4 reused" in r.stdout


def test_report_takes_an_example_as_run_sweep_and_advise_do(tmp_path, monkeypatch):
    from bufsim import report

    seen = {}

    def write(source, out, **kwargs):
        seen["source"] = source
        Path(out).write_text("<html></html>")
        return Path(out)

    monkeypatch.setattr(report, "write", write)
    r = _invoke(["report", "--example", "variants", "-o", "v.html"], tmp_path, monkeypatch)
    assert r.exit_code == 0, r.output
    assert Path(seen["source"]) == bufsim.examples.spec("variants")
    assert "report written to v.html" in r.stdout
    # A scenario example is a run's input: the error says how to report on it.
    r = _invoke(["report", "--example", "two-way", "-o", "v.html"], tmp_path, monkeypatch)
    assert r.exit_code == 2
    assert "bufsim run --example two-way --out DIR, then bufsim report DIR" in r.stderr


def test_help_shows_each_commands_description_whole(tmp_path, monkeypatch):
    r = _invoke(["--help"], tmp_path, monkeypatch)
    assert r.exit_code == 0, r.output
    commands = r.stdout.split("Commands:")[1].strip().splitlines()
    assert len(commands) >= 10, commands
    for line in commands:
        assert not line.rstrip().endswith("..."), line
        assert line.rstrip().endswith("."), line
        assert len(line) <= 80, line


@pytest.mark.parametrize("engine", ["fluid", "model:avrachenkov"])
def test_every_engine_prints_the_flow_columns_it_has(tmp_path, monkeypatch, engine):
    (tmp_path / "s.toml").write_text(SCENARIO.replace('"20s"', '"3s"'))
    r = _invoke(
        ["run", "s.toml", "--engine", engine, "--out", "o", "--store", ""], tmp_path, monkeypatch
    )
    assert r.exit_code == 0, (r.output, r.exception)
    rows = re.findall(r"^\s+(\d+)\s+0\s+(\d+) ms\s+\S+ [kM]bps\s*$", r.stdout, flags=re.M)
    assert [(int(f), int(rtt)) for f, rtt in rows] == [(0, 60), (1, 100)], r.stdout
    assert "loss rate" not in r.stdout


def test_finite_transfers_get_their_completion_time(tmp_path, monkeypatch):
    import tomli_w

    raw = {
        **BASE,
        "duration": "2s",
        "warmup": "0s",
        "flows": [
            {
                "size": "30KB",
                "rtt": "40ms",
                "mss": "1000B",
                "arrival": {"every": "0.5s", "burst": 2},
            }
        ],
    }
    (tmp_path / "s.toml").write_text(tomli_w.dumps(raw))
    r = _invoke(["run", "s.toml", "--out", "o", "--store", ""], tmp_path, monkeypatch)
    assert r.exit_code == 0, (r.output, r.exception)
    flows = bufsim.Result.load(tmp_path / "o").flows.sort_values("flow")
    from bufsim import fmt

    want = ["unfinished" if fct != fct else fmt.metric("fct_s", fct) for fct in flows["fct_s"]]
    got = re.findall(r"^\s+\d+\s+0\s+.*\s(unfinished|\S+ m?s)\s*$", r.stdout, flags=re.M)
    assert "FCT" in r.stdout and got == want, r.stdout
