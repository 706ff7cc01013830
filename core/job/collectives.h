#pragma once
// The collectives of a job, matched across ranks.
//
// Each rank's collectives are read from its trace: on a GPU, every NCCL/RCCL kernel, named
// by the `nccl:*` annotation that launched it (an all-to-all runs as SendRecv kernels); on
// a CPU-only job, every `gloo:*` span. No trace here carries a sequence number, so the
// n-th collective of a (process group, kind) on one rank is matched with the n-th of the
// same on every other rank; the message sizes are compared to check the pairing.
//
// Per matched collective (the TensorBoard plugin's definitions): the *transfer* is the
// shortest duration across ranks, what the data movement itself needs once everyone has
// arrived; each rank's *wait* is its duration beyond that, time spent for the slowest to
// arrive. Bandwidths follow nccl-tests: the algorithm bandwidth is the message size over
// the transfer, the bus bandwidth scales it by what each rank must send (all-reduce
// 2(n-1)/n; all-gather, reduce-scatter, all-to-all (n-1)/n; broadcast, reduce, send/recv 1).
//
// Clocks of different hosts are not trusted: every rank leaves a collective at about the
// same moment, so the median difference of the collectives' ends is each rank's clock
// offset; arrivals are compared on the aligned clock.
#include "core/trace/trace_model.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace kinetoscope::job {

enum class CollectiveKind : uint8_t
{
    AllReduce,
    AllGather,
    ReduceScatter,
    AllToAll,
    Broadcast,
    Reduce,
    SendRecv,
    Barrier,
    Other,
};
const char* collectiveKindName(CollectiveKind kind);  // "all_reduce", ...
// From an annotation ("nccl:all_reduce", "gloo:_allgather_base") or a kernel name
// ("ncclDevKernel_AllGather_RING_LL"); Other when neither says.
CollectiveKind collectiveKindOf(std::string_view name);
// nccl-tests' bus-bandwidth factor for a group of `groupSize` ranks.
double busBandwidthFactor(CollectiveKind kind, int groupSize);
// Bytes per element of a profiler dtype name ("float", "c10::BFloat16", "long"); 0 unknown.
int dtypeBytes(std::string_view dtype);

// One collective as one rank saw it.
struct RankCollective
{
    trace::EventId event;   // the kernel, or the gloo span on a CPU-only job
    trace::EventId launch;  // the annotation that launched it (invalid when none)
    CollectiveKind kind = CollectiveKind::Other;
    std::string group;   // process group name; "" when the trace names none
    int groupSize = -1;  // from the trace, else -1
    int64_t startNs = 0, durationNs = 0;
    int64_t hostNs = 0;    // when the host issued it (the step it belongs to)
    int64_t bytes = -1;    // message size as nccl-tests counts it; -1 when unknown
    bool onDevice = true;  // a kernel (NCCL/RCCL), not a host span (gloo)
};

// Every collective of one trace, in time order.
std::vector<RankCollective> rankCollectives(const trace::TraceModel& model);

struct MatchedCollective
{
    CollectiveKind kind = CollectiveKind::Other;
    std::string group;
    int ordinal = 0;  // the n-th of its (group, kind), from 0
    int groupSize = 0;
    int64_t bytes = -1;                               // rank 0's message size
    bool sizesAgree = true;                           // every rank gave the same size (or none)
    std::vector<RankCollective> ranks;                // each rank's side, by rank index in the job
    int64_t transferNs = 0;                           // the shortest duration across ranks
    std::vector<int64_t> waitNs;                      // per rank: duration - transfer
    int lastToArrive = -1;                            // rank index whose aligned start is latest
    double algorithmBytesPerS = 0, busBytesPerS = 0;  // 0 when the size is unknown
    std::optional<int64_t> step;  // rank 0's step number at issue, when it has one
};

struct CollectiveMatch
{
    std::vector<MatchedCollective> matched;  // in rank 0's order
    std::vector<size_t> countPerRank;        // collectives each rank has
    size_t unmatched = 0;                    // beyond the count every rank shares
    size_t sizeMismatches = 0;               // matched collectives whose sizes differ
    std::vector<double> clockOffsetNs;       // per rank, against rank 0 (aligned = raw - offset)
    double clockSpreadNs = 0;                // the largest offset minus the smallest
    std::vector<int> lastToArriveCount;      // per rank: collectives it arrived last at
};

// A rank's numbered steps by host time.
struct RankSteps
{
    std::vector<std::pair<int64_t, int64_t>> hostRanges;  // [begin, end) per step
    std::vector<int64_t> numbers;                         // the step number of each range
    std::optional<int64_t> stepAt(int64_t hostNs) const;
};
// `collectives[r]` is rank index r's list, `steps[r]` its steps; `worldSize` is the group
// size where a collective's own is not recorded (<= 0: the number of ranks).
CollectiveMatch matchCollectives(const std::vector<std::span<const RankCollective>>& collectives,
                                 const std::vector<RankSteps>& steps, int worldSize);

}  // namespace kinetoscope::job
