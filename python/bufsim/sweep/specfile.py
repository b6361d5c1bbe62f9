"""Sweep spec files: a TOML file that names a base scenario, the grid, the
engines and the seeds (the format is in :mod:`bufsim.sweep`).

:func:`load_spec` reads and validates one into a :class:`SweepSpec`, whose
:meth:`~SweepSpec.run` hands it to :func:`~bufsim.sweep.driver.sweep`. It
sits above the driver, which in turn builds on :mod:`bufsim.sweep.spec`.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bufsim.scenario import YAML_SUFFIXES
from bufsim.sweep.driver import sweep
from bufsim.sweep.spec import Point, SweepSpecError, base_raw, expand

_SPEC_KEYS = {"name", "description", "base", "engines", "seeds", "grid", "zip"}


@dataclass
class SweepSpec:
    """A sweep read from a TOML spec file (the format is in :mod:`bufsim.sweep`).

    Attributes
    ----------
    base : dict
        The raw base scenario (unit strings).
    grid, zip, engines, seeds
        The axes, engines and seeds, as :func:`expand` takes them.
    name : str or None
        The sweep's label in the store.
    path : Path or None
        The file it was read from.
    """

    base: dict[str, Any]
    grid: dict[str, Any] = field(default_factory=dict)
    zip: list[dict[str, Any]] = field(default_factory=list)
    engines: list[str] = field(default_factory=lambda: ["packet"])
    seeds: list[int] | None = None
    name: str | None = None
    path: Path | None = None

    def expand(self) -> list[Point]:
        """The validated points (nothing runs).

        Returns
        -------
        list of Point
            As :func:`expand` returns them.
        """
        return expand(self.base, self.grid, self.engines, self.seeds, zip=self.zip)

    def run(self, **options: Any) -> Any:
        """Run it: ``options`` are those of :func:`sweep` (workers, scheduler, store, ...).

        Returns
        -------
        pandas.DataFrame or tuple of DataFrame
            What :func:`sweep` returns; the sweep is named ``name`` in the
            store unless ``options`` name it.
        """
        options.setdefault("name", self.name)
        return sweep(self.base, self.grid, self.engines, self.seeds, zip=self.zip, **options)


def _read_toml(path: Path) -> dict[str, Any]:
    """The TOML document of a sweep spec file (a SweepSpecError naming the
    file when it is not UTF-8 text, cannot be read or does not parse)."""
    try:
        return tomllib.loads(path.read_bytes().decode("utf-8-sig"))
    except UnicodeDecodeError as e:
        raise SweepSpecError(
            f"sweep spec {str(path)!r} is not UTF-8 text (byte {e.start}): a sweep spec is TOML"
        ) from None
    except OSError as e:
        raise SweepSpecError(f"sweep spec {str(path)!r}: cannot read it: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise SweepSpecError(f"{path}: cannot parse: {e}") from None


def load_spec(path: str | Path) -> SweepSpec:
    """Read and check a sweep spec file (TOML).

    Parameters
    ----------
    path : str or Path
        The spec file; a ``base`` path in it is relative to its directory.

    Returns
    -------
    SweepSpec
        The spec, its points validated.

    Raises
    ------
    SweepSpecError
        Unreadable file, unknown top-level key, bad base, or any error
        :func:`expand` finds (every point is validated here).
    """
    path = Path(path)
    if not path.is_file():
        raise SweepSpecError(f"sweep spec {str(path)!r} does not exist")
    if path.suffix.lower() in YAML_SUFFIXES:
        raise SweepSpecError(f"sweep spec {str(path)!r}: YAML is not read; a sweep spec is TOML")
    doc = _read_toml(path)
    unknown = sorted(set(doc) - _SPEC_KEYS)
    if unknown:
        raise SweepSpecError(
            f"{path}: unknown key {unknown[0]!r}; a sweep spec has {', '.join(sorted(_SPEC_KEYS))}"
        )
    if "base" not in doc:
        raise SweepSpecError(f"{path}: 'base' is missing (a scenario file path or a [base] table)")
    base = doc["base"]
    if isinstance(base, str):
        base = path.parent / base  # an absolute base stays as it is
    elif not isinstance(base, Mapping):
        raise SweepSpecError(
            f"{path}: 'base' must be a scenario file path or a [base] table, got {base!r}"
        )
    try:
        raw = base_raw(base)
    except SweepSpecError as e:
        raise SweepSpecError(f"{path}: {e}") from None
    grid = doc.get("grid", {})
    if not isinstance(grid, Mapping):
        raise SweepSpecError(f'{path}: [grid] must be a table of "path" = [values]')
    zipped = doc.get("zip", [])
    if isinstance(zipped, Mapping):
        zipped = [zipped]
    if not isinstance(zipped, list):
        raise SweepSpecError(f'{path}: zip must be [[zip]] tables of "path" = [values]')
    engines = doc.get("engines", ["packet"])
    seeds = doc.get("seeds")
    name = doc.get("name")
    if name is not None and not isinstance(name, str):
        raise SweepSpecError(f"{path}: 'name' must be a string, got {name!r}")
    spec = SweepSpec(
        base=raw,
        grid=dict(grid),
        zip=[dict(z) for z in zipped],
        engines=engines,
        seeds=seeds,
        name=name,
        path=path,
    )
    try:
        spec.expand()
    except SweepSpecError as e:
        raise SweepSpecError(f"{path}: {e}") from None
    return spec
