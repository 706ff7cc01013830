#include "core/compiled/compiled_line.h"

#include "core/compiled/graph_break_text.h"
#include "core/format/format.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace kinetoscope::compiled {

std::string compiledLine(const CompiledWindow& w)
{
    if (!w.compiled)
        return {};
    // Graph runs a step, as a count where it is one ("1 graph run", "2.5 graph runs").
    const double runs = std::round(w.graphsPerStep * 10) / 10;
    const std::string graphRuns = runs == std::round(runs)
                                      ? format::counted(static_cast<uint64_t>(runs), "graph run")
                                      : format::count(runs) + " graph runs";
    std::vector<std::string> parts;
    if (w.regionShare > 0)  // (0 where the host's spans were not recorded: older torch)
        parts.push_back("compiled regions " + format::percent(w.regionShare) +
                        " of each step's host time (" + graphRuns + " a step, guards " +
                        format::duration(w.cacheLookupNsPerStep) + " a step)");
    if (w.deviceShare >= 0)
        parts.push_back(format::percent(w.deviceShare) +
                        " of the device time from compiled graphs" +
                        (w.regionShare > 0 ? std::string() : " (" + graphRuns + " a step)"));
    if (w.breaks.empty()) {
        parts.emplace_back("no graph break");
    } else {
        constexpr size_t kShown = 2;
        std::string breaks = format::counted(w.breaks.size(), "graph break") + ": ";
        for (size_t i = 0; i < std::min(w.breaks.size(), kShown); ++i)
            breaks += (i ? ", " : "") + breakPlace(w.breaks[i]) + " (" +
                      format::duration(w.breaks[i].gapNsPerStep) + " a step)";
        if (w.breaks.size() > kShown)
            breaks += " and " + format::count(w.breaks.size() - kShown) + " more";
        parts.push_back(std::move(breaks));
    }
    std::string line;
    for (const std::string& part : parts)
        line += (line.empty() ? "" : "; ") + part;
    if (w.eagerModelNsPerStep > 0) {
        std::string ops;
        for (size_t i = 0; i < std::min<size_t>(w.eagerModelOps.size(), 3); ++i)
            ops += (i ? ", " : "") + w.eagerModelOps[i];
        line += "; " + (w.compiledModel.empty() ? std::string("the model") : w.compiledModel) +
                "'s own code outside the compiled graphs " +
                format::duration(w.eagerModelNsPerStep) + " a step (" + ops +
                (w.eagerModelOps.size() > 3 ? ", ..." : "") + ")";
    }
    const auto recompiles =
        static_cast<uint64_t>(std::count_if(w.compilations.begin(), w.compilations.end(),
                                            [](const Compilation& c) { return c.recompile; }));
    int64_t compileNs = 0;
    for (const Compilation& c : w.compilations)
        compileNs += c.durationNs;
    if (recompiles > 0)
        line += "; " + format::counted(recompiles, "recompilation") + " in the window";
    if (compileNs > 0)
        line += "; compiling in the window " + format::duration(static_cast<double>(compileNs)) +
                " (a one-off)";
    if (w.unnamedKernelNsPerStep > 0)
        line += w.unnamedKernelsFromFrames
                    ? "; Inductor's C++ kernels " + format::duration(w.unnamedKernelNsPerStep) +
                          " a step, not named (cpp.enable_kernel_profile names them)"
                    : "; compiled graphs' own time " + format::duration(w.unnamedKernelNsPerStep) +
                          " a step (C++ kernels, not named, and the generated Python)";
    return line;
}

}  // namespace kinetoscope::compiled
