#include "core/snapshot/pickle_reader.h"

#include <bit>
#include <cstddef>
#include <cstdio>
#include <cstring>

namespace kinetoscope::snapshot {

namespace {

// Opcodes that name or call Python code: refused by name.
const char* codeOpcodeName(uint8_t op)
{
    switch (op) {
    case 'c': return "GLOBAL";
    case 0x93: return "STACK_GLOBAL";
    case 'R': return "REDUCE";
    case 'b': return "BUILD";
    case 'i': return "INST";
    case 'o': return "OBJ";
    case 0x81: return "NEWOBJ";
    case 0x92: return "NEWOBJ_EX";
    case 'P': return "PERSID";
    case 'Q': return "BINPERSID";
    case 0x82: return "EXT1";
    case 0x83: return "EXT2";
    case 0x84: return "EXT4";
    default: return nullptr;
    }
}

class Reader
{
public:
    explicit Reader(std::string_view bytes, PickleResult& out) : m_bytes(bytes), m_out(out) {}

    void run()
    {
        while (m_error.empty()) {
            if (m_pos >= m_bytes.size()) {
                fail("the pickle ends before its STOP opcode (truncated)");
                break;
            }
            const size_t at = m_pos;
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
    void failAt(size_t at, const std::string& why) { fail(why + " (at byte " + std::to_string(at) + ")"); }

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

    PickleValue string(std::string_view text)
    {
        PickleValue v;
        v.kind = PickleValue::Kind::String;
        v.index = uint32_t(m_out.arena.strings.size());
        m_out.arena.strings.emplace_back(text);
        return v;
    }
    PickleValue newList(std::vector<PickleValue> items = {})
    {
        PickleValue v;
        v.kind = PickleValue::Kind::List;
        v.index = uint32_t(m_out.arena.lists.size());
        m_out.arena.lists.push_back(std::move(items));
        return v;
    }
    PickleValue newDict()
    {
        PickleValue v;
        v.kind = PickleValue::Kind::Dict;
        v.index = uint32_t(m_out.arena.dicts.size());
        m_out.arena.dicts.emplace_back();
        return v;
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
        // Picklers number the memo in order: an index past the next one is malformed
        // (and would otherwise let a few bytes ask for gigabytes).
        if (index > m_memo.size()) {
            failAt(at, "a memo index out of order");
            return;
        }
        if (index == m_memo.size())
            m_memo.push_back(m_stack.back());
        else
            m_memo[index] = m_stack.back();
    }
    void memoGet(uint64_t index, size_t at)
    {
        if (index >= m_memo.size()) {
            failAt(at, "a memo reference to nothing stored");
            return;
        }
        push(m_memo[index]);
    }

    std::vector<PickleValue>* listAt(size_t position, size_t at)
    {
        if (position == 0 || position > m_stack.size() || m_stack[position - 1].kind != PickleValue::Kind::List) {
            failAt(at, "APPEND onto something that is not a list");
            return nullptr;
        }
        return &m_out.arena.lists[m_stack[position - 1].index];
    }
    std::vector<std::pair<PickleValue, PickleValue>>* dictAt(size_t position, size_t at)
    {
        if (position == 0 || position > m_stack.size() || m_stack[position - 1].kind != PickleValue::Kind::Dict) {
            failAt(at, "SETITEM onto something that is not a dict");
            return nullptr;
        }
        return &m_out.arena.dicts[m_stack[position - 1].index];
    }

    void step(uint8_t op, size_t at)
    {
        if (const char* code = codeOpcodeName(op)) {
            failAt(at, std::string("opcode ") + code +
                           " names or calls Python code; a memory snapshot holds only data, so it is refused");
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
        case '}': push(newDict()); return;
        case ']': push(newList()); return;
        case ')': push(newList()); return;  // EMPTY_TUPLE
        case '(': m_marks.push_back(m_stack.size()); return;
        case 'N': push(PickleValue()); return;
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
        case 0x8a: readLong(1, at); return;  // LONG1
        case 0x8b: readLong(4, at); return;  // LONG4
        case 'G': {                          // BINFLOAT, big-endian
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
        case 0x8c: readString(1, at); return;   // SHORT_BINUNICODE
        case 'X': readString(4, at); return;    // BINUNICODE
        case 0x8d: readString(8, at); return;   // BINUNICODE8
        case 'U': readString(1, at); return;   // SHORT_BINSTRING
        case 'T': readString(4, at); return;   // BINSTRING
        case 'C': readString(1, at); return;   // SHORT_BINBYTES
        case 'B': readString(4, at); return;   // BINBYTES
        case 0x8e: readString(8, at); return;  // BINBYTES8
        case 0x94:                                    // MEMOIZE
            memoPut(m_memo.size(), at);
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
        case '0': pop(a, at); return;  // POP
        case '2':                      // DUP
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
                if (auto* list = listAt(m_stack.size(), at))
                    list->push_back(a);
            return;
        case 'e': {  // APPENDS
            size_t from = 0;
            if (!popMark(from, at))
                return;
            if (auto* list = listAt(from, at))
                list->insert(list->end(), m_stack.begin() + std::ptrdiff_t(from), m_stack.end());
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

    std::string_view m_bytes;
    PickleResult& m_out;
    size_t m_pos = 0;
    std::vector<PickleValue> m_stack;
    std::vector<size_t> m_marks;
    std::vector<PickleValue> m_memo;
    std::string m_error;
};

}  // namespace

std::string_view PickleArena::text(const PickleValue& v) const
{
    return v.kind == PickleValue::Kind::String ? std::string_view(strings[v.index]) : std::string_view();
}

const std::vector<PickleValue>* PickleArena::list(const PickleValue& v) const
{
    return v.kind == PickleValue::Kind::List ? &lists[v.index] : nullptr;
}

const std::vector<std::pair<PickleValue, PickleValue>>* PickleArena::dict(const PickleValue& v) const
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
    return bytes.size() >= 2 && uint8_t(bytes[0]) == 0x80 && uint8_t(bytes[1]) >= 2 && uint8_t(bytes[1]) <= 5;
}

PickleResult readPickle(std::string_view bytes)
{
    PickleResult result;
    if (!looksLikePickle(bytes)) {
        result.error = "not a pickle of protocol 2 or later (it does not start with the PROTO opcode)";
        return result;
    }
    Reader(bytes, result).run();
    return result;
}

}  // namespace kinetoscope::snapshot
