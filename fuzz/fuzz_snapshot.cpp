// libFuzzer target: bytes -> the snapshot's pickle reader -> its summary and writers.
#include "fuzz/exercise.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    kinetoscope::fuzz::exerciseSnapshot(
        std::string_view(reinterpret_cast<const char*>(data), size));
    return 0;
}
