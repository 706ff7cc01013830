#pragma once
// A JSON number read as an integer without undefined behaviour: an integer, or a float
// with an integral value, inside [low, high]; anything else (a fraction, 1e300, 2^64,
// not a number) gives nothing. For the metadata of a trace and the fields of a session.
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>

namespace kinetoscope::trace {

inline std::optional<int64_t> integerWithin(const nlohmann::json& v, int64_t low, int64_t high)
{
    if (v.is_number_unsigned()) {
        const uint64_t u = v.get<uint64_t>();
        if (high >= 0 && u <= static_cast<uint64_t>(high) && static_cast<int64_t>(u) >= low)
            return static_cast<int64_t>(u);
    } else if (v.is_number_integer()) {
        const int64_t i = v.get<int64_t>();
        if (i >= low && i <= high)
            return i;
    } else if (v.is_number_float()) {
        const double d = v.get<double>();
        // high + 1 as a double: 2^63 for INT64_MAX, which no int64 reaches.
        if (std::isfinite(d) && d == std::trunc(d) && d >= static_cast<double>(low) &&
            d < static_cast<double>(high) + 1.0)
            return static_cast<int64_t>(d);
    }
    return std::nullopt;
}

}  // namespace kinetoscope::trace
