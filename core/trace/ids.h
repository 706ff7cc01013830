#pragma once
// Strongly typed 32-bit indices into the columns of a TraceModel, so that a track index
// can never be passed where an event index is expected.
#include <compare>
#include <cstdint>
#include <functional>
#include <limits>

namespace kinetoscope::trace {

template <typename Tag>
struct Id
{
    static constexpr uint32_t kInvalid = std::numeric_limits<uint32_t>::max();

    uint32_t value = kInvalid;

    constexpr Id() = default;
    constexpr explicit Id(uint32_t v) : value(v) {}

    constexpr bool valid() const { return value != kInvalid; }
    constexpr explicit operator bool() const { return valid(); }
    // clang-tidy 14 misreads the defaulted <=> (its synthesised comparison with 0) as a
    // null pointer constant; there is no pointer here.
    // NOLINTNEXTLINE(modernize-use-nullptr)
    constexpr auto operator<=>(const Id&) const = default;
};

using StringId = Id<struct StringTag>;
using TrackId = Id<struct TrackTag>;
using EventId = Id<struct EventTag>;

}  // namespace kinetoscope::trace

// A specialisation of std::hash for a type of the project's own, which the standard permits.
template <typename Tag>
struct std::hash<kinetoscope::trace::Id<Tag>>  // NOLINT(bugprone-std-namespace-modification)
{
    size_t operator()(kinetoscope::trace::Id<Tag> id) const noexcept { return id.value; }
};
