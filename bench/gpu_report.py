"""Turns the results of scripts/gpu-check.sh into one Markdown report: per lab run the
three arms (samples/s, ms/step, peak allocated), the seeds' two ratios, the phase
timings, the DataLoader-versus-compute split, the live samples' range, the sweep, and
the TorchScript and overhead comparisons.

    python3 bench/gpu_report.py RESULTS_DIR > report.md

RESULTS_DIR holds one folder per `kinetoscope run` (session.kinetoscope.json inside),
plus torchscript.txt and overhead_*.txt when those stages ran.
"""
import json
import pathlib
import re
import statistics
import sys


def mib(n):
    return "n/a" if n is None or n < 0 else f"{n / 2**20:,.0f} MiB"


def session_section(folder):
    path = folder / "session.kinetoscope.json"
    if not path.exists():
        return [f"### {folder.name}", "", "no session written (see log.txt)", ""]
    s = json.loads(path.read_text())
    cfg, env = s["config"], s["environment"]
    lines = [f"### {folder.name}", "",
             "`" + " ".join(f"{k}={v}" for k, v in sorted(cfg.items())) + "`", "",
             f"device: {env.get('device')}, driver {env.get('driver', 'n/a')}, torch {env.get('torch')}, "
             f"NVML {env.get('nvml', 'not sampled (--no-samples)')}", ""]
    arms = {a["name"]: a for a in s["lab"]}
    if arms:
        lines += ["| arm | samples/s | ms/step | peak allocated | peak reserved | latency p50 / p95 / p99 ms |",
                  "|---|---:|---:|---:|---:|---:|"]
        for a in s["lab"]:
            if a["ran"]:
                lat = a.get("latency")
                latency = f"{lat['median_ms']:.3f} / {lat['p95_ms']:.3f} / {lat['p99_ms']:.3f}" if lat else ""
                lines.append(f"| {a['name']} | {a['samples_per_second']:,.0f} | {a['mean_step_ms']:.2f} | "
                             f"{mib(a['peak_allocated_bytes'])} | {mib(a.get('peak_reserved_bytes'))} | {latency} |")
            else:
                lines.append(f"| {a['name']} | {a['skipped_reason']} | | | | |")
        lines.append("")

        def sps(name):
            a = arms.get(name)
            return a["samples_per_second"] if a and a["ran"] else None
        fp32, bf16, graph = sps("fp32"), sps("bf16"), sps("bf16+cuda-graph")
        if fp32 and bf16:
            lines.append(f"fp32 -> bf16: {bf16 / fp32:.2f}x" + (f"; bf16 -> graph: {graph / bf16:.2f}x" if graph else ""))
            lines.append("")
    if s["phases"]:
        lines += ["| phase (fp32) | mean ms | std | median | p95 | p99 |", "|---|---:|---:|---:|---:|---:|"]
        for p in s["phases"]:
            lines.append(f"| {p['phase']} | {p['mean_ms']:.3f} | {p['std_ms']:.3f} | {p['median_ms']:.3f} | "
                         f"{p['p95_ms']:.3f} | {p['p99_ms']:.3f} |")
        lines.append("")
    memory = s.get("memory", {})
    if memory.get("steady_step"):
        lines += ["| memory after (steady step) | allocated | reserved | peak allocated |", "|---|---:|---:|---:|"]
        for phase, allocated, reserved, peak in memory["steady_step"]:
            lines.append(f"| {phase} | {mib(allocated)} | {mib(reserved)} | {mib(peak)} |")
        lines.append("")
        part = memory.get("split", {})
        if part:
            lines.append("split: " + ", ".join(f"{k.removesuffix('_bytes')} {mib(v)}" for k, v in sorted(part.items())
                                               if k.endswith("_bytes")) + f", {part.get('parameter_count', 0):,} parameters")
            lines.append("")
    split = s.get("split", {})
    if "dataloader_ms" in split:
        lines += [f"split: data wait {split['dataloader_ms']:.3f} ms vs compute {split['compute_ms']:.3f} ms per step", ""]
    if s["sweep"]:
        lines += ["| knob | value | checkpoint every | samples/s | ms | data wait ms | peak allocated | peak reserved | error |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
        for p in s["sweep"]:
            lines.append(f"| {p['knob']} | {p['value']} | {p.get('checkpoint_every', 0)} | {p['samples_per_second']:,.0f} | "
                         f"{p['mean_step_ms']:.2f} | {p['data_wait_ms']:.3f} | {mib(p['peak_allocated_bytes'])} | "
                         f"{mib(p.get('peak_reserved_bytes'))} | {p['error']} |")
        lines.append("")
    samples = s["samples"]
    if samples:
        gpu = [r[2] for r in samples if r[2] >= 0]
        alloc = [r[4] for r in samples if r[4] >= 0]
        reserved = [r[5] for r in samples if r[5] >= 0]
        rate = (len(samples) - 1) / (samples[-1][0] - samples[0][0]) if len(samples) > 1 and samples[-1][0] > samples[0][0] else 0
        lines.append(f"live samples: {len(samples)} at {rate:.1f} Hz; GPU util "
                     + (f"{min(gpu):.0f}-{max(gpu):.0f} % (mean {statistics.mean(gpu):.0f})" if gpu else "n/a")
                     + f"; allocated up to {mib(max(alloc) if alloc else -1)}, reserved up to "
                     + f"{mib(max(reserved) if reserved else -1)}")
        lines.append("")
    if s["findings"]:
        lines.append("findings: " + "; ".join(f"{f['id']} ({f['title']})" for f in s["findings"]))
        lines.append("")
    for name, title in (("summary.txt", "`kinetoscope summary` of its trace"),
                        ("diagnosis.txt", "`kinetoscope diagnose` of its session")):
        text = folder / name
        if text.exists():
            body = text.read_text().strip().splitlines()
            lines += [f"{title}:", "", "```"] + body[:60] + (["..."] if len(body) > 60 else []) + ["```", ""]
    return lines


def main():
    root = pathlib.Path(sys.argv[1])
    out = ["# Kinetoscope engine on a GPU", ""]
    env = root / "env.txt"
    if env.exists():
        out += ["```", env.read_text().strip(), "```", ""]
    out += ["## Lab runs", ""]
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        out += session_section(folder)
    ts = root / "torchscript.txt"
    if ts.exists():
        text = ts.read_text()
        engine = [float(x) for x in re.findall(r"kinetoscope fp32: ([\d.]+)", text)]
        python = [float(x) for x in re.findall(r"seed run_lab fp32 \(TorchScript, fused Adam, loss read back\): ([\d.]+)", text)]
        as_seed = [float(x) for x in re.findall(r"seed run_lab fp32 \(TorchScript, as seed\): ([\d.]+)", text)]
        out += ["## TorchScript model: engine vs the seed's Python loop", "", "```", text.strip(), "```", ""]
        if engine and python:
            ratio = statistics.median(engine) / statistics.median(python)
            out.append(f"medians: engine {statistics.median(engine):,.0f}, Python loop "
                       f"{statistics.median(python):,.0f} samples/s: engine / Python = {ratio:.3f} "
                       f"({'within' if abs(ratio - 1) <= 0.10 else 'NOT within'} 10 %)")
            if as_seed:
                out.append(f"The seed's loop to the letter (default Adam, no read-back): {statistics.median(as_seed):,.0f} samples/s "
                           f"(engine / it = {statistics.median(engine) / statistics.median(as_seed):.3f})")
            out.append("")
    arms = root / "arms.txt"
    if arms.exists():
        out += ["## bf16 and graph arms: the engine vs torch.autocast and torch.compile(mode=\"reduce-overhead\")", "",
                "```", arms.read_text().strip(), "```", ""]
    for f in sorted(root.glob("overhead_*.txt")):
        out += [f"## Engine overhead ({f.stem.removeprefix('overhead_')})", "", "```", f.read_text().strip(), "```", ""]
    print("\n".join(out))


if __name__ == "__main__":
    main()
