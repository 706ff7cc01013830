#pragma once
// A predicate or classification of event names, computed once per interned name: names
// repeat millions of times in a trace, and string tests on each event cost more than the
// rest of a pass over it.
#include "core/trace/trace_model.h"

#include <vector>

namespace kinetoscope::trace {

template <typename Value, typename Compute>
class PerName
{
public:
    PerName(const TraceModel& model, Compute compute)
        : m_model(model), m_compute(std::move(compute)), m_known(model.strings().size(), false),
          m_values(model.strings().size())
    {
    }

    Value operator()(StringId name)
    {
        if (!name.valid() || name.value >= m_known.size())
            return m_compute(name.valid() ? m_model.text(name) : std::string_view());
        if (!m_known[name.value]) {
            m_values[name.value] = m_compute(m_model.text(name));
            m_known[name.value] = true;
        }
        return m_values[name.value];
    }

private:
    const TraceModel& m_model;
    Compute m_compute;
    std::vector<bool> m_known;
    std::vector<Value> m_values;
};

template <typename Value, typename Compute>
PerName<Value, Compute> perName(const TraceModel& model, Compute compute)
{
    return PerName<Value, Compute>(model, std::move(compute));
}

}  // namespace kinetoscope::trace
