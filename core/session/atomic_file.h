#pragma once
// A file written whole or not at all: the bytes go to PATH.tmp, are flushed to the disk,
// and the temporary is renamed over PATH; on any failure PATH is as it was.
#include <filesystem>
#include <string>
#include <string_view>

namespace kinetoscope::session {

bool writeFileAtomically(const std::filesystem::path& path, std::string_view bytes,
                         std::string& error);

}  // namespace kinetoscope::session
