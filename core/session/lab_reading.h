#pragma once
// The seeds' reading of a lab run, in sentences: the two ratios of the three-run
// baseline (fp32 -> bf16: is precision the bottleneck? bf16 -> CUDA graph: are the
// kernels already fused?), the DataLoader-vs-compute verdict and the best sweep point.
#include "core/session/session.h"

#include <optional>
#include <string>
#include <vector>

namespace kinetoscope::session {

// A jump below this ratio of samples/s is "small" (the seed: less than 20 %).
inline constexpr double kSmallLabJump = 1.2;

struct LabReading
{
    std::optional<double> bf16OverFp32;   // samples/s ratio
    std::optional<double> graphOverBf16;  // samples/s ratio
    std::optional<bool> dataBound;        // DataLoader wait > compute per step
    std::vector<std::string> lines;       // one sentence per conclusion
};

LabReading readLab(const Session& session);

}  // namespace kinetoscope::session
