#pragma once
// A reader of the data subset of Python's pickle format (protocols 2 to 5) that CUDA
// allocator snapshots use: dicts, lists, tuples, strings, bytes, ints, floats, bools and
// None. A pickle is untrusted input: an opcode that would name, import or call Python
// code (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ, PERSID, EXT*) ends the
// read with a one-line reason; nothing is executed or emulated.
//
// Values live in one arena: containers and strings are referred to by index, so the memo
// (BINPUT/BINGET, MEMOIZE) shares them instead of copying, cycles are harmless, and
// freeing a file of millions of values never recurses.
//
// At any size: a first pass finds which memo entries are ever fetched, and only those are
// kept (a pickler memoises every container; most are never referenced again). A sink may
// take each dict as it is appended to a list (a snapshot's trace entries) and turn it
// into its own rows: the dict, and whatever in it no memo entry shares, is released and
// its slots reused, so the arena holds a few batches of entries rather than the file.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kinetoscope::snapshot {

struct PickleValue
{
    enum class Kind : uint8_t
    {
        None,
        Bool,
        Int,
        Float,
        String,
        List,
        Dict
    };
    Kind kind = Kind::None;
    union {
        bool boolean;
        int64_t integer;
        double real;
        uint32_t index;  // String, List (tuples too), Dict: into the arena
    };
    PickleValue() : integer(0) {}
};

struct PickleArena
{
    std::vector<std::string> strings;  // str and bytes alike
    std::vector<std::vector<PickleValue>> lists;
    std::vector<std::vector<std::pair<PickleValue, PickleValue>>> dicts;
    // Per slot: the references to it not yet taken (PickleSink): 1 where it was built, and
    // one per later fetch from the memo; kManyRefs: too many to count, never released.
    // A slot whose count falls to 0 is released and reused (PickleSink::released says so).
    static constexpr uint8_t kManyRefs = 255;
    std::vector<uint8_t> stringRefs, listRefs, dictRefs;

    uint8_t refs(const PickleValue& v) const;  // 0 for what is no string or container
    bool shared(const PickleValue& v) const { return refs(v) > 1; }

    std::string_view text(const PickleValue& v) const;  // "" unless a string
    const std::vector<PickleValue>*
    list(const PickleValue& v) const;  // null unless a list or tuple
    const std::vector<std::pair<PickleValue, PickleValue>>*
    dict(const PickleValue& v) const;  // null unless a dict
    // The value under a string key of a dict; null when absent or `v` is no dict.
    const PickleValue* get(const PickleValue& v, std::string_view key) const;
};

struct PickleResult
{
    PickleArena arena;
    PickleValue root;
    std::string error;  // empty on success: one line, no trailing newline
    bool ok() const { return error.empty(); }
};

// Takes dicts as they are appended to lists, while the pickle is read.
class PickleSink
{
public:
    virtual ~PickleSink() = default;
    // `dict` is complete and shared by no memo entry, about to be appended to the list in
    // slot `list`. True: the sink has what it needs; the dict is not appended, and it and
    // the values only it holds are released.
    virtual bool take(const PickleArena& arena, const PickleValue& dict, uint32_t list) = 0;
    // Before the second pass: how many dicts the pickle builds (an upper bound on what
    // take() will see, for capacity that is reserved, not written).
    virtual void expect(size_t /*dicts*/) {}
    // A container's slot was released (its index will be reused): forget what was
    // remembered by that index.
    virtual void released(const PickleValue& /*value*/) {}
};

struct PickleReadOptions
{
    PickleSink* sink = nullptr;
    // Called with the bytes read so far every few MiB of each pass, and with 0 as the
    // second starts, so that a caller can let go of what is behind.
    std::function<void(size_t)> progress;
};

// True when `bytes` starts as a pickle of protocol 2 or later (PROTO, then the version).
bool looksLikePickle(std::string_view bytes);

PickleResult readPickle(std::string_view bytes, const PickleReadOptions& options = {});

}  // namespace kinetoscope::snapshot
