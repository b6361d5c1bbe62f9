"""Run every reproduction at full length and keep its verdicts with the code.

Writes ``python/bufsim/reproduce/full_verdicts.json`` (claim -> verdict per
paper, and each paper's headline claims), which quick reports compare
against, and prints the README's table rows of verdict counts. A slow test
(``tests/test_reproduce_all.py``) fails when a full run no longer gives the
kept verdicts; rerun this then. Uses the full runs ``bufsim reproduce``
stored in ``results/reproduce`` when they are there (``--fresh`` reruns
the tables, reading back the simulations its results store
``results/reproduce/runs`` holds, as ``bufsim reproduce`` does; a worker
process per core).
"""

from __future__ import annotations

import json
import sys

from bufsim import reproduce


def main() -> None:
    verdicts, headlines = {}, {}
    for name in reproduce.PAPERS:
        table = None if "--fresh" in sys.argv else reproduce.stored(name)
        if table is None:
            print(f"running {name} (full) ...", file=sys.stderr, flush=True)
            table = reproduce.get(name).run(
                quick=False, store=reproduce.RESULTS / "runs", workers=None
            )
            reproduce.save(name, table, quick=False)
        claims = reproduce.get(name).claims(table)
        verdicts[name] = dict(zip(claims["claim"], claims["verdict"]))
        headlines[name] = list(claims.loc[claims["headline"], "claim"])
        if line := reproduce.tunings_line(claims):
            print(f"{name}: {line}")
    kept = {"verdicts": verdicts, "headlines": headlines}
    reproduce.FULL_VERDICTS.write_text(json.dumps(kept, indent=1) + "\n")
    print(f"written {reproduce.FULL_VERDICTS}")
    print("| paper | " + " | ".join(reproduce.VERDICTS) + " |")
    for name, v in verdicts.items():
        counts = [sum(x == k for x in v.values()) for k in reproduce.VERDICTS]
        print(f"| `{name}` | " + " | ".join(str(n) for n in counts) + " |")
    print("| paper | headline results | " + " | ".join(reproduce.HEADLINE_COUNTS) + " |")
    for name in verdicts:
        counts = reproduce.full_headline_counts(name)
        print(f"| `{name}` | " + " | ".join(str(n) for n in counts.values()) + " |")


if __name__ == "__main__":
    main()
