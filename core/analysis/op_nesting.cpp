#include "core/analysis/op_nesting.h"

namespace kinetoscope::analysis {

using trace::EventId;

EnclosingEvent::EnclosingEvent(const trace::TraceModel& model,
                               std::initializer_list<trace::Category> seeThrough)
    : m_model(model)
{
    for (const trace::Category c : seeThrough)
        m_seeThrough.set(size_t(c));
}

EventId EnclosingEvent::of(const trace::Event& e)
{
    const EventId parent = e.parent;
    if (!parent.valid() || !passes(parent))
        return parent;
    if (m_known.empty()) {
        m_known.assign(m_model.events().size(), false);
        m_above.assign(m_model.events().size(), EventId{});
    }
    // Up to the first event not passed over (or to one already resolved), then every event
    // passed resolves to it.
    std::vector<EventId> passed;
    EventId at = parent;
    while (at.valid() && !m_known[at.value] && passes(at)) {
        passed.push_back(at);
        at = m_model.event(at).parent;
    }
    const EventId above = at.valid() && m_known[at.value] ? m_above[at.value] : at;
    for (const EventId id : passed) {
        m_known[id.value] = true;
        m_above[id.value] = above;
    }
    return above;
}

}  // namespace kinetoscope::analysis
