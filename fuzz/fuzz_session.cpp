// libFuzzer target: bytes -> lab session reader -> lab reading, lab-aware diagnosis, writer.
#include "fuzz/exercise.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    kinetoscope::fuzz::exerciseSession(std::string_view(reinterpret_cast<const char*>(data), size));
    return 0;
}
