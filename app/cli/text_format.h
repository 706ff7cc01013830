#pragma once
// Number formatting for people: 75,718 · 35.2 MB · 1.07 s.
#include <cstdint>
#include <string>

namespace kinetoscope::cli {

std::string withThousands(uint64_t value);
std::string humanBytes(uint64_t bytes);         // decimal units: kB, MB, GB
std::string humanDurationNs(int64_t nanoseconds);  // ns, µs, ms or s, three significant digits

}  // namespace kinetoscope::cli
