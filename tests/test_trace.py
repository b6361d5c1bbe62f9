"""The bottleneck packet trace (``output.trace``), its pcap export read back
by tshark, and the flows table's per-flow queueing delay and jitter."""

from __future__ import annotations

import copy
import json
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import bufsim
import numpy as np
import pandas as pd
import pytest
from bufsim.pcap import ipv4_checksum

#: 10 Mbps drop-tail, 4 NewReno flows and Poisson background (UDP in the pcap).
SCENARIO = {
    "name": "trace-test",
    "duration": "6s",
    "warmup": "1s",
    "link": {"capacity": "10Mbps", "delay": "10ms", "buffer": "30pkt"},
    "flows": [{"count": 4, "rtt": {"min": "30ms", "max": "90ms"}, "mss": "1000B"}],
    "background": [{"kind": "poisson", "rate": "1Mbps", "packet_size": "500B"}],
    "output": {"trace": True},
}

COLUMNS = ["time_s", "event", "flow", "seq", "size_bytes", "queue_pkts", "ecn"]


@pytest.fixture(scope="module")
def result() -> bufsim.Result:
    return bufsim.simulate(SCENARIO)


def tshark() -> str:
    exe = shutil.which("tshark")
    if exe is None:
        pytest.fail("tshark is not installed: `make tshark` (make test installs it)")
    return exe


def fields(pcap: Path, *names: str, options: tuple[str, ...] = ()) -> list[list[str]]:
    """tshark's values of ``names`` for each packet of ``pcap``."""
    args = [tshark(), "-r", str(pcap), "-T", "fields", *options]
    for n in names:
        args += ["-e", n]
    out = subprocess.run(args, capture_output=True, text=True, timeout=120, check=True)
    return [line.split("\t") for line in out.stdout.splitlines()]


def test_trace_columns_and_events(result):
    t = result.trace
    assert list(t.columns) == COLUMNS
    assert len(t) > 5000
    assert isinstance(t["event"].dtype, pd.CategoricalDtype)
    # The run's own events: drop-tail's one reason, none of another discipline's.
    assert list(t["event"].cat.categories) == ["enqueue", "dequeue", "drop_overflow"]
    assert {"enqueue", "dequeue", "drop_overflow"} <= set(t["event"].unique())
    assert t["time_s"].is_monotonic_increasing
    assert t["time_s"].iloc[-1] <= 6.0
    for c in ("flow", "seq", "size_bytes", "queue_pkts"):
        assert t[c].dtype == np.int64, c
    # Background rows: flow -1, seq 0, 500 B; TCP rows: the flows table's ids.
    bg = t[t["flow"] == -1]
    assert len(bg) > 1000 and (bg["seq"] == 0).all() and (bg["size_bytes"] == 500).all()
    assert set(t.loc[t["flow"] >= 0, "flow"]) == set(result.flows["flow"])
    # Every arrival left the queue, was dropped, or is still waiting.
    counts = t["event"].value_counts()
    drops = sum(counts[e] for e in counts.index if e.startswith("drop_"))
    assert counts["enqueue"] == counts["dequeue"] + drops + t["queue_pkts"].iloc[-1]
    # Drops by reason after the warm-up are the summary's counters.
    after = t[t["time_s"] >= 1.0]["event"].value_counts()
    for name in t["event"].cat.categories:
        if name.startswith("drop_"):
            assert after.get(name, 0) == result.summary["drops_" + name[len("drop_") :]], name
    assert [k for k in result.summary if k.startswith("drops_")] == ["drops_overflow"]


def test_trace_off_is_empty_and_changes_nothing(result):
    off = bufsim.simulate({**SCENARIO, "output": {"trace": False}})
    assert off.trace.empty
    assert off.summary.keys() == result.summary.keys()
    for k, v in off.summary.items():
        assert v == result.summary[k] or (np.isnan(v) and np.isnan(result.summary[k])), k
    pd.testing.assert_frame_equal(off.flows, result.flows)
    default = bufsim.simulate({k: v for k, v in SCENARIO.items() if k != "output"})
    assert default.trace.empty


def test_save_load_round_trip(result, tmp_path):
    out = result.save(tmp_path / "with")
    assert (out / "trace.parquet").is_file()
    back = bufsim.Result.load(out)
    pd.testing.assert_frame_equal(back.trace, result.trace)
    # Without a trace: no trace.parquet, and the result still loads.
    off = bufsim.simulate({**SCENARIO, "output": {}})
    out = off.save(tmp_path / "without")
    assert not (out / "trace.parquet").exists()
    assert bufsim.Result.load(out).trace.empty
    # A result saved before traces existed (the six files) loads.
    old = tmp_path / "old"
    shutil.copytree(tmp_path / "with", old)
    (old / "trace.parquet").unlink()
    assert bufsim.Result.load(old).trace.empty
    # A damaged trace.parquet is a ResultError naming the file.
    (tmp_path / "with" / "trace.parquet").write_bytes(b"not parquet")
    with pytest.raises(bufsim.ResultError, match="trace.parquet"):
        bufsim.Result.load(tmp_path / "with")


def test_pcap_file_layout(result, tmp_path):
    path = result.to_pcap(tmp_path / "out.pcap")
    data = path.read_bytes()
    magic, major, minor, _, _, snaplen, linktype = struct.unpack("<IHHiIII", data[:24])
    assert (magic, major, minor, snaplen, linktype) == (0xA1B23C4D, 2, 4, 40, 101)
    deq = result.trace[result.trace["event"] == "dequeue"].reset_index(drop=True)
    # Walk the records: lengths, timestamps and header checksums.
    off, i = 24, 0
    while off < len(data):
        sec, nsec, incl, orig = struct.unpack("<IIII", data[off : off + 16])
        row = deq.iloc[i]
        assert orig == row["size_bytes"]
        assert incl == (40 if row["flow"] >= 0 else 28)
        assert abs(sec + nsec * 1e-9 - row["time_s"]) < 1e-9
        ip = np.frombuffer(data[off + 16 : off + 36], dtype=np.uint8)
        # RFC 791: the checksum over the whole header (checksum included) folds to 0xffff.
        words = ip.reshape(10, 2).astype(np.uint32)
        total = int((words[:, 0] << 8 | words[:, 1]).sum())
        while total >> 16:
            total = (total & 0xFFFF) + (total >> 16)
        assert total == 0xFFFF, i
        off += 16 + incl
        i += 1
    assert i == len(deq)


def test_ipv4_checksum_known_header():
    # The worked example of https://en.wikipedia.org/wiki/IPv4_header_checksum
    # (RFC 1071 arithmetic): 4500 0073 0000 4000 4011 [b861] c0a8 0001 c0a8 00c7.
    header = bytes.fromhex("450000730000400040110000c0a80001c0a800c7")
    assert ipv4_checksum(np.frombuffer(header, dtype=np.uint8).reshape(1, 20))[0] == 0xB861


def test_tshark_reads_the_pcap(result, tmp_path):
    path = result.to_pcap(tmp_path / "out.pcap")
    deq = result.trace[result.trace["event"] == "dequeue"].reset_index(drop=True)
    rows = fields(
        path,
        "frame.number",
        "ip.src",
        "ip.dst",
        "ip.checksum.status",
        options=("-o", "ip.check_checksum:TRUE"),
    )
    assert len(rows) == len(deq)
    assert all(r[3] == "1" for r in rows)  # 1: "Good" (epan's PROTO_CHECKSUM_E_GOOD; 0 is "Bad")
    assert {r[2] for r in rows} == {"10.1.0.1"}
    # A known TCP packet: a retransmission-free segment of flow 2 (seq >= 1).
    tcp = deq[(deq["flow"] == 2) & (deq["seq"] > 5)]
    k = int(tcp.index[0])
    pkt = fields(
        path,
        "ip.src",
        "tcp.srcport",
        "tcp.dstport",
        "tcp.seq_raw",
        "frame.len",
        "frame.cap_len",
        "frame.time_epoch",
        options=("-Y", f"frame.number == {k + 1}"),
    )
    assert len(pkt) == 1
    src, sport, dport, seq, flen, caplen, epoch = pkt[0]
    row = deq.loc[k]
    assert src == "10.0.0.3"
    assert (int(sport), int(dport)) == (1024 + 2, 5001)
    assert int(seq) == row["seq"] * (row["size_bytes"] - 40)
    assert (int(flen), int(caplen)) == (row["size_bytes"], 40)
    assert abs(float(epoch) - row["time_s"]) < 1e-6
    # Background packets are UDP from 10.2.0.1.
    udp = fields(path, "ip.src", "udp.length", options=("-Y", "udp"))
    assert len(udp) == int((deq["flow"] == -1).sum())
    assert {tuple(u) for u in udp} == {("10.2.0.1", "480")}


def test_pcap_ecn_marks(tmp_path):
    raw = {
        "duration": "8s",
        "link": {
            "capacity": "10Mbps",
            "delay": "10ms",
            "buffer": "100pkt",
            "qdisc": "red",
            "qdisc_params": {"min_th": 10, "max_th": 30, "ecn": True},
        },
        "flows": [{"count": 8, "rtt": "60ms", "mss": "1000B", "ecn": True}],
        "output": {"trace": True},
    }
    r = bufsim.simulate(raw)
    deq = r.trace[r.trace["event"] == "dequeue"]
    marked = int(((deq["ecn"] & 2) != 0).sum())
    assert marked > 10
    rows = fields(
        r.to_pcap(tmp_path / "ecn.pcap"), "ip.dsfield.ecn", options=("-Y", "ip.dsfield.ecn == 3")
    )
    assert len(rows) == marked


def test_to_pcap_without_trace_is_refused(tmp_path):
    r = bufsim.simulate({**SCENARIO, "output": {}})
    with pytest.raises(bufsim.ResultError, match="output.trace"):
        r.to_pcap(tmp_path / "x.pcap")


def test_fluid_refuses_trace():
    raw = {k: v for k, v in SCENARIO.items() if k != "background"}
    with pytest.raises(bufsim.ScenarioError) as info:
        bufsim.simulate(raw, engine="fluid")
    assert info.value.path == "output.trace"
    assert "packet" in str(info.value)


@pytest.mark.parametrize("value", ["yes", 1, [True]])
def test_bad_trace_value_is_named(value):
    with pytest.raises(bufsim.ScenarioError) as info:
        bufsim.Scenario.load({**SCENARIO, "output": {"trace": value}})
    assert info.value.path.startswith("output.trace")


def test_trace_memory_is_estimated():
    from bufsim import limits

    raw = {**SCENARIO, "duration": "600s", "link": {**SCENARIO["link"], "capacity": "10Gbps"}}
    off = bufsim._core.Scenario(json.dumps({**raw, "output": {}})).estimate("packet")
    on = bufsim._core.Scenario(json.dumps(raw)).estimate("packet")
    # 5e8 packets x 3 rows x 7 columns x 8 B x 3 copies: about 250 GB more.
    assert on["memory_bytes"] - off["memory_bytes"] > 2e11
    assert on["memory_field"] == "output.trace"
    with pytest.raises(bufsim.ScenarioError) as info:
        limits.check(bufsim.Scenario.load(raw), "packet")
    assert info.value.path == "output.trace"


def test_cli_pcap(tmp_path):
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps({k: v for k, v in SCENARIO.items() if k != "output"}))
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "bufsim.cli",
            "run",
            str(scenario),
            "--quiet",
            "--out",
            str(tmp_path / "r"),
            "--pcap",
            str(tmp_path / "r.pcap"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    r = bufsim.Result.load(tmp_path / "r")
    assert r.scenario["output"]["trace"] is True
    n = int((r.trace["event"] == "dequeue").sum())
    assert f"{n} packets written" in out.stdout
    assert len(fields(tmp_path / "r.pcap", "frame.number")) == n
    # The fluid engine cannot trace: exit 2 naming output.trace; a bad file name: exit 2 naming --pcap.
    for args, named in (
        (["--engine", "fluid", "--pcap", str(tmp_path / "f.pcap")], "output.trace"),
        (["--pcap", str(tmp_path / "f.txt")], "--pcap"),
    ):
        bad = subprocess.run(
            [
                sys.executable,
                "-m",
                "bufsim.cli",
                "run",
                str(scenario),
                "--quiet",
                "--out",
                str(tmp_path / "f"),
                *args,
            ],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
        )
        assert bad.returncode == 2, bad.stderr
        assert named in bad.stderr


def test_flow_delay_columns_match_the_summary():
    # No background: every packet through the queue belongs to a flow, so the
    # packet-weighted mean of the per-flow means is the summary's mean (both
    # sums of the same f64 waits, in other orders: relative 1e-9).
    raw = copy.deepcopy({k: v for k, v in SCENARIO.items() if k != "background"})
    raw["duration"] = "20s"
    r = bufsim.simulate(raw)
    f = r.flows
    for c in ("queued_pkts", "mean_queue_delay_s", "jitter_s"):
        assert c in f.columns
    assert (f["mean_queue_delay_s"] > 0).all() and (f["jitter_s"] > 0).all()
    weighted = (f["queued_pkts"] * f["mean_queue_delay_s"]).sum() / f["queued_pkts"].sum()
    assert weighted == pytest.approx(r.summary["mean_queue_delay_s"], rel=1e-9)
    # Per flow, the trace's waits give the same mean and jitter (drop-tail is
    # FIFO: a flow's k-th accepted arrival is its k-th departure).
    t = r.trace
    for flow, rows in t[t["flow"] >= 0].groupby("flow"):
        arrivals: list[float] = []
        waits = []
        head = 0
        for ev, time in zip(rows["event"], rows["time_s"]):
            if ev == "enqueue":
                arrivals.append(time)
            elif ev == "drop_overflow":
                arrivals.pop()
            elif ev == "dequeue":
                if time >= 1.0:
                    waits.append(time - arrivals[head])
                head += 1
        row = f[f["flow"] == flow].iloc[0]
        assert row["queued_pkts"] == len(waits)
        assert row["mean_queue_delay_s"] == pytest.approx(np.mean(waits), abs=1e-9)
        assert row["jitter_s"] == pytest.approx(np.mean(np.abs(np.diff(waits))), abs=1e-9)
