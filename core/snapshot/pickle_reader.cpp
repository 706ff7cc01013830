#include "core/snapshot/pickle_reader.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <optional>

namespace kinetoscope::snapshot {

namespace {

// Opcodes that name or call Python code: refused by name.
const char* codeOpcodeName(uint8_t op)
{
    switch (op) {
    case 'c':
        return "GLOBAL";
    case 0x93:
        return "STACK_GLOBAL";
    case 'R':
        return "REDUCE";
    case 'b':
        return "BUILD";
    case 'i':
        return "INST";
    case 'o':
        return "OBJ";
    case 0x81:
        return "NEWOBJ";
    case 0x92:
        return "NEWOBJ_EX";
    case 'P':
        return "PERSID";
    case 'Q':
        return "BINPERSID";
    case 0x82:
        return "EXT1";
    case 0x83:
        return "EXT2";
    case 0x84:
        return "EXT4";
    default:
        return nullptr;
    }
}

// Which memo entries later GETs fetch, and how often: the second pass keeps only those,
// in a dense table (an entry's place in it is its rank among the fetched), and counts a
// value's references from them.
// Bits set in a word, without a call into the compiler's runtime (the build does not assume
// a POPCNT instruction).
constexpr uint32_t bitsSet(uint64_t w)
{
    w = w - ((w >> 1) & 0x5555555555555555ull);
    w = (w & 0x3333333333333333ull) + ((w >> 2) & 0x3333333333333333ull);
    w = (w + (w >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return uint32_t((w * 0x0101010101010101ull) >> 56);
}
static_assert(bitsSet(0) == 0 && bitsSet(~0ull) == 64 && bitsSet(0x8000000000000001ull) == 2);

class MemoPlan
{
public:
    static constexpr uint8_t kMany = 255;  // fetched this often or more: kept to the end

    void fetch(uint64_t id)
    {
        if (id >= m_fetches.size())
            m_fetches.resize(std::max<size_t>(size_t(id) + 1, m_fetches.size() * 2));
        if (m_fetches[id] < kMany)
            ++m_fetches[id];
    }
    void finish()  // after the first pass: the ranks
    {
        m_words.assign((m_fetches.size() + 63) / 64, 0);
        for (size_t id = 0; id < m_fetches.size(); ++id)
            if (m_fetches[id])
                m_words[id / 64] |= uint64_t(1) << (id % 64);
        m_rankBefore.resize(m_words.size());
        uint32_t rank = 0;
        for (size_t w = 0; w < m_words.size(); ++w) {
            m_rankBefore[w] = rank;
            rank += bitsSet(m_words[w]);
        }
        m_fetched = rank;
    }
    bool fetched(uint64_t id) const { return id < m_fetches.size() && m_fetches[id] > 0; }
    size_t fetchedCount() const { return m_fetched; }
    uint32_t slot(uint64_t id) const  // for a fetched id
    {
        const uint64_t below = m_words[id / 64] & ((uint64_t(1) << (id % 64)) - 1);
        return m_rankBefore[id / 64] + bitsSet(below);
    }
    uint8_t fetches(uint64_t id) const { return id < m_fetches.size() ? m_fetches[id] : 0; }

private:
    std::vector<uint8_t> m_fetches;  // per memo entry: its fetches (kMany: many)
    std::vector<uint64_t> m_words;   // fetched at all, one bit per memo entry
    std::vector<uint32_t> m_rankBefore;
    size_t m_fetched = 0;
};

struct FirstPass
{
    MemoPlan memo;
    size_t dicts = 0;  // dicts the pickle builds
};

// The first pass walks the opcodes without building anything, and stops quietly where
// the second pass will report a problem.
FirstPass firstPass(std::string_view bytes, const std::function<void(size_t)>& progress)
{
    constexpr size_t kProgressBytes = size_t(8) << 20;
    FirstPass result;
    size_t nextProgress = kProgressBytes;
    size_t memoSeen = 0;  // memo entries stored so far: a fetch beyond them is malformed
    size_t pos = 0;
    auto has = [&](size_t n) { return bytes.size() - pos >= n; };
    auto little = [&](size_t n) {
        uint64_t v = 0;
        for (size_t k = 0; k < n; ++k)
            v |= uint64_t(uint8_t(bytes[pos + k])) << (8 * k);
        pos += n;
        return v;
    };
    auto skipSized = [&](size_t lengthBytes) {  // a length, then that many bytes
        if (!has(lengthBytes))
            return false;
        const uint64_t n = little(lengthBytes);
        if (!has(n))
            return false;
        pos += n;
        return true;
    };
    auto fetch = [&](uint64_t id) {
        if (id < memoSeen)  // else malformed: the second pass says so
            result.memo.fetch(id);
    };
    while (pos < bytes.size()) {
        if (progress && pos >= nextProgress) {
            progress(pos);
            nextProgress = pos + kProgressBytes;
        }
        const uint8_t op = uint8_t(bytes[pos++]);
        size_t fixed = 0;
        switch (op) {
        case '.':
            return result;
        case '}':
        case 'd':
            ++result.dicts;
            continue;
        case ']':
        case ')':
        case '(':
        case 'N':
        case 0x88:
        case 0x89:
        case '0':
        case '2':
        case '1':
        case 0x85:
        case 0x86:
        case 0x87:
        case 't':
        case 'l':
        case 'a':
        case 'e':
        case 's':
        case 'u':
            continue;
        case 0x94:
            ++memoSeen;
            continue;  // MEMOIZE
        case 0x80:
        case 'K':
            fixed = 1;
            break;
        case 'M':
            fixed = 2;
            break;
        case 'J':
            fixed = 4;
            break;
        case 0x95:
        case 'G':
            fixed = 8;
            break;
        case 0x8a:
        case 0x8c:
        case 'U':
        case 'C':
            if (!skipSized(1))
                return result;
            continue;
        case 0x8b:
        case 'X':
        case 'T':
        case 'B':
            if (!skipSized(4))
                return result;
            continue;
        case 0x8d:
        case 0x8e:
            if (!skipSized(8))
                return result;
            continue;
        case 'q':
        case 'r': {  // BINPUT, LONG_BINPUT
            const size_t n = op == 'q' ? 1 : 4;
            if (!has(n))
                return result;
            // Stored in order, as the second pass requires: a larger index ends the scan
            // there (and would otherwise let a few bytes reserve gigabytes).
            const uint64_t id = little(n);
            if (id > memoSeen)
                return result;
            memoSeen = std::max<size_t>(memoSeen, size_t(id) + 1);
            continue;
        }
        case 'h':
        case 'j': {  // BINGET, LONG_BINGET
            const size_t n = op == 'h' ? 1 : 4;
            if (!has(n))
                return result;
            fetch(little(n));
            continue;
        }
        default:
            return result;  // the second pass says what is wrong
        }
        if (!has(fixed))
            return result;
        pos += fixed;
    }
    return result;
}

class Reader
{
public:
    Reader(std::string_view bytes, PickleResult& out, const PickleReadOptions& options,
           MemoPlan plan)
        : m_bytes(bytes), m_out(out), m_options(options), m_plan(std::move(plan)),
          m_memo(m_plan.fetchedCount())
    {
    }

    void run()
    {
        while (m_error.empty()) {
            if (m_pos >= m_bytes.size()) {
                fail("the pickle ends before its STOP opcode (truncated)");
                break;
            }
            const size_t at = m_pos;
            if (m_options.progress && at >= m_nextProgress) {
                m_options.progress(at);
                m_nextProgress = at + kProgressBytes;
            }
            const uint8_t op = uint8_t(m_bytes[m_pos++]);
            if (op == '.') {  // STOP
                if (m_stack.empty())
                    failAt(at, "STOP with nothing on the stack");
                else
                    m_out.root = m_stack.back();
                break;
            }
            step(op, at);
        }
        m_out.error = m_error;
    }

private:
    void fail(const std::string& why)
    {
        if (m_error.empty())
            m_error = why;
    }
    void failAt(size_t at, const std::string& why)
    {
        fail(why + " (at byte " + std::to_string(at) + ")");
    }

    bool need(size_t n)
    {
        if (m_bytes.size() - m_pos < n) {
            fail("the pickle ends inside a value (truncated)");
            return false;
        }
        return true;
    }
    uint64_t little(size_t n)  // n <= 8 bytes, little-endian, unsigned
    {
        uint64_t v = 0;
        for (size_t k = 0; k < n; ++k)
            v |= uint64_t(uint8_t(m_bytes[m_pos + k])) << (8 * k);
        m_pos += n;
        return v;
    }

    void push(PickleValue v) { m_stack.push_back(v); }
    bool pop(PickleValue& v, size_t at)
    {
        if (m_stack.size() <= floor()) {
            failAt(at, "an opcode takes a value from an empty stack");
            return false;
        }
        v = m_stack.back();
        m_stack.pop_back();
        return true;
    }
    size_t floor() const { return m_marks.empty() ? 0 : m_marks.back(); }
    // The values pushed since the last MARK, which is removed.
    bool popMark(size_t& from, size_t at)
    {
        if (m_marks.empty()) {
            failAt(at, "an opcode needs a MARK that was never set");
            return false;
        }
        from = m_marks.back();
        m_marks.pop_back();
        return true;
    }

    // New slots come from what was released first (PickleSink), then from the end.
    template <typename Slots>
    static uint32_t slot(Slots& slots, std::vector<uint8_t>& refs, std::vector<uint32_t>& released)
    {
        if (!released.empty()) {
            const uint32_t index = released.back();
            released.pop_back();
            refs[index] = 1;
            return index;
        }
        slots.emplace_back();
        refs.push_back(1);
        return uint32_t(slots.size() - 1);
    }
    PickleValue string(std::string_view text)
    {
        PickleArena& a = m_out.arena;
        PickleValue v;
        v.kind = PickleValue::Kind::String;
        v.index = slot(a.strings, a.stringRefs, m_releasedStrings);
        a.strings[v.index].assign(text);
        return v;
    }
    PickleValue newList(std::vector<PickleValue> items = {})
    {
        PickleArena& a = m_out.arena;
        PickleValue v;
        v.kind = PickleValue::Kind::List;
        v.index = slot(a.lists, a.listRefs, m_releasedLists);
        a.lists[v.index] = std::move(items);
        return v;
    }
    PickleValue newDict()
    {
        PickleArena& a = m_out.arena;
        PickleValue v;
        v.kind = PickleValue::Kind::Dict;
        v.index = slot(a.dicts, a.dictRefs, m_releasedDicts);
        return v;
    }
    uint8_t* refsOf(const PickleValue& v)
    {
        PickleArena& a = m_out.arena;
        switch (v.kind) {
        case PickleValue::Kind::String:
            return &a.stringRefs[v.index];
        case PickleValue::Kind::List:
            return &a.listRefs[v.index];
        case PickleValue::Kind::Dict:
            return &a.dictRefs[v.index];
        default:
            return nullptr;
        }
    }
    // Drops the reference the sink took; a value left without any is released for reuse,
    // and drops its own references in turn (without recursion).
    void release(const PickleValue& taken)
    {
        PickleArena& a = m_out.arena;
        std::vector<PickleValue> pending{taken};
        while (!pending.empty()) {
            const PickleValue v = pending.back();
            pending.pop_back();
            uint8_t* refs = refsOf(v);
            if (!refs || *refs == PickleArena::kManyRefs || *refs == 0)
                continue;
            --*refs;
            if (*refs > 0)
                continue;
            // Cleared, not freed: the slot's next value reuses its capacity.
            switch (v.kind) {
            case PickleValue::Kind::String:
                a.strings[v.index].clear();
                m_releasedStrings.push_back(v.index);
                break;
            case PickleValue::Kind::List:
                pending.insert(pending.end(), a.lists[v.index].begin(), a.lists[v.index].end());
                a.lists[v.index].clear();
                m_releasedLists.push_back(v.index);
                break;
            default:
                for (const auto& [key, value] : a.dicts[v.index]) {
                    pending.push_back(key);
                    pending.push_back(value);
                }
                a.dicts[v.index].clear();
                m_releasedDicts.push_back(v.index);
                break;
            }
            if (m_options.sink)
                m_options.sink->released(v);
        }
    }
    // Appends to the list in slot `list`, unless the sink takes the item.
    void append(uint32_t list, const PickleValue& item)
    {
        if (m_options.sink && item.kind == PickleValue::Kind::Dict && !m_out.arena.shared(item) &&
            m_options.sink->take(m_out.arena, item, list)) {
            release(item);
            return;
        }
        m_out.arena.lists[list].push_back(item);
    }
    static PickleValue integer(int64_t i)
    {
        PickleValue v;
        v.kind = PickleValue::Kind::Int;
        v.integer = i;
        return v;
    }

    // str and bytes alike: kept as their bytes.
    void readString(size_t lengthBytes, size_t at)
    {
        if (!need(lengthBytes))
            return;
        const uint64_t n = little(lengthBytes);
        if (!need(n)) {
            failAt(at, "a string runs past the end of the file (truncated)");
            return;
        }
        push(string(m_bytes.substr(m_pos, n)));
        m_pos += n;
    }

    void readLong(size_t lengthBytes, size_t at)
    {
        if (!need(lengthBytes))
            return;
        const uint64_t n = little(lengthBytes);
        if (!need(n))
            return;
        // Two's complement, little-endian; wider than 8 bytes only as sign extension.
        const std::string_view digits = m_bytes.substr(m_pos, n);
        m_pos += n;
        if (n == 0) {
            push(integer(0));
            return;
        }
        const bool negative = uint8_t(digits.back()) & 0x80;
        for (size_t k = 8; k < n; ++k)
            if (uint8_t(digits[k]) != (negative ? 0xFF : 0x00)) {
                failAt(at, "an integer wider than 64 bits");
                return;
            }
        uint64_t v = 0;
        const size_t used = n < 8 ? n : 8;
        for (size_t k = 0; k < used; ++k)
            v |= uint64_t(uint8_t(digits[k])) << (8 * k);
        if (negative && used < 8)
            v |= ~uint64_t(0) << (8 * used);
        push(integer(int64_t(v)));
    }

    void memoPut(uint64_t index, size_t at)
    {
        if (m_stack.size() <= floor()) {
            failAt(at, "a memo store with nothing on the stack");
            return;
        }
        // Picklers number the memo in order: an index past the next one is malformed.
        if (index > m_memoCount) {
            failAt(at, "a memo index out of order");
            return;
        }
        if (index == m_memoCount)
            ++m_memoCount;
        if (m_plan.fetched(index)) {  // fetched later: kept, a reference per fetch
            const PickleValue& v = m_stack.back();
            m_memo[m_plan.slot(index)] = v;
            if (uint8_t* refs = refsOf(v))
                *refs = uint8_t(
                    std::min<unsigned>(PickleArena::kManyRefs, *refs + m_plan.fetches(index)));
        }
    }
    void memoGet(uint64_t index, size_t at)
    {
        if (index >= m_memoCount || !m_plan.fetched(index)) {
            failAt(at, "a memo reference to nothing stored");
            return;
        }
        push(m_memo[m_plan.slot(index)]);
    }

    // The slot of the list at stack position `position` (1-based), or none.
    std::optional<uint32_t> listAt(size_t position, size_t at)
    {
        if (position == 0 || position > m_stack.size() ||
            m_stack[position - 1].kind != PickleValue::Kind::List) {
            failAt(at, "APPEND onto something that is not a list");
            return std::nullopt;
        }
        return m_stack[position - 1].index;
    }
    std::vector<std::pair<PickleValue, PickleValue>>* dictAt(size_t position, size_t at)
    {
        if (position == 0 || position > m_stack.size() ||
            m_stack[position - 1].kind != PickleValue::Kind::Dict) {
            failAt(at, "SETITEM onto something that is not a dict");
            return nullptr;
        }
        return &m_out.arena.dicts[m_stack[position - 1].index];
    }

    void step(uint8_t op, size_t at)
    {
        if (const char* code = codeOpcodeName(op)) {
            failAt(at, std::string("opcode ") + code +
                           " names or calls Python code; a memory snapshot holds only data, so it "
                           "is refused");
            return;
        }
        PickleValue a, b;
        switch (op) {
        case 0x80:  // PROTO
            if (need(1) && uint8_t(m_bytes[m_pos++]) > 5)
                failAt(at, "pickle protocol above 5");
            return;
        case 0x95:  // FRAME: a length prefix only
            if (need(8))
                m_pos += 8;
            return;
        case '}':
            push(newDict());
            return;
        case ']':  // EMPTY_LIST
        case ')':  // EMPTY_TUPLE: read as a list
            push(newList());
            return;
        case '(':
            m_marks.push_back(m_stack.size());
            return;
        case 'N':
            push(PickleValue());
            return;
        case 0x88:
        case 0x89: {  // NEWTRUE, NEWFALSE
            PickleValue v;
            v.kind = PickleValue::Kind::Bool;
            v.boolean = op == 0x88;
            push(v);
            return;
        }
        case 'J':  // BININT
            if (need(4))
                push(integer(int32_t(uint32_t(little(4)))));
            return;
        case 'K':
            if (need(1))
                push(integer(int64_t(little(1))));
            return;
        case 'M':
            if (need(2))
                push(integer(int64_t(little(2))));
            return;
        case 0x8a:
            readLong(1, at);
            return;  // LONG1
        case 0x8b:
            readLong(4, at);
            return;  // LONG4
        case 'G': {  // BINFLOAT, big-endian
            if (!need(8))
                return;
            uint64_t bits = 0;
            for (size_t k = 0; k < 8; ++k)
                bits = (bits << 8) | uint8_t(m_bytes[m_pos + k]);
            m_pos += 8;
            PickleValue v;
            v.kind = PickleValue::Kind::Float;
            v.real = std::bit_cast<double>(bits);
            push(v);
            return;
        }
        case 0x8c:
            readString(1, at);
            return;  // SHORT_BINUNICODE
        case 'X':
            readString(4, at);
            return;  // BINUNICODE
        case 0x8d:
            readString(8, at);
            return;  // BINUNICODE8
        case 'U':
            readString(1, at);
            return;  // SHORT_BINSTRING
        case 'T':
            readString(4, at);
            return;  // BINSTRING
        case 'C':
            readString(1, at);
            return;  // SHORT_BINBYTES
        case 'B':
            readString(4, at);
            return;  // BINBYTES
        case 0x8e:
            readString(8, at);
            return;  // BINBYTES8
        case 0x94:   // MEMOIZE
            memoPut(m_memoCount, at);
            return;
        case 'q':
            if (need(1))
                memoPut(little(1), at);
            return;
        case 'r':
            if (need(4))
                memoPut(little(4), at);
            return;
        case 'h':
            if (need(1))
                memoGet(little(1), at);
            return;
        case 'j':
            if (need(4))
                memoGet(little(4), at);
            return;
        case '0':
            pop(a, at);
            return;  // POP
        case '2':    // DUP
            if (m_stack.size() > floor())
                push(m_stack.back());
            else
                failAt(at, "DUP of an empty stack");
            return;
        case '1': {  // POP_MARK
            size_t from = 0;
            if (popMark(from, at))
                m_stack.resize(from);
            return;
        }
        case 0x85:
        case 0x86:
        case 0x87: {  // TUPLE1..3
            const size_t n = size_t(op - 0x84);
            if (m_stack.size() < floor() + n) {
                failAt(at, "a tuple of more values than the stack holds");
                return;
            }
            std::vector<PickleValue> items(m_stack.end() - std::ptrdiff_t(n), m_stack.end());
            m_stack.resize(m_stack.size() - n);
            push(newList(std::move(items)));
            return;
        }
        case 't':
        case 'l': {  // TUPLE, LIST: the values since the MARK
            size_t from = 0;
            if (!popMark(from, at))
                return;
            std::vector<PickleValue> items(m_stack.begin() + std::ptrdiff_t(from), m_stack.end());
            m_stack.resize(from);
            push(newList(std::move(items)));
            return;
        }
        case 'd': {  // DICT
            size_t from = 0;
            if (!popMark(from, at))
                return;
            if ((m_stack.size() - from) % 2) {
                failAt(at, "a dict with a key and no value");
                return;
            }
            const PickleValue d = newDict();
            auto& entries = m_out.arena.dicts[d.index];
            for (size_t k = from; k + 1 < m_stack.size(); k += 2)
                entries.emplace_back(m_stack[k], m_stack[k + 1]);
            m_stack.resize(from);
            push(d);
            return;
        }
        case 'a':  // APPEND
            if (pop(a, at))
                if (const std::optional<uint32_t> list = listAt(m_stack.size(), at))
                    append(*list, a);
            return;
        case 'e': {  // APPENDS
            size_t from = 0;
            if (!popMark(from, at))
                return;
            if (const std::optional<uint32_t> list = listAt(from, at))
                for (size_t k = from; k < m_stack.size(); ++k)
                    append(*list, m_stack[k]);
            m_stack.resize(from);
            return;
        }
        case 's':  // SETITEM
            if (pop(b, at) && pop(a, at))
                if (auto* dict = dictAt(m_stack.size(), at))
                    dict->emplace_back(a, b);
            return;
        case 'u': {  // SETITEMS
            size_t from = 0;
            if (!popMark(from, at))
                return;
            if ((m_stack.size() - from) % 2) {
                failAt(at, "SETITEMS with a key and no value");
                return;
            }
            if (auto* dict = dictAt(from, at))
                for (size_t k = from; k + 1 < m_stack.size(); k += 2)
                    dict->emplace_back(m_stack[k], m_stack[k + 1]);
            m_stack.resize(from);
            return;
        }
        default: {
            char hex[8];
            std::snprintf(hex, sizeof hex, "0x%02x", op);
            failAt(at, std::string("opcode ") + hex + " is not one a memory snapshot uses");
            return;
        }
        }
    }

    static constexpr size_t kProgressBytes = size_t(8) << 20;

    std::string_view m_bytes;
    PickleResult& m_out;
    const PickleReadOptions& m_options;
    MemoPlan m_plan;
    size_t m_pos = 0;
    size_t m_nextProgress = 0;
    std::vector<PickleValue> m_stack;
    std::vector<size_t> m_marks;
    std::vector<PickleValue> m_memo;  // only the entries fetched later, at MemoPlan::slot
    uint64_t m_memoCount = 0;
    std::vector<uint32_t> m_releasedStrings, m_releasedLists, m_releasedDicts;
    std::string m_error;
};

}  // namespace

uint8_t PickleArena::refs(const PickleValue& v) const
{
    switch (v.kind) {
    case PickleValue::Kind::String:
        return stringRefs[v.index];
    case PickleValue::Kind::List:
        return listRefs[v.index];
    case PickleValue::Kind::Dict:
        return dictRefs[v.index];
    default:
        return 0;
    }
}

std::string_view PickleArena::text(const PickleValue& v) const
{
    return v.kind == PickleValue::Kind::String ? std::string_view(strings[v.index])
                                               : std::string_view();
}

const std::vector<PickleValue>* PickleArena::list(const PickleValue& v) const
{
    return v.kind == PickleValue::Kind::List ? &lists[v.index] : nullptr;
}

const std::vector<std::pair<PickleValue, PickleValue>>*
PickleArena::dict(const PickleValue& v) const
{
    return v.kind == PickleValue::Kind::Dict ? &dicts[v.index] : nullptr;
}

const PickleValue* PickleArena::get(const PickleValue& v, std::string_view key) const
{
    if (const auto* entries = dict(v))
        for (const auto& [k, value] : *entries)
            if (k.kind == PickleValue::Kind::String && strings[k.index] == key)
                return &value;
    return nullptr;
}

bool looksLikePickle(std::string_view bytes)
{
    return bytes.size() >= 2 && uint8_t(bytes[0]) == 0x80 && uint8_t(bytes[1]) >= 2 &&
           uint8_t(bytes[1]) <= 5;
}

PickleResult readPickle(std::string_view bytes, const PickleReadOptions& options)
{
    PickleResult result;
    if (!looksLikePickle(bytes)) {
        result.error =
            "not a pickle of protocol 2 or later (it does not start with the PROTO opcode)";
        return result;
    }
    FirstPass first = firstPass(bytes, options.progress);
    first.memo.finish();
    if (options.progress)
        options.progress(0);
    if (options.sink)
        options.sink->expect(first.dicts);
    Reader(bytes, result, options, std::move(first.memo)).run();
    return result;
}

}  // namespace kinetoscope::snapshot
