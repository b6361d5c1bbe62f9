"""Reproductions of the papers' published results, one module per paper.

* :mod:`bufsim.reproduce.auge2006` -- paper 000, section IV.B (the main job of ``make demo``).
"""
