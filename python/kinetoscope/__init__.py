"""Kinetoscope's Python side.

`kinetoscope.probe` is the pure-Python probe that `kinetoscope profile -- python train.py`
puts inside a user's own run (started by python/boot/sitecustomize.py). It measures and
reports over the launcher's socket; it never analyses (the analysis is the C++ core's).

Importing this package imports nothing else: no torch, no thread, no file.
"""
