#include "core/timeline/frame_folds.h"

#include <algorithm>

namespace kinetoscope::timeline {

namespace {

// Two rows or more fold; one row is already one row.
constexpr uint32_t kMinFoldedRows = 2;

// Can `lane` join a fold? Its track's only row at its depth, below the first, holding
// only Python frames, one of them at least `minSpanNs` long. Returns that frame.
trace::EventId foldableFrame(const TimelineIndex& index, uint32_t lane, int64_t minSpanNs)
{
    const auto& lanes = index.lanes();
    const Lane& l = lanes[lane];
    const trace::TraceModel& model = index.model();
    if (l.depth == 0 || l.overlapRow > 0 || l.events.empty() ||
        model.track(l.track).kind != trace::TrackKind::CpuThread)
        return {};
    if (lane + 1 < lanes.size() && lanes[lane + 1].track == l.track &&
        lanes[lane + 1].depth == l.depth)
        return {};  // the depth has extra rows: its events overlap, nothing to fold
    trace::EventId longest;
    for (trace::EventId id : l.events) {
        const trace::Event& e = model.event(id);
        if (e.category != trace::Category::PythonFunction)
            return {};
        if (!longest || e.durationNs > model.event(longest).durationNs)
            longest = id;
    }
    return model.event(longest).durationNs >= minSpanNs ? longest : trace::EventId{};
}

FrameFold makeFold(const TimelineIndex& index, uint32_t first,
                   const std::vector<trace::EventId>& frames)
{
    const trace::TraceModel& model = index.model();
    FrameFold fold;
    fold.firstLane = first;
    fold.lastLane = first + uint32_t(frames.size());
    for (trace::EventId id : frames) {
        if (!fold.chain.empty())
            fold.chain += " > ";
        fold.chain += frameFunction(model.text(model.event(id).name));
    }
    const std::string outer(frameFunction(model.text(model.event(frames.front()).name)));
    const std::string inner(frameFunction(model.text(model.event(frames.back()).name)));
    fold.label = std::to_string(frames.size()) + " Python frames: " + outer +
                 (frames.size() > 2 ? " > \u2026 > " : " > ") + inner;
    return fold;
}

}  // namespace

std::string_view frameFunction(std::string_view name)
{
    const size_t at = name.find("): ");
    return at == std::string_view::npos ? name : name.substr(at + 3);
}

int64_t foldSpanNs(const trace::TraceModel& model, const std::vector<analysis::Step>& steps)
{
    if (steps.empty())
        return std::max<int64_t>(1, (model.endNs() - model.beginNs()) / 2);
    std::vector<int64_t> lengths;
    lengths.reserve(steps.size());
    for (const analysis::Step& s : steps)
        lengths.push_back(s.durationNs());
    std::nth_element(lengths.begin(), lengths.begin() + std::ptrdiff_t(lengths.size() / 2),
                     lengths.end());
    return std::max<int64_t>(1, lengths[lengths.size() / 2] * 9 / 10);
}

std::vector<FrameFold> findFrameFolds(const TimelineIndex& index, int64_t minSpanNs)
{
    std::vector<FrameFold> folds;
    std::vector<trace::EventId> chain;
    uint32_t chainStart = 0;
    auto close = [&] {
        if (chain.size() >= kMinFoldedRows)
            folds.push_back(makeFold(index, chainStart, chain));
        chain.clear();
    };
    const auto& lanes = index.lanes();
    for (uint32_t l = 0; l < lanes.size(); ++l) {
        const trace::EventId frame = foldableFrame(index, l, minSpanNs);
        // A chain is consecutive depths of one track: lanes that follow each other.
        const bool continues = !chain.empty() && frame && lanes[l].track == lanes[l - 1].track &&
                               lanes[l].depth == lanes[l - 1].depth + 1;
        if (!continues)
            close();
        if (frame) {
            if (chain.empty())
                chainStart = l;
            chain.push_back(frame);
        }
    }
    close();
    return folds;
}

}  // namespace kinetoscope::timeline
