#pragma once
// How every command prints JSON: indented by two, and a string that is not valid UTF-8
// replaced (U+FFFD) rather than aborting the command. None should reach here (the
// ingest mends names as it reads them; the fuzzers dump strictly to prove it): this is
// the last guard, not the fix.
#include <nlohmann/json.hpp>
#include <string>

namespace kinetoscope::cli {

inline std::string jsonOutput(const nlohmann::json& j)
{
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace kinetoscope::cli
