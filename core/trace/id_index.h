#pragma once
// Event indices by a non-negative 64-bit id (a correlation id, an External id), for the
// links the finish makes between millions of events: open addressing in one array
// (linear probing, at most 3/4 full), where std::unordered_map allocates a node per
// entry and chases a pointer per lookup.
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace kinetoscope::trace {

class IdIndex
{
public:
    // Room for `expected` ids before the first growth.
    explicit IdIndex(size_t expected = 0);

    // The index stored for `id` (>= 0), after storing `index` there if `id` had none; the
    // bool says whether it was stored. The pointer stays valid until the next insertion.
    std::pair<uint32_t*, bool> emplace(int64_t id, uint32_t index);
    // The index stored for `id`, or null.
    const uint32_t* find(int64_t id) const;
    size_t size() const { return m_size; }

private:
    struct Slot
    {
        int64_t id = -1;  // -1: empty
        uint32_t index = 0;
    };
    size_t slotOf(int64_t id) const;
    size_t next(size_t slot) const;  // the slot probed after `slot`
    void grow();

    std::vector<Slot> m_slots;
    int m_shift = 0;  // 64 - log2 of the slot count: a hash's top bits pick the slot
    size_t m_size = 0;
};

}  // namespace kinetoscope::trace
