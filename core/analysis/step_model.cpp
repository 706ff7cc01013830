#include "core/analysis/step_model.h"

#include "core/analysis/step_replay.h"
#include "core/parallel/parallel_for.h"

#include <algorithm>
#include <iterator>

namespace kinetoscope::analysis {

using namespace kinetoscope::trace;
using namespace kinetoscope::analysis::detail;

namespace {

// An even sample of the steady steps bounds the cost on traces of thousands of steps.
constexpr size_t kMaxModelledSteps = 32;
// The order in which causes are removed one after another: the specific before the
// general on the host (a sync, a pageable copy, the DataLoader, the optimizer's loop, the
// model's own conversions, a graph break are fixes of their own; then Python and CPU-only ops; then
// the launch overhead every fix above also shrinks), and the device's own work last, judged once
// the host keeps up.
constexpr Cause kCreditOrder[] = {
    Cause::HostSync,       Cause::PageableCopy,     Cause::DataLoader,
    Cause::OptimizerHost,  Cause::Allocation,       Cause::DeviceCopies,
    Cause::GraphBreak,     Cause::Python,           Cause::CpuCompute,
    Cause::LaunchOverhead, Cause::Communication,    Cause::Fp32Matmul,
    Cause::BelowRoof,      Cause::UnfusedAttention, Cause::CompiledBelowBandwidth,
    Cause::Fusion};
static_assert(std::size(kCreditOrder) == kCauseCount);
static_assert(kCauseCount <= 16, "causeBit masks are uint16_t");

}  // namespace

const char* hostStateName(HostState state)
{
    static constexpr const char* names[] = {"idle",    "python",      "dataloader",
                                            "blocked", "cpu_compute", "launching"};
    return names[static_cast<size_t>(state)];
}

const char* causeName(Cause cause)
{
    static constexpr const char* names[] = {"dataloader",      "python",
                                            "launch_overhead", "host_sync",
                                            "pageable_copy",   "device_copies",
                                            "fp32_matmul",     "communication",
                                            "optimizer_host",  "cpu_compute",
                                            "fusion",          "allocation",
                                            "below_roofline",  "unfused_attention",
                                            "graph_break",     "compiled_below_bandwidth"};
    return names[static_cast<size_t>(cause)];
}

namespace {

// One modelled step's terms of the sums, kept apart so that steps can be modelled on
// several threads and their terms still added in step order. Nanoseconds: int64 sums
// within the step are exact, and so is each one's double (the double sum of whole
// nanoseconds is exact below 2^53 ns, about 104 days), so this gives the same bits as
// adding every term to the model's doubles as it comes.
struct StepTerms
{
    int64_t blockingCalls = 0;
    int64_t busyNs = 0;
    int64_t idleNs = 0;
    std::array<int64_t, kHostStateCount> idleByHostState{};
    std::array<int64_t, kHostStateCount> hostByState{};
    int64_t stepNs = 0;
    int64_t replayedNs = 0;
    std::array<double, kCauseCount> soloNs{};         // scaled to the measured step
    std::array<double, kCauseCount> gainNs{};         // likewise
    std::array<double, kCauseCount> afterOthersNs{};  // likewise
    std::array<int64_t, kCauseCount> deviceNs{};
};

StepTerms modelStep(const TraceModel& model, const HostContext& context, const Step& step)
{
    StepTerms t;
    const std::vector<Segment> host =
        mergedHostTimeline(model, context, hostFrom(step), step.endNs);
    StepInputs in = stepInputs(model, context, step, host, t.deviceNs);
    t.blockingCalls = static_cast<int64_t>(in.calls.size());

    // Device busy and idle, the idle attributed to the host's state.
    std::vector<TimeRange> busy;
    busy.reserve(in.activities.size());
    for (const Activity& a : in.activities)
        busy.push_back({a.startNs, a.startNs + a.durationNs});
    const RangeSet busySet = intersect(unionOf(std::move(busy)), {{step.beginNs, step.endNs}});
    const RangeSet idle = subtract({{step.beginNs, step.endNs}}, busySet);
    t.busyNs = totalLength(busySet);
    t.idleNs = totalLength(idle);
    for (const Segment& s : host) {
        const int64_t b = std::max(s.begin, step.beginNs), e = std::min(s.end, step.endNs);
        if (b >= e)
            continue;
        t.hostByState[size_t(s.state)] += e - b;
        t.idleByHostState[size_t(s.state)] += lengthWithin(idle, b, e);
    }

    // Gains: each cause alone, then credited one after another in a fixed order.
    const int64_t base = replay(in, 0);
    t.stepNs = step.durationNs();
    t.replayedNs = base;
    // Every gain is scaled to the measured step when the replay overshoots it, the solo
    // ones too: a cause first in the credit order then reads one figure, alone or credited.
    const double scale =
        base > step.durationNs() && base > 0 ? double(step.durationNs()) / double(base) : 1.0;
    std::array<int64_t, kCauseCount> solo{};
    for (size_t k = 0; k < kCauseCount; ++k) {
        solo[k] = std::max<int64_t>(0, base - replay(in, causeBit(Cause(k))));
        t.soloNs[k] = scale * static_cast<double>(solo[k]);
    }
    uint16_t mask = 0;
    int64_t previous = base;
    for (Cause cause : kCreditOrder) {
        const size_t k = static_cast<size_t>(cause);
        mask |= causeBit(cause);
        const int64_t now = replay(in, mask);
        const int64_t added = std::max<int64_t>(0, previous - now);
        // Credited: what the removal adds at its turn, but never more than the cause
        // saves on its own: the gain of two fixes together beyond the sum of each
        // alone is nobody's (it is in afterOthersNs).
        t.afterOthersNs[k] = scale * static_cast<double>(added);
        t.gainNs[k] = scale * static_cast<double>(std::min(added, solo[k]));
        previous = std::min(previous, now);
    }
    return t;
}

template <size_t N>
void addTerms(std::array<double, N>& sums, const std::array<int64_t, N>& terms)
{
    for (size_t k = 0; k < N; ++k)
        sums[k] += static_cast<double>(terms[k]);
}

template <size_t N>
void addTerms(std::array<double, N>& sums, const std::array<double, N>& terms)
{
    for (size_t k = 0; k < N; ++k)
        sums[k] += terms[k];
}

}  // namespace

CausalModel buildCausalModel(const TraceModel& model, const StepDetection& steady,
                             const RoofTargets* roof, unsigned threads, const RangeSet* graphBreaks)
{
    CausalModel result;
    const std::vector<Step>& all = steady.steps;
    if (all.empty())
        return result;
    HostContext context = hostContext(model, steady);
    context.roof = roof;
    if (graphBreaks)
        context.graphBreaks = *graphBreaks;
    // An even sample of the steps keeps the cost bounded on traces of thousands of steps.
    std::vector<size_t> picked;
    const size_t count = std::min(all.size(), kMaxModelledSteps);
    picked.reserve(count);
    for (size_t i = 0; i < count; ++i)
        picked.push_back(i * all.size() / count);

    // The steps are modelled independently (on `threads` threads), then summed in step order.
    std::vector<StepTerms> terms(picked.size());
    parallel::parallelFor(picked.size(), threads,
                          [&](size_t i) { terms[i] = modelStep(model, context, all[picked[i]]); });
    for (const StepTerms& t : terms) {
        result.blockingCalls += t.blockingCalls;
        result.deviceBusyNs += static_cast<double>(t.busyNs);
        result.deviceIdleNs += static_cast<double>(t.idleNs);
        addTerms(result.hostByState, t.hostByState);
        addTerms(result.idleByHostState, t.idleByHostState);
        result.stepNs += static_cast<double>(t.stepNs);
        result.replayedStepNs += static_cast<double>(t.replayedNs);
        addTerms(result.soloGainNs, t.soloNs);
        addTerms(result.afterOthersNs, t.afterOthersNs);
        addTerms(result.gainNs, t.gainNs);
        addTerms(result.deviceNs, t.deviceNs);
    }
    const double n = static_cast<double>(picked.size());
    result.stepsModelled = picked.size();
    for (double* v :
         {&result.stepNs, &result.replayedStepNs, &result.deviceBusyNs, &result.deviceIdleNs})
        *v /= n;
    for (auto* array : {&result.idleByHostState, &result.hostByState})
        for (double& v : *array)
            v /= n;
    for (auto* array :
         {&result.soloGainNs, &result.gainNs, &result.afterOthersNs, &result.deviceNs})
        for (double& v : *array)
            v /= n;
    return result;
}

}  // namespace kinetoscope::analysis
