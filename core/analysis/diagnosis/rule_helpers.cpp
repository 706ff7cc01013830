#include "core/analysis/diagnosis/rule_helpers.h"

#include <cstdio>

namespace kinetoscope::analysis::rules {

std::string formatMs(double ns)
{
    char text[32];
    if (ns >= 1e6)
        std::snprintf(text, sizeof text, "%.1f ms", ns / 1e6);
    else
        std::snprintf(text, sizeof text, "%.0f us", ns / 1e3);
    return text;
}

std::string formatPercent(double fraction)
{
    char text[16];
    std::snprintf(text, sizeof text, "%.0f %%", fraction * 100.0);
    return text;
}

std::string formatRatio(double ratio)
{
    char text[16];
    std::snprintf(text, sizeof text, "%.1fx", ratio);
    return text;
}

std::string formatBytes(double bytes)
{
    char text[32];
    if (bytes >= 1e9)
        std::snprintf(text, sizeof text, "%.1f GB", bytes / 1e9);
    else
        std::snprintf(text, sizeof text, "%.0f MB", bytes / 1e6);
    return text;
}

}  // namespace kinetoscope::analysis::rules
