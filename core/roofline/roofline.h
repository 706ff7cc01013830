#pragma once
// The roofline of a trace: per op group (op name + input shapes) and per kernel, the work
// it did (op_work.h), the device time it took, what that achieves (TFLOP/s, GB/s), the
// arithmetic intensity, which roof bounds it and how close to that roof it runs, against
// the peaks of the device that ran it (device_peaks.h).
//
// A kernel's time is charged to the outermost catalogued op around the op that launched it
// (aten::linear > aten::addmm is one call of aten::linear), so that no work is counted
// twice and a composite op (attention on the math path) is judged whole. A compiled graph's
// Triton kernel is charged to its launch op (catalogued, named after the kernel), not to the
// compiled region around it. A kernel under no catalogued op is not rated. Times are int64
// nanoseconds; rates per second.
#include "core/roofline/device_peaks.h"
#include "core/roofline/op_work.h"
#include "core/trace/trace_model.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kinetoscope::roofline {

struct RooflineOptions
{
    // The steady steps (sorted, disjoint, half-open [begin, end) ns): each row also sums
    // the device time of the calls that start inside them. Empty: no window figures.
    std::vector<std::pair<int64_t, int64_t>> window;
    // Does this kernel run on matrix units (Tensor Cores)? Decides TF32 over the fp32 SIMT
    // roof for fp32 matrix ops. Null: matrix ops in fp32 are judged against the SIMT roof.
    bool (*onMatrixUnits)(std::string_view kernelName) = nullptr;
};

enum class Bound : uint8_t
{
    Compute,
    Memory,
    Unknown
};
const char* boundName(Bound bound);  // "compute", "memory", "unknown"

// The two roofs one row is judged against, for its kind and precision.
struct Roofs
{
    double tflops = 0;  // 0: no peak known for this precision on this device
    double gbps = 0;    // 0: the device's bandwidth is not known
};
Roofs roofsFor(const DevicePeaks& peaks, OpKind kind, Precision precision, bool onMatrixUnits);

// What a row's figures say against its roofs. All rates are per second of device time.
struct Rating
{
    double achievedTflops = 0;
    double achievedGbps = 0;
    double intensity = 0;  // FLOPs per byte moved
    Roofs roofs;
    Bound bound = Bound::Unknown;  // which roof caps it at its intensity (unknown without peaks)
    double attainableTflops = 0;   // min(compute roof, intensity x bandwidth)
    double shareOfRoof = 0;        // achieved over attainable, 0-1 (above 1: see abovePeak)
    bool abovePeak = false;        // a measured rate above its roof: the model or the peak is wrong
};
Rating rate(double flops, double bytes, int64_t deviceNs, const Roofs& roofs);

struct OpRoofline
{
    std::string name;
    std::string inputShapes;  // as recorded ("[[4, 8], [8, 16]]"); "" when not recorded
    OpKind kind = OpKind::Elementwise;
    Precision precision = Precision::Unknown;
    int64_t calls = 0;
    double flopsPerCall = 0;
    double bytesPerCall = 0;
    int64_t deviceNs = 0;        // kernels charged to these calls, whole trace
    int64_t matrixUnitNs = 0;    // ... of it on matrix units (onMatrixUnits)
    int64_t windowCalls = 0;     // calls starting in the steady steps
    int64_t windowDeviceNs = 0;  // their kernels' time
    Rating rating;
    std::string unmodelled;  // why there are no figures (op_work.h); "" when rated
    std::string note;        // what a reader must know (above a roof, estimated peaks)
    // A compiled graph's kernel launch (op_work.h): the source ops its kernel fused, as its
    // name says ("add · mean · mul · pow · rsqrt"); "" for any other op.
    std::string fusedOps;
    trace::EventId longest;                                // the call with the most device time
    std::vector<std::pair<std::string, int64_t>> kernels;  // by time, at most 5
    bool modelled() const { return unmodelled.empty(); }
};

struct KernelRoofline
{
    std::string name;
    int64_t calls = 0;       // every call
    int64_t deviceNs = 0;    // every call
    int64_t ratedCalls = 0;  // calls that were their op call's only kernel: those carry
    int64_t ratedNs = 0;     // the op call's whole work, and so are rated
    double flops = 0;        // over the rated calls
    double bytes = 0;
    OpKind kind = OpKind::Elementwise;
    Precision precision = Precision::Unknown;
    std::string op;        // the catalogued op of most of its rated time
    std::string fusedOps;  // a compiled kernel: the source ops it fused (as OpRoofline's)
    Rating rating;
};

struct Roofline
{
    std::string device;  // the trace's name for it ("NVIDIA H100")
    int deviceIndex = -1;
    std::optional<DevicePeaks> peaks;     // nullopt: no device described
    std::vector<OpRoofline> ops;          // catalogued op groups with device time, by it
    std::vector<KernelRoofline> kernels;  // kernels with rated calls, by rated time
    int64_t kernelNs = 0;                 // all kernel time
    int64_t chargedNs = 0;                // kernel time under a catalogued op
    int64_t ratedNs = 0;                  // ... under a modelled call
    bool empty() const { return ops.empty(); }
};

// The outermost catalogued op around the op that launched a kernel (invalid if none): the
// call its time is charged to. Remembers which names are catalogued.
class CatalogueOwners
{
public:
    explicit CatalogueOwners(const trace::TraceModel& model);
    trace::EventId ownerOf(trace::EventId kernel);
    trace::EventId ownerOfOp(trace::EventId op);  // of the kernels this op launched

private:
    const trace::TraceModel& m_model;
    std::vector<int8_t> m_catalogued;  // per interned name: -1 not asked yet, 0 no, 1 yes
};

Roofline computeRoofline(const trace::TraceModel& model, const RooflineOptions& options = {});

// The row for an op group, or null.
const OpRoofline* findOp(const Roofline& roofline, std::string_view name,
                         std::string_view inputShapes);

}  // namespace kinetoscope::roofline
