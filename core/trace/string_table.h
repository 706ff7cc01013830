#pragma once
// Interned strings: every distinct event name, category and label is stored once and
// referred to by a 32-bit StringId. Id 0 is always the empty string. Every string of the
// table is valid UTF-8: bytes that are not are replaced (U+FFFD) as they are interned.
#include "core/trace/ids.h"

#include <memory>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace kinetoscope::trace {

class StringTable
{
public:
    StringTable();
    StringTable(StringTable&&) noexcept = default;
    StringTable& operator=(StringTable&&) noexcept = default;

    StringId intern(std::string_view text);
    std::optional<StringId> find(std::string_view text) const;
    std::string_view view(StringId id) const { return m_views[id.value]; }
    size_t size() const { return m_views.size(); }
    // How many distinct interned texts were not valid UTF-8 (and were mended).
    size_t mendedCount() const { return m_mendedTexts.size(); }
    // Those texts as they were met (raw bytes, not strings of the table), in that order.
    const std::vector<std::string_view>& mendedTexts() const { return m_mendedTexts; }
    // Bytes held by the table: characters, views and the hash index (an estimate).
    size_t memoryBytes() const;

private:
    std::string_view store(std::string_view text);
    // The index's key for `text` (raw bytes for a mended text) and its id, interned if new.
    std::pair<std::string_view, StringId> internMiss(std::string_view text);

    // The texts met last, by a fingerprint of their size and three of their 8-byte
    // windows: a hit is confirmed byte for byte and skips hashing the whole text (kernel
    // names run to hundreds of bytes and repeat in every step).
    struct Recent
    {
        std::string_view text;  // as the index holds it (raw bytes for a mended text)
        uint32_t id = 0;
    };
    static constexpr size_t kRecentSlots = 1024;
    std::unique_ptr<Recent[]> m_recent;  // made at the first intern (a moved-from table too)

    // Characters live in fixed blocks that never move, so the views stay valid.
    std::vector<std::unique_ptr<char[]>> m_blocks;
    size_t m_blockUsed = 0;
    size_t m_blockSize = 0;
    size_t m_allocatedBytes = 0;
    std::vector<std::string_view> m_mendedTexts;
    std::vector<std::string_view> m_views;
    std::unordered_map<std::string_view, uint32_t> m_index;
};

}  // namespace kinetoscope::trace
