#pragma once
// Memory snapshots written opcode by opcode for tests: a protocol-4 pickle laid out as
// Python's pickler lays out dicts and lists (MARK ... SETITEMS / APPENDS), and the
// snapshot's parts (segments with their blocks, trace entries with one frame).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kinetoscope::test {

// Writes a protocol-4 pickle opcode by opcode, as Python's pickler lays out dicts and
// lists (MARK ... SETITEMS / APPENDS).
class PickleWriter
{
public:
    PickleWriter() { m_out = "\x80\x04"; }
    PickleWriter& dict() { return op('}').op('('); }
    PickleWriter& endDict() { return op('u'); }
    PickleWriter& list() { return op(']').op('('); }
    PickleWriter& endList() { return op('e'); }
    PickleWriter& str(const std::string& s)
    {
        op(char(0x8c));
        m_out += char(s.size());
        m_out += s;
        return *this;
    }
    PickleWriter& integer(int64_t v)
    {
        op(char(0x8a)).op(char(8));  // LONG1 of 8 bytes, little-endian
        for (int k = 0; k < 8; ++k)
            m_out += char((uint64_t(v) >> (8 * k)) & 0xFF);
        return *this;
    }
    PickleWriter& key(const std::string& k, int64_t v) { return str(k).integer(v); }
    PickleWriter& key(const std::string& k, const std::string& v) { return str(k).str(v); }
    PickleWriter& op(char c)
    {
        m_out += c;
        return *this;
    }
    std::string done() { return m_out + "."; }

private:
    std::string m_out;
};

// A segment of one device holding `blocks` (size, state) back to back.
inline void segment(PickleWriter& w, int64_t address,
                    const std::vector<std::pair<int64_t, std::string>>& blocks)
{
    int64_t total = 0;
    for (const auto& [size, state] : blocks)
        total += size;
    w.dict().key("device", 0).key("address", address).key("total_size", total).key("stream", 0);
    w.key("segment_type", "large").str("blocks").list();
    int64_t at = address;
    for (const auto& [size, state] : blocks) {
        w.dict().key("address", at).key("size", size).key("state", state).endDict();
        at += size;
    }
    w.endList().endDict();
}

inline void entry(PickleWriter& w, const std::string& action, int64_t address, int64_t size,
                  int64_t timeUs, const std::string& file = "", int64_t line = 0)
{
    w.dict()
        .key("action", action)
        .key("addr", address)
        .key("size", size)
        .key("stream", 0)
        .key("time_us", timeUs);
    if (!file.empty())
        w.str("frames")
            .list()
            .dict()
            .key("name", "step")
            .key("filename", file)
            .key("line", line)
            .endDict()
            .endList();
    w.endDict();
}

}  // namespace kinetoscope::test
