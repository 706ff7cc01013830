#pragma once
// Small shared helpers for the rules: averages, shares, names of the worst steps.
#include "core/analysis/diagnosis/diagnosis.h"

#include <algorithm>
#include <string>

namespace kinetoscope::analysis::rules {

inline double stepMeanNs(const DiagnosisInput& in)
{
    return in.summary.breakdown.all.averageTotalNs;
}

inline double share(double part, double whole)
{
    return whole > 0 ? part / whole : 0.0;
}

// The names of the `count` steps with the largest `value(i)`, largest first.
template <typename Value>
std::vector<std::string> worstSteps(const DiagnosisInput& in, Value value, size_t count = 3)
{
    std::vector<size_t> order(in.summary.steps.steps.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return value(a) > value(b); });
    std::vector<std::string> names;
    for (size_t i = 0; i < std::min(count, order.size()); ++i) {
        const std::string& name = in.summary.steps.steps[order[i]].name;
        names.push_back(name.empty() ? "window" : name);
    }
    return names;
}

std::string formatMs(double ns);
std::string formatPercent(double fraction);
std::string formatRatio(double ratio);  // "2.3x"
std::string formatBytes(double bytes);  // "1.2 GB"

// Is this op one that can run on Tensor Cores (GEMM, convolution, their backward)?
bool isTensorCoreEligibleOp(std::string_view name);

}  // namespace kinetoscope::analysis::rules
