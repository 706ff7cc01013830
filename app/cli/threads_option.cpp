#include "app/cli/threads_option.h"

#include <charconv>
#include <ostream>

namespace kinetoscope::cli {

std::optional<unsigned> parseThreads(std::string_view text)
{
    unsigned threads = 0;
    const char* end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, threads);
    if (text.empty() || error != std::errc() || stop != end || threads > kMaxThreads)
        return std::nullopt;
    return threads;
}

std::string threadsProblem(const std::string* value)
{
    const std::string wanted =
        "0 (every core) or a number of threads from 1 to " + std::to_string(kMaxThreads);
    if (!value)
        return "--threads needs a value: " + wanted;
    return "--threads takes " + wanted + ", not '" + *value + "'";
}

bool readThreadsOption(const std::vector<std::string>& args, size_t& i, std::string_view command,
                       std::ostream& err, unsigned& threads)
{
    const std::string* value = i + 1 < args.size() ? &args[++i] : nullptr;
    const std::optional<unsigned> parsed = value ? parseThreads(*value) : std::nullopt;
    if (!parsed) {
        err << "kinetoscope " << command << ": " << threadsProblem(value) << '\n';
        return false;
    }
    threads = *parsed;
    return true;
}

}  // namespace kinetoscope::cli
