#include "core/format/number_text.h"

#include <charconv>
#include <cmath>
#include <system_error>

namespace kinetoscope::format {

namespace {

// The whole text as a T (std::from_chars: no locale, no leading space), or nothing.
template <typename T>
std::optional<T> wholeText(std::string_view text)
{
    T value{};
    const char* end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, value);
    if (text.empty() || error != std::errc() || stop != end)
        return std::nullopt;
    return value;
}

}  // namespace

std::optional<int64_t> integerIn(std::string_view text)
{
    return wholeText<int64_t>(text);
}

std::optional<double> numberIn(std::string_view text)
{
    const std::optional<double> value = wholeText<double>(text);
    return value && std::isfinite(*value) ? value : std::nullopt;
}

}  // namespace kinetoscope::format
