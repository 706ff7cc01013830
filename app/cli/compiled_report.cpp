#include "app/cli/compiled_report.h"

#include "core/compiled/graph_break_text.h"
#include "core/format/format.h"

#include <nlohmann/json.hpp>
#include <sstream>

namespace kinetoscope::cli {

using nlohmann::json;

json compiledJson(const compiled::CompiledWindow& w)
{
    json breaks = json::array();
    for (const compiled::GraphBreak& b : w.breaks)
        breaks.push_back({{"frame", b.frame},
                          {"index", b.index},
                          {"ops", b.ops},
                          {"call", b.call},
                          {"source", b.source},
                          {"line", b.line.line > 0 ? json{{"file", b.line.file},
                                                          {"function", b.line.function},
                                                          {"line", b.line.line}}
                                                   : json(nullptr)},
                          {"per_step", b.perStep},
                          {"time_per_step_us", b.gapNsPerStep / 1e3},
                          {"time_typical_step_us", b.gapNsTypical / 1e3},
                          {"time_largest_step_us", b.gapNsLargest / 1e3},
                          {"eager_ops_per_step_us", b.eagerNsPerStep / 1e3}});
    json compilations = json::array();
    for (const compiled::Compilation& k : w.compilations)
        compilations.push_back({{"compile_id", k.compileId},
                                {"step", k.step},
                                {"duration_us", static_cast<double>(k.durationNs) / 1e3},
                                {"recompile", k.recompile}});
    return {{"compiled", w.compiled},
            {"region_share_of_step", w.regionShare},
            {"graph_share_of_step", w.graphShare},
            {"graphs_per_step", w.graphsPerStep},
            {"guard_checks_per_step_us", w.cacheLookupNsPerStep / 1e3},
            {"device_share", w.deviceShare >= 0 ? json(w.deviceShare) : json(nullptr)},
            {"kernel_launches_per_step", w.launchesPerStep},
            {"unnamed_kernels_per_step_us", w.unnamedKernelNsPerStep / 1e3},
            {"unnamed_kernels_read_from", w.unnamedKernelNsPerStep <= 0 ? json(nullptr)
                                          : w.unnamedKernelsFromFrames  ? json("kernel frames")
                                                                        : json("graph runs")},
            {"frames", w.frames},
            {"compiled_model", w.compiledModel},
            {"eager_model_code_per_step_us", w.eagerModelNsPerStep / 1e3},
            {"eager_model_ops", w.eagerModelOps},
            {"graph_breaks", breaks},
            {"compilations", compilations}};
}

std::string compiledText(const compiled::CompiledWindow& w)
{
    if (!w.compiled)
        return {};
    std::ostringstream out;
    out << "\ntorch.compile\n";
    out << "  compiled regions " << format::percent(w.regionShare)
        << " of the step's host time (graph runs " << format::percent(w.graphShare) << ", "
        << format::number(w.graphsPerStep) << " a step); guards "
        << format::duration(w.cacheLookupNsPerStep) << " a step";
    if (w.launchesPerStep > 0)
        out << "; " << format::number(w.launchesPerStep) << " compiled kernel launches a step";
    out << "\n";
    if (w.deviceShare >= 0)
        out << "  device time from compiled graphs: " << format::percent(w.deviceShare) << "\n";
    if (w.unnamedKernelNsPerStep > 0)
        out << (w.unnamedKernelsFromFrames
                    ? "  Inductor's C++ kernels: " + format::duration(w.unnamedKernelNsPerStep) +
                          " a step (their Python frames; the trace names none: "
                          "torch._inductor.config.cpp.enable_kernel_profile names them)\n"
                    : "  compiled graphs' own time: " + format::duration(w.unnamedKernelNsPerStep) +
                          " a step (Inductor's C++ kernels, not named, and the generated Python "
                          "around them; with_stack tells them apart)\n");
    for (const compiled::GraphBreak& b : w.breaks) {
        out << "  graph break in frame " << b.frame << ": " << compiled::breakCall(b) << ", "
            << format::duration(b.gapNsPerStep) << " a step between the graphs (eager ops "
            << format::duration(b.eagerNsPerStep) << ")";
        if (const std::string where = compiled::breakLocation(b); !where.empty())
            out << ", in " << where;
        out << "\n";
    }
    for (const compiled::Compilation& k : w.compilations) {
        out << "  " << (k.recompile ? "recompiled " : "compiled ")
            << (k.compileId.empty() ? std::string("a frame") : k.compileId);
        if (!k.step.empty())
            out << " in " << k.step;
        if (k.durationNs > 0)
            out << ": " << format::duration(static_cast<double>(k.durationNs));
        out << "\n";
    }
    return out.str();
}

}  // namespace kinetoscope::cli
