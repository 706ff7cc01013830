#include "core/trace/id_index.h"

#include <algorithm>
#include <bit>

namespace kinetoscope::trace {

namespace {
size_t capacityFor(size_t entries)
{
    return std::bit_ceil(std::max<size_t>(16, entries + entries / 3 + 1));
}
}  // namespace

IdIndex::IdIndex(size_t expected)
    : m_slots(capacityFor(expected)), m_shift(64 - std::countr_zero(m_slots.size()))
{
}

size_t IdIndex::next(size_t slot) const
{
    return (slot + 1) & (m_slots.size() - 1);  // the slot count is a power of two
}

size_t IdIndex::slotOf(int64_t id) const
{
    // Fibonacci hashing: the product's top bits depend on every bit of the id, so ids
    // that are consecutive, or that differ only in their high bits, spread alike.
    const uint64_t h = static_cast<uint64_t>(id) * 0x9E3779B97F4A7C15ull;
    return static_cast<size_t>(h >> m_shift);
}

std::pair<uint32_t*, bool> IdIndex::emplace(int64_t id, uint32_t index)
{
    if ((m_size + 1) * 4 > m_slots.size() * 3)
        grow();
    for (size_t s = slotOf(id);; s = next(s)) {
        Slot& slot = m_slots[s];
        if (slot.id == id)
            return {&slot.index, false};
        if (slot.id < 0) {
            slot = Slot{id, index};
            ++m_size;
            return {&slot.index, true};
        }
    }
}

const uint32_t* IdIndex::find(int64_t id) const
{
    if (id < 0)
        return nullptr;
    for (size_t s = slotOf(id);; s = next(s)) {
        const Slot& slot = m_slots[s];
        if (slot.id == id)
            return &slot.index;
        if (slot.id < 0)
            return nullptr;
    }
}

void IdIndex::grow()
{
    std::vector<Slot> old(m_slots.size() * 2);
    old.swap(m_slots);
    m_shift = 64 - std::countr_zero(m_slots.size());
    for (const Slot& slot : old)
        if (slot.id >= 0)
            for (size_t s = slotOf(slot.id);; s = next(s))
                if (m_slots[s].id < 0) {
                    m_slots[s] = slot;
                    break;
                }
}

}  // namespace kinetoscope::trace
