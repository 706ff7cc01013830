#pragma once
// Which event an event is nested in, looking through the events between them that are not
// the caller's concern: the Python frames (with_stack) above an op, and where asked the
// record_function ranges. An op's self time leaves out the ops and calls it made whatever
// ran between: a compiled region's ops sit under the frames of the code Inductor generated
// and its `## Call CompiledFxGraph ##` range, and torch's own self_cpu_time_total counts
// them out all the same (its Python calls are not events of its op tree).
#include "core/trace/category.h"
#include "core/trace/trace_model.h"

#include <bitset>
#include <initializer_list>
#include <vector>

namespace kinetoscope::analysis {

class EnclosingEvent
{
public:
    // `seeThrough`: the categories passed over on the way up.
    EnclosingEvent(const trace::TraceModel& model,
                   std::initializer_list<trace::Category> seeThrough);
    // `e`'s parent, or the first of its ancestors of a category not seen through; invalid at
    // the top of its track. Each chain of seen-through events is walked once (memoised).
    trace::EventId of(const trace::Event& e);

private:
    bool passes(trace::EventId id) const
    {
        return m_seeThrough[size_t(m_model.event(id).category)];
    }
    const trace::TraceModel& m_model;
    std::bitset<trace::kCategoryCount> m_seeThrough;
    std::vector<trace::EventId> m_above;  // per event passed over: what is above it
    std::vector<bool> m_known;
};

}  // namespace kinetoscope::analysis
