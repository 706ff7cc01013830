#include "core/lab/save_pacing.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace kinetoscope::lab {

void SavePacing::saved(Clock::time_point began, Clock::time_point ended, double bytes)
{
    const Clock::duration took = std::max(Clock::duration::zero(), ended - began);
    const auto writing = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(std::max(0.0, bytes) / kBytesPerSecond));
    m_next = ended + std::max({Clock::duration(kShortest), took * kTimeShare, writing});
}

void SavePacing::saved(Clock::time_point began, Clock::time_point ended, const std::string& path)
{
    std::error_code ec;
    const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
    saved(began, ended, ec ? 0.0 : double(bytes));
}

}  // namespace kinetoscope::lab
