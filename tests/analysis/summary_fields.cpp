#include "tests/analysis/summary_fields.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

namespace kinetoscope::test {

namespace {

using namespace kinetoscope::analysis;
namespace roof = kinetoscope::roofline;

using Lines = std::vector<std::string>;

// Scalars: integers in decimal, floating point in hexadecimal (every bit), enums by value,
// strings quoted, ids by index.
template <typename T>
struct IsId : std::false_type
{
};
template <typename Tag>
struct IsId<trace::Id<Tag>> : std::true_type
{
};

template <typename T>
std::string scalarText(const T& value)
{
    if constexpr (std::is_same_v<T, bool>) {
        return value ? "true" : "false";
    } else if constexpr (std::is_floating_point_v<T>) {
        char buffer[64];
        std::snprintf(buffer, sizeof buffer, "%a", static_cast<double>(value));
        return buffer;
    } else if constexpr (std::is_integral_v<T>) {
        return std::to_string(value);
    } else if constexpr (std::is_enum_v<T>) {
        return std::to_string(static_cast<long long>(value));
    } else if constexpr (std::is_same_v<T, std::string>) {
        return '"' + value + '"';
    } else if constexpr (IsId<T>::value) {
        return std::to_string(value.value);
    } else {
        static_assert(!sizeof(T), "summary_fields.cpp: no writer for this type");
    }
}

// The containers (declared first: they call each other and the structures' writers).
template <typename T>
void put(Lines& out, const std::string& path, const T& value);
template <typename T>
void put(Lines& out, const std::string& path, const std::vector<T>& values);
template <typename T, size_t N>
void put(Lines& out, const std::string& path, const std::array<T, N>& values);
template <typename T, size_t N>
void put(Lines& out, const std::string& path, const T (&values)[N]);
template <typename T>
void put(Lines& out, const std::string& path, const std::optional<T>& value);
template <typename A, typename B>
void put(Lines& out, const std::string& path, const std::pair<A, B>& value);
template <typename K, typename V>
void put(Lines& out, const std::string& path, const std::map<K, V>& values);

// The structures.
void put(Lines& out, const std::string& path, const Step& value);
void put(Lines& out, const std::string& path, const StepDetection& value);
void put(Lines& out, const std::string& path, const OneOffCost& value);
void put(Lines& out, const std::string& path, const QualityIssue& value);
void put(Lines& out, const std::string& path, const WindowClass& value);
void put(Lines& out, const std::string& path, const CategoryTimes& value);
void put(Lines& out, const std::string& path, const Breakdown& value);
void put(Lines& out, const std::string& path, const BreakdownResult& value);
void put(Lines& out, const std::string& path, const GpuMetrics& value);
void put(Lines& out, const std::string& path, const GapTotals& value);
void put(Lines& out, const std::string& path, const IdleGap& value);
void put(Lines& out, const std::string& path, const IdleGaps& value);
void put(Lines& out, const std::string& path, const Distribution& value);
void put(Lines& out, const std::string& path, const LaunchStats& value);
void put(Lines& out, const std::string& path, const SyncStats& value);
void put(Lines& out, const std::string& path, const UtilizationSeries& value);
void put(Lines& out, const std::string& path, const OpStats& value);
void put(Lines& out, const std::string& path, const OpTables& value);
void put(Lines& out, const std::string& path, const KernelStats& value);
void put(Lines& out, const std::string& path, const MemcpyStats& value);
void put(Lines& out, const std::string& path, const MemoryPoint& value);
void put(Lines& out, const std::string& path, const OpAllocation& value);
void put(Lines& out, const std::string& path, const Allocation& value);
void put(Lines& out, const std::string& path, const LiveAtPeak& value);
void put(Lines& out, const std::string& path, const DeviceMemory& value);
void put(Lines& out, const std::string& path, const NamedTime& value);
void put(Lines& out, const std::string& path, const ModuleNode& value);
void put(Lines& out, const std::string& path, const ModuleTree& value);
void put(Lines& out, const std::string& path, const roof::DevicePeaks& value);
void put(Lines& out, const std::string& path, const roof::Roofs& value);
void put(Lines& out, const std::string& path, const roof::Rating& value);
void put(Lines& out, const std::string& path, const roof::OpRoofline& value);
void put(Lines& out, const std::string& path, const roof::KernelRoofline& value);
void put(Lines& out, const std::string& path, const roof::Roofline& value);
void put(Lines& out, const std::string& path, const RoofVerdict& value);
void put(Lines& out, const std::string& path, const CausalModel& value);
void put(Lines& out, const std::string& path, const HostOpTime& value);
void put(Lines& out, const std::string& path, const HostProfile& value);

template <typename T>
void put(Lines& out, const std::string& path, const T& value)
{
    out.push_back(path + " = " + scalarText(value));
}

template <typename T>
void put(Lines& out, const std::string& path, const std::vector<T>& values)
{
    out.push_back(path + ".size = " + std::to_string(values.size()));
    for (size_t i = 0; i < values.size(); ++i)
        put(out, path + '[' + std::to_string(i) + ']', values[i]);
}

template <typename T, size_t N>
void put(Lines& out, const std::string& path, const std::array<T, N>& values)
{
    for (size_t i = 0; i < N; ++i)
        put(out, path + '[' + std::to_string(i) + ']', values[i]);
}

template <typename T, size_t N>
void put(Lines& out, const std::string& path, const T (&values)[N])
{
    for (size_t i = 0; i < N; ++i)
        put(out, path + '[' + std::to_string(i) + ']', values[i]);
}

template <typename T>
void put(Lines& out, const std::string& path, const std::optional<T>& value)
{
    if (value)
        put(out, path, *value);
    else
        out.push_back(path + " = none");
}

template <typename A, typename B>
void put(Lines& out, const std::string& path, const std::pair<A, B>& value)
{
    put(out, path + ".first", value.first);
    put(out, path + ".second", value.second);
}

template <typename K, typename V>
void put(Lines& out, const std::string& path, const std::map<K, V>& values)
{
    out.push_back(path + ".size = " + std::to_string(values.size()));
    size_t i = 0;
    for (const auto& [key, value] : values) {
        const std::string entry = path + '{' + std::to_string(i++) + '}';
        put(out, entry + ".key", key);
        put(out, entry + ".value", value);
    }
}

// One line per field of `value`, named as the member is.
#define FIELD(member) put(out, path + "." #member, value.member)

void put(Lines& out, const std::string& path, const Step& value)
{
    FIELD(name);
    FIELD(beginNs);
    FIELD(endNs);
    FIELD(hostBeginNs);
    FIELD(hostEndNs);
    FIELD(deviceActivities);
}

void put(Lines& out, const std::string& path, const StepDetection& value)
{
    FIELD(steps);
    FIELD(fromMarkers);
    FIELD(source);
    FIELD(marker);
    FIELD(foundBy);
    FIELD(droppedIncompleteSteps);
}

void put(Lines& out, const std::string& path, const OneOffCost& value)
{
    FIELD(what);
    FIELD(call);
    FIELD(beforeWindow);
    FIELD(beginNs);
    FIELD(endNs);
}

void put(Lines& out, const std::string& path, const QualityIssue& value)
{
    FIELD(code);
    FIELD(message);
    FIELD(count);
}

void put(Lines& out, const std::string& path, const WindowClass& value)
{
    FIELD(kind);
    FIELD(kindEvidence);
    FIELD(stepSource);
    FIELD(foundBy);
    FIELD(stepMarker);
    FIELD(allSteps);
    FIELD(roles);
    FIELD(oneOffs);
    FIELD(oneOffNs);
    FIELD(windowNs);
    FIELD(deviceActivities);
    FIELD(kernelLaunchCalls);
    FIELD(launchesWithoutActivity);
    FIELD(graphLaunches);
    FIELD(graphCaptureCalls);
    FIELD(captureWindow);
    FIELD(graphReplay);
    FIELD(deviceActivityMissing);
    FIELD(countersOnly);
    FIELD(cpuOnly);
    FIELD(nearlyEmpty);
    FIELD(sparse);
    FIELD(warmUpDominated);
    FIELD(sampled);
    FIELD(hostOpsRecorded);
    FIELD(quality);
}

void put(Lines& out, const std::string& path, const CategoryTimes& value)
{
    FIELD(ns);
    FIELD(totalNs);
}

void put(Lines& out, const std::string& path, const Breakdown& value)
{
    FIELD(perStep);
    FIELD(averageNs);
    FIELD(averageTotalNs);
}

void put(Lines& out, const std::string& path, const BreakdownResult& value)
{
    FIELD(all);
    FIELD(perDevice);
}

void put(Lines& out, const std::string& path, const GpuMetrics& value)
{
    FIELD(device);
    FIELD(kernelCount);
    FIELD(kernelTimeNs);
    FIELD(utilization);
    FIELD(smEfficiency);
    FIELD(achievedOccupancy);
    FIELD(tensorCoreShare);
}

void put(Lines& out, const std::string& path, const GapTotals& value)
{
    FIELD(hostWaitNs);
    FIELD(shortNs);
    FIELD(otherNs);
}

void put(Lines& out, const std::string& path, const IdleGap& value)
{
    FIELD(device);
    FIELD(stream);
    FIELD(beginNs);
    FIELD(endNs);
    FIELD(kind);
}

void put(Lines& out, const std::string& path, const IdleGaps& value)
{
    FIELD(perStep);
    FIELD(hostWaitIdleNsPerStep);
    FIELD(total);
    FIELD(perStream);
    FIELD(largest);
}

void put(Lines& out, const std::string& path, const Distribution& value)
{
    FIELD(count);
    FIELD(mean);
    FIELD(stddev);
    FIELD(min);
    FIELD(p50);
    FIELD(p95);
    FIELD(p99);
    FIELD(max);
}

void put(Lines& out, const std::string& path, const LaunchStats& value)
{
    FIELD(kernelsPerStep);
    FIELD(shortKernelShare);
    FIELD(launchDelay);
    FIELD(clockSkewed);
    FIELD(launchCallDuration);
}

void put(Lines& out, const std::string& path, const SyncStats& value)
{
    FIELD(syncCallNsPerStep);
    FIELD(syncCallsPerStep);
    FIELD(scalarReadNsPerStep);
    FIELD(scalarReadsPerStep);
}

void put(Lines& out, const std::string& path, const UtilizationSeries& value)
{
    FIELD(beginNs);
    FIELD(bucketNs);
    FIELD(gpuBusy);
    FIELD(cpuBusy);
}

void put(Lines& out, const std::string& path, const OpStats& value)
{
    FIELD(name);
    FIELD(inputShapes);
    FIELD(stack);
    FIELD(sourceLine);
    FIELD(calls);
    FIELD(selfCpuNs);
    FIELD(cpuTotalNs);
    FIELD(selfDeviceNs);
    FIELD(deviceTotalNs);
    FIELD(tensorCoreEligible);
    FIELD(tensorCoreNs);
}

void put(Lines& out, const std::string& path, const OpTables& value)
{
    FIELD(byName);
    FIELD(byNameAndShapes);
    FIELD(byNameAndStack);
    FIELD(kernelNs);
    FIELD(eligibleKernelNs);
    FIELD(eligibleTensorCoreNs);
}

void put(Lines& out, const std::string& path, const KernelStats& value)
{
    FIELD(name);
    FIELD(calls);
    FIELD(totalNs);
    FIELD(minNs);
    FIELD(maxNs);
    FIELD(grid);
    FIELD(block);
    FIELD(registersPerThread);
    FIELD(sharedMemoryBytes);
    FIELD(meanBlocksPerSm);
    FIELD(meanOccupancyPercent);
    FIELD(unit);
    FIELD(tensorCore);
    FIELD(topOp);
}

void put(Lines& out, const std::string& path, const MemcpyStats& value)
{
    FIELD(kind);
    FIELD(direction);
    FIELD(memoryKind);
    FIELD(isMemset);
    FIELD(calls);
    FIELD(totalNs);
    FIELD(totalBytes);
    FIELD(bandwidthGBps);
}

void put(Lines& out, const std::string& path, const MemoryPoint& value)
{
    FIELD(timeNs);
    FIELD(allocatedBytes);
    FIELD(reservedBytes);
}

void put(Lines& out, const std::string& path, const OpAllocation& value)
{
    FIELD(op);
    FIELD(allocations);
    FIELD(bytes);
    FIELD(selfIncreaseBytes);
    FIELD(totalAllocations);
    FIELD(totalBytes);
    FIELD(totalIncreaseBytes);
}

void put(Lines& out, const std::string& path, const Allocation& value)
{
    FIELD(allocNs);
    FIELD(freeNs);
    FIELD(bytes);
    FIELD(address);
    FIELD(op);
    FIELD(allocSample);
    FIELD(freeSample);
}

void put(Lines& out, const std::string& path, const LiveAtPeak& value)
{
    FIELD(stack);
    FIELD(allocations);
    FIELD(bytes);
}

void put(Lines& out, const std::string& path, const DeviceMemory& value)
{
    FIELD(device);
    FIELD(totalsRecorded);
    FIELD(curve);
    FIELD(peakAllocatedBytes);
    FIELD(peakReservedBytes);
    FIELD(allocatedAtStepStart);
    FIELD(allocations);
    FIELD(unpairedFrees);
    FIELD(byOp);
    FIELD(peakTimeNs);
    FIELD(liveAtPeak);
    FIELD(peakUntrackedBytes);
}

void put(Lines& out, const std::string& path, const NamedTime& value)
{
    FIELD(name);
    FIELD(calls);
    FIELD(hostNs);
    FIELD(deviceNs);
}

void put(Lines& out, const std::string& path, const ModuleNode& value)
{
    FIELD(name);
    FIELD(path);
    FIELD(parent);
    FIELD(children);
    FIELD(calls);
    FIELD(hostTotalNs);
    FIELD(hostSelfNs);
    FIELD(deviceTotalNs);
    FIELD(deviceSelfNs);
    FIELD(ops);
    FIELD(kernels);
}

void put(Lines& out, const std::string& path, const ModuleTree& value)
{
    FIELD(nodes);
    FIELD(roots);
    FIELD(moduleSpans);
    FIELD(deviceNs);
    FIELD(deviceInModulesNs);
}

void put(Lines& out, const std::string& path, const roof::DevicePeaks& value)
{
    FIELD(model);
    FIELD(fp64Tflops);
    FIELD(fp32Tflops);
    FIELD(tf32Tflops);
    FIELD(fp16Tflops);
    FIELD(fp8Tflops);
    FIELD(memoryGBps);
    FIELD(estimated);
    FIELD(source);
}

void put(Lines& out, const std::string& path, const roof::Roofs& value)
{
    FIELD(tflops);
    FIELD(gbps);
}

void put(Lines& out, const std::string& path, const roof::Rating& value)
{
    FIELD(achievedTflops);
    FIELD(achievedGbps);
    FIELD(intensity);
    FIELD(roofs);
    FIELD(bound);
    FIELD(attainableTflops);
    FIELD(shareOfRoof);
    FIELD(abovePeak);
}

void put(Lines& out, const std::string& path, const roof::OpRoofline& value)
{
    FIELD(name);
    FIELD(inputShapes);
    FIELD(kind);
    FIELD(precision);
    FIELD(calls);
    FIELD(flopsPerCall);
    FIELD(bytesPerCall);
    FIELD(deviceNs);
    FIELD(matrixUnitNs);
    FIELD(windowCalls);
    FIELD(windowDeviceNs);
    FIELD(rating);
    FIELD(unmodelled);
    FIELD(note);
    FIELD(longest);
    FIELD(kernels);
}

void put(Lines& out, const std::string& path, const roof::KernelRoofline& value)
{
    FIELD(name);
    FIELD(calls);
    FIELD(deviceNs);
    FIELD(ratedCalls);
    FIELD(ratedNs);
    FIELD(flops);
    FIELD(bytes);
    FIELD(kind);
    FIELD(precision);
    FIELD(op);
    FIELD(rating);
}

void put(Lines& out, const std::string& path, const roof::Roofline& value)
{
    FIELD(device);
    FIELD(deviceIndex);
    FIELD(peaks);
    FIELD(ops);
    FIELD(kernels);
    FIELD(kernelNs);
    FIELD(chargedNs);
    FIELD(ratedNs);
}

void put(Lines& out, const std::string& path, const RoofVerdict& value)
{
    FIELD(gap);
    FIELD(targetShare);
    FIELD(fill);
    FIELD(factor);
}

void put(Lines& out, const std::string& path, const CausalModel& value)
{
    FIELD(stepsModelled);
    FIELD(stepNs);
    FIELD(replayedStepNs);
    FIELD(deviceBusyNs);
    FIELD(deviceIdleNs);
    FIELD(idleByHostState);
    FIELD(hostByState);
    FIELD(soloGainNs);
    FIELD(gainNs);
    FIELD(afterOthersNs);
    FIELD(deviceNs);
    FIELD(blockingCalls);
}

void put(Lines& out, const std::string& path, const HostOpTime& value)
{
    FIELD(name);
    FIELD(selfNs);
    FIELD(calls);
}

void put(Lines& out, const std::string& path, const HostProfile& value)
{
    FIELD(thread);
    FIELD(steps);
    FIELD(stepNs);
    FIELD(dataLoaderNs);
    FIELD(randomDataNs);
    FIELD(randomOps);
    FIELD(outsideOpsNs);
    FIELD(bySelfTime);
}

#undef FIELD

}  // namespace

std::vector<std::string> summaryFields(const TraceSummary& s)
{
    Lines out;
    put(out, "window", s.window);
    put(out, "steps", s.steps);
    put(out, "breakdown", s.breakdown);
    put(out, "gpu", s.gpu);
    put(out, "idleGaps", s.idleGaps);
    put(out, "launches", s.launches);
    put(out, "sync", s.sync);
    put(out, "utilization", s.utilization);
    put(out, "ops", s.ops);
    put(out, "kernels", s.kernels);
    put(out, "kernelsByOp", s.kernelsByOp);
    put(out, "kernelsByLaunch", s.kernelsByLaunch);
    put(out, "memcpy", s.memcpy);
    put(out, "memory", s.memory);
    put(out, "modules", s.modules);
    put(out, "roofline", s.roofline);
    put(out, "roofGaps", s.roofGaps);
    put(out, "causal", s.causal);
    put(out, "host", s.host);
    return out;
}

std::string firstDifference(const std::vector<std::string>& expected,
                            const std::vector<std::string>& actual)
{
    const size_t common = std::min(expected.size(), actual.size());
    size_t i = 0;
    while (i < common && expected[i] == actual[i])
        ++i;
    if (i == common && expected.size() == actual.size())
        return {};
    auto at = [](const std::vector<std::string>& lines, size_t k) {
        return k < lines.size() ? lines[k] : std::string("(no more fields)");
    };
    std::string text = "field " + std::to_string(i) + ":\n  expected " + at(expected, i) +
                       "\n  actual   " + at(actual, i);
    if (i > 0)
        text += "\n  after    " + expected[i - 1];
    return text;
}

}  // namespace kinetoscope::test
