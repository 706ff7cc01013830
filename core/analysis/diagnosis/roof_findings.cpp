#include "core/analysis/diagnosis/roof_findings.h"

#include "core/analysis/diagnosis/rule_helpers.h"

#include <algorithm>

namespace kinetoscope::analysis::rules {

using roofline::OpRoofline;

std::vector<GapRow> rowsWith(const DiagnosisInput& in, RoofGap gap)
{
    std::vector<GapRow> rows;
    for (const OpRoofline& row : in.summary.roofline.ops) {
        const auto it = in.summary.roofGaps.find({row.name, row.inputShapes});
        if (it != in.summary.roofGaps.end() && it->second.gap == gap && row.windowDeviceNs > 0)
            rows.push_back({&row, it->second});
    }
    std::stable_sort(rows.begin(), rows.end(), [](const GapRow& a, const GapRow& b) {
        return a.row->windowDeviceNs > b.row->windowDeviceNs;
    });
    return rows;
}

double meanShare(const std::vector<GapRow>& rows, double& windowNs)
{
    double weighted = 0;
    windowNs = 0;
    for (const GapRow& g : rows) {
        weighted += g.row->rating.shareOfRoof * double(g.row->windowDeviceNs);
        windowNs += double(g.row->windowDeviceNs);
    }
    return windowNs > 0 ? weighted / windowNs : 0;
}

void addRoofEvidence(const DiagnosisInput& in, const std::vector<GapRow>& rows, Cause cause,
                     double windowNs, double meanShareOfRoof, Finding& f,
                     std::string (*opName)(const OpRoofline&))
{
    const double steps = static_cast<double>(in.summary.steps.steps.size());
    double kernels = 0;
    for (const auto& [device, m] : in.summary.gpu)
        kernels += static_cast<double>(m.kernelTimeNs);
    f.evidence.figures = {
        {"share_of_kernel_time", share(windowNs, kernels), Unit::Fraction},
        {"time_per_step_us", windowNs / steps / 1e3, Unit::Microseconds},
        {"share_of_roof", meanShareOfRoof, Unit::Fraction},
        {"target_share_of_roof", rows.front().verdict.targetShare, Unit::Fraction},
        {"gain_if_removed_alone_us", causal(in).solo(cause) / 1e3, Unit::Microseconds},
        {"gain_once_the_host_keeps_up_us", causal(in).afterOthers(cause) / 1e3,
         Unit::Microseconds}};
    for (size_t i = 0; i < std::min<size_t>(5, rows.size()); ++i)
        f.evidence.ops.emplace_back(opName(*rows[i].row), rows[i].row->longest);
    for (const GapRow& g : rows)
        for (const auto& [kernel, ns] : g.row->kernels)
            if (f.evidence.kernels.size() < 5 &&
                std::find(f.evidence.kernels.begin(), f.evidence.kernels.end(), kernel) ==
                    f.evidence.kernels.end())
                f.evidence.kernels.emplace_back(kernel);
}

std::string deviceName(const DiagnosisInput& in)
{
    const auto& peaks = in.summary.roofline.peaks;
    return peaks ? peaks->model + (peaks->estimated ? " (peaks estimated)" : "")
                 : std::string("the GPU");
}

}  // namespace kinetoscope::analysis::rules
