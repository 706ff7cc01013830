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


def lab_section(results, name):
    lines = ["## %s: `profile --lab` against the seed's run_lab" % name, ""]
    rounds = sorted({m.group(1) for p in glob.glob(os.path.join(results, name + "-lab*"))
                     if (m := re.search(r"-lab(\d+)$", p))})
    if not rounds:
        return lines + ["not run", ""]
    lines += ["| round | arm | profile samples/s | seed samples/s | profile / seed | step ms | "
              "peak allocated | peak reserved | compile s | recompiles | graph breaks |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    ratios = {}
    for round_ in rounds:
        lab = session(os.path.join(results, "%s-lab%s" % (name, round_), "session.kinetoscope.json"))
        seed = seed_figures(read(os.path.join(results, "%s-seed%s.txt" % (name, round_))))
        for arm in (lab or {}).get("lab", []):
            ours, theirs = arm.get("samples_per_second", 0.0), seed.get(arm["name"])
            ratio = ours / theirs if arm.get("ran") and theirs else None
            if ratio:
                ratios.setdefault(arm["name"], []).append(ratio)
            lines.append("| %s | %s | %s | %s | %s | %.2f | %s | %s | %s | %s | %s |" % (
                round_, arm["name"],
                "%.1f" % ours if arm.get("ran") else "skipped: " + arm.get("skipped_reason", ""),
                "%.1f" % theirs if theirs else "-", "%.3f" % ratio if ratio else "-",
                arm.get("mean_step_ms", 0.0), gib(arm.get("peak_allocated_bytes")),
                gib(arm.get("peak_reserved_bytes")), arm.get("compile_seconds", "-"),
                arm.get("recompiles", "-"), arm.get("graph_breaks", "-")))
    lines.append("")
    for arm, values in ratios.items():
        worst = max(values, key=lambda r: abs(r - 1))
        lines.append("- %s: profile / seed %s (worst %+.1f %%: %s)" % (
            arm, ", ".join("%.3f" % r for r in values), (worst - 1) * 100,
            "within 5 %" if abs(worst - 1) <= 0.05 else "OUTSIDE 5 %"))
    first = session(os.path.join(results, "%s-lab%s" % (name, rounds[0]), "session.kinetoscope.json"))
    if first:
        lines += phases_lines(first) + sweep_lines(first) + samples_lines(first)
    output = os.path.join(results, "%s-lab%s.txt" % (name, rounds[0]))
    lines += ["", "`profile --lab`'s table, its reading and the diagnosis's findings (round %s):" % rounds[0],
              "", "```"] + reading_lines(output) + ["```", ""]
    return lines


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


def overhead_section(results):
    text = read(os.path.join(results, "overhead.txt"))
    lines = ["## The probe's overhead: paired runs, the script's own throughput", ""]
    if not text:
        return lines + ["not run", ""]
    runs = {}
    for line in text.splitlines():
        match = re.match(r"(\S+) (bare|probed): throughput: ([0-9.]+) samples/s", line)
        if match:
            config = runs.setdefault(match.group(1), {"bare": [], "probed": []})
            config[match.group(2)].append(float(match.group(3)))
    for config, kinds in runs.items():
        pairs = list(zip(kinds["bare"], kinds["probed"]))
        costs = [(bare / probed - 1) * 100 for bare, probed in pairs if probed > 0]
        lines.append("- %s: bare %s, probed %s samples/s; cost per pair %s; median %s" % (
            config, ", ".join("%.1f" % v for v in kinds["bare"]),
            ", ".join("%.1f" % v for v in kinds["probed"]),
            ", ".join("%+.2f %%" % c for c in costs),
            "%+.2f %%" % statistics.median(costs) if costs else "-"))
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
    lines += overhead_section(results)
    lines += compiled_section(results)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
