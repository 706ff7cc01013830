#pragma once
// Numbers read back from text that a program wrote: a session's configuration and
// environment values, a device's "cuda:N". The whole text is the number or there is none:
// "12abc", "" and "nan" read as nothing, where std::atoll and std::atof would give 12, 0
// and NaN without a word.

#include <cstdint>
#include <optional>
#include <string_view>

namespace kinetoscope::format {

std::optional<int64_t> integerIn(std::string_view text);
std::optional<double> numberIn(std::string_view text);  // finite numbers only

}  // namespace kinetoscope::format
