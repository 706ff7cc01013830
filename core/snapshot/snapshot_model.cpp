#include "core/snapshot/snapshot_model.h"

#include "core/format/format.h"
#include "core/snapshot/native_frames.h"
#include "core/snapshot/pickle_reader.h"
#include "core/trace/byte_source.h"
#include "core/trace/printable.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <tuple>
#include <unordered_map>

#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

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

// Turns the pickle's values into the model, interning frames and stacks once. Trace
// entries are taken while the pickle is read (PickleSink), so that the reader can let go
// of each entry's dict and frames list; the rest is read from the arena afterwards.
class Builder : public PickleSink
{
public:
    explicit Builder(SnapshotModel& model) : m_model(model) {}
    void setArena(const PickleArena& arena) { m_arena = &arena; }

    // A dict with an "action" is a trace entry (no other dict of a snapshot has one); its
    // device is known once the list holding it is found under device_traces.
    bool take(const PickleArena& arena, const PickleValue& dict, uint32_t list) override
    {
        m_arena = &arena;
        const PickleValue* action = arena.get(dict, "action");
        if (!action || action->kind != PickleValue::Kind::String)
            return false;
        m_model.entries.push_back(entry(dict, -1));
        m_listOfEntry.push_back(list);
        return true;
    }
    void released(const PickleValue& value) override
    {
        if (value.kind == PickleValue::Kind::List)
            m_stackOfList.erase(value.index);
        else if (value.kind == PickleValue::Kind::Dict)
            m_frameOfDict.erase(value.index);
    }
    void expect(size_t dicts) override
    {
        m_model.entries.reserve(dicts);
        m_listOfEntry.reserve(dicts);
    }

    // A value as a number (ints, and bools as 0 or 1), or `otherwise`.
    static int64_t number(const PickleValue& v, int64_t otherwise)
    {
        if (v.kind == PickleValue::Kind::Int)
            return v.integer;
        if (v.kind == PickleValue::Kind::Bool)
            return v.boolean ? 1 : 0;
        return otherwise;
    }
    int64_t integer(const PickleValue& dict, std::string_view key, int64_t otherwise = 0) const
    {
        const PickleValue* v = m_arena->get(dict, key);
        return v ? number(*v, otherwise) : otherwise;
    }
    // A byte count: negative values read as 0, and none above 1 TiB (sums of millions of
    // them stay within 64 bits, whatever a malformed file says).
    static constexpr int64_t kMaxBytes = int64_t(1) << 40;
    static int64_t byteCount(int64_t n) { return std::clamp<int64_t>(n, 0, kMaxBytes); }
    int64_t bytes(const PickleValue& dict, std::string_view key, int64_t otherwise = 0) const
    {
        return byteCount(integer(dict, key, otherwise));
    }
    // A device index, whatever a malformed file says: tables are sized by it.
    static constexpr int64_t kMaxDevice = 1023;
    std::string_view text(const PickleValue& dict, std::string_view key) const
    {
        const PickleValue* v = m_arena->get(dict, key);
        return v ? m_arena->text(*v) : std::string_view();
    }

    // Names and file names are kept as valid UTF-8 (a pickle's bytes are untrusted).
    uint32_t intern(std::string_view s)
    {
        const auto [it, added] =
            m_strings.try_emplace(std::string(s), uint32_t(m_model.strings.size()));
        if (added)
            m_model.strings.push_back(valid(s));
        return it->second;
    }
    static std::string valid(std::string_view s)
    {
        return trace::isValidUtf8(s) ? std::string(s) : trace::toValidUtf8(s);
    }

    // The stack of a block or trace entry: its "frames" list, interned by its frames (a
    // list the memo shares is looked up by its slot the next times).
    StackId stack(const PickleValue& owner)
    {
        const PickleValue* frames = m_arena->get(owner, "frames");
        return frames ? stackOf(*frames) : 0;
    }
    StackId stackOf(const PickleValue& frames)
    {
        const std::vector<PickleValue>* list = m_arena->list(frames);
        if (!list || list->empty())
            return 0;
        const bool shared = m_arena->shared(frames);
        if (shared)
            if (const auto it = m_stackOfList.find(frames.index); it != m_stackOfList.end())
                return it->second;
        std::vector<uint32_t> ids;
        ids.reserve(list->size());
        for (const PickleValue& f : *list)
            ids.push_back(frame(f));
        auto [it, added] = m_stackOfFrames.try_emplace(ids, StackId(m_model.stacks.size()));
        if (added)
            m_model.stacks.push_back(std::move(ids));
        if (shared)
            m_stackOfList.emplace(frames.index, it->second);
        return it->second;
    }

    void segments(const PickleValue& list)
    {
        const std::vector<PickleValue>* items = m_arena->list(list);
        if (!items)
            return;
        for (const PickleValue& s : *items) {
            if (s.kind != PickleValue::Kind::Dict)
                continue;
            Segment seg;
            seg.device = std::clamp<int64_t>(integer(s, "device"), 0, kMaxDevice);
            seg.address = integer(s, "address");
            seg.totalSize = bytes(s, "total_size");
            seg.allocatedSize = bytes(s, "allocated_size");
            seg.activeSize = bytes(s, "active_size");
            seg.requestedSize = bytes(s, "requested_size");
            seg.stream = integer(s, "stream");
            seg.large = text(s, "segment_type") == "large";
            seg.expandable = integer(s, "is_expandable") != 0;
            seg.firstBlock = uint32_t(m_model.blocks.size());
            int64_t offset =
                seg.address;  // older snapshots give blocks no address: they tile the segment
            if (const PickleValue* blocks = m_arena->get(s, "blocks"))
                if (const std::vector<PickleValue>* rows = m_arena->list(*blocks))
                    for (const PickleValue& b : *rows) {
                        Block block;
                        block.size = bytes(b, "size");
                        block.address = integer(b, "address", offset);
                        block.requestedSize = bytes(b, "requested_size", block.size);
                        block.state = stateOf(text(b, "state"));
                        block.stack = stack(b);
                        offset = block.address > INT64_MAX - block.size
                                     ? block.address
                                     : block.address + block.size;
                        m_model.blocks.push_back(block);
                    }
            seg.blockCount = uint32_t(m_model.blocks.size()) - seg.firstBlock;
            m_model.segments.push_back(seg);
        }
    }

    // One pass over the entry's items (a trace has millions: no lookup per key).
    TraceEntry entry(const PickleValue& e, int device)
    {
        TraceEntry entry;
        entry.device = int16_t(std::clamp(device, -1, int(kMaxDevice)));
        int64_t address = 0, deviceFree = -1, stream = 0;
        const PickleValue* frames = nullptr;
        for (const auto& [k, v] : *m_arena->dict(e)) {
            const std::string_view key = m_arena->text(k);
            if (key == "action")
                entry.action = actionOf(m_arena->text(v));
            else if (key == "addr")
                address = number(v, 0);
            else if (key == "size")
                entry.size = byteCount(number(v, 0));
            else if (key == "time_us")
                entry.timeUs = number(v, -1);
            else if (key == "stream")
                stream = number(v, 0);
            else if (key == "frames")
                frames = &v;
            else if (key == "device_free")
                deviceFree = number(v, -1);
        }
        entry.address = entry.action == Action::Oom ? deviceFree : address;
        entry.stack = frames ? stackOf(*frames) : 0;
        const auto [it, added] =
            m_streamIndex.try_emplace(stream, uint32_t(m_model.streams.size()));
        if (added)
            m_model.streams.push_back(stream);
        entry.stream = it->second;
        return entry;
    }

    // Each device's list: the entries taken from it get its number (and any the sink did
    // not take are read now); entries of lists elsewhere are dropped. Devices in turn,
    // each's entries in recorded order.
    void traces(const PickleValue& perDevice)
    {
        std::unordered_map<uint32_t, int> deviceOfList;
        if (const std::vector<PickleValue>* devices = m_arena->list(perDevice)) {
            // Devices past kMaxDevice are a malformed file's: their entries are dropped.
            m_model.deviceTraces = int(std::min<size_t>(devices->size(), kMaxDevice + 1));
            for (size_t d = 0; d < size_t(m_model.deviceTraces); ++d) {
                const PickleValue& list = (*devices)[d];
                if (list.kind != PickleValue::Kind::List)
                    continue;
                deviceOfList.emplace(list.index, int(d));
                for (const PickleValue& e : *m_arena->list(list))
                    if (e.kind == PickleValue::Kind::Dict) {
                        m_model.entries.push_back(entry(e, int(d)));
                        m_listOfEntry.push_back(list.index);
                    }
            }
        }
        for (size_t i = 0; i < m_model.entries.size(); ++i) {
            const auto it = deviceOfList.find(m_listOfEntry[i]);
            m_model.entries[i].device = int16_t(it == deviceOfList.end() ? -1 : it->second);
        }
        std::erase_if(m_model.entries, [](const TraceEntry& e) { return e.device < 0; });
        // The lists come in device order, so this is already true but for crafted files.
        auto byDevice = [](const TraceEntry& a, const TraceEntry& b) {
            return a.device < b.device;
        };
        if (!std::is_sorted(m_model.entries.begin(), m_model.entries.end(), byDevice))
            std::stable_sort(m_model.entries.begin(), m_model.entries.end(), byDevice);
        std::vector<uint32_t>().swap(m_listOfEntry);
    }

    void annotations(const PickleValue& list)
    {
        if (const std::vector<PickleValue>* rows = m_arena->list(list))
            for (const PickleValue& a : *rows)
                m_model.annotations.push_back({int32_t(integer(a, "device")),
                                               valid(text(a, "name")), valid(text(a, "stage")),
                                               integer(a, "time_us", -1)});
    }

    void settings(const PickleValue& dict)
    {
        if (const auto* entries = m_arena->dict(dict))
            for (const auto& [k, v] : *entries) {
                std::string value;
                switch (v.kind) {
                case PickleValue::Kind::Bool:
                    value = v.boolean ? "true" : "false";
                    break;
                case PickleValue::Kind::Int:
                    value = std::to_string(v.integer);
                    break;
                case PickleValue::Kind::Float:
                    value = std::to_string(v.real);
                    break;
                case PickleValue::Kind::String:
                    value = valid(m_arena->text(v));
                    break;
                default:
                    value = "...";
                    break;
                }
                m_model.allocatorSettings.emplace_back(valid(m_arena->text(k)), std::move(value));
            }
    }

private:
    // A frame dict, interned by its name, file and line (a dict the memo shares is looked up
    // by its slot the next times).
    uint32_t frame(const PickleValue& f)
    {
        const bool shared = f.kind == PickleValue::Kind::Dict && m_arena->shared(f);
        if (shared)
            if (const auto it = m_frameOfDict.find(f.index); it != m_frameOfDict.end())
                return it->second;
        const Frame fr{intern(text(f, "name")), intern(text(f, "filename")), integer(f, "line")};
        const auto [it, added] =
            m_frameOf.try_emplace({fr.name, fr.filename, fr.line}, uint32_t(m_model.frames.size()));
        if (added)
            m_model.frames.push_back(fr);
        if (shared)
            m_frameOfDict.emplace(f.index, it->second);
        return it->second;
    }

    struct FrameKeyHash
    {
        size_t operator()(const std::tuple<uint32_t, uint32_t, int64_t>& k) const noexcept
        {
            return (size_t(std::get<0>(k)) * 1000003u ^ std::get<1>(k)) * 1000003u ^
                   size_t(std::get<2>(k));
        }
    };

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

    const PickleArena* m_arena = nullptr;
    SnapshotModel& m_model;
    std::vector<uint32_t> m_listOfEntry;  // per model entry: the pickle list it was in
    std::unordered_map<int64_t, uint32_t> m_streamIndex{{0, 0}};
    std::unordered_map<std::string, uint32_t> m_strings;
    std::unordered_map<std::tuple<uint32_t, uint32_t, int64_t>, uint32_t, FrameKeyHash> m_frameOf;
    std::unordered_map<uint32_t, uint32_t> m_frameOfDict;  // shared pickle dict -> frame
    std::unordered_map<uint32_t, StackId> m_stackOfList;   // shared pickle list -> stack
    std::unordered_map<std::vector<uint32_t>, StackId, IdsHash> m_stackOfFrames;
};

}  // namespace

namespace {

bool inTorchOrPackages(std::string_view file)
{
    for (std::string_view library : {"/torch/", "\\torch\\", "site-packages", "dist-packages"})
        if (file.find(library) != std::string_view::npos)
            return true;
    return false;
}

bool isModuleCall(std::string_view file)
{
    return file.ends_with("torch/nn/modules/module.py") ||
           file.ends_with("torch\\nn\\modules\\module.py");
}

// Frames every C++ stack has: the recorder's (unwinding, the caching allocator) and the
// dispatcher's wrappers around each kernel.
bool isRecorderOrWrapper(std::string_view qualified)
{
    for (std::string_view prefix :
         {"torch::unwind::", "torch::CapturedTraceback::", "torch::cuda::",
          "c10::cuda::CUDACachingAllocator::", "c10::impl::", "c10::Dispatcher::"})
        if (qualified.starts_with(prefix))
            return true;
    return false;
}

std::string frameText(const SnapshotModel& model, const Frame& f)
{
    std::string file(model.text(f.filename));
    if (const size_t cut = file.find_last_of("/\\"); cut != std::string::npos)
        file = file.substr(cut + 1);
    return file + ":" + std::to_string(f.line) + " " + std::string(model.text(f.name));
}

}  // namespace

std::string SnapshotModel::place(StackId stack) const
{
    const std::vector<uint32_t>& ids = stacks[stack];
    if (ids.empty())
        return {};
    // The user's code first: the innermost Python frame outside torch, else the innermost
    // Python frame, else the innermost frame.
    const Frame* chosen = nullptr;
    const Frame* python = nullptr;
    for (uint32_t id : ids) {
        if (!isPython(frames[id]))
            continue;
        if (!python)
            python = &frames[id];
        if (!inTorchOrPackages(text(frames[id].filename))) {
            chosen = &frames[id];
            break;
        }
    }
    if (chosen)
        return frameText(*this, *chosen);
    if (python)
        return frameText(*this, *python);
    // No Python frame (a C++ program): the operator it called and what called it.
    std::vector<std::string_view> signatures;
    signatures.reserve(ids.size());
    for (uint32_t id : ids)
        signatures.push_back(text(frames[id].name));
    if (std::string native = nativePlace(signatures); !native.empty())
        return native;
    return frameText(*this, frames[ids.front()]);
}

std::string SnapshotModel::moduleCall(StackId stack) const
{
    bool inModuleCall = false;
    for (uint32_t id : stacks[stack]) {
        const std::string_view file = text(frames[id].filename);
        if (isModuleCall(file))
            inModuleCall = true;
        else if (inModuleCall && isPython(frames[id]) && !inTorchOrPackages(file))
            return frameText(*this, frames[id]);
    }
    return {};
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
            lines.push_back(std::string(text(f.filename)) + ":" + std::to_string(f.line) + " " +
                            std::string(text(f.name)));
    }
    if (lines.empty()) {  // no Python frame: the native ones past the recorder's own
        for (uint32_t id : stacks[stack]) {
            if (lines.size() == pythonFrames)
                break;
            const std::string name = qualifiedFunction(text(frames[id].name));
            if (isRecorderOrWrapper(name))
                continue;
            lines.push_back(name);
        }
        native = stacks[stack].size() - lines.size();
    }
    if (native > 0)
        lines.push_back("+ " + format::counted(uint64_t(native), "C++ frame", "C++ frames"));
    return lines;
}

LoadedSnapshot readSnapshot(std::string_view bytes, const std::function<void(size_t)>& progress)
{
    LoadedSnapshot loaded;
    SnapshotModel model;
    Builder build(model);
    PickleReadOptions options;
    options.sink = &build;
    options.progress = progress;
    PickleResult pickle = readPickle(bytes, options);
    if (!pickle.ok()) {
        loaded.error = pickle.error;
        return loaded;
    }
    build.setArena(pickle.arena);
    const PickleValue& root = pickle.root;
    if (root.kind == PickleValue::Kind::List) {
        model.bareList = true;
        model.entries.clear();  // a list of segments has no history
        build.segments(root);
    } else if (const PickleValue* segments = pickle.arena.get(root, "segments")) {
        build.segments(*segments);
        if (const PickleValue* traces = pickle.arena.get(root, "device_traces"))
            build.traces(*traces);
        else
            model.entries.clear();  // entries of lists that are no device's
        if (const PickleValue* notes = pickle.arena.get(root, "external_annotations"))
            build.annotations(*notes);
        if (const PickleValue* settings = pickle.arena.get(root, "allocator_settings"))
            build.settings(*settings);
    } else {
        loaded.error =
            "a pickle, but not a memory snapshot: no 'segments' and not a list of segments";
        return loaded;
    }
    loaded.model = std::move(model);
    return loaded;
}

namespace {

// Every byte of `source`, decompressed: a gzipped snapshot (gzip memory_snapshot.pickle
// after the run) is read whole, so it costs its inflated size in RSS, as does a plain
// file that could not be mapped.
LoadedSnapshot readWhole(trace::ByteSource& source, const std::filesystem::path& path)
{
    std::string bytes;
    constexpr size_t kChunk = size_t(1) << 22;  // bytes read per call
    for (;;) {
        const size_t had = bytes.size();
        bytes.resize(had + kChunk);
        const size_t got = source.read(bytes.data() + had, kChunk);
        bytes.resize(had + got);
        if (got == 0)
            break;
    }
    if (source.status() != trace::ByteSource::Status::EndOfData) {
        LoadedSnapshot failed;
        failed.error = path.string() + ": " + source.error();
        return failed;
    }
    return readSnapshot(bytes);
}

}  // namespace

LoadedSnapshot loadSnapshotFile(const std::filesystem::path& path)
{
    LoadedSnapshot failed;
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
        failed.error = "no such file: " + path.string();
        return failed;
    }
    if (std::filesystem::is_directory(path, ec)) {
        failed.error = path.string() + " is a directory, not a snapshot";
        return failed;
    }
    // One opening path (gzip told by the bytes); a plain file is mapped where it can be.
    const std::unique_ptr<trace::ByteSource> source = trace::openFileSource(path, failed.error);
    if (!source)
        return failed;
    if (source->compressed())
        return readWhole(*source, path);
#if defined(__unix__) || defined(__APPLE__)
    // Mapped, and let go of behind the reader: the file's pages never all stay resident.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat status
    {
    };
    if (fd >= 0 && ::fstat(fd, &status) == 0 && status.st_size > 0) {
        const size_t size = size_t(status.st_size);
        void* mapped = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
        ::close(fd);
        if (mapped != MAP_FAILED) {
            char* base = static_cast<char*>(mapped);
            ::madvise(base, size, MADV_SEQUENTIAL);
            const size_t page = size_t(::sysconf(_SC_PAGESIZE));
            size_t released = 0;
            auto letGo = [&](size_t read) {
                if (read == 0) {  // a pass starts: all the previous one read
                    ::madvise(base, size, MADV_DONTNEED);
                    released = 0;
                    return;
                }
                const size_t upTo = read / page * page;
                if (upTo > released) {
                    ::madvise(base + released, upTo - released, MADV_DONTNEED);
                    released = upTo;
                }
            };
            LoadedSnapshot loaded = readSnapshot(std::string_view(base, size), letGo);
            ::munmap(mapped, size);
            return loaded;
        }
    } else if (fd >= 0) {
        ::close(fd);
    }
#endif
    return readWhole(*source, path);
}

bool isSnapshotFile(const std::filesystem::path& path)
{
    // Its first bytes, inflated when the file is gzipped.
    std::string error;
    const std::unique_ptr<trace::ByteSource> source = trace::openFileSource(path, error);
    char head[2] = {};
    return source && source->read(head, 2) == 2 && looksLikePickle(std::string_view(head, 2));
}

}  // namespace kinetoscope::snapshot
