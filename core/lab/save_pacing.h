#pragma once
// When a growing session is saved again while its run goes on (what a launcher killed
// meanwhile would otherwise lose; the saved file is read by nothing until the run ends):
// every 2 s at most, and less often as the session grows, so that saving takes at most 2 %
// of the launcher's time and writes at most 1 MB a second on average. A long run's session
// of 300,000 steps (48 MB, 0.5-1 s to build and write on a 2-core machine) was written every
// 2 s: a quarter to half a core and 24 MB/s beside the training; it is now written every
// ~50 s. Torch-free.
#include <chrono>
#include <string>

namespace kinetoscope::lab {

class SavePacing
{
public:
    using Clock = std::chrono::steady_clock;
    static constexpr std::chrono::seconds kShortest{2};
    static constexpr int kTimeShare = 50;               // a save's duration x this: the next wait
    static constexpr double kBytesPerSecond = 1 << 20;  // the average write rate, at most

    explicit SavePacing(Clock::time_point start = Clock::now()) : m_next(start + kShortest) {}
    bool due(Clock::time_point now) const { return now >= m_next; }
    // After a save that began at `began` (building the session included) and ended at
    // `ended`, leaving a file of `bytes`.
    void saved(Clock::time_point began, Clock::time_point ended, double bytes);
    // The same, with the size read from the file at `path` (0 when it cannot be read).
    void saved(Clock::time_point began, Clock::time_point ended, const std::string& path);
    Clock::time_point next() const { return m_next; }

private:
    Clock::time_point m_next;
};

}  // namespace kinetoscope::lab
