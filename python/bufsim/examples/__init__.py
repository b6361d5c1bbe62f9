"""Example scenarios shipped with bufsim, usable after ``pip install``.

Each is a scenario file (TOML) in this package: the papers' base setups and
the ``advise`` example. Pass :func:`path` wherever a scenario path goes, or
:func:`copy` one next to your work to edit it.

==================== ==========================================================
name                 what
==================== ==========================================================
``auge2006``         paper 000 section IV.B: 50 Mbps, one NewReno flow, 25 Mbps
                     Poisson background, 20-packet drop-tail buffer
``dhamdhere2006``    paper 002 section 4, open loop: Poisson arrivals at 95% load
                     of a heavy-tailed size mixture, binary-tree RTTs 30-530 ms
``advise-10g``       a 10 Gbps port: 2000 CUBIC and Reno flows (RTTs 20-200 ms)
                     and web traffic, for ``bufsim advise``
``backbone-5000``    a 10 Gbps backbone port: 5000 CUBIC flows (RTTs 10-300 ms,
                     Linux stack), duration derived by ``advise``
``dc-incast``        a 100 Gbps datacenter port: 64 CUBIC flows (RTTs 10-100 us)
                     and an incast of 100 x 64 KB, Linux stack, FCT objectives
``paper003-ns3``     paper 003 section 5's setup (100 Mbps, 6 ms, 20 NewReno
                     flows, 60 packets) on ns-3's defaults, for ``--engine ns3``
``leaf-spine``       a fabric of 2 leaves and 2 spines, 16 hosts at 10 Gbps, DT
                     buffers: DCTCP web search at load 0.4 and an 8-server incast
``two-classes``      a 1 Gbps port with two queues under DWRR: 8 DCTCP flows
                     (step marking) in class 0, 24 CUBIC flows in class 1
==================== ==========================================================

Sweep specs (:func:`spec`, ``bufsim sweep --example NAME``): ``variants``,
a research sweep of four TCP variants over six buffers on paper 000's link
(72 runs). Notebooks (:func:`notebook`): ``buffer-sweep``, the same sweep in
Python, with its figures.

Example
-------
>>> import bufsim
>>> bufsim.examples.names()
['advise-10g', 'auge2006', 'backbone-5000', 'dc-incast', 'dhamdhere2006', 'paper003-ns3']
>>> bufsim.Scenario.load(bufsim.examples.path("auge2006")).normalized["link"]["buffer_pkts"]
20
"""

from __future__ import annotations

import shutil
from pathlib import Path

from bufsim._core import BufsimError

__all__ = ["names", "path", "copy", "describe", "notebook", "spec", "specs"]

_HERE = Path(__file__).parent


def names() -> list[str]:
    """The example scenarios' names, sorted."""
    return sorted(p.stem for p in _HERE.glob("*.toml"))


def path(name: str) -> Path:
    """The packaged scenario file of example ``name``.

    Raises
    ------
    BufsimError
        For an unknown name (the message lists the known ones).
    """
    file = _HERE / f"{name}.toml"
    if not isinstance(name, str) or "/" in name or not file.is_file():
        raise BufsimError(f"example {name!r}: unknown; the examples are {', '.join(names())}")
    return file


def specs() -> list[str]:
    """The example sweep specs' names, sorted."""
    return sorted(p.stem for p in (_HERE / "sweeps").glob("*.toml"))


def spec(name: str) -> Path:
    """The packaged sweep spec file of example ``name`` (``bufsim sweep
    --example NAME`` runs it; :func:`bufsim.sweep.load_spec` reads it).

    Raises
    ------
    BufsimError
        For an unknown name (the message lists the known ones).
    """
    file = _HERE / "sweeps" / f"{name}.toml"
    if not isinstance(name, str) or "/" in name or not file.is_file():
        raise BufsimError(
            f"sweep example {name!r}: unknown; the sweep examples are {', '.join(specs())}"
        )
    return file


def notebook(name: str) -> Path:
    """The packaged Jupyter notebook ``name`` (``buffer-sweep``); copy it
    next to your work to run it (it writes its runs to ``results/``).

    Raises
    ------
    BufsimError
        For an unknown name (the message lists the known ones).
    """
    folder = _HERE / "notebooks"
    file = folder / f"{name}.ipynb"
    if not isinstance(name, str) or "/" in name or not file.is_file():
        known = ", ".join(sorted(p.stem for p in folder.glob("*.ipynb")))
        raise BufsimError(f"notebook {name!r}: unknown; the notebooks are {known}")
    return file


def describe(name: str) -> str:
    """What example ``name`` (a scenario, else a sweep spec) is: the first
    sentence of its opening comment (up to a full stop, or a colon that ends
    a line), whatever its line breaks."""
    words: list[str] = []
    file = path(name) if name in names() else spec(name)
    for line in file.read_text().splitlines():
        if not line.startswith("#"):
            break
        text = line.lstrip("#").strip()
        if text.endswith(":"):
            words.append(text[:-1])
            break
        words.append(text)
        if text.endswith(".") or ". " in text:
            break
    first = " ".join(words)
    return first.split(". ")[0].removesuffix(".") + "." if first else ""


def copy(name: str, dest: str | Path = ".") -> Path:
    """Copy example ``name`` (a scenario, else a sweep spec) to ``dest`` (a
    folder, or a file name) and return the new file.

    An existing file is not overwritten.

    Raises
    ------
    BufsimError
        For an unknown name, or when the target file exists.
    """
    src = spec(name) if name in specs() and name not in names() else path(name)
    dest = Path(dest)
    target = dest / src.name if dest.is_dir() else dest
    if target.exists():
        raise BufsimError(f"{str(target)!r} exists; not overwritten")
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, target)
    return target
