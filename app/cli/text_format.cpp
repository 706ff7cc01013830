#include "app/cli/text_format.h"

#include <array>
#include <cstdio>

namespace kinetoscope::cli {

std::string withThousands(uint64_t value)
{
    const std::string digits = std::to_string(value);
    std::string grouped;
    grouped.reserve(digits.size() + digits.size() / 3);
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            grouped.push_back(',');
        grouped.push_back(digits[i]);
    }
    return grouped;
}

std::string humanBytes(uint64_t bytes)
{
    static constexpr std::array<const char*, 5> units = {"B", "kB", "MB", "GB", "TB"};
    double value = static_cast<double>(bytes);
    size_t unit = 0;
    while (value >= 1000.0 && unit + 1 < units.size()) {
        value /= 1000.0;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", value, units[unit]);
    return text;
}

std::string humanDurationNs(int64_t nanoseconds)
{
    const double ns = static_cast<double>(nanoseconds);
    char text[32];
    if (nanoseconds < 1000)
        std::snprintf(text, sizeof text, "%lld ns", static_cast<long long>(nanoseconds));
    else if (nanoseconds < 1000000)
        std::snprintf(text, sizeof text, "%.3g µs", ns / 1e3);
    else if (nanoseconds < 1000000000)
        std::snprintf(text, sizeof text, "%.3g ms", ns / 1e6);
    else
        std::snprintf(text, sizeof text, "%.3f s", ns / 1e9);
    return text;
}

}  // namespace kinetoscope::cli
