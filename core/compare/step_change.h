#pragma once
// The verdict on step time: how much a step changed from one run to another, with a
// confidence interval from the per-step samples. Times are nanoseconds.
//
// The interval is a percentile bootstrap of the difference in mean step time (each side
// resampled with replacement, 10,000 times, from a fixed seed: the same samples always
// give the same interval); from 200 steps a side, Welch's normal interval. A change is significant
// when the 95 % interval excludes zero and the change is at least 1 % of the step: within one run,
// steps vary less than runs do, so a smaller change is not one a second run would repeat. With
// fewer than five steady steps on a side the bootstrap is too narrow to trust alone (and
// neighbouring steps are correlated): the interval is shown but the change must also reach 5 %.
// With one step on a side there is no interval: a change of 5 % or more is called. A side without a
// step of measurable length gets no verdict. The method says which applied.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kinetoscope::compare {

enum class Verdict : uint8_t
{
    Faster,
    Slower,
    NoSignificantChange
};
const char* verdictName(Verdict verdict);  // "faster", "slower", "no significant change"

// A side's samples and their summary statistics.
struct StepSample
{
    std::vector<double> valuesNs;  // one per steady step, in step order
    double meanNs = 0.0;
    double medianNs = 0.0;
    double p95Ns = 0.0;  // nearest rank
};
StepSample stepSample(std::vector<double> valuesNs);

struct StepChange
{
    double deltaNs = 0.0;                 // after mean - before mean
    double relative = 0.0;                // deltaNs / before mean (0 when the before mean is 0)
    std::optional<double> lowNs, highNs;  // the 95 % interval of deltaNs, when there is one
    Verdict verdict = Verdict::NoSignificantChange;
    std::string method;  // how the interval and the verdict were found, one sentence

    // Is the after side slower by more than `fraction` of the before step, with
    // confidence (the whole interval above it; the change itself without an interval)?
    bool slowerBeyond(double fraction, double beforeMeanNs) const;
};

inline constexpr double kSignificantRelative = 0.01;    // with an interval
inline constexpr double kCalledWithoutInterval = 0.05;  // fewer than kStepsForInterval steps
inline constexpr size_t kStepsForInterval = 5;
// From this many steps on each side the interval is Welch's normal one instead: the same
// to within a few percent there, and a bootstrap of thousands of steps costs seconds.
inline constexpr size_t kStepsForNormalInterval = 200;
inline constexpr int kResamples = 10000;

StepChange estimateChange(const StepSample& before, const StepSample& after);

}  // namespace kinetoscope::compare
