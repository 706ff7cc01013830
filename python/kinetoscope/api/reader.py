"""kinetoscope.open(): a trace, a session, a job folder or a memory snapshot, read by the
`kinetoscope` binary. Python runs the binary's commands and hands back what they print
(`summary --json`, `diagnose --json`, `summary --csv TABLE`, `memory --json`); nothing
here analyses anything.

What is run, by what the binary says the path is:
  trace            summary --json, diagnose --json; tables: summary --csv ops, kernels,
                   steps, memory-by-op
  session          the same; without a trace the summary is the session itself and its
                   tables are the session's (lab, phases, step_timings, sweep, samples)
  job (a folder)   summary --json, diagnose --json (the job's); tables: ranks, collectives
  memory snapshot  memory --json; its lists are the tables
Tables are read when first looked at (each is one run of the binary), then kept.
"""
import collections
import csv
import io
import json
import os
import re

try:
    from collections.abc import Mapping
except ImportError:  # pragma: no cover
    Mapping = collections.Mapping

from .binary import KinetoscopeError, KinetoscopeFileNotFoundError, find_binary, run_cli

TRACE_TABLES = (("ops", "ops"), ("kernels", "kernels"), ("steps", "steps"),
                ("memory_by_op", "memory-by-op"))
JOB_TABLES = (("ranks", "ranks"), ("collectives", "collectives"))
STEP_COLUMNS = ("step", "data_ms", "h2d_ms", "forward_ms", "backward_ms", "optimizer_ms", "loss",
                "allocated_bytes", "reserved_bytes", "peak_allocated_bytes", "peak_reserved_bytes")
SAMPLE_COLUMNS = ("seconds", "cpu_percent", "gpu_percent", "gpu_memory_used_bytes",
                  "allocated_bytes", "reserved_bytes", "resident_bytes")
SESSION_SUFFIX = ".kinetoscope.json"

_INTEGER = re.compile(r"^-?\d+$")
_FLOAT = re.compile(r"^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")


class Finding(object):
    """One finding as the binary's JSON gives it: .id, .severity, .title, .explanation,
    .fix, .evidence (figures, units, ops, kernels, steps...), .estimated_gain_us and every
    other key of it as an attribute; .raw is the dict."""

    def __init__(self, raw):
        self.__dict__["raw"] = dict(raw)

    def __getattr__(self, name):
        try:
            return self.__dict__["raw"][name]
        except KeyError:
            raise AttributeError("a finding has no %r (its keys: %s)"
                                 % (name, ", ".join(sorted(self.__dict__["raw"]))))

    def __dir__(self):
        return sorted(set(object.__dir__(self)) | set(self.__dict__["raw"]))

    def __getitem__(self, key):
        return self.__dict__["raw"][key]

    def __repr__(self):
        raw = self.__dict__["raw"]
        return "Finding(%s, %s: %s)" % (raw.get("severity"), raw.get("id"), raw.get("title"))


def _cell(text):
    if text == "":
        return None
    if _INTEGER.match(text):
        return int(text)
    if _FLOAT.match(text):
        return float(text)
    return text


class Tables(Mapping):
    """The report's tables by name, each read when first looked at: pandas DataFrames
    where pandas is importable (and not turned off), lists of dicts otherwise."""

    def __init__(self, loaders, as_pandas):
        # name -> a function returning ("csv", text) or ("rows", a list of dicts)
        self._loaders = collections.OrderedDict(loaders)
        self._as_pandas = as_pandas
        self._cache = {}

    def __getitem__(self, name):
        if name not in self._cache:
            if name not in self._loaders:
                raise KeyError("no table %r here (the tables: %s)"
                               % (name, ", ".join(self._loaders)))
            form, data = self._loaders[name]()
            self._cache[name] = self._convert(form, data)
        return self._cache[name]

    def _convert(self, form, data):
        if self._as_pandas:
            import pandas

            if form == "csv":
                return pandas.read_csv(io.StringIO(data))
            return pandas.DataFrame(data)
        if form == "csv":
            return [{key: _cell(value) for key, value in row.items()}
                    for row in csv.DictReader(io.StringIO(data))]
        return data

    def __iter__(self):
        return iter(self._loaders)

    def __len__(self):
        return len(self._loaders)

    def __repr__(self):
        return "Tables(%s)" % ", ".join(self._loaders)


class Report(object):
    """What `kinetoscope.open(path)` read: .kind ("trace", "session", "job" or "memory"),
    .summary (the summary's JSON as a dict: `summary --json`, or `memory --json`),
    .diagnosis (`diagnose --json`; None for a memory snapshot), .findings (Finding
    objects, most important first, as the binary ranks them), .tables (name ->
    DataFrame or list of dicts), .session (a session's own JSON, else None)."""

    def __init__(self, path, kind, summary, diagnosis, findings, tables, session=None,
                 binary=None):
        self.path = path
        self.kind = kind
        self.summary = summary
        self.diagnosis = diagnosis
        self.findings = findings
        self.tables = tables
        self.session = session
        self.binary = binary

    def __repr__(self):
        return "Report(%s %s: %d finding(s), tables: %s)" % (
            self.kind, self.path, len(self.findings), ", ".join(self.tables))


def _rows(rows, columns):
    return [dict(zip(columns, row)) for row in rows if isinstance(row, list)]


def _session_tables(session):
    return [
        ("lab", lambda: ("rows", list(session.get("lab", [])))),
        ("phases", lambda: ("rows", list(session.get("phases", [])))),
        ("step_timings", lambda: ("rows", _rows(session.get("steps", []), STEP_COLUMNS))),
        ("sweep", lambda: ("rows", list(session.get("sweep", [])))),
        ("samples", lambda: ("rows", _rows(session.get("samples", []), SAMPLE_COLUMNS))),
    ]


def _csv_tables(binary, path, names, extra):
    def loader(table):
        return lambda: ("csv", run_cli(["summary", path, "--csv", table] + extra, binary))

    return [(name, loader(table)) for name, table in names]


def _wants_pandas(as_pandas):
    if as_pandas is not None:
        return bool(as_pandas)
    try:
        import pandas  # noqa: F401
    except ImportError:
        return False
    return True


def _memory_report(binary, path, extra, as_pandas):
    figures = json.loads(run_cli(["memory", path, "--json"] + extra, binary))
    tables = [(key, (lambda rows: lambda: ("rows", rows))(value))
              for key, value in figures.items()
              if key != "findings" and isinstance(value, list)
              and all(isinstance(v, dict) for v in value)]
    findings = [Finding(f) for f in figures.get("findings", [])]
    return Report(path, "memory", figures, None, findings, Tables(tables, as_pandas),
                  binary=binary)


def open_path(path, threads=None, as_pandas=None):
    """Reads PATH (a trace, a session, a job's folder or a memory snapshot) with the
    `kinetoscope` binary and returns a Report. KinetoscopeError (with the binary's one
    line) when it cannot: KinetoscopeFileNotFoundError for a path that does not exist.

    threads: the binary's --threads (default: every core). as_pandas: tables as pandas
    DataFrames (default: when pandas is importable) or lists of dicts (False)."""
    path = os.fspath(path)
    binary = find_binary()
    extra = [] if threads is None else ["--threads", str(int(threads))]
    as_pandas = _wants_pandas(as_pandas)
    try:
        summary = json.loads(run_cli(["summary", path, "--json"] + extra, binary))
    except KinetoscopeError as e:
        if not os.path.exists(path):
            raise KinetoscopeFileNotFoundError(e.message, command=e.command,
                                               returncode=e.returncode, stderr=e.stderr)
        if "kinetoscope memory" in e.message or "memory snapshot" in e.message:
            return _memory_report(binary, path, extra, as_pandas)
        raise
    diagnosis = json.loads(run_cli(["diagnose", path, "--json"] + extra, binary))
    if isinstance(summary, dict) and "job" in summary:
        job = diagnosis.get("job", diagnosis)
        findings = [Finding(f) for f in job.get("findings", [])]
        tables = _csv_tables(binary, path, JOB_TABLES, extra)
        return Report(path, "job", summary, diagnosis, findings, Tables(tables, as_pandas),
                      binary=binary)
    findings = [Finding(f) for f in diagnosis.get("findings", [])]
    if isinstance(summary, dict) and "session" in summary:  # a session without a trace
        session = summary["session"]
        return Report(path, "session", summary, diagnosis, findings,
                      Tables(_session_tables(session), as_pandas), session=session,
                      binary=binary)
    tables = _csv_tables(binary, path, TRACE_TABLES, extra)
    session = None
    if path.endswith(SESSION_SUFFIX) and os.path.isfile(path):
        # The binary read it as a session with its trace; the session's own figures (the
        # lab's arms, phases, steps) are the file's, as written.
        with io.open(path, encoding="utf-8") as f:
            session = json.load(f)
        tables += _session_tables(session)
    kind = "trace" if session is None else "session"
    return Report(path, kind, summary, diagnosis, findings, Tables(tables, as_pandas),
                  session=session, binary=binary)
