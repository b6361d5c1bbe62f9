"""``python -m bufsim``: the ``bufsim`` command."""

from bufsim.cli import main

main()
