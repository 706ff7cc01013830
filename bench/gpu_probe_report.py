"""The report of scripts/gpu-probe-check.sh, in Markdown, from its results folder (or the
results.tar.gz it brings back, unpacked): per script, each arm of `kinetoscope profile
--lab` beside the seed's run_lab on the same model and data, round by round, with the
ratio (the issue asks for 5 % each); the workers sweep; the probe's overhead from the
paired runs; the out-of-memory run; the compiled trace's Triton kernels; issue 54's
classes. Reads only what the stages wrote; a stage that did not run says so.

    python bench/gpu_probe_report.py RESULTS_DIR
"""
import glob
import gzip
import json
import os
import re
import statistics
import sys


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def session(path):
    text = read(path)
    return json.loads(text) if text else None


def gib(value):
    return "-" if value is None or value < 0 else "%.2f GiB" % (value / 2**30)


def seed_figures(text):
    """{arm: samples/s} from seed_arms' lines 'ARM: seed run_lab ...: N samples/s, peak G GB'."""
    figures = {}
    for line in (text or "").splitlines():
        match = re.match(r"(\S+): seed run_lab .*: ([0-9.]+) samples/s", line)
        if match:
            figures[match.group(1)] = float(match.group(2))
    return figures


def wall_samples_per_second(run):
    """batch x steps x 1000 / the sum of the measured steps' wall times (their 12th value),
    from a run's own session: the seed's kind of figure (a mean), beside the lab's (batch x
    1000 / the median step)."""
    if not run:
        return None
    walls = [row[11] for row in run.get("steps", []) if len(row) > 11 and row[11] > 0]
    batch = float((run.get("config") or {}).get("batch_size") or 0)
    return batch * len(walls) * 1000.0 / sum(walls) if walls and batch else None


def lab_section(results, name):
    lines = ["## %s: `profile --lab` against the seed's run_lab" % name, ""]
    folder = os.path.join(results, name + "-lab")
    lab = session(os.path.join(folder, "session.kinetoscope.json"))
    if not lab:
        return lines + ["not run", ""]
    seeds = [(os.path.basename(p)[len(name) + 1:-4], seed_figures(read(p)))
             for p in sorted(glob.glob(os.path.join(results, name + "-seed*.txt")))]
    labels = " | ".join(label for label, _ in seeds)
    lines += ["| arm | profile samples/s (median step) | mean of wall | %s | profile / seed | step ms | "
              "peak allocated | peak reserved | compile s | recompiles | graph breaks | compiled in measured |"
              % labels,
              "|---|---|---|%s---|---|---|---|---|---|---|---|" % ("---|" * len(seeds))]
    ratios = {}
    for arm in lab.get("lab", []):
        ours = arm.get("samples_per_second", 0.0) if arm.get("ran") else None
        theirs = [figures.get(arm["name"]) for _, figures in seeds]
        known = [t for t in theirs if t]
        ratio = ours / statistics.mean(known) if ours and known else None
        if ratio:
            ratios[arm["name"]] = [ours / t for t in known]
        run = session(os.path.join(folder, "runs", arm["name"], "session.kinetoscope.json"))
        mean_wall = wall_samples_per_second(run)
        lines.append("| %s | %s | %s | %s | %s | %.2f | %s | %s | %s | %s | %s | %s |" % (
            arm["name"], "%.1f" % ours if ours else "skipped: " + arm.get("skipped_reason", ""),
            "%.1f" % mean_wall if mean_wall else "-",
            " | ".join("%.1f" % t if t else "-" for t in theirs), "%.3f" % ratio if ratio else "-",
            arm.get("mean_step_ms", 0.0), gib(arm.get("peak_allocated_bytes")),
            gib(arm.get("peak_reserved_bytes")), arm.get("compile_seconds", "-"),
            arm.get("recompiles", "-"), arm.get("graph_breaks", "-"), arm.get("compiled_in_measured", "-")))
    lines.append("")
    for arm, values in ratios.items():
        worst = max(values, key=lambda r: abs(r - 1))
        lines.append("- %s: profile / each seed run %s (worst %+.1f %%: %s)" % (
            arm, ", ".join("%.3f" % r for r in values), (worst - 1) * 100,
            "within 5 %" if abs(worst - 1) <= 0.05 else "OUTSIDE 5 %"))
    lines += phases_lines(lab) + sweep_lines(lab) + samples_lines(lab)
    lines += ["", "`profile --lab`'s table, its reading and the diagnosis's findings:", "", "```"]
    return lines + reading_lines(os.path.join(results, name + "-lab.txt")) + ["```", ""]


def reading_lines(path):
    """The lab's own lines up to the session's path, then each finding's title."""
    lines = (read(path) or "").splitlines()
    end = next((i for i, line in enumerate(lines) if line.startswith("session: ")), len(lines))
    titles = [line for line in lines[end:] if re.match(r"\d+\. \[", line) or line.startswith("exit ")]
    return [line for line in lines[:end] if not line.startswith("kinetoscope profile: ")] + titles


def phases_lines(lab):
    phases = lab.get("phases") or []
    if not phases:
        return []
    cells = ", ".join("%s %.3f" % (p.get("phase"), p.get("mean_ms", 0.0)) for p in phases)
    split = lab.get("split") or {}
    return ["- fp32 phases, mean ms: %s; split: data %s ms, compute %s ms" % (
        cells, split.get("dataloader_ms", "-"), split.get("compute_ms", "-"))]


def sweep_lines(lab):
    points = lab.get("sweep") or []
    if not points:
        return []
    lines = ["", "| %s | samples/s | data wait ms | step ms | error |" % points[0].get("knob", "knob"),
             "|---|---|---|---|---|"]
    for p in points:
        lines.append("| %s | %.1f | %.3f | %.2f | %s |" % (
            p.get("value"), p.get("samples_per_second", 0.0), p.get("data_wait_ms", 0.0),
            p.get("mean_step_ms", 0.0), p.get("error", "")))
    return lines


def samples_lines(lab):
    rows = lab.get("samples") or []
    gpu = [r[2] for r in rows if len(r) > 2 and r[2] >= 0]
    if not rows:
        return ["- live samples: none"]
    return ["- live samples: %d; with NVML's GPU busy %%: %d%s" % (
        len(rows), len(gpu), " (mean %.1f %%)" % statistics.mean(gpu) if gpu else "")]


def pairs_section(results, name, title, base, other, budget):
    """Paired runs' lines 'pair N HOW: throughput: X samples/s ...': per pair, what `other`
    costs against `base` (base / other - 1), and the median against `budget` %."""
    text = read(os.path.join(results, name))
    lines = ["## " + title, ""]
    if not text:
        return lines + ["not run", ""]
    pairs = {}
    for line in text.splitlines():
        match = re.match(r"pair (\d+) (\w+): throughput: ([0-9.]+) samples/s", line)
        if match:
            pairs.setdefault(int(match.group(1)), {})[match.group(2)] = float(match.group(3))
    costs = []
    for number, pair in sorted(pairs.items()):
        if base in pair and other in pair:
            costs.append((pair[base] / pair[other] - 1) * 100)
            lines.append("- pair %d: %s %.1f, %s %.1f samples/s: %s costs %+.2f %%" % (
                number, base, pair[base], other, pair[other], other, costs[-1]))
        else:
            lines.append("- pair %d: incomplete (%s)" % (number, ", ".join(sorted(pair)) or "no run"))
    if costs:
        median = statistics.median(costs)
        lines.append("- median %+.2f %% over %d pairs%s" % (
            median, len(costs), "" if budget is None else
            " (within %s %%)" % budget if median <= budget else " (OVER %s %%)" % budget))
    return lines + [""]


def trace_kernels(path):
    """(kernels, Triton kernels) in a gzipped trace."""
    try:
        with gzip.open(path, "rt") as f:
            events = json.load(f).get("traceEvents", [])
    except (OSError, ValueError):
        return None
    kernels = [e for e in events if e.get("cat") == "kernel"]
    return len(kernels), sum(1 for e in kernels if "triton" in e.get("name", ""))


def compiled_section(results):
    lines = ["## A compiled run and its eager twin", ""]
    for how in ("compiled", "eager"):
        figures = trace_kernels(os.path.join(results, how, "trace.json.gz"))
        tail = (read(os.path.join(results, how + ".txt")) or "not run").splitlines()[-1:]
        lines.append("- %s: %s; %s" % (
            how, "kernels %d, Triton %d" % figures if figures else "no trace", " ".join(tail)))
    return lines + [""]


def text_section(results, name, title, last=20):
    text = read(os.path.join(results, name))
    return ["## " + title, "", "```"] + ((text or "not run").splitlines()[-last:]) + ["```", ""]


def main():
    results = sys.argv[1]
    lines = ["# kinetoscope profile on a GPU (scripts/gpu-probe-check.sh)", "", "```"]
    lines += (read(os.path.join(results, "env.txt")) or "").splitlines() + ["```", ""]
    lines += text_section(results, "classes.txt", "Issue 54's GPU classes (tests/data/make_gpu_traces.py)")
    lines += lab_section(results, "transformer")
    lines += lab_section(results, "cnn")
    lines += text_section(results, "oom.txt", "Out of memory with --memory-snapshot", last=12)
    lines += pairs_section(results, "overhead.txt", "The probe's overhead: paired runs, the script's own "
                           "throughput", "bare", "probed", 2)
    lines += pairs_section(results, "overhead_default.txt", "The probe's overhead on the lab's transformer "
                           "(GPU-bound)", "bare", "probed", 2)
    lines += text_section(results, "cupti.txt", "A profiler of the script's own after the probe's window")
    lines += pairs_section(results, "teardown.txt", "CUPTI left attached after the window (Kineto's default) "
                           "against detached (TEARDOWN_CUPTI=1)", "teardown", "probed", None)
    lines += compiled_section(results)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
