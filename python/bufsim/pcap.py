"""Write the packets that left the bottleneck as a classic pcap file.

:func:`write_pcap` turns the ``dequeue`` rows of a packet trace
(:attr:`bufsim.Result.trace`, recorded with ``output.trace = true``) into a
capture that Wireshark, tshark or tcpdump open: one record per packet that
left the bottleneck queue for the link, stamped with the time its
serialization started, each a synthesized header without payload.

File format (https://wiki.wireshark.org/Development/LibpcapFileFormat): a
24-byte global header (magic ``0xa1b23c4d``, the nanosecond-resolution
variant; version 2.4; snaplen 40; link type ``LINKTYPE_RAW`` = 101, raw IP
from the first byte, https://www.tcpdump.org/linktypes.html), then per packet
a 16-byte record header (seconds, nanoseconds, captured length, original
length) and the captured bytes. All header fields are written little-endian;
the magic number tells readers the byte order.

Headers (network byte order):

* TCP segments of flow ``k``: IPv4 (RFC 791, 20 bytes) from ``10.0.h.l``
  (``h = (k // 254) % 256``, ``l = k % 254 + 1``: distinct for the first
  65,024 flows) to ``10.1.0.1``, then TCP (RFC 9293, 20 bytes) from port
  ``1024 + k % 64511`` to port 5001, sequence number ``seq * (size - 40)``
  modulo 2**32 (bufsim's ``mss`` is the whole packet on the wire, so a
  segment carries ``size - 40`` bytes of payload and consecutive segments
  follow each other in sequence space), the ACK flag, and CWR when the
  sender set it. Captured: the 40 header bytes; original length: the packet
  size. A SYN (``seq`` -1 in the trace) has the SYN flag alone, sequence
  number 2**32 - 1 (its data then starts at 0) and a 40-byte TCP header
  (20 bytes of options, not captured). The handshake's ACK (``seq`` -2)
  is a 40-byte pure ACK with sequence number 0.
* Background packets: IPv4 from ``10.2.0.1`` to ``10.1.0.1`` and UDP
  (RFC 768, 8 bytes) from port 9 to port 9, checksum 0 ("no checksum");
  28 bytes captured.
* The IPv4 header checksum is computed (RFC 791 section 3.1: the 16-bit
  one's complement of the one's complement sum of the header's 16-bit
  words; RFC 1071 describes the computation). The TCP checksum covers a
  payload that is not there and is left 0. The IP ECN field carries the
  packet's ECN state (RFC 3168 section 5: ECT(0) ``10``, CE ``11``), so an
  AQM's marks show in ``ip.dsfield.ecn``.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

import numpy as np
import pandas as pd

#: Magic number of a pcap file with nanosecond timestamps.
PCAP_MAGIC_NS = 0xA1B23C4D
#: LINKTYPE_RAW: each packet starts with its IPv4 (or IPv6) header.
LINKTYPE_RAW = 101
#: Bytes captured per packet: the IPv4 and TCP headers.
SNAPLEN = 40
#: The receiver of every TCP flow and background packet (10.1.0.1).
RECEIVER_IP = (10 << 24) | (1 << 16) | 1
#: The source of background packets (10.2.0.1).
BACKGROUND_IP = (10 << 24) | (2 << 16) | 1
#: TCP destination port of every flow (iperf's).
TCP_DST_PORT = 5001
#: UDP ports of background packets (discard, RFC 863).
UDP_PORT = 9

# ECN bits of the trace's `ecn` column (crates/bufsim-core/src/net/mod.rs).
_ECT, _CE, _CWR = 1, 2, 4
#: The trace's ``seq`` of a SYN (crates/bufsim-core/src/packet/trace.rs SYN_ID).
SYN_SEQ = -1
#: The trace's ``seq`` of the handshake's ACK (trace.rs HANDSHAKE_ACK_ID).
HANDSHAKE_ACK_SEQ = -2

#: One record as laid out in the file: record header (little-endian),
#: IPv4 header, then 20 bytes of TCP header; a UDP record is cut after the
#: first 8 of those (its length and checksum sit where TCP's sequence number is).
_RECORD = np.dtype(
    [
        ("ts_sec", "<u4"),
        ("ts_nsec", "<u4"),
        ("incl_len", "<u4"),
        ("orig_len", "<u4"),
        ("ver_ihl", "u1"),
        ("tos", "u1"),
        ("total_len", ">u2"),
        ("ident", ">u2"),
        ("frag", ">u2"),
        ("ttl", "u1"),
        ("proto", "u1"),
        ("ip_csum", ">u2"),
        ("src", ">u4"),
        ("dst", ">u4"),
        ("sport", ">u2"),
        ("dport", ">u2"),
        ("seq", ">u4"),
        ("ack", ">u4"),
        ("data_off", "u1"),
        ("flags", "u1"),
        ("window", ">u2"),
        ("tcp_csum", ">u2"),
        ("urgent", ">u2"),
    ]
)
_RECORD_HEADER = 16
_IP_HEADER = 20
_UDP_HEADER = 8


def ipv4_checksum(headers: np.ndarray) -> np.ndarray:
    """RFC 791 header checksums of IPv4 headers.

    Parameters
    ----------
    headers : numpy.ndarray
        ``uint8`` array of shape ``(n, 20)``: headers with their checksum
        field (bytes 10-11) zero.

    Returns
    -------
    numpy.ndarray
        ``uint16`` checksums (to store big-endian in bytes 10-11).
    """
    words = headers.reshape(len(headers), -1, 2).astype(np.uint32)
    total = (words[:, :, 0] << 8 | words[:, :, 1]).sum(axis=1, dtype=np.uint64)
    # Fold the carries back in (end-around carry), twice covers any header.
    for _ in range(2):
        total = (total & 0xFFFF) + (total >> 16)
    return (~total & 0xFFFF).astype(np.uint16)


def write_pcap(trace: pd.DataFrame, path: str | Path) -> int:
    """Write the ``dequeue`` rows of a packet trace to ``path`` as pcap.

    Parameters
    ----------
    trace : pandas.DataFrame
        A packet trace (:attr:`bufsim.Result.trace`): columns ``time_s``
        (seconds), ``event``, ``flow`` (-1 for background), ``seq``
        (segments), ``size_bytes`` and ``ecn``.
    path : str or Path
        The file to write (replaced if it exists).

    Returns
    -------
    int
        Number of packets written (the trace's dequeue rows).
    """
    d = trace[trace["event"] == "dequeue"]
    n = len(d)
    t_ns = np.rint(d["time_s"].to_numpy(np.float64) * 1e9).astype(np.int64)
    flow = d["flow"].to_numpy(np.int64)
    # The handshake's ACK carries the first data byte's number, 0, no payload.
    seq = d["seq"].to_numpy(np.int64)
    seq = np.where(seq == HANDSHAKE_ACK_SEQ, 0, seq)
    size = d["size_bytes"].to_numpy(np.int64)
    ecn = d["ecn"].to_numpy(np.int64)
    tcp = flow >= 0

    r = np.zeros(n, dtype=_RECORD)
    r["ts_sec"] = t_ns // 1_000_000_000
    r["ts_nsec"] = t_ns % 1_000_000_000
    r["incl_len"] = np.where(tcp, SNAPLEN, _IP_HEADER + _UDP_HEADER)
    r["orig_len"] = size
    r["ver_ihl"] = 0x45  # version 4, 5 words of header
    # ECN field (the low 2 bits of the former TOS byte, RFC 3168 section 5).
    r["tos"] = np.where(ecn & _CE, 0b11, np.where(ecn & _ECT, 0b10, 0))
    r["total_len"] = size
    r["ident"] = np.arange(n) & 0xFFFF
    r["frag"] = 0x4000  # don't fragment
    r["ttl"] = 64
    r["proto"] = np.where(tcp, 6, 17)
    k = np.where(tcp, flow, 0)
    r["src"] = np.where(tcp, (10 << 24) | ((k // 254) % 256) << 8 | (k % 254 + 1), BACKGROUND_IP)
    r["dst"] = RECEIVER_IP
    r["sport"] = np.where(tcp, 1024 + k % 64511, UDP_PORT)
    r["dport"] = np.where(tcp, TCP_DST_PORT, UDP_PORT)
    # TCP: sequence number of the segment's first payload byte. UDP: its
    # length (header + payload) in the upper 16 bits, checksum 0 below.
    payload = np.maximum(size - SNAPLEN, 0)
    syn = tcp & (seq == SYN_SEQ)
    r["seq"] = np.where(
        tcp, np.where(syn, 0xFFFFFFFF, (seq * payload) & 0xFFFFFFFF), (size - _IP_HEADER) << 16
    )
    # A SYN's TCP header: size - 20 bytes (its options), in 32-bit words.
    r["data_off"] = np.where(tcp, np.where(syn, (size - _IP_HEADER) // 4, 5) << 4, 0)
    flags = np.where(syn, 0x02, 0x10 | np.where(ecn & _CWR, 0x80, 0))  # SYN; ACK, CWR
    r["flags"] = np.where(tcp, flags, 0)
    r["window"] = np.where(tcp, 0xFFFF, 0)

    raw = r.view(np.uint8).reshape(n, _RECORD.itemsize)
    ip = raw[:, _RECORD_HEADER : _RECORD_HEADER + _IP_HEADER]
    r["ip_csum"] = ipv4_checksum(ip)
    # Keep each record's header and its captured bytes (UDP records are shorter).
    keep = (
        np.arange(_RECORD.itemsize)[None, :]
        < (_RECORD_HEADER + r["incl_len"].astype(np.int64))[:, None]
    )
    body = raw[keep]

    header = struct.pack("<IHHiIII", PCAP_MAGIC_NS, 2, 4, 0, 0, SNAPLEN, LINKTYPE_RAW)
    out = Path(path)
    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            f.write(header)
            f.write(body.tobytes())
        os.replace(tmp, out)
    finally:
        if tmp.exists():
            tmp.unlink()
    return n
