#pragma once
// What the engine benchmarks share: the median of their rounds and their command line
// (--rounds N, a few flags of their own, then kinetoscope run's options).
#include "core/lab/run_options.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

namespace kinetoscope::bench {

inline double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// Fills `rounds`, sets each of `flags` found (name -> present) and parses the rest into
// `config`; false with the reason in `error`.
inline bool parseEngineBenchArgs(int argc, char** argv, lab::RunConfig& config, int& rounds,
                                 std::vector<std::pair<std::string, bool*>> flags,
                                 std::string& error)
{
    std::vector<std::string> options;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const auto flag =
            std::find_if(flags.begin(), flags.end(), [&](const auto& f) { return f.first == arg; });
        if (flag != flags.end())
            *flag->second = true;
        else if (arg == "--rounds" && i + 1 < argc)
            rounds = std::max(1, std::atoi(argv[++i]));
        else
            options.push_back(arg);
    }
    return lab::parseRunOptions(options, config, error);
}

}  // namespace kinetoscope::bench
