#pragma once
// `--threads N`: how many threads reading and analysing traces may use, on every command
// that reads one (info, summary, diagnose, diff, report, memory --trace) and on the app's
// command line. 0 = every core (the default), 1 = the serial path (no thread started),
// anything else up to kMaxThreads as given (core/parallel/thread_count.h). The output is the
// same whatever the number; only the time it takes changes.
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope::cli {

inline constexpr std::string_view kThreadsOption = "--threads";
// More would only cost memory and start-up: no machine this runs on has that many cores.
inline constexpr unsigned kMaxThreads = 1024;

// `text` as a thread count (a whole number 0..kMaxThreads, nothing else around it), or
// nullopt.
std::optional<unsigned> parseThreads(std::string_view text);
// The one line (no prefix, no newline) for a value that is not a thread count; `value`
// is null when none was given.
std::string threadsProblem(const std::string* value);
// Reads the value after `--threads` at args[i] (i moves onto it) into `threads`. A bad or
// missing value writes "kinetoscope COMMAND: " and threadsProblem's line to `err` and
// returns false (the command then exits with kExitBadInput).
bool readThreadsOption(const std::vector<std::string>& args, size_t& i, std::string_view command,
                       std::ostream& err, unsigned& threads);

}  // namespace kinetoscope::cli
