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
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kinetoscope::snapshot {

struct PickleValue
{
    enum class Kind : uint8_t { None, Bool, Int, Float, String, List, Dict };
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

    std::string_view text(const PickleValue& v) const;  // "" unless a string
    const std::vector<PickleValue>* list(const PickleValue& v) const;  // null unless a list or tuple
    const std::vector<std::pair<PickleValue, PickleValue>>* dict(const PickleValue& v) const;  // null unless a dict
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

// True when `bytes` starts as a pickle of protocol 2 or later (PROTO, then the version).
bool looksLikePickle(std::string_view bytes);

PickleResult readPickle(std::string_view bytes);

}  // namespace kinetoscope::snapshot
