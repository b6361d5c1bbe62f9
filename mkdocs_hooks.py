"""MkDocs hooks (mkdocs.yml's ``hooks``): what the site shows that the code
makes, made when the site is built, so that it cannot drift from the code.

- Pages generated from the code (:data:`GENERATED`): the scenario
  reference, and the reproductions' figures drawn from their quick runs
  (:func:`reproduction_figures`).
- Parts of written pages generated from the code (:data:`INSERTED`): a
  page's line ``<!-- generated: NAME -->`` becomes what ``NAME`` writes
  (the Engines page's stack-profile table, from the core's profiles).
- Figures: a page's python block that saves a PNG and is followed at once
  by that image (``![...](name.png)``) is run when the site is built, and
  the site shows what it drew (:func:`figures`). The copy in ``docs/``
  is the one the README on GitHub shows.
- The API reference reads the docstrings' Sphinx roles (``:func:`x```)
  as code (:class:`SphinxRoles`, a griffe extension mkdocs.yml names).
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import griffe
from mkdocs.structure.files import File, Files

#: Where the site's build keeps the quick reproductions' runs, so the next
#: build reads them back: ``$BUFSIM_DOCS_STORE``, else the store of
#: ``bufsim reproduce`` (``results/reproduce/runs``).
DOCS_STORE = "results/reproduce/runs"

#: A python block, then at once the image it saves.
FIGURE = re.compile(r"^```python\n(.*?)^```\n\n!\[[^\]]*\]\(([\w./-]+\.png)\)", re.S | re.M)


def figures(docs: Path) -> dict[str, bytes]:
    """Run every figure block of the pages under ``docs``: the image's path
    (relative to ``docs``) -> the PNG the block saved."""
    out = {}
    for page in sorted(docs.rglob("*.md")):
        for code, image in FIGURE.findall(page.read_text()):
            if f'savefig("{Path(image).name}"' not in code:
                continue
            with tempfile.TemporaryDirectory() as tmp, contextlib.chdir(tmp):
                exec(compile(code, str(page), "exec"), {"__name__": "docs"})
                png = Path(tmp, Path(image).name).read_bytes()
            out[os.path.normpath(str(page.parent.relative_to(docs) / image))] = png
    return out


def reproduction_figures() -> tuple[str, dict[str, bytes]]:
    """The page of every reproduction's figures with their captions and the
    quick run's verdict counts, drawn from the quick runs (the test suite's;
    kept in :data:`DOCS_STORE` and read back), and its images."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from bufsim import reproduce

    store = os.environ.get("BUFSIM_DOCS_STORE", DOCS_STORE)
    lines = [
        "# Reproduction figures",
        "",
        "Every figure of the five reproductions, drawn when this site was built from",
        "the quick runs (the short version `make test` runs; `bufsim reproduce NAME`",
        "runs the full length, whose verdict counts are in",
        "[Reproducing the papers](reproductions.md)). Each caption says what the",
        "figure shows; `bufsim report NAME` puts them beside the claims and findings.",
        "",
    ]
    images: dict[str, bytes] = {}
    for name, what in reproduce.PAPERS.items():
        rep = reproduce.get(name)
        table = rep.run(quick=True, store=store)
        counts = reproduce.verdict_counts(rep.claims(table))
        said = "; ".join(f"{v} {n}" for v, n in counts.items() if n)
        lines += [f"## `{name}`", "", f"{what[0].upper()}{what[1:]}.", ""]
        lines += [f"Quick run's verdicts: {said}.", ""]
        captions = rep.captions(table)
        for key, fig in rep.figures(table).items():
            out = io.BytesIO()
            fig.savefig(out, format="png", dpi=80)
            plt.close(fig)
            path = f"figures/{name}-{key}.png"
            images[path] = out.getvalue()
            caption = " ".join(str(captions[key]).split())
            lines += [f"![{name} {key}]({path})", "", f"*{caption}*", ""]
    return "\n".join(lines), images


def scenario_reference() -> tuple[str, dict[str, bytes]]:
    """The scenario reference page, generated from the core's schema (no images)."""
    from bufsim.reference import markdown

    return markdown(), {}


#: Generated page -> the function that writes it: its Markdown and the
#: images it shows (path relative to ``docs`` -> PNG).
GENERATED: dict[str, Callable[[], tuple[str, dict[str, bytes]]]] = {
    "scenario-reference.md": scenario_reference,
    "reproduction-figures.md": reproduction_figures,
}


def stack_table() -> str:
    """The stack-profile table of the Engines page, from the core."""
    from bufsim.reference import stack_table

    return stack_table()


#: ``<!-- generated: NAME -->`` -> the function whose Markdown replaces it.
INSERTED: dict[str, Callable[[], str]] = {"stack_table": stack_table}

#: The line a written page puts where a generated part goes.
INSERT = re.compile(r"^<!-- generated: (\w+) -->$", re.M)


#: The changelog page's include of CHANGELOG.md, whose links are to
#: ``docs/PAGE.md`` (right from the repository's root, where it lives).
CHANGELOG = '--8<-- "CHANGELOG.md"'


def on_page_markdown(markdown: str, *, config: Any, **kwargs: Any) -> str:
    """Replace each ``<!-- generated: NAME -->`` line with what ``NAME``
    writes (:data:`INSERTED`), and include CHANGELOG.md with its links to
    ``docs/PAGE.md`` made the site's (``PAGE.md``)."""
    if markdown.strip() == CHANGELOG:
        root = Path(config["config_file_path"]).parent
        markdown = (root / "CHANGELOG.md").read_text().replace("](docs/", "](")
    return INSERT.sub(lambda m: INSERTED[m.group(1)](), markdown)


def on_files(files: Files, config: Any) -> Files:
    """Add the generated pages and images, and replace each figure with what
    its block draws."""
    for uri, write in GENERATED.items():
        content, images = write()
        files.append(File.generated(config, uri, content=content))
        for path, png in images.items():
            files.append(File.generated(config, path, content=png))
    for uri, png in figures(Path(config["docs_dir"])).items():
        old = files.get_file_from_path(uri)
        if old is not None:
            files.remove(old)
        files.append(File.generated(config, uri, content=png))
    return files


#: A Sphinx cross-reference role: ``:func:`name```, ``:data:`~mod.NAME```.
ROLE = re.compile(r":(?:py:)?(?:func|meth|class|mod|data|attr|exc|obj):`~?([^`]+)`")


class SphinxRoles(griffe.Extension):
    """Docstrings are numpydoc with Sphinx roles; the site renders them as
    Markdown, where a role is noise: keep its target, as code."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = ROLE.sub(r"`\1`", obj.docstring.value)
