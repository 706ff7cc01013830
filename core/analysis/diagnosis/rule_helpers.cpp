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

bool isTensorCoreEligibleOp(std::string_view name)
{
    static constexpr std::string_view names[] = {
        "aten::mm",          "aten::addmm",       "aten::bmm",         "aten::baddbmm",
        "aten::addbmm",      "aten::matmul",      "aten::linear",      "aten::conv1d",
        "aten::conv2d",      "aten::conv3d",      "aten::convolution", "aten::_convolution",
        "aten::cudnn_convolution", "aten::convolution_backward", "aten::cudnn_convolution_backward",
        "aten::cudnn_convolution_backward_input", "aten::cudnn_convolution_backward_weight",
        "aten::conv_transpose2d", "aten::_scaled_dot_product_efficient_attention",
        "aten::_scaled_dot_product_flash_attention",
    };
    for (std::string_view n : names)
        if (name == n)
            return true;
    return false;
}

}  // namespace kinetoscope::analysis::rules
