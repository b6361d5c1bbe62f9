"""MkDocs hooks (mkdocs.yml's ``hooks``): pages generated from the code
when the site is built, so that they cannot drift from it."""

from __future__ import annotations

from typing import Any

from mkdocs.structure.files import File, Files

#: Generated page -> the function that writes it (Markdown).
GENERATED = {"scenario-reference.md": "bufsim.reference:markdown"}


def on_files(files: Files, config: Any) -> Files:
    """Add the generated pages to the site's files."""
    import importlib

    for uri, target in GENERATED.items():
        module, _, name = target.partition(":")
        content = getattr(importlib.import_module(module), name)()
        files.append(File.generated(config, uri, content=content))
    return files
