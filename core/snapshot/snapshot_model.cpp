#include "core/snapshot/snapshot_model.h"

#include "core/snapshot/pickle_reader.h"
#include "core/trace/printable.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <unordered_map>

namespace kinetoscope::snapshot {

namespace {

BlockState stateOf(std::string_view s)
{
    if (s == "active_allocated")
        return BlockState::ActiveAllocated;
    if (s == "active_pending_free")
        return BlockState::ActivePending;
    if (s == "inactive")
        return BlockState::Inactive;
    return BlockState::Other;
}

Action actionOf(std::string_view s)
{
    static const std::pair<std::string_view, Action> names[] = {
        {"alloc", Action::Alloc},
        {"free_requested", Action::FreeRequested},
        {"free_completed", Action::FreeCompleted},
        {"free", Action::FreeCompleted},
        {"segment_alloc", Action::SegmentAlloc},
        {"segment_free", Action::SegmentFree},
        {"segment_map", Action::SegmentMap},
        {"segment_unmap", Action::SegmentUnmap},
        {"oom", Action::Oom},
        {"snapshot", Action::Snapshot}};
    for (const auto& [name, action] : names)
        if (s == name)
            return action;
    return Action::Other;
}

// Turns the pickle's values into the model, interning what the memo shares once.
class Builder
{
public:
    Builder(const PickleArena& arena, SnapshotModel& model) : m_arena(arena), m_model(model) {}

    int64_t integer(const PickleValue& dict, std::string_view key, int64_t otherwise = 0) const
    {
        const PickleValue* v = m_arena.get(dict, key);
        if (!v)
            return otherwise;
        if (v->kind == PickleValue::Kind::Int)
            return v->integer;
        if (v->kind == PickleValue::Kind::Bool)
            return v->boolean ? 1 : 0;
        return otherwise;
    }
    // A byte count: negative values read as 0, and none above 1 TiB (sums of millions of
    // them stay within 64 bits, whatever a malformed file says).
    int64_t bytes(const PickleValue& dict, std::string_view key, int64_t otherwise = 0) const
    {
        return std::clamp<int64_t>(integer(dict, key, otherwise), 0, int64_t(1) << 40);
    }
    std::string_view text(const PickleValue& dict, std::string_view key) const
    {
        const PickleValue* v = m_arena.get(dict, key);
        return v ? m_arena.text(*v) : std::string_view();
    }

    // Names and file names are kept as valid UTF-8 (a pickle's bytes are untrusted).
    uint32_t intern(std::string_view s)
    {
        const auto [it, added] = m_strings.try_emplace(std::string(s), uint32_t(m_model.strings.size()));
        if (added)
            m_model.strings.push_back(valid(s));
        return it->second;
    }
    static std::string valid(std::string_view s)
    {
        return trace::isValidUtf8(s) ? std::string(s) : trace::toValidUtf8(s);
    }

    // The stack of a block or trace entry: its "frames" list, once per distinct list.
    StackId stack(const PickleValue& owner)
    {
        const PickleValue* frames = m_arena.get(owner, "frames");
        const std::vector<PickleValue>* list = frames ? m_arena.list(*frames) : nullptr;
        if (!list || list->empty())
            return 0;
        if (const auto it = m_stackOfList.find(frames->index); it != m_stackOfList.end())
            return it->second;
        std::vector<uint32_t> ids;
        ids.reserve(list->size());
        for (const PickleValue& f : *list)
            ids.push_back(frame(f));
        auto [it, added] = m_stackOfFrames.try_emplace(ids, StackId(m_model.stacks.size()));
        if (added)
            m_model.stacks.push_back(std::move(ids));
        m_stackOfList.emplace(frames->index, it->second);
        return it->second;
    }

    void segments(const PickleValue& list)
    {
        const std::vector<PickleValue>* items = m_arena.list(list);
        if (!items)
            return;
        for (const PickleValue& s : *items) {
            if (s.kind != PickleValue::Kind::Dict)
                continue;
            Segment seg;
            seg.device = integer(s, "device");
            seg.address = integer(s, "address");
            seg.totalSize = bytes(s, "total_size");
            seg.allocatedSize = bytes(s, "allocated_size");
            seg.activeSize = bytes(s, "active_size");
            seg.requestedSize = bytes(s, "requested_size");
            seg.stream = integer(s, "stream");
            seg.large = text(s, "segment_type") == "large";
            seg.expandable = integer(s, "is_expandable") != 0;
            seg.firstBlock = uint32_t(m_model.blocks.size());
            int64_t offset = seg.address;  // older snapshots give blocks no address: they tile the segment
            if (const PickleValue* blocks = m_arena.get(s, "blocks"))
                if (const std::vector<PickleValue>* rows = m_arena.list(*blocks))
                    for (const PickleValue& b : *rows) {
                        Block block;
                        block.size = bytes(b, "size");
                        block.address = integer(b, "address", offset);
                        block.requestedSize = bytes(b, "requested_size", block.size);
                        block.state = stateOf(text(b, "state"));
                        block.stack = stack(b);
                        offset = block.address > INT64_MAX - block.size ? block.address : block.address + block.size;
                        m_model.blocks.push_back(block);
                    }
            seg.blockCount = uint32_t(m_model.blocks.size()) - seg.firstBlock;
            m_model.segments.push_back(seg);
        }
    }

    void traces(const PickleValue& perDevice)
    {
        const std::vector<PickleValue>* devices = m_arena.list(perDevice);
        if (!devices)
            return;
        m_model.deviceTraces = int(devices->size());
        for (size_t d = 0; d < devices->size(); ++d) {
            const std::vector<PickleValue>* rows = m_arena.list((*devices)[d]);
            if (!rows)
                continue;
            for (const PickleValue& e : *rows) {
                TraceEntry entry;
                entry.device = int32_t(d);
                entry.action = actionOf(text(e, "action"));
                entry.address = integer(e, "addr");
                entry.size = bytes(e, "size");
                entry.stream = integer(e, "stream");
                entry.timeUs = integer(e, "time_us", -1);
                entry.deviceFree = integer(e, "device_free", -1);
                entry.stack = stack(e);
                m_model.entries.push_back(entry);
            }
        }
    }

    void annotations(const PickleValue& list)
    {
        if (const std::vector<PickleValue>* rows = m_arena.list(list))
            for (const PickleValue& a : *rows)
                m_model.annotations.push_back({int32_t(integer(a, "device")), valid(text(a, "name")),
                                               valid(text(a, "stage")), integer(a, "time_us", -1)});
    }

    void settings(const PickleValue& dict)
    {
        if (const auto* entries = m_arena.dict(dict))
            for (const auto& [k, v] : *entries) {
                std::string value;
                switch (v.kind) {
                case PickleValue::Kind::Bool: value = v.boolean ? "true" : "false"; break;
                case PickleValue::Kind::Int: value = std::to_string(v.integer); break;
                case PickleValue::Kind::Float: value = std::to_string(v.real); break;
                case PickleValue::Kind::String: value = valid(m_arena.text(v)); break;
                default: value = "..."; break;
                }
                m_model.allocatorSettings.emplace_back(valid(m_arena.text(k)), std::move(value));
            }
    }

private:
    uint32_t frame(const PickleValue& f)
    {
        if (f.kind == PickleValue::Kind::Dict)
            if (const auto it = m_frameOfDict.find(f.index); it != m_frameOfDict.end())
                return it->second;
        const Frame fr{intern(text(f, "name")), intern(text(f, "filename")), integer(f, "line")};
        const uint32_t id = uint32_t(m_model.frames.size());
        m_model.frames.push_back(fr);
        if (f.kind == PickleValue::Kind::Dict)
            m_frameOfDict.emplace(f.index, id);
        return id;
    }

    struct IdsHash
    {
        size_t operator()(const std::vector<uint32_t>& ids) const noexcept
        {
            size_t h = ids.size();
            for (uint32_t id : ids)
                h = h * 1000003u ^ id;
            return h;
        }
    };

    const PickleArena& m_arena;
    SnapshotModel& m_model;
    std::unordered_map<std::string, uint32_t> m_strings;
    std::unordered_map<uint32_t, uint32_t> m_frameOfDict;   // pickle dict -> frame
    std::unordered_map<uint32_t, StackId> m_stackOfList;    // pickle list -> stack
    std::unordered_map<std::vector<uint32_t>, StackId, IdsHash> m_stackOfFrames;
};

}  // namespace

std::string SnapshotModel::place(StackId stack) const
{
    const std::vector<uint32_t>& ids = stacks[stack];
    if (ids.empty())
        return {};
    // The user's code first: the innermost Python frame outside torch, else the innermost
    // Python frame, else the innermost frame.
    auto inTorch = [](std::string_view file) {
        for (std::string_view library : {"/torch/", "\\torch\\", "site-packages", "dist-packages"})
            if (file.find(library) != std::string_view::npos)
                return true;
        return false;
    };
    const Frame* chosen = nullptr;
    const Frame* python = nullptr;
    for (uint32_t id : ids) {
        const std::string_view file = text(frames[id].filename);
        if (!isPython(frames[id]))
            continue;
        if (!python)
            python = &frames[id];
        if (!inTorch(file)) {
            chosen = &frames[id];
            break;
        }
    }
    if (!chosen)
        chosen = python ? python : &frames[ids.front()];
    std::string file(text(chosen->filename));
    if (const size_t cut = file.find_last_of("/\\"); cut != std::string::npos)
        file = file.substr(cut + 1);
    return file + ":" + std::to_string(chosen->line) + " " + std::string(text(chosen->name));
}

std::vector<std::string> SnapshotModel::readableStack(StackId stack, size_t pythonFrames) const
{
    std::vector<std::string> lines;
    size_t native = 0;
    for (uint32_t id : stacks[stack]) {
        const Frame& f = frames[id];
        if (!isPython(f)) {
            ++native;
            continue;
        }
        if (lines.size() < pythonFrames)
            lines.push_back(std::string(text(f.filename)) + ":" + std::to_string(f.line) + " " + std::string(text(f.name)));
    }
    if (lines.empty()) {  // no Python frame: the innermost native ones say where
        for (uint32_t id : stacks[stack]) {
            if (lines.size() == pythonFrames)
                break;
            lines.push_back(std::string(text(frames[id].name)));
            --native;
        }
    }
    if (native > 0)
        lines.push_back("+ " + std::to_string(native) + " C++ frame" + (native == 1 ? "" : "s"));
    return lines;
}

LoadedSnapshot readSnapshot(std::string_view bytes)
{
    LoadedSnapshot loaded;
    PickleResult pickle = readPickle(bytes);
    if (!pickle.ok()) {
        loaded.error = pickle.error;
        return loaded;
    }
    SnapshotModel model;
    Builder build(pickle.arena, model);
    const PickleValue& root = pickle.root;
    if (root.kind == PickleValue::Kind::List) {
        model.bareList = true;
        build.segments(root);
    } else if (const PickleValue* segments = pickle.arena.get(root, "segments")) {
        build.segments(*segments);
        if (const PickleValue* traces = pickle.arena.get(root, "device_traces"))
            build.traces(*traces);
        if (const PickleValue* notes = pickle.arena.get(root, "external_annotations"))
            build.annotations(*notes);
        if (const PickleValue* settings = pickle.arena.get(root, "allocator_settings"))
            build.settings(*settings);
    } else {
        loaded.error = "a pickle, but not a memory snapshot: no 'segments' and not a list of segments";
        return loaded;
    }
    loaded.model = std::move(model);
    return loaded;
}

LoadedSnapshot loadSnapshotFile(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        LoadedSnapshot missing;
        missing.error = "no such file: " + path.string();
        return missing;
    }
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) {
        LoadedSnapshot unreadable;
        unreadable.error = "cannot read " + path.string();
        return unreadable;
    }
    return readSnapshot(bytes);
}

bool isSnapshotFile(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    char head[2] = {};
    return in.read(head, 2) && looksLikePickle(std::string_view(head, 2));
}

}  // namespace kinetoscope::snapshot
