#include "core/trace/string_table.h"

#include "core/trace/printable.h"

#include <algorithm>
#include <cstring>

namespace kinetoscope::trace {

namespace {
// Blocks grow from 4 KiB to 256 KiB: a small trace does not pay for a large block, a
// large one makes few allocations.
constexpr size_t kFirstBlockBytes = size_t(4) << 10;
constexpr size_t kLargestBlockBytes = size_t(256) << 10;
}  // namespace

StringTable::StringTable()
{
    m_views.emplace_back();
    m_index.emplace(std::string_view{}, 0);
}

std::string_view StringTable::store(std::string_view text)
{
    if (text.empty())
        return {};
    if (m_blocks.empty() || m_blockSize - m_blockUsed < text.size()) {
        const size_t next =
            m_blocks.empty() ? kFirstBlockBytes : std::min(m_blockSize * 2, kLargestBlockBytes);
        const size_t size = std::max(next, text.size());
        m_blocks.push_back(std::make_unique_for_overwrite<char[]>(size));
        m_blockSize = size;
        m_allocatedBytes += size;
        m_blockUsed = 0;
    }
    char* dest = m_blocks.back().get() + m_blockUsed;
    std::memcpy(dest, text.data(), text.size());
    m_blockUsed += text.size();
    return {dest, text.size()};
}

StringId StringTable::intern(std::string_view text)
{
    if (auto it = m_index.find(text); it != m_index.end())
        return StringId{it->second};
    if (!isValidUtf8(text)) {
        // Kept as its mended form; the raw bytes stay a key of the index (not a string
        // of the table) so that the next occurrence is found at once.
        const StringId mended = intern(toValidUtf8(text));
        const std::string_view raw = store(text);
        m_mendedTexts.push_back(raw);
        m_index.emplace(raw, mended.value);
        return mended;
    }
    const auto id = static_cast<uint32_t>(m_views.size());
    const std::string_view stored = store(text);
    m_views.push_back(stored);
    m_index.emplace(stored, id);
    return StringId{id};
}

std::optional<StringId> StringTable::find(std::string_view text) const
{
    if (auto it = m_index.find(text); it != m_index.end())
        return StringId{it->second};
    return std::nullopt;
}

size_t StringTable::memoryBytes() const
{
    // Hash nodes: key view + value + next pointer + cached hash, plus the bucket array.
    const size_t indexBytes = m_index.size() * (sizeof(std::string_view) + 3 * sizeof(void*)) +
                              m_index.bucket_count() * sizeof(void*);
    return m_allocatedBytes + m_views.capacity() * sizeof(std::string_view) + indexBytes;
}

}  // namespace kinetoscope::trace
