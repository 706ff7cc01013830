#include "core/lab/cpu_flags.h"

#include <fstream>

namespace kinetoscope::lab {

std::string cpuBf16Units()
{
    std::ifstream cpuinfo("/proc/cpuinfo");
    for (std::string line; std::getline(cpuinfo, line);) {
        if (!line.starts_with("flags"))
            continue;
        line += ' ';
        for (const char* flag : {"amx_bf16", "avx512_bf16"})
            if (line.find(std::string(" ") + flag + " ") != std::string::npos)
                return flag;
        return "none";
    }
    return "unknown";
}

}  // namespace kinetoscope::lab
