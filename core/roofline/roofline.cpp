#include "core/roofline/roofline.h"

#include "core/compiled/kernel_name.h"
#include "core/trace/event_args.h"

#include <algorithm>
#include <functional>
#include <map>
#include <tuple>
#include <unordered_map>

namespace kinetoscope::roofline {

using trace::Category;
using trace::Event;
using trace::EventId;
using trace::StringId;
using trace::TraceModel;

namespace {

bool inWindow(const std::vector<std::pair<int64_t, int64_t>>& window, int64_t t)
{
    const auto it =
        std::upper_bound(window.begin(), window.end(), t,
                         [](int64_t time, const auto& range) { return time < range.first; });
    return it != window.begin() && t < std::prev(it)->second;
}

// Per-name answers, computed once per string id.
class NameFlags
{
public:
    template <typename Predicate>
    NameFlags(const TraceModel& model, Predicate predicate)
        : m_model(model), m_flags(model.strings().size(), kUnknown)
    {
        m_predicate = [predicate](std::string_view name) { return predicate(name); };
    }
    bool operator()(StringId id)
    {
        if (id.value >= m_flags.size())
            return m_predicate(m_model.text(id));
        int8_t& flag = m_flags[id.value];
        if (flag == kUnknown)
            flag = m_predicate(m_model.text(id)) ? 1 : 0;
        return flag == 1;
    }

private:
    static constexpr int8_t kUnknown = -1;
    const TraceModel& m_model;
    std::vector<int8_t> m_flags;
    std::function<bool(std::string_view)> m_predicate;
};

// The device the kernels ran on: the one most of them ran on, described by the trace's
// deviceProperties entry of that index (or its only entry).
const trace::DeviceInfo* kernelDevice(const TraceModel& model, int& index)
{
    std::map<int64_t, int64_t> kernelsPerDevice;
    for (const trace::Track& t : model.tracks())
        if (t.kind == trace::TrackKind::GpuStream)
            kernelsPerDevice[t.pid] += t.eventCount;
    index = -1;
    int64_t most = -1;
    for (const auto& [device, count] : kernelsPerDevice)
        if (count > most) {
            most = count;
            index = static_cast<int>(device);
        }
    const auto& devices = model.metadata().devices;
    for (const trace::DeviceInfo& d : devices)
        if (d.id == index)
            return &d;
    if (devices.size() == 1)
        return &devices.front();
    return nullptr;
}

struct CallTotals
{
    int64_t ns = 0;
    int64_t matrixNs = 0;
    uint32_t kernels = 0;
    StringId kernelName;  // of its (first) kernel
};

struct GroupTotals
{
    StringId name;
    StringId shapes;
    int64_t calls = 0;
    int64_t ns = 0;
    int64_t matrixNs = 0;
    int64_t windowCalls = 0;
    int64_t windowNs = 0;
    EventId first;
    EventId longest;
    int64_t longestNs = -1;
    std::unordered_map<uint32_t, int64_t> kernelNs;  // by kernel name id
};

std::string aboveNote(const Rating& r)
{
    if (!r.abovePeak)
        return {};
    if (r.roofs.tflops > 0 && r.achievedTflops > r.roofs.tflops)
        return "above the compute roof: the FLOP model counts more work than the kernels did, or "
               "the "
               "device's peak is too low";
    return "above the memory roof: part of the data came from cache (L2) rather than device "
           "memory, or "
           "the byte model counts more traffic than there was";
}

// The source ops a compiled kernel fused, from its name; "" for any other name.
std::string fusedOpsOf(std::string_view name)
{
    const auto parsed = compiled::parseCompiledKernelName(name);
    return parsed ? compiled::fusedOpsText(*parsed) : std::string();
}

}  // namespace

const char* boundName(Bound bound)
{
    switch (bound) {
    case Bound::Compute:
        return "compute";
    case Bound::Memory:
        return "memory";
    case Bound::Unknown:
        break;
    }
    return "unknown";
}

Roofs roofsFor(const DevicePeaks& peaks, OpKind kind, Precision precision, bool onMatrixUnits)
{
    Roofs roofs;
    roofs.gbps = peaks.memoryGBps;
    if (!isMatrixKind(kind)) {
        roofs.tflops = precision == Precision::Fp64 ? peaks.fp64Tflops : peaks.fp32Tflops;
        return roofs;
    }
    // A unit the device lacks (0) leaves the op on the next one down.
    switch (precision) {
    case Precision::Fp8:
        roofs.tflops = peaks.fp8Tflops > 0    ? peaks.fp8Tflops
                       : peaks.fp16Tflops > 0 ? peaks.fp16Tflops
                                              : peaks.fp32Tflops;
        break;
    case Precision::Fp16:
        roofs.tflops = peaks.fp16Tflops > 0 ? peaks.fp16Tflops : peaks.fp32Tflops;
        break;
    case Precision::Bf16:
        // bf16 matrix units came with TF32 (Ampere, CDNA2): Volta's and Turing's Tensor
        // Cores take fp16 only, and a bf16 GEMM there runs at about the fp32 rate.
        roofs.tflops =
            peaks.fp16Tflops > 0 && peaks.tf32Tflops > 0 ? peaks.fp16Tflops : peaks.fp32Tflops;
        break;
    case Precision::Fp32:
        // No fused attention kernel takes fp32 on the matrix units (FlashAttention refuses
        // fp32; the memory-efficient kernels run it on SIMT): its roof is the vector one.
        roofs.tflops = onMatrixUnits && peaks.tf32Tflops > 0 && kind != OpKind::Attention
                           ? peaks.tf32Tflops
                           : peaks.fp32Tflops;
        break;
    case Precision::Fp64:
        roofs.tflops = peaks.fp64Tflops;
        break;
    case Precision::Int8:
    case Precision::Int:
    case Precision::Unknown:
        roofs.tflops = 0;
        break;
    }
    return roofs;
}

Rating rate(double flops, double bytes, int64_t deviceNs, const Roofs& roofs)
{
    Rating r;
    r.roofs = roofs;
    if (deviceNs <= 0)
        return r;
    const double seconds = static_cast<double>(deviceNs) * 1e-9;
    r.achievedTflops = flops / seconds / 1e12;
    r.achievedGbps = bytes / seconds / 1e9;
    r.intensity = bytes > 0 ? flops / bytes : 0;
    if (roofs.tflops > 0 && roofs.gbps > 0) {
        const double memoryRoofTflops = r.intensity * roofs.gbps / 1e3;  // FLOP/B x GB/s = GFLOP/s
        r.bound = memoryRoofTflops >= roofs.tflops ? Bound::Compute : Bound::Memory;
        r.attainableTflops = std::min(roofs.tflops, memoryRoofTflops);
        if (r.attainableTflops > 0)
            r.shareOfRoof = r.achievedTflops / r.attainableTflops;
        else if (r.bound == Bound::Memory)
            r.shareOfRoof = r.achievedGbps / roofs.gbps;  // no FLOPs: a pure data move
    } else if (roofs.tflops > 0) {
        r.attainableTflops = roofs.tflops;
        r.shareOfRoof = r.achievedTflops / roofs.tflops;
    }
    r.abovePeak = (roofs.tflops > 0 && r.achievedTflops > roofs.tflops) ||
                  (roofs.gbps > 0 && r.achievedGbps > roofs.gbps);
    return r;
}

CatalogueOwners::CatalogueOwners(const TraceModel& model)
    : m_model(model), m_catalogued(model.strings().size(), -1)
{
}

EventId CatalogueOwners::ownerOf(EventId kernel)
{
    return ownerOfOp(m_model.event(kernel).op);
}

EventId CatalogueOwners::ownerOfOp(EventId op)
{
    EventId owner;
    for (EventId a = op; a.valid(); a = m_model.event(a).parent) {
        const Event& e = m_model.event(a);
        if (e.category != Category::CpuOp)
            continue;
        bool catalogued = false;
        if (e.name.value < m_catalogued.size()) {
            int8_t& flag = m_catalogued[e.name.value];
            if (flag < 0)
                flag = inCatalogue(m_model.text(e.name)) ? 1 : 0;
            catalogued = flag == 1;
        } else {
            catalogued = inCatalogue(m_model.text(e.name));
        }
        if (catalogued)
            owner = a;
    }
    return owner;
}

Roofline computeRoofline(const TraceModel& model, const RooflineOptions& options)
{
    Roofline result;
    const trace::DeviceInfo* device = kernelDevice(model, result.deviceIndex);
    if (device) {
        result.device = device->name;
        result.peaks = peaksFor(*device);
    }
    CatalogueOwners owners(model);
    NameFlags matrixKernel(model, [&](std::string_view name) {
        return options.onMatrixUnits && options.onMatrixUnits(name);
    });

    // Each kernel's time, charged to the outermost catalogued op around its launch.
    std::unordered_map<uint32_t, EventId> ownerOfOp;
    std::unordered_map<uint32_t, CallTotals> calls;
    std::unordered_map<uint32_t, std::pair<int64_t, int64_t>> kernelTotals;  // name -> calls, ns
    const auto events = model.events();
    for (const Event& e : events) {
        if (e.category != Category::Kernel)
            continue;
        result.kernelNs += e.durationNs;
        auto& [kernelCalls, kernelNs] = kernelTotals[e.name.value];
        ++kernelCalls;
        kernelNs += e.durationNs;
        if (!e.op.valid())
            continue;
        auto [it, fresh] = ownerOfOp.try_emplace(e.op.value);
        if (fresh)
            it->second = owners.ownerOfOp(e.op);
        if (!it->second.valid())
            continue;
        result.chargedNs += e.durationNs;
        CallTotals& call = calls[it->second.value];
        call.ns += e.durationNs;
        call.matrixNs += matrixKernel(e.name) ? e.durationNs : 0;
        if (call.kernels++ == 0)
            call.kernelName = e.name;
    }

    // The calls grouped by op name and input shapes.
    std::map<std::pair<uint32_t, uint32_t>, GroupTotals> groups;
    std::unordered_map<uint32_t, GroupTotals*> groupOfCall;
    for (const auto& [owner, call] : calls) {
        const EventId id{owner};
        const Event& op = model.event(id);
        const StringId shapes = model.inputShapes(id);
        GroupTotals& g = groups[{op.name.value, shapes.valid() ? shapes.value : 0}];
        g.name = op.name;
        g.shapes = shapes;
        ++g.calls;
        g.ns += call.ns;
        g.matrixNs += call.matrixNs;
        if (!options.window.empty() && inWindow(options.window, op.startNs)) {
            ++g.windowCalls;
            g.windowNs += call.ns;
        }
        if (call.ns > g.longestNs) {
            g.longestNs = call.ns;
            g.longest = id;
        }
        if (!g.first.valid() || op.startNs < model.event(g.first).startNs)
            g.first = id;
        groupOfCall[owner] = &g;
    }
    for (const Event& e : events) {
        if (e.category != Category::Kernel || !e.op.valid())
            continue;
        const EventId owner = ownerOfOp[e.op.value];
        if (owner.valid())
            groupOfCall[owner.value]->kernelNs[e.name.value] += e.durationNs;
    }

    // Each group's work, from its first call's recorded arguments.
    std::vector<EventId> firsts;
    firsts.reserve(groups.size());
    for (const auto& [key, g] : groups)
        firsts.push_back(g.first);
    const auto args = trace::readArgsOf(model, firsts);
    std::unordered_map<const GroupTotals*, size_t> rowOf;
    size_t index = 0;
    for (auto& [key, g] : groups) {
        OpRoofline row;
        row.name = std::string(model.text(g.name));
        row.inputShapes = g.shapes.valid() ? std::string(model.text(g.shapes)) : std::string();
        const std::optional<std::vector<trace::Arg>>& a = args[index++];
        std::vector<OpInput> inputs = a ? opInputs(*a) : std::vector<OpInput>{};
        if (inputs.empty() && !row.inputShapes.empty())
            inputs = opInputsFromDims(row.inputShapes);
        const std::optional<OpWork> work = workOf(row.name, inputs);
        row.calls = g.calls;
        row.deviceNs = g.ns;
        row.matrixUnitNs = g.matrixNs;
        row.windowCalls = g.windowCalls;
        row.windowDeviceNs = g.windowNs;
        row.longest = g.longest;
        row.fusedOps = fusedOpsOf(row.name);
        if (work) {
            row.kind = work->kind;
            row.precision = work->precision;
            row.unmodelled = work->unmodelled;
            if (work->modelled()) {
                row.flopsPerCall = work->flops;
                row.bytesPerCall = work->bytes;
            }
        } else {
            row.unmodelled = "not in the catalogue";
        }
        if (row.modelled()) {
            const bool onMatrix = 2 * g.matrixNs > g.ns;
            const Roofs roofs =
                result.peaks ? roofsFor(*result.peaks, row.kind, row.precision, onMatrix) : Roofs{};
            row.rating = rate(row.flopsPerCall * double(row.calls),
                              row.bytesPerCall * double(row.calls), row.deviceNs, roofs);
            row.note = aboveNote(row.rating);
            result.ratedNs += row.deviceNs;
        }
        std::vector<std::pair<std::string, int64_t>> kernels;
        kernels.reserve(g.kernelNs.size());
        for (const auto& [name, ns] : g.kernelNs)
            kernels.emplace_back(std::string(model.text(StringId{name})), ns);
        std::sort(kernels.begin(), kernels.end(), [](const auto& x, const auto& y) {
            return x.second != y.second ? x.second > y.second : x.first < y.first;
        });
        kernels.resize(std::min<size_t>(kernels.size(), 5));
        row.kernels = std::move(kernels);
        rowOf[&g] = result.ops.size();
        result.ops.push_back(std::move(row));
    }

    // A kernel that was its op call's only kernel did that call's whole work: rated.
    struct KernelAcc
    {
        int64_t calls = 0, ns = 0, matrixNs = 0;
        double flops = 0, bytes = 0;
        std::map<size_t, int64_t> nsByRow;
    };
    std::unordered_map<uint32_t, KernelAcc> rated;
    for (const auto& [owner, call] : calls) {
        const OpRoofline& row = result.ops[rowOf[groupOfCall[owner]]];
        if (call.kernels != 1 || !row.modelled())
            continue;
        KernelAcc& k = rated[call.kernelName.value];
        ++k.calls;
        k.ns += call.ns;
        k.matrixNs += call.matrixNs;
        k.flops += row.flopsPerCall;
        k.bytes += row.bytesPerCall;
        k.nsByRow[rowOf[groupOfCall[owner]]] += call.ns;
    }
    for (const auto& [name, k] : rated) {
        KernelRoofline row;
        row.name = std::string(model.text(StringId{name}));
        row.calls = kernelTotals[name].first;
        row.deviceNs = kernelTotals[name].second;
        row.ratedCalls = k.calls;
        row.ratedNs = k.ns;
        row.flops = k.flops;
        row.bytes = k.bytes;
        const auto top =
            std::max_element(k.nsByRow.begin(), k.nsByRow.end(),
                             [](const auto& x, const auto& y) { return x.second < y.second; });
        const OpRoofline& op = result.ops[top->first];
        row.op = op.name;
        row.fusedOps = fusedOpsOf(row.name);
        row.kind = op.kind;
        row.precision = op.precision;
        const Roofs roofs =
            result.peaks ? roofsFor(*result.peaks, row.kind, row.precision, 2 * k.matrixNs > k.ns)
                         : Roofs{};
        row.rating = rate(row.flops, row.bytes, row.ratedNs, roofs);
        result.kernels.push_back(std::move(row));
    }

    std::sort(result.ops.begin(), result.ops.end(), [](const OpRoofline& x, const OpRoofline& y) {
        if (x.deviceNs != y.deviceNs)
            return x.deviceNs > y.deviceNs;
        return std::tie(x.name, x.inputShapes) < std::tie(y.name, y.inputShapes);
    });
    std::sort(result.kernels.begin(), result.kernels.end(),
              [](const KernelRoofline& x, const KernelRoofline& y) {
                  return x.ratedNs != y.ratedNs ? x.ratedNs > y.ratedNs : x.name < y.name;
              });
    return result;
}

const OpRoofline* findOp(const Roofline& roofline, std::string_view name,
                         std::string_view inputShapes)
{
    for (const OpRoofline& op : roofline.ops)
        if (op.name == name && op.inputShapes == inputShapes)
            return &op;
    return nullptr;
}

}  // namespace kinetoscope::roofline
