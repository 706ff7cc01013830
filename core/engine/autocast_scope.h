#pragma once
// bf16 autocast on a device for the life of the scope (the forward pass and the loss, or
// a checkpointed block's recomputation in backward). Engine-internal.
#include <ATen/autocast_mode.h>
#include <c10/core/Device.h>

namespace kinetoscope::engine::detail {

class AutocastScope
{
public:
    AutocastScope(bool enabled, c10::DeviceType type) : m_enabled(enabled), m_type(type)
    {
        if (!m_enabled)
            return;
        m_previous = at::autocast::is_autocast_enabled(m_type);
        at::autocast::set_autocast_enabled(m_type, true);
        at::autocast::set_autocast_dtype(m_type, at::kBFloat16);
        at::autocast::increment_nesting();
    }
    ~AutocastScope()
    {
        if (!m_enabled)
            return;
        if (at::autocast::decrement_nesting() == 0)
            at::autocast::clear_cache();
        at::autocast::set_autocast_enabled(m_type, m_previous);
    }
    AutocastScope(const AutocastScope&) = delete;
    AutocastScope& operator=(const AutocastScope&) = delete;

private:
    bool m_enabled;
    c10::DeviceType m_type;
    bool m_previous = false;
};

}  // namespace kinetoscope::engine::detail
