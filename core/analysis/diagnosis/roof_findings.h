#pragma once
// What the roofline rules share (rules_roofline.cpp: below-roofline, attention-unfused;
// rules_compiled.cpp: compiled-below-bandwidth): the op groups with one kind of gap
// (roofline_gaps.h) that ran in the steady steps, their time-weighted share of the roof, and
// the evidence every such finding carries (its share of kernel time, time per step, the
// share of the roof reached and targeted, the causal gains alone and once the host keeps up,
// the worst ops and kernels). Times are nanoseconds in, microseconds in the figures.
#include "core/analysis/diagnosis/diagnosis.h"
#include "core/analysis/roofline_gaps.h"

#include <string>
#include <vector>

namespace kinetoscope::analysis::rules {

// A finding's gain under this share of the step is not worth the reader's time.
inline constexpr double kMinRoofGainShare = 0.01;

struct GapRow
{
    const roofline::OpRoofline* row;
    RoofVerdict verdict;
};

// The op groups with this gap that ran in the steady steps, by their time there.
std::vector<GapRow> rowsWith(const DiagnosisInput& in, RoofGap gap);

// Time-weighted mean share of the roof over the rows; `windowNs` their time in the steady
// steps, all steps together.
double meanShare(const std::vector<GapRow>& rows, double& windowNs);

// The figures, ops and kernels of a roofline finding (rows by time, first the worst).
// `opName` names a row among the ops.
void addRoofEvidence(const DiagnosisInput& in, const std::vector<GapRow>& rows, Cause cause,
                     double windowNs, double meanShareOfRoof, Finding& f,
                     std::string (*opName)(const roofline::OpRoofline&));

// "NVIDIA H100 80GB HBM3", "... (peaks estimated)", or "the GPU".
std::string deviceName(const DiagnosisInput& in);

}  // namespace kinetoscope::analysis::rules
