#include "core/compare/step_change.h"

#include "core/format/format.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace kinetoscope::compare {

namespace {

double meanOf(const std::vector<double>& values)
{
    return values.empty()
               ? 0.0
               : std::accumulate(values.begin(), values.end(), 0.0) / double(values.size());
}

// Nearest rank of a sorted sample: the smallest value with at least `q` of the sample at
// or below it.
double nearestRank(const std::vector<double>& sorted, double q)
{
    if (sorted.empty())
        return 0.0;
    const size_t rank = static_cast<size_t>(std::ceil(q * double(sorted.size())));
    return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

// The variance of a sample's mean: s² / n (s² with n - 1).
double varianceOfMean(const std::vector<double>& values)
{
    const double mean = meanOf(values);
    double sum = 0.0;
    for (double v : values)
        sum += (v - mean) * (v - mean);
    const double n = double(values.size());
    return sum / (n - 1.0) / n;
}

double resampledMean(const std::vector<double>& values, std::mt19937_64& random)
{
    std::uniform_int_distribution<size_t> pick(0, values.size() - 1);
    double sum = 0.0;
    for (size_t i = 0; i < values.size(); ++i)
        sum += values[pick(random)];
    return sum / double(values.size());
}

}  // namespace

const char* verdictName(Verdict verdict)
{
    switch (verdict) {
    case Verdict::Faster:
        return "faster";
    case Verdict::Slower:
        return "slower";
    case Verdict::NoSignificantChange:
        break;
    }
    return "no significant change";
}

StepSample stepSample(std::vector<double> valuesNs)
{
    StepSample sample;
    sample.valuesNs = valuesNs;
    sample.meanNs = meanOf(valuesNs);
    std::sort(valuesNs.begin(), valuesNs.end());
    if (!valuesNs.empty()) {
        const size_t n = valuesNs.size();
        sample.medianNs = n % 2 ? valuesNs[n / 2] : (valuesNs[n / 2 - 1] + valuesNs[n / 2]) / 2.0;
    }
    sample.p95Ns = nearestRank(valuesNs, 0.95);
    return sample;
}

bool StepChange::slowerBeyond(double fraction, double beforeMeanNs) const
{
    if (verdict != Verdict::Slower)
        return false;
    const double threshold = fraction * beforeMeanNs;
    return lowNs ? *lowNs > threshold : deltaNs > threshold;
}

StepChange estimateChange(const StepSample& before, const StepSample& after)
{
    StepChange change;
    change.deltaNs = after.meanNs - before.meanNs;
    change.relative = before.meanNs > 0 ? change.deltaNs / before.meanNs : 0.0;
    const auto called = [&](bool significant) {
        if (!significant)
            return Verdict::NoSignificantChange;
        return change.deltaNs < 0 ? Verdict::Faster : Verdict::Slower;
    };
    if (!(before.meanNs > 0) || !(after.meanNs > 0)) {
        change.relative = 0.0;
        change.verdict = Verdict::NoSignificantChange;
        change.method = "a side has no step of measurable length: no verdict";
        return change;
    }
    if (before.valuesNs.size() < 2 || after.valuesNs.size() < 2) {
        change.verdict = called(std::fabs(change.relative) >= kCalledWithoutInterval);
        change.method = "one step on a side: no confidence interval; a change of 5 % or more of "
                        "the step is called";
        return change;
    }
    const size_t fewest = std::min(before.valuesNs.size(), after.valuesNs.size());
    const bool normal = fewest >= kStepsForNormalInterval;
    if (normal) {
        // Many steps: the means are normal to within what matters, and 10,000 resamples
        // of thousands of steps would cost seconds.
        const double halfWidth =
            1.96 * std::sqrt(varianceOfMean(before.valuesNs) + varianceOfMean(after.valuesNs));
        change.lowNs = change.deltaNs - halfWidth;
        change.highNs = change.deltaNs + halfWidth;
    } else {
        // A fixed seed: the same two sessions read the same interval every time.
        std::mt19937_64 random(0x6b696e65746fULL);  // NOLINT(bugprone-random-generator-seed)
        std::vector<double> deltas(kResamples);
        for (double& d : deltas)
            d = resampledMean(after.valuesNs, random) - resampledMean(before.valuesNs, random);
        std::sort(deltas.begin(), deltas.end());
        change.lowNs = nearestRank(deltas, 0.025);
        change.highNs = nearestRank(deltas, 0.975);
    }
    const bool excludesZero = *change.lowNs > 0 || *change.highNs < 0;
    const bool few = fewest < kStepsForInterval;
    change.verdict =
        called(excludesZero &&
               std::fabs(change.relative) >= (few ? kCalledWithoutInterval : kSignificantRelative));
    const std::string counts = format::count(before.valuesNs.size()) + " and " +
                               format::count(after.valuesNs.size()) + " steady steps";
    change.method =
        std::string("95 % interval: ") +
        (normal ? "the difference in means ± 1.96 standard errors (Welch; " + counts + ")"
                : "percentile bootstrap of the difference in means (10,000 resamples of " + counts +
                      ")") +
        "; significant when it excludes zero and the change is " +
        (few ? "5 % of the step or more (fewer than 5 steps on a side)"
             : "1 % of the step or more");
    return change;
}

}  // namespace kinetoscope::compare
