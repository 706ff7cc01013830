#include "core/analysis/iterations.h"

#include "core/analysis/breakdown.h"
#include "core/analysis/host_profile.h"
#include "core/trace/name_cache.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace kinetoscope::analysis {

using namespace kinetoscope::trace;

namespace {

// An anchor must start at least this many iterations.
constexpr size_t kMinIterations = 3;
// Of the segments an anchor cuts, at least this share must be the modal sequence.
constexpr double kAgreeingShare = 0.6;
// The agreeing segments must cover at least this share of their level's span: a loop, not
// a burst of repeated calls inside something else.
constexpr double kCoveredShare = 0.5;
// One event spanning this share of its level is a wrapper (a Python frame, a function, a
// module span): the loop is inside it.
constexpr double kSpanningShare = 0.8;
constexpr int kMaxLevels = 24;
// A thread whose top-level time is this much in the backward engine runs nothing else.
constexpr double kEngineThreadShare = 0.9;
// Anchors that cut the same loop at another point cover nearly the same time.
constexpr double kSameLoopShare = 0.9;

bool isHostCall(Category c)
{
    return c == Category::CpuOp || c == Category::UserAnnotation || c == Category::PythonFunction;
}

// The profiler's own span encloses everything and says nothing: its children stand in for it.
bool isProfilerSpan(std::string_view name)
{
    return name.starts_with("PyTorch Profiler");
}

bool isBackwardEngine(std::string_view name)
{
    return name.starts_with("autograd::engine::evaluate_function");
}

using Level = std::vector<const Event*>;

// The host calls directly inside `parent` on `track` (the top level when `parent` is
// invalid), the profiler's span replaced by what it holds.
Level childrenOf(const TraceModel& model, TrackId track, EventId parent)
{
    Level level;
    const auto events = model.events(track);
    auto it = events.begin();
    int64_t end = std::numeric_limits<int64_t>::max();
    if (parent.valid()) {
        const Event& p = model.event(parent);
        it = std::lower_bound(events.begin(), events.end(), p.startNs,
                              [](const Event& e, int64_t t) { return e.startNs < t; });
        end = p.endNs();
    }
    std::vector<EventId> transparent;  // profiler spans at this level
    for (; it != events.end() && it->startNs <= end; ++it) {
        const Event& e = *it;
        if (!isHostCall(e.category) || model.idOf(e) == parent)
            continue;
        const bool direct =
            parent.valid()
                ? e.parent == parent
                : e.depth == 0 || (e.parent.valid() &&
                                   std::count(transparent.begin(), transparent.end(), e.parent));
        if (!direct)
            continue;
        if (isProfilerSpan(model.text(e.name))) {
            transparent.push_back(model.idOf(e));
            continue;
        }
        level.push_back(&e);
    }
    return level;
}

}  // namespace

TrackId busiestHostThread(const TraceModel& model)
{
    auto profilerSpan = perName<bool>(model, isProfilerSpan);
    auto backwardEngine = perName<bool>(model, isBackwardEngine);
    TrackId best, fallback;
    int64_t bestNs = 0, fallbackNs = 0;
    for (const Track& track : model.tracks()) {
        if (track.kind == TrackKind::GpuStream)  // host threads (a legacy file's are unlabelled)
            continue;
        const TrackId id{static_cast<uint32_t>(&track - model.tracks().data())};
        int64_t ns = 0, backwardNs = 0;
        for (const Event& e : model.events(id)) {
            if (e.depth != 0 || !isHostCall(e.category) || profilerSpan(e.name))
                continue;
            ns += e.durationNs;
            backwardNs += backwardEngine(e.name) ? e.durationNs : 0;
        }
        if (ns == 0)
            continue;
        // A thread of nothing but the backward engine (a GPU run's): a CPU run's main thread
        // runs its backward too, with its forward and the loop around them.
        if (double(backwardNs) >= kEngineThreadShare * double(ns)) {
            if (ns > fallbackNs)
                fallbackNs = ns, fallback = id;
        } else if (ns > bestNs) {
            bestNs = ns, best = id;
        }
    }
    return best.valid() ? best : fallback;
}

namespace {

using Mark = RepeatedIterations::Mark;

struct Anchor
{
    uint32_t name = 0;
    Mark mark = Mark::Trains;
    std::vector<size_t> positions;  // in the level
    size_t agreeing = 0;
    size_t modalLength = 0;     // calls in the modal segment
    int64_t coveredNs = 0;      // time the agreeing segments span
    size_t firstIteration = 0;  // index in positions of the first iteration (what comes
                                // before it is set-up that calls the anchor too)
    size_t firstAgreeing = 0;   // level index where the first agreeing segment starts
};

// Hash of each prefix of the level's names, so that any segment's sequence hashes in O(1).
struct PrefixHash
{
    static constexpr uint64_t kBase = 1'000'003;
    std::vector<uint64_t> prefix{0};
    std::vector<uint64_t> power{1};
    explicit PrefixHash(const Level& level)
    {
        for (const Event* e : level) {
            prefix.push_back(prefix.back() * kBase + e->name.value + 1);
            power.push_back(power.back() * kBase);
        }
    }
    uint64_t of(size_t begin, size_t end) const
    {
        return prefix[end] - prefix[begin] * power[end - begin];
    }
};

// What marks a segment as a whole iteration rather than a layer of a model or one element
// of a Python loop: a training op (backward, optimizer) starting in it on any host thread
// (the backward may run on the engine's thread), a call of a whole model (an nn.Module
// span with no module above it), or new data made on the loop's thread: random data drawn
// (torch.randn, ...) or a DataLoader batch. A layer transforms what the layer before it
// produced and an element loop reads parts of one tensor; an iteration of a loop makes
// data of its own, whether or not the device was recorded. (A copy to the device is no
// such mark: a benchmark of single ops uploads each op's input, and a run profiled
// without its device activity does not say where a copy goes.) Start times, sorted.
struct IterationMarks
{
    std::vector<int64_t> training;
    std::vector<int64_t> modelCalls;  // on the loop's thread
    std::vector<int64_t> newData;     // on the loop's thread: random data, a batch
    static bool any(const std::vector<int64_t>& times, int64_t begin, int64_t end)
    {
        const auto it = std::lower_bound(times.begin(), times.end(), begin);
        return it != times.end() && *it < end;
    }
};

bool isModuleSpan(std::string_view name)
{
    return name.starts_with("nn.Module:");
}

IterationMarks iterationMarks(const TraceModel& model, TrackId thread)
{
    IterationMarks marks;
    auto training = perName<bool>(model, isTrainingOp);
    auto module = perName<bool>(model, isModuleSpan);
    auto newData = perName<bool>(
        model, [](std::string_view n) { return isRandomDataOp(n) || isDataLoaderOp(n); });
    for (const Event& e : model.events()) {
        if (!isHostCall(e.category) || model.track(e.track).kind == TrackKind::GpuStream)
            continue;
        if (e.track == thread && newData(e.name))
            marks.newData.push_back(e.startNs);
        if (training(e.name))
            marks.training.push_back(e.startNs);
        if (e.track == thread && module(e.name)) {
            bool outermost = true;
            for (EventId p = e.parent; p.valid() && outermost; p = model.event(p).parent)
                outermost = !module(model.event(p).name);
            if (outermost)
                marks.modelCalls.push_back(e.startNs);
        }
    }
    std::sort(marks.training.begin(), marks.training.end());
    std::sort(marks.modelCalls.begin(), marks.modelCalls.end());
    std::sort(marks.newData.begin(), marks.newData.end());
    return marks;
}

std::optional<Anchor> bestAnchor(const Level& level, const IterationMarks& marks,
                                 const std::vector<bool>& trainingName)
{
    if (level.size() < kMinIterations)
        return std::nullopt;
    std::unordered_map<uint32_t, std::vector<size_t>> positions;
    for (size_t i = 0; i < level.size(); ++i)
        positions[level[i]->name.value].push_back(i);
    const PrefixHash hash(level);
    int64_t levelEnd = 0;
    for (const Event* e : level)
        levelEnd = std::max(levelEnd, e->endNs());
    const int64_t span = levelEnd - level.front()->startNs;

    std::vector<Anchor> anchors;
    for (auto& [name, where] : positions) {
        if (where.size() < kMinIterations)
            continue;
        // The modal segment: the most frequent (sequence, length) between occurrences.
        std::unordered_map<uint64_t, size_t> counts;
        uint64_t modal = 0;
        size_t modalCount = 0;
        for (size_t k = 0; k + 1 < where.size(); ++k) {
            const uint64_t key = hash.of(where[k], where[k + 1]) * 31 + (where[k + 1] - where[k]);
            const size_t c = ++counts[key];
            if (c > modalCount)
                modalCount = c, modal = key;
        }
        const size_t segments = where.size() - 1;
        if (modalCount + 1 < kMinIterations ||
            double(modalCount) < kAgreeingShare * double(segments))
            continue;
        Anchor a;
        a.name = name;
        a.agreeing = modalCount;
        bool training = true, modelCall = true, takesData = true, seen = false;
        for (size_t k = 0; k + 1 < where.size(); ++k) {
            if (hash.of(where[k], where[k + 1]) * 31 + (where[k + 1] - where[k]) != modal)
                continue;
            const int64_t begin = level[where[k]]->startNs, end = level[where[k + 1]]->startNs;
            if (!seen)
                a.firstAgreeing = where[k], seen = true;
            a.modalLength = where[k + 1] - where[k];
            a.coveredNs += end - begin;
            training = training && IterationMarks::any(marks.training, begin, end);
            modelCall = modelCall && IterationMarks::any(marks.modelCalls, begin, end);
            takesData = takesData && IterationMarks::any(marks.newData, begin, end);
        }
        // A segment of backward calls alone is a layer's backward, not an iteration.
        bool beyondBackward = false;
        for (size_t i = a.firstAgreeing; i < a.firstAgreeing + a.modalLength && !beyondBackward;
             ++i)
            beyondBackward = !trainingName[level[i]->name.value];
        if (double(a.coveredNs) < kCoveredShare * double(span) ||
            (!training && !modelCall && !takesData) || !beyondBackward)
            continue;
        a.mark = training ? Mark::Trains : modelCall ? Mark::CallsModel : Mark::TakesData;
        // The iterations start at the first segment that is the loop's own (agreeing, or a
        // first iteration that differs but trains or calls the model); earlier calls of the
        // anchor are set-up (weights drawn with the same torch.randn).
        while (a.firstIteration + 1 < where.size()) {
            const size_t k = a.firstIteration;
            const int64_t begin = level[where[k]]->startNs, end = level[where[k + 1]]->startNs;
            // Set-up draws data too (weights from the same torch.randn): a loop known only
            // by the data it takes in starts at its first agreeing segment.
            const bool own = training    ? IterationMarks::any(marks.training, begin, end)
                             : modelCall ? IterationMarks::any(marks.modelCalls, begin, end)
                                         : false;
            if (hash.of(where[k], where[k + 1]) * 31 + (where[k + 1] - where[k]) == modal || own)
                break;
            ++a.firstIteration;
        }
        a.positions = std::move(where);
        anchors.push_back(std::move(a));
    }
    if (anchors.empty())
        return std::nullopt;
    const Anchor* best =
        &*std::max_element(anchors.begin(), anchors.end(), [](const Anchor& a, const Anchor& b) {
            return a.coveredNs < b.coveredNs;
        });
    // The same loop cut at another of its calls: start at the first of them in the loop.
    const Anchor* first = best;
    for (const Anchor& a : anchors)
        if (a.modalLength == best->modalLength &&
            double(a.coveredNs) >= kSameLoopShare * double(best->coveredNs) &&
            a.firstAgreeing < first->firstAgreeing)
            first = &a;
    return *first;
}

}  // namespace

std::optional<RepeatedIterations> findRepeatedIterations(const TraceModel& model)
{
    const TrackId thread = busiestHostThread(model);
    if (!thread.valid())
        return std::nullopt;
    RepeatedIterations result;
    const IterationMarks marks = iterationMarks(model, thread);
    if (marks.training.empty() && marks.modelCalls.empty() && marks.newData.empty())
        return std::nullopt;
    std::vector<bool> trainingName(model.strings().size());
    for (size_t i = 0; i < trainingName.size(); ++i)
        trainingName[i] = isTrainingOp(model.text(StringId{static_cast<uint32_t>(i)}));
    Level level = childrenOf(model, thread, EventId{});
    for (int depth = 0; depth < kMaxLevels && !level.empty(); ++depth) {
        if (const std::optional<Anchor> anchor = bestAnchor(level, marks, trainingName)) {
            const std::vector<size_t>& at = anchor->positions;
            for (size_t k = anchor->firstIteration; k < at.size(); ++k) {
                const int64_t begin = level[at[k]]->startNs;
                int64_t end = 0;
                if (k + 1 < at.size()) {
                    end = level[at[k + 1]]->startNs;
                } else {  // the last: as many calls as an iteration holds
                    for (size_t i = at[k]; i < std::min(level.size(), at[k] + anchor->modalLength);
                         ++i)
                        end = std::max(end, level[i]->endNs());
                }
                Step step;
                step.name = "Iteration#" + std::to_string(result.steps.size());
                step.hostBeginNs = step.beginNs = begin;
                step.hostEndNs = step.endNs = end;
                result.steps.push_back(std::move(step));
            }
            result.anchor = std::string(model.text(StringId{anchor->name}));
            result.agreeing = anchor->agreeing;
            result.mark = anchor->mark;
            result.callsPerIteration = anchor->modalLength;
            return result;
        }
        // No repetition here: look inside the event that spans the level, if one does.
        const Event* widest =
            *std::max_element(level.begin(), level.end(), [](const Event* a, const Event* b) {
                return a->durationNs < b->durationNs;
            });
        int64_t levelEnd = 0;
        for (const Event* e : level)
            levelEnd = std::max(levelEnd, e->endNs());
        const int64_t span = levelEnd - level.front()->startNs;
        // Inside a model's call the repeats are its layers, not iterations.
        if (double(widest->durationNs) < kSpanningShare * double(span) ||
            isModuleSpan(model.text(widest->name)))
            return std::nullopt;
        result.inside.emplace_back(model.text(widest->name));
        level = childrenOf(model, thread, model.idOf(*widest));
    }
    return std::nullopt;
}

}  // namespace kinetoscope::analysis
