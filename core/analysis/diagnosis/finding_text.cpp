#include "core/analysis/diagnosis/finding_text.h"

#include "core/format/format.h"
#include "core/trace/printable.h"

#include <array>
#include <string_view>

namespace kinetoscope::analysis {

namespace {

// The unit suffixes figure names carry (the value is shown with its unit instead).
constexpr std::array<std::string_view, 3> kUnitSuffixes{"_us", "_bytes", "_gb_per_s"};

// Evidence names longer than this (C++ kernel names run to hundreds of bytes) are cut.
constexpr size_t kTargetBytes = 120;

}  // namespace

std::string figureLabel(const Evidence::Figure& figure)
{
    std::string label = figure.name;
    for (std::string_view suffix : kUnitSuffixes)
        if (label.ends_with(suffix))
            label.resize(label.size() - suffix.size());
    for (char& c : label)
        if (c == '_')
            c = ' ';
    return label;
}

std::string figureValue(const Evidence::Figure& figure)
{
    const double v = figure.value;
    switch (figure.unit) {
    case Unit::Microseconds:
        return format::duration(v * 1e3);
    case Unit::Fraction:
        return format::percent(v);
    case Unit::Bytes:
        return format::bytes(v);
    case Unit::Count:
        return format::count(v);
    case Unit::Ratio:
        return format::ratio(v);
    case Unit::GigabytesPerSecond:
        return format::byteRate(v * 1e9);
    }
    return format::number(v);
}

std::string gainText(const Finding& finding)
{
    const char* per = finding.perBatch ? " per batch" : " per step";
    if (!(finding.estimatedGainNs > 0))
        return std::string("none") + per;
    // A measured difference is no estimate: no "~".
    return (finding.measured ? "" : "~") + format::duration(finding.estimatedGainNs) + per;
}

const char* gainKind(const Finding& finding)
{
    return finding.measured ? "measured gain" : "estimated gain";
}

std::string gainLabel(const Finding& finding)
{
    return std::string(gainKind(finding)) + " " + gainText(finding);
}

std::string targetText(const EvidenceTarget& target)
{
    return std::string(trace::utf8Prefix(target.name, kTargetBytes));
}

}  // namespace kinetoscope::analysis
