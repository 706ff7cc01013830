// Rules for compiled runs (torch.compile), from what core/compiled read of the window:
//   graph-break    the time between two compiled graphs of one frame, every step: the
//                  eager op that broke the graph, the guards and the region entry around
//                  the resumed graph; its gain is the causal model's (Cause::GraphBreak)
//   recompilation  torch.compile compiling a frame again inside the window (a new shape,
//                  dtype or Python value its guards check): a one-off, unless it recurs
//   compiled-below-bandwidth
//                  Inductor's generated pointwise and reduction kernels (Triton launches the
//                  roofline rates, docs/roofline.md) far under the memory bandwidth a generated
//                  kernel streams at (roofline_gaps.h); its gain is the causal model's
//                  (Cause::CompiledBelowBandwidth): those kernels at that share of it
#include "core/analysis/diagnosis/roof_findings.h"
#include "core/analysis/diagnosis/rule_helpers.h"
#include "core/analysis/diagnosis/rules.h"
#include "core/compiled/graph_break_text.h"
#include "core/compiled/kernel_name.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace kinetoscope::analysis::rules {

namespace {

// A break costs this share of the step at the least before it is a finding of its own.
constexpr double kBreakShare = 0.01;

// "aten::linear, aten::layer_norm and aten::embedding": the first `most` names.
std::string opsList(const std::vector<std::string>& names, size_t most)
{
    std::string text;
    const size_t shown = std::min(names.size(), most);
    for (size_t i = 0; i < shown; ++i)
        text += (i == 0 ? "" : i + 1 == shown && names.size() <= most ? " and " : ", ") + names[i];
    if (names.size() > most)
        text += " and " + format::counted(names.size() - most, "more op", "more ops");
    return text;
}

std::string timesAStep(double perStep)
{
    const long times = std::lround(perStep);
    return times <= 1 ? "once a step" : std::to_string(times) + " times a step";
}

const char* kExplainSnippet =
    "# where the graph breaks, and why (once, outside the training loop):\n"
    "explanation = torch._dynamo.explain(model)(example_batch)\n"
    "print(explanation.graph_break_count, explanation.break_reasons)\n"
    "# or run the script with: TORCH_LOGS=graph_breaks python train.py\n";

// A generated kernel among a finding's ops: "triton_poi_fused_add_mul_0 (add · mul)".
std::string kernelWithOps(const roofline::OpRoofline& row)
{
    return row.fusedOps.empty() ? row.name : row.name + " (" + row.fusedOps + ")";
}

// "triton_poi_fused_add_mul_0 (add · mul) moves 64.0 MB a call in 120 µs: 533 GB/s, 15.9 % of
// 3.35 TB/s"
// Nanoseconds a call, over every call.
double meanCallNs(const roofline::OpRoofline& row)
{
    return double(row.deviceNs) / double(std::max<int64_t>(1, row.calls));
}

std::string bandwidthReading(const roofline::OpRoofline& row, double deviceGBps)
{
    const double meanNs = meanCallNs(row);
    return kernelWithOps(row) + " moves " + format::bytes(row.bytesPerCall) + " a call in " +
           format::duration(meanNs) + ": " + format::bandwidth(row.rating.achievedGbps * 1e9) +
           ", " + format::percent(row.rating.achievedGbps / deviceGBps) + " of " +
           format::bandwidth(deviceGBps * 1e9);
}

const char* kGeneratedKernelSnippet =
    "# the generated kernels' code: TORCH_LOGS=output_code python train.py\n"
    "import torch._inductor.config as inductor_config\n"
    "inductor_config.coordinate_descent_tuning = True  # tunes each kernel's block sizes\n"
    "model = torch.compile(model, mode=\"max-autotune\")\n";

// A generated kernel whose bytes take under this long at the full bandwidth, and which runs
// under twice as long, is too small to fill the GPU for long: launch, ramp-up and tail weigh
// on it. Nanoseconds.
constexpr double kTinyKernelNs = 10'000;

}  // namespace

void graphBreak(const DiagnosisInput& in, std::vector<Finding>& out)
{
    const compiled::CompiledWindow& c = in.summary.compiled;
    const bool hostOnly = hostOnlyJudgeable(in);
    const double step = hostOnly ? in.summary.host.stepNs : stepMeanNs(in);
    if (!c.compiled || c.breaks.empty() || !(judgeable(in) || hostOnly) || step <= 0)
        return;
    // The causal model credits the breaks together; each break gets its share of that
    // gain by its own time between graphs. Where only the host was recorded, the host's
    // time is the step: a break's own time, less its eager ops, is what fixing it saves.
    double overhead = 0;
    for (const compiled::GraphBreak& b : c.breaks)
        overhead += std::max(0.0, b.gapNsPerStep - b.eagerNsPerStep);
    const double gain = hostOnly ? overhead : causal(in).gain(Cause::GraphBreak);
    for (const compiled::GraphBreak& b : c.breaks) {
        // The first break also stands for the model code it left eager, however short it is.
        const bool carriesEagerModel =
            &b == &c.breaks.front() && c.eagerModelNsPerStep >= kBreakShare * step;
        if (b.gapNsPerStep < kBreakShare * step && !carriesEagerModel)
            continue;
        Finding f;
        f.id = "graph-break";
        f.basis = SeverityBasis::Gain;
        const std::string call = compiled::breakCall(b);
        const std::string where = compiled::breakLocation(b);
        f.title = "A graph break";
        if (!where.empty())
            f.title += " in " + where;
        f.title += " splits the compiled model: ";
        f.title += call;
        f.title += " runs eagerly between two graphs, ";
        f.title += format::duration(b.gapNsPerStep);
        f.title += " a step";
        f.explanation =
            "torch.compile stops its graph at " + call +
            ", runs it eagerly and enters the rest of frame " + b.frame +
            " as a second compiled graph, " + timesAStep(b.perStep) + ". The eager ops take " +
            format::duration(b.eagerNsPerStep) + "; the rest of the " +
            format::duration(b.gapNsPerStep) +
            " between the graphs is the break itself: the guards checked and the region entered "
            "again around the resumed graph. Nothing fuses across it either.";
        // One step's gap over half the window's (the mean's steps times it).
        const auto steadySteps = static_cast<double>(in.summary.steps.steps.size());
        if (b.gapNsTypical > 0 && b.gapNsLargest > 2 * b.gapNsTypical &&
            b.gapNsLargest > 0.5 * b.gapNsPerStep * steadySteps)
            f.explanation += " Most of that is one step's: a typical step spends " +
                             format::duration(b.gapNsTypical) +
                             " between the graphs, the slowest " +
                             format::duration(b.gapNsLargest) + ".";
        if (carriesEagerModel) {
            f.explanation +=
                " Besides, " +
                (c.compiledModel.empty() ? std::string("the compiled model") + "'s"
                                         : c.compiledModel + "'s") +
                " own code ran outside every compiled graph: " + opsList(c.eagerModelOps, 3) +
                ", " + format::duration(c.eagerModelNsPerStep) +
                " a step in the forward (its backward runs eagerly too, not counted here): "
                "Dynamo may run a frame eagerly when a break sits in its loop or in a "
                "function it calls, and this code compiles with the rest once the break is "
                "gone.";
        }
        if (!c.pythonStacks)
            f.explanation +=
                " The trace has no Python stacks (with_stack=True): the break's line is "
                "not in it.";
        else if (b.line.line == 0)
            f.explanation +=
                b.afterLastGraph
                    ? " It follows the frame's last graph, where no frame resumes, so the trace "
                      "does not name its line: TORCH_LOGS=graph_breaks gives it."
                    : " No resumed frame is recorded after it, so the trace does not name its "
                      "line: TORCH_LOGS=graph_breaks gives it.";
        f.evidence.figures = {
            {"break_time_per_step_us", b.gapNsPerStep / 1e3, Unit::Microseconds},
            {"eager_ops_per_step_us", b.eagerNsPerStep / 1e3, Unit::Microseconds},
            {"breaks_per_step", b.perStep, Unit::Count},
            {"compiled_graphs_per_step", c.graphsPerStep, Unit::Count},
            {"compiled_share_of_step", c.graphShare, Unit::Fraction},
            {"guard_checks_per_step_us", c.cacheLookupNsPerStep / 1e3, Unit::Microseconds}};
        if (carriesEagerModel)
            f.evidence.figures.push_back(
                {"eager_model_code_per_step_us", c.eagerModelNsPerStep / 1e3, Unit::Microseconds});
        for (const std::string& name : b.ops) {
            if (f.evidence.ops.size() >= 3)
                break;
            f.evidence.ops.emplace_back(name,
                                        f.evidence.ops.empty() ? b.example : trace::EventId{});
        }
        if (!b.source.empty())
            f.evidence.ops.emplace_back("called from " + b.source);
        f.estimatedGainNs =
            overhead > 0 ? gain * std::max(0.0, b.gapNsPerStep - b.eagerNsPerStep) / overhead : 0.0;
        f.gainMethod = hostOnly ? "the host's time between the graphs, less the eager ops (which "
                                  "still run, inside the graph): only the host was recorded"
                                : "causal model: the host's time between the graphs removed, less "
                                  "the eager ops (which still run, inside the graph), shared among "
                                  "the breaks";
        f.fix = "Find each break and its reason with torch._dynamo.explain or "
                "TORCH_LOGS=graph_breaks, then remove it: a .item() or .tolist() feeding a Python "
                "branch becomes torch.where or torch.cond (or torch._dynamo.config."
                "capture_scalar_outputs = True); print and logging leave the forward; a call "
                "Dynamo cannot trace goes outside the model or under torch.compiler.disable. "
                "fullgraph=True makes any break an error.";
        f.snippet = kExplainSnippet;
        out.push_back(std::move(f));
    }
}

void recompilation(const DiagnosisInput& in, std::vector<Finding>& out)
{
    const compiled::CompiledWindow& c = in.summary.compiled;
    // Read from the compile spans themselves: also where they are most of the window and
    // nothing else can be judged.
    if (!c.compiled || in.summary.window.partlyRead() || in.summary.steps.steps.empty())
        return;
    std::vector<const compiled::Compilation*> recompiles;
    for (const compiled::Compilation& k : c.compilations)
        if (k.recompile)
            recompiles.push_back(&k);
    if (recompiles.empty())
        return;
    // In the steady steps (it recurs, so the window kept those steps): a cost every step.
    double steadyNs = 0;
    double totalNs = 0;
    std::vector<std::string> steps;
    for (const compiled::Compilation* k : recompiles) {
        totalNs += static_cast<double>(k->durationNs);
        if (inSteps(in, k->beginNs))
            steadyNs += static_cast<double>(k->durationNs);
        if (!k->step.empty() && std::find(steps.begin(), steps.end(), k->step) == steps.end())
            steps.push_back(k->step);
    }
    const double perStep =
        steadyNs / static_cast<double>(std::max<size_t>(1, in.summary.steps.steps.size()));
    Finding f;
    f.id = "recompilation";
    const bool recurring = perStep > 0;
    f.basis = recurring ? SeverityBasis::Gain : SeverityBasis::Own;
    // A one-off in one step informs; recompiles in several steps are a pattern.
    f.severity = Severity::Low;
    if (steps.size() >= 2)
        f.severity = Severity::Medium;
    std::string ids;
    for (const compiled::Compilation* k : recompiles)
        if (!k->compileId.empty() && ids.find(k->compileId) == std::string::npos)
            ids += (ids.empty() ? "" : ", ") + k->compileId;
    f.title = "torch.compile recompiled in the window: " +
              format::counted(uint64_t(recompiles.size()), "recompilation", "recompilations") +
              (steps.empty() ? std::string() : " in " + steps.front()) +
              (totalNs > 0 ? ", " + format::duration(totalNs) : std::string());
    f.explanation =
        "A compiled frame's guards failed (a new input shape, dtype or device, or a Python value "
        "they check) and Dynamo compiled it again" +
        (ids.empty() ? std::string() : " (compile ids " + ids + ": frame/compile)") + ". " +
        (recurring ? "It recurs in the steady steps: every step pays for compiling."
                   : "It is a one-off, left out of the steady step; but each new shape compiles "
                     "again, and after the recompile limit (torch._dynamo.config."
                     "recompile_limit, 8) the frame runs eagerly.");
    if (in.summary.window.warmUpDominated)
        f.explanation += " It takes most of the window: the steady steps left are too few to judge "
                         "anything else; profile a window without it.";
    f.evidence.figures = {{"recompilations", static_cast<double>(recompiles.size()), Unit::Count},
                          {"compile_time_us", totalNs / 1e3, Unit::Microseconds},
                          {"compile_time_per_steady_step_us", perStep / 1e3, Unit::Microseconds}};
    f.evidence.steps = steps;
    for (const compiled::Compilation* k : recompiles)
        if (k->durationNs > 0)
            f.evidence.ranges.push_back({k->beginNs, k->beginNs + k->durationNs});
    f.estimatedGainNs = perStep;
    f.gainMethod = recurring ? "the compile time inside the steady steps, per step"
                             : "none per step: a one-off, outside the steady step";
    f.fix = "Run with TORCH_LOGS=recompiles to see which guard failed. A batch whose size changes "
            "(an epoch's last batch): drop_last=True in the DataLoader, or mark the dimension "
            "dynamic (torch._dynamo.mark_dynamic(x, 0), or torch.compile(dynamic=True)). Keep "
            "dtypes, devices and the Python values the model branches on the same from step to "
            "step.";
    f.snippet = "loader = DataLoader(dataset, batch_size=64, drop_last=True)  # one batch shape\n"
                "# or: torch._dynamo.mark_dynamic(inputs, 0) before the first call\n";
    out.push_back(std::move(f));
}

// Fires when the generated kernels judged far under the bandwidth (under half of
// kStreamingTargetShare: a quarter of it) take compiled_below_bandwidth_share of the step and
// the causal model credits them at least kMinRoofGainShare of it.
void compiledBelowBandwidth(const DiagnosisInput& in, std::vector<Finding>& out)
{
    if (!judgeable(in))
        return;
    const std::vector<GapRow> rows = rowsWith(in, RoofGap::BelowBandwidth);
    const auto& peaks = in.summary.roofline.peaks;
    const double step = stepMeanNs(in);
    if (rows.empty() || !peaks || peaks->memoryGBps <= 0 || step <= 0)
        return;
    const double gain = causal(in).gain(Cause::CompiledBelowBandwidth);
    double windowNs = 0;
    const double meanShareOfBandwidth = meanShare(rows, windowNs);
    const double perStepNs = windowNs / double(in.summary.steps.steps.size());
    if (share(perStepNs, step) < in.thresholds.compiledBelowBandwidthShare ||
        share(gain, step) < kMinRoofGainShare)
        return;
    double tinyNs = 0, reductionNs = 0;
    for (const GapRow& g : rows) {
        const double atFullBandwidthNs = g.row->bytesPerCall / peaks->memoryGBps;
        const double meanNs = meanCallNs(*g.row);
        // Small in bytes, and short as measured: launch and tail can explain its time.
        const bool tiny = atFullBandwidthNs < kTinyKernelNs && meanNs < 2 * kTinyKernelNs;
        tinyNs += tiny ? double(g.row->windowDeviceNs) : 0;
        reductionNs +=
            g.row->kind == roofline::OpKind::Reduction ? double(g.row->windowDeviceNs) : 0;
    }
    Finding f;
    f.id = "compiled-below-bandwidth";
    f.basis = SeverityBasis::DeviceGain;
    const bool one = rows.size() == 1;
    const std::string count =
        one ? std::string("a generated kernel")
            : format::counted(uint64_t(rows.size()), "generated kernel", "generated kernels");
    f.title = "torch.compile: " + count + (one ? " streams at " : " stream at ") +
              format::percent(meanShareOfBandwidth) + " of " + deviceName(in) +
              "'s memory bandwidth (" + format::duration(perStepNs) + " per step)";
    f.explanation = "Inductor's pointwise and reduction kernels are memory-bound: they should "
                    "stream their tensors at about " +
                    format::percent(kStreamingTargetShare) + " of the bandwidth. " +
                    (one ? "This one: " : "The costliest: ");
    for (size_t i = 0; i < std::min<size_t>(3, rows.size()); ++i)
        f.explanation += (i ? "; " : "") + bandwidthReading(*rows[i].row, peaks->memoryGBps);
    f.explanation += ". At " + format::percent(kStreamingTargetShare) +
                     " of the bandwidth the step would be " + format::duration(gain) + " shorter.";
    if (tinyNs > 0.5 * windowNs)
        f.explanation += std::string(one ? " It moves" : " Most of them move") +
                         " too little to fill the GPU for long (under " +
                         format::duration(kTinyKernelNs) +
                         " a call at the full bandwidth): launch, ramp-up and tail, not the "
                         "bytes, set their time.";
    else if (reductionNs > 0.5 * windowNs)
        f.explanation += std::string(one ? " It is a reduction" : " Most of them are reductions") +
                         ": a reduction over a small or odd-sized "
                         "dimension, or one split across blocks, leaves the memory system idle.";
    if (causal(in).afterOthers(Cause::CompiledBelowBandwidth) > 2 * gain + 1e6)
        f.explanation += " The host sets the pace today: this saves " + format::duration(gain) +
                         " on its own, up to " +
                         format::duration(causal(in).afterOthers(Cause::CompiledBelowBandwidth)) +
                         " once the host-side findings are fixed.";
    addRoofEvidence(in, rows, Cause::CompiledBelowBandwidth, windowNs, meanShareOfBandwidth, f,
                    kernelWithOps);
    f.evidence.figures.insert(
        f.evidence.figures.begin() + 3,
        {"achieved_gbps", meanShareOfBandwidth * peaks->memoryGBps, Unit::GigabytesPerSecond});
    f.evidence.figures.insert(
        f.evidence.figures.begin() + 4,
        {"memory_bandwidth_gbps", peaks->memoryGBps, Unit::GigabytesPerSecond});
    f.estimatedGainNs = gain;
    f.gainMethod = "the step replayed with these generated kernels at " +
                   format::percent(kStreamingTargetShare) +
                   " of the memory bandwidth for the bytes their tensor arguments hold (what a "
                   "generated kernel streams at); never under 3 µs a kernel";
    f.fix = "Read the slow kernels' code (TORCH_LOGS=output_code): a strided or transposed read "
            "(a permute or a non-contiguous input feeding the fused ops) breaks coalesced "
            "access, so make the layout contiguous where the tensor is made; a reduction over a "
            "small or odd-sized dimension splits badly. Let Inductor tune its kernels: "
            "coordinate descent tuning (torch._inductor.config.coordinate_descent_tuning, "
            "TORCHINDUCTOR_COORDINATE_DESCENT_TUNING=1) searches each kernel's block sizes, and "
            "mode=\"max-autotune\" autotunes further. Kernels of a few microseconds are "
            "launch- and tail-bound: give each more work (a larger batch) or run the graph as a "
            "CUDA graph (mode=\"reduce-overhead\").";
    f.snippet = kGeneratedKernelSnippet;
    out.push_back(std::move(f));
}

}  // namespace kinetoscope::analysis::rules
