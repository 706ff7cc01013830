#pragma once
// Matching event names: the one case-insensitive substring test the classifiers share.
#include <algorithm>
#include <cctype>
#include <string_view>

namespace kinetoscope::analysis {

// Does `text` contain `lowerWord` in any case? `lowerWord` must be lower case.
inline bool containsNoCase(std::string_view text, std::string_view lowerWord)
{
    return std::search(text.begin(), text.end(), lowerWord.begin(), lowerWord.end(),
                       [](char a, char b) {
                           return std::tolower(static_cast<unsigned char>(a)) == b;
                       }) != text.end();
}

}  // namespace kinetoscope::analysis
