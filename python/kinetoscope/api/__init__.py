"""Kinetoscope from Python: `kinetoscope.lab()` runs the three-run lab on your own model
and DataLoader in this process and writes a session the app opens; `kinetoscope.open()`
reads a trace, a session, a job's folder or a memory snapshot through the `kinetoscope`
binary (every figure and finding is the binary's).

    lab.py      the lab's arms, measured in this process (torch imported when it runs)
    results.py  what the lab hands back: LabArm, LabResult, the printed table
    session.py  the session file: its JSON, the phases' statistics, the atomic write
    describe.py the session's environment and config
    binary.py   finding and running the `kinetoscope` binary, starting the app
    reader.py   open(): the binary's JSON and CSV as findings and tables
"""
from .binary import KinetoscopeError, KinetoscopeFileNotFoundError, find_binary
from .lab import ARMS, LabError, lab
from .results import LabArm, LabResult
from .reader import Finding, Report, open_path

__all__ = ["ARMS", "Finding", "KinetoscopeError", "KinetoscopeFileNotFoundError", "LabArm",
           "LabError", "LabResult", "Report", "find_binary", "lab", "open_path"]
