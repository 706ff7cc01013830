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

namespace {

uint64_t load64(const char* p)
{
    uint64_t v = 0;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// Which Recent slot a text goes to: its size and its first, middle and last 8 bytes (or
// its bytes, when shorter), mixed.
size_t recentSlot(std::string_view text, size_t slots)
{
    uint64_t h = text.size() * 0x9E3779B97F4A7C15ull;
    if (text.size() >= 8) {
        h ^= load64(text.data());
        h = (h ^ (h >> 29)) * 0xBF58476D1CE4E5B9ull;
        h ^= load64(text.data() + (text.size() - 8) / 2);
        h = (h ^ (h >> 29)) * 0xBF58476D1CE4E5B9ull;
        h ^= load64(text.data() + text.size() - 8);
    } else {
        for (char c : text)
            h = (h ^ static_cast<unsigned char>(c)) * 0x100000001B3ull;
    }
    h = (h ^ (h >> 32)) * 0x94D049BB133111EBull;
    return size_t(h >> 32) & (slots - 1);
}

}  // namespace

StringId StringTable::intern(std::string_view text)
{
    if (text.empty())
        return StringId{0};
    if (!m_recent)
        m_recent = std::make_unique<Recent[]>(kRecentSlots);
    Recent& recent = m_recent[recentSlot(text, kRecentSlots)];
    if (recent.text.size() == text.size() &&
        std::memcmp(recent.text.data(), text.data(), text.size()) == 0)
        return StringId{recent.id};
    const auto [key, id] = internMiss(text);
    recent = {key, id.value};
    return id;
}

std::pair<std::string_view, StringId> StringTable::internMiss(std::string_view text)
{
    if (auto it = m_index.find(text); it != m_index.end())
        return {it->first, StringId{it->second}};
    if (!isValidUtf8(text)) {
        // Kept as its mended form; the raw bytes stay a key of the index (not a string
        // of the table) so that the next occurrence is found at once.
        const StringId mended = internMiss(toValidUtf8(text)).second;
        const std::string_view raw = store(text);
        m_mendedTexts.push_back(raw);
        m_index.emplace(raw, mended.value);
        return {raw, mended};
    }
    const auto id = static_cast<uint32_t>(m_views.size());
    const std::string_view stored = store(text);
    m_views.push_back(stored);
    m_index.emplace(stored, id);
    return {stored, StringId{id}};
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
    return m_allocatedBytes + m_views.capacity() * sizeof(std::string_view) + indexBytes +
           (m_recent ? kRecentSlots * sizeof(Recent) : 0);
}

}  // namespace kinetoscope::trace
