"""MkDocs hooks (mkdocs.yml's ``hooks``): what the site shows that the code
makes, made when the site is built, so that it cannot drift from the code.

- Pages generated from the code (:data:`GENERATED`).
- Figures: a page's python block that saves a PNG and is followed at once
  by that image (``![...](name.png)``) is run when the site is built, and
  the site shows what it drew (:func:`figures`). The copy in ``docs/``
  is the one the README on GitHub shows.
- The API reference reads the docstrings' Sphinx roles (``:func:`x```)
  as code (:class:`SphinxRoles`, a griffe extension mkdocs.yml names).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
import tempfile
from pathlib import Path
from typing import Any

import griffe
from mkdocs.structure.files import File, Files

#: Generated page -> the function that writes it (Markdown).
GENERATED = {"scenario-reference.md": "bufsim.reference:markdown"}

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


def on_files(files: Files, config: Any) -> Files:
    """Add the generated pages and replace each figure with what its block draws."""
    for uri, target in GENERATED.items():
        module, _, name = target.partition(":")
        content = getattr(importlib.import_module(module), name)()
        files.append(File.generated(config, uri, content=content))
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
