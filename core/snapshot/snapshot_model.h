#pragma once
// A CUDA caching allocator snapshot (torch.cuda.memory._dump_snapshot, or the bare list
// of segments torch.cuda.memory_snapshot() returns), read into columns: frames and
// stacks interned once (a stack is an id), segments, blocks and trace entries as rows of
// plain numbers. Byte counts are bytes; times are the snapshot's microseconds.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kinetoscope::snapshot {

using StackId = uint32_t;  // 0: no frames recorded

struct Frame
{
    uint32_t name = 0;  // into SnapshotModel::strings
    uint32_t filename = 0;
    int64_t line = 0;
};

enum class BlockState : uint8_t
{
    ActiveAllocated,
    ActivePending,
    Inactive,
    Other
};
enum class Action : uint8_t
{
    Alloc,
    FreeRequested,
    FreeCompleted,  // also older snapshots' "free"
    SegmentAlloc,
    SegmentFree,
    SegmentMap,
    SegmentUnmap,
    Oom,
    Snapshot,
    Other,
};

struct Segment
{
    int64_t device = 0;
    int64_t address = 0;
    int64_t totalSize = 0;
    int64_t allocatedSize = 0;
    int64_t activeSize = 0;
    int64_t requestedSize = 0;
    int64_t stream = 0;
    bool large = false;  // segment_type "large" (the pool of blocks > 1 MiB)
    bool expandable = false;
    uint32_t firstBlock = 0;  // into SnapshotModel::blocks
    uint32_t blockCount = 0;
};

struct Block
{
    int64_t address = 0;
    int64_t size = 0;
    int64_t requestedSize = 0;
    BlockState state = BlockState::Other;
    StackId stack = 0;
};

// One allocator event, 40 bytes: a 1 GB snapshot holds about ten million of them.
struct TraceEntry
{
    int64_t address = 0;  // for an Oom entry: the bytes free on the device (torch keeps them there)
    int64_t size = 0;
    int64_t timeUs = -1;  // -1: not recorded
    StackId stack = 0;
    uint32_t stream = 0;  // into SnapshotModel::streams
    int16_t device = 0;
    Action action = Action::Other;

    int64_t deviceFree() const { return action == Action::Oom ? address : -1; }
};
static_assert(sizeof(TraceEntry) == 40, "an entry's memory cost: keep it at 40 bytes");

struct Annotation
{
    int32_t device = 0;
    std::string name;
    std::string stage;  // "START", "END"
    int64_t timeUs = -1;
};

struct SnapshotModel
{
    std::vector<std::string> strings{""};  // interned names and file names; 0 is ""
    std::vector<Frame> frames;
    std::vector<std::vector<uint32_t>> stacks{{}};  // frame ids, innermost first; stack 0 is empty
    std::vector<Segment> segments;
    std::vector<Block> blocks;
    std::vector<TraceEntry> entries;  // each device's entries in recorded order, devices in turn
    std::vector<int64_t> streams{0};  // the streams entries name (cudaStream_t values); 0 first
    std::vector<Annotation> annotations;
    std::vector<std::pair<std::string, std::string>> allocatorSettings;  // as text
    int deviceTraces = 0;   // device_traces lists (0 in the bare-list form)
    bool bareList = false;  // torch.cuda.memory_snapshot()'s list of segments

    std::string_view text(uint32_t id) const { return strings[id]; }
    // "file.py:12 name": the innermost Python frame of a stack outside torch and installed
    // packages (the user's line), else the innermost Python frame; in a stack of C++
    // frames only, the operator called and its caller ("aten::mm in
    // torch::nn::LinearImpl::forward", native_frames.h); else the innermost frame; "" for
    // no frames.
    std::string place(StackId stack) const;
    // "file.py:12 name" of the line that called the innermost nn.Module the stack is in (the
    // first Python frame outside torch past its module.py call frames), e.g. the line
    // `self.attn(x)`; "" when the stack passes through no module call. Frames name
    // functions and lines, not module classes: the call site is what tells modules apart.
    std::string moduleCall(StackId stack) const;
    bool isPython(const Frame& frame) const { return text(frame.filename).ends_with(".py"); }
    // A stack as a reader wants it: its Python frames, innermost first, as "path:line
    // name" (at most `pythonFrames`), then one line folding the C++ frames ("+ 14 C++
    // frames"); when none is Python, the C++ functions by name, past the recorder's and
    // the dispatcher's wrappers.
    std::vector<std::string> readableStack(StackId stack, size_t pythonFrames = 12) const;
};

struct LoadedSnapshot
{
    std::optional<SnapshotModel> model;
    std::string error;  // one line when model is empty
};

// `bytes` is the whole file; nothing in it is executed (core/snapshot/pickle_reader.h).
// `progress` hears the bytes read so far, as PickleReadOptions::progress does.
LoadedSnapshot readSnapshot(std::string_view bytes,
                            const std::function<void(size_t)>& progress = {});
LoadedSnapshot loadSnapshotFile(const std::filesystem::path& path);
// Whether a file starts as a pickle (a snapshot whatever its name says).
bool isSnapshotFile(const std::filesystem::path& path);

}  // namespace kinetoscope::snapshot
