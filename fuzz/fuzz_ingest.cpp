// libFuzzer target: bytes -> trace ingest -> analysis, diagnosis and every writer.
#include "fuzz/exercise.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    kinetoscope::fuzz::exerciseTrace(bytes, kinetoscope::fuzz::optionsFor(bytes));
    return 0;
}
