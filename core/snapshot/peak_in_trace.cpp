#include "core/snapshot/peak_in_trace.h"

#include "core/format/format.h"

#include <string_view>
#include <vector>

namespace kinetoscope::snapshot {

namespace {

bool contains(std::string_view text, std::string_view part)
{
    return text.find(part) != std::string_view::npos;
}

// What a host thread was inside at one moment: innermost first.
std::vector<const trace::Event*> chainAt(const trace::TraceModel& trace, trace::TrackId track,
                                         int64_t ns)
{
    std::vector<const trace::Event*> chain;
    for (trace::EventId id = trace.innermostEventAt(track, ns); id.valid();
         id = trace.event(id).parent)
        chain.push_back(&trace.event(id));
    return chain;
}

// The phase of a training step the host threads were in (every thread: backward runs on
// autograd's own thread while the main one waits in a frame named backward).
std::string phaseOf(const trace::TraceModel& trace,
                    const std::vector<std::vector<const trace::Event*>>& chains)
{
    bool backward = false, optimizer = false, data = false;
    for (const auto& chain : chains)
        for (const trace::Event* e : chain) {
            const std::string_view name = trace.text(e->name);
            optimizer |= contains(name, "Optimizer.step") || contains(name, "optimizer.step");
            backward |= contains(name, "backward") || contains(name, "Backward");
            data |= contains(name, "DataLoader") || contains(name, "__next__");
        }
    return optimizer  ? "the optimizer step"
           : backward ? "backward"
           : data     ? "data loading"
                      : "forward";
}

// "memory comes within 1 % of its peak 30 times (at most once an iteration), 5 of them
// in the trace's window"
std::string recurrence(const PeakInTrace& p)
{
    return "memory comes within 1 % of its peak " + format::count(int64_t(p.peakMoments)) +
           " times (at most once an iteration), " + format::count(int64_t(p.peakMomentsInWindow)) +
           " of them in the trace's window";
}

}  // namespace

PeakInTrace placePeak(const SnapshotSummary& snapshot, const trace::TraceModel& trace,
                      const analysis::TraceSummary& summary)
{
    PeakInTrace p;
    if (snapshot.peakTimeUs < 0)
        return p;
    // The first moment at the peak inside the window, else the peak itself.
    const std::vector<int64_t> moments = snapshot.peakMomentsUs.empty()
                                             ? std::vector<int64_t>{snapshot.peakTimeUs}
                                             : snapshot.peakMomentsUs;
    p.peakMoments = moments.size();
    p.peakNs = snapshot.peakTimeUs * 1000;
    for (int64_t us : moments)
        if (trace.beginNs() <= us * 1000 && us * 1000 <= trace.endNs()) {
            if (p.peakMomentsInWindow++ == 0)
                p.peakNs = us * 1000;
        }
    if (p.peakMomentsInWindow == 0) {
        const bool before = p.peakNs < trace.beginNs();
        const double apart = double(before ? trace.beginNs() - p.peakNs : p.peakNs - trace.endNs());
        constexpr double kDayNs = 86400e9;
        const std::string where = before ? "before the trace begins" : "after the trace ends";
        if (apart > kDayNs)
            p.sentence = "the peak is " + format::count(int64_t(apart / kDayNs)) + " days " +
                         where + ": the snapshot and the trace are not of the same run";
        else if (p.peakMoments > 1)
            p.sentence = "the peak is " + format::duration(apart) + " " + where +
                         ", and none of the " + format::count(int64_t(p.peakMoments)) +
                         " times memory comes within 1 % of it (at most once an iteration) is "
                         "in the trace's window "
                         "(profile the steps where memory peaks)";
        else
            p.sentence = "the peak is " + format::duration(apart) + " " + where +
                         ": not in its window (profile the steps where memory peaks)";
        return p;
    }
    p.inWindow = true;
    std::vector<std::vector<const trace::Event*>> chains;
    const std::vector<const trace::Event*>* deepest = nullptr;
    size_t deepestOp = 0;
    for (size_t t = 0; t < trace.tracks().size(); ++t) {
        if (trace.tracks()[t].kind != trace::TrackKind::CpuThread)
            continue;
        std::vector<const trace::Event*> chain =
            chainAt(trace, trace::TrackId{uint32_t(t)}, p.peakNs);
        if (chain.empty())
            continue;
        chains.push_back(std::move(chain));
    }
    // The thread whose operator nests deepest is the one that allocated.
    for (const auto& chain : chains)
        for (size_t i = 0; i < chain.size(); ++i)
            if (chain[i]->category == trace::Category::CpuOp) {
                if (!deepest || chain.size() - i > deepestOp) {
                    deepest = &chain;
                    deepestOp = chain.size() - i;
                }
                break;
            }
    if (deepest) {
        for (const trace::Event* e : *deepest) {
            const std::string_view name = trace.text(e->name);
            if (p.op.empty() && e->category == trace::Category::CpuOp)
                p.op = name;
            if (p.module.empty() && e->category == trace::Category::PythonFunction) {
                if (name.starts_with("nn.Module: "))
                    p.module = name.substr(11);
                else if (contains(name, "forward"))
                    p.module = name;
            }
        }
        p.phase = phaseOf(trace, chains);
    }
    for (const analysis::Step& step : summary.window.allSteps)
        if (step.hostBeginNs <= p.peakNs && p.peakNs < std::max(step.hostEndNs, step.endNs)) {
            p.step = step.name;
            break;
        }
    // A peak reached again and again: how often, and the first time in the window.
    p.sentence = p.peakMoments > 1 ? recurrence(p) + "; the first there is in " : "the peak is in ";
    p.sentence += (p.step.empty() ? std::string("no step") : p.step + "'s") +
                  (p.phase.empty() ? std::string() : " " + p.phase);
    if (!p.op.empty())
        p.sentence += ", in " + p.op;
    if (!p.module.empty())
        p.sentence += " under " + p.module;
    if (p.step.empty() && p.phase.empty() && p.op.empty())
        p.sentence = p.peakMoments > 1
                         ? recurrence(p) + ", the first while no host thread was in an op"
                         : "the peak is in the trace's window, while no host thread was in an op";
    return p;
}

}  // namespace kinetoscope::snapshot
