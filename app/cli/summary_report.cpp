#include "app/cli/summary_report.h"

#include "app/cli/compiled_report.h"
#include "app/cli/roofline_report.h"
#include "core/format/format.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

namespace kinetoscope::cli {

using nlohmann::json;
using namespace kinetoscope::analysis;

namespace {

// "   12 calls", "    1 call ": a count right-aligned in `width`, its noun agreeing.
std::string callsColumn(int64_t calls, size_t width)
{
    return format::padLeft(format::count(calls), width) + (calls == 1 ? " call " : " calls");
}

double toUs(double ns)
{
    return ns / 1000.0;
}

json optionalNumber(const std::optional<double>& value)
{
    return value ? json(*value) : json(nullptr);  // null = not available in this trace
}

json categoryObject(const std::array<double, kTimeCategoryCount>& ns, double totalNs)
{
    json object = json::object();
    for (size_t c = 0; c < kTimeCategoryCount; ++c)
        object[std::string(timeCategoryKey(TimeCategory(c)))] = toUs(ns[c]);
    object["total"] = toUs(totalNs);
    return object;
}

json categoryObject(const CategoryTimes& times)
{
    std::array<double, kTimeCategoryCount> ns{};
    for (size_t c = 0; c < kTimeCategoryCount; ++c)
        ns[c] = static_cast<double>(times.ns[c]);
    return categoryObject(ns, static_cast<double>(times.totalNs));
}

json distributionJson(const Distribution& d)
{
    if (d.count == 0)
        return nullptr;
    return {{"count", d.count},           {"mean", toUs(d.mean)},
            {"stddev", toUs(d.stddev)},   {"min", toUs(double(d.min))},
            {"p50", toUs(double(d.p50))}, {"p95", toUs(double(d.p95))},
            {"p99", toUs(double(d.p99))}, {"max", toUs(double(d.max))}};
}

json windowJson(const WindowClass& w)
{
    json roles = json::array();
    for (size_t i = 0; i < w.allSteps.size(); ++i)
        roles.push_back({{"name", w.allSteps[i].name},
                         {"duration_us", toUs(double(w.allSteps[i].durationNs()))},
                         {"role", stepRoleName(w.roles[i])}});
    json oneOffs = json::array();
    for (const OneOffCost& o : w.oneOffs)
        oneOffs.push_back({{"what", o.what},
                           {"call", o.call},
                           {"begin_us", toUs(double(o.beginNs))},
                           {"duration_us", toUs(double(o.lengthNs()))}});
    json quality = json::array();
    for (const QualityIssue& q : w.quality)
        quality.push_back({{"code", q.code}, {"count", q.count}, {"message", q.message}});
    return {{"headline", w.headline()},
            {"kind", runKindName(w.kind)},
            {"kind_evidence", w.kindEvidence},
            {"steps_from", stepSourceName(w.stepSource)},
            {"steps_found_by", w.foundBy},
            {"steady_steps", w.steadyCount()},
            {"all_steps", roles},
            {"one_off_costs", oneOffs},
            {"one_off_us", toUs(double(w.oneOffNs))},
            {"window_us", toUs(double(w.windowNs))},
            {"device_activities", w.deviceActivities},
            {"kernel_launch_calls", w.kernelLaunchCalls},
            {"launches_without_activity", w.launchesWithoutActivity},
            {"graph_launches", w.graphLaunches},
            {"graph_capture_calls", w.graphCaptureCalls},
            {"capture_window", w.captureWindow},
            {"graph_replay", w.graphReplay},
            {"device_activity_missing", w.deviceActivityMissing},
            {"counters_only", w.countersOnly},
            {"cpu_only", w.cpuOnly},
            {"nearly_empty", w.nearlyEmpty},
            {"sparse", w.sparse},
            {"sampled", w.sampled},
            {"warm_up_dominated", w.warmUpDominated},
            {"quality", quality}};
}

json hostProfileJson(const HostProfile& h)
{
    auto rows = [](const std::vector<HostOpTime>& times) {
        json list = json::array();
        for (const HostOpTime& o : times)
            list.push_back({{"name", o.name}, {"self_us", toUs(o.selfNs)}, {"calls", o.calls}});
        return list;
    };
    return {{"steps", h.steps},
            {"step_us", toUs(h.stepNs)},
            {"dataloader_us", toUs(h.dataLoaderNs)},
            {"random_data_us", toUs(h.randomDataNs)},
            {"random_ops", h.randomOps},
            {"outside_ops_us", toUs(h.outsideOpsNs)},
            {"outside_ops_frames", rows(h.outsideOpsFrames)},
            {"by_self_time", rows(h.bySelfTime)}};
}

json causalJson(const CausalModel& m)
{
    json idle = json::object(), host = json::object(), gains = json::object(),
         solo = json::object(), after = json::object();
    for (size_t i = 0; i < kHostStateCount; ++i) {
        idle[hostStateName(HostState(i))] = toUs(m.idleByHostState[i]);
        host[hostStateName(HostState(i))] = toUs(m.hostByState[i]);
    }
    for (size_t i = 0; i < kCauseCount; ++i) {
        gains[causeName(Cause(i))] = toUs(m.gainNs[i]);
        solo[causeName(Cause(i))] = toUs(m.soloGainNs[i]);
        after[causeName(Cause(i))] = toUs(m.afterOthersNs[i]);
    }
    return {{"steps_modelled", m.stepsModelled},
            {"step_us", toUs(m.stepNs)},
            {"replayed_step_us", toUs(m.replayedStepNs)},
            {"device_busy_us", toUs(m.deviceBusyNs)},
            {"device_idle_us", toUs(m.deviceIdleNs)},
            {"device_idle_by_host_state_us", idle},
            {"host_time_by_state_us", host},
            {"gain_us", gains},
            {"gain_alone_us", solo},
            {"gain_after_others_us", after}};
}

json namedTimesJson(const std::vector<NamedTime>& rows, size_t count, bool withHost)
{
    json list = json::array();
    for (size_t i = 0; i < std::min(count, rows.size()); ++i) {
        json row = {{"name", rows[i].name},
                    {"calls", rows[i].calls},
                    {"device_us", toUs(double(rows[i].deviceNs))}};
        if (withHost)
            row["host_us"] = toUs(double(rows[i].hostNs));
        list.push_back(std::move(row));
    }
    return list;
}

// The module tree, depth first (children by device time), each node with its top ops
// and kernels.
json modulesJson(const ModuleTree& tree)
{
    json nodes = json::array();
    std::vector<std::pair<int32_t, int>> stack;   // node, depth
    for (size_t i = tree.roots.size(); i-- > 0;)  // the first root on top
        stack.emplace_back(tree.roots[i], 0);
    while (!stack.empty()) {
        const auto [index, depth] = stack.back();
        stack.pop_back();
        const ModuleNode& m = tree.nodes[index];
        nodes.push_back({{"path", m.path},
                         {"name", m.name},
                         {"depth", depth},
                         {"calls", m.calls},
                         {"host_total_us", toUs(double(m.hostTotalNs))},
                         {"host_self_us", toUs(double(m.hostSelfNs))},
                         {"device_total_us", toUs(double(m.deviceTotalNs))},
                         {"device_self_us", toUs(double(m.deviceSelfNs))},
                         {"top_ops", namedTimesJson(m.ops, 5, true)},
                         {"top_kernels", namedTimesJson(m.kernels, 5, false)}});
        for (size_t i = m.children.size(); i-- > 0;)
            stack.emplace_back(m.children[i], depth + 1);
    }
    return {{"recorded", !tree.empty()},
            {"module_spans", tree.moduleSpans},
            {"device_us", toUs(double(tree.deviceNs))},
            {"device_in_modules_us", toUs(double(tree.deviceInModulesNs))},
            {"tree", nodes}};
}

json opsJson(const std::vector<OpStats>& ops, size_t rows, bool withStack = false)
{
    json list = json::array();
    for (size_t i = 0; i < std::min(rows, ops.size()); ++i) {
        const OpStats& o = ops[i];
        json row = {{"name", o.name},
                    {"calls", o.calls},
                    {"self_cpu_us", toUs(double(o.selfCpuNs))},
                    {"cpu_total_us", toUs(double(o.cpuTotalNs))},
                    {"self_device_us", toUs(double(o.selfDeviceNs))},
                    {"device_total_us", toUs(double(o.deviceTotalNs))},
                    {"mean_cpu_us", toUs(o.meanCpuNs())},
                    {"mean_device_us", toUs(o.meanDeviceNs())},
                    {"tensor_core_eligible", o.tensorCoreEligible},
                    {"tensor_core_us", toUs(double(o.tensorCoreNs))}};
        if (withStack) {
            row["stack"] = o.stack;
            row["source_line"] = o.sourceLine.empty() ? json(nullptr) : json(o.sourceLine);
        }
        if (!o.inputShapes.empty())
            row["input_shapes"] = o.inputShapes;
        list.push_back(std::move(row));
    }
    return list;
}

json tripleJson(const int32_t (&v)[3])
{
    if (v[0] < 0)
        return nullptr;
    return json::array({v[0], v[1], v[2]});
}

json kernelJson(const KernelStats& k)
{
    return {{"name", k.name},
            {"calls", k.calls},
            {"total_us", toUs(double(k.totalNs))},
            {"mean_us", toUs(k.meanNs())},
            {"min_us", toUs(double(k.minNs))},
            {"max_us", toUs(double(k.maxNs))},
            {"grid", tripleJson(k.grid)},
            {"block", tripleJson(k.block)},
            {"registers_per_thread",
             k.registersPerThread >= 0 ? json(k.registersPerThread) : json(nullptr)},
            {"shared_memory_bytes",
             k.sharedMemoryBytes >= 0 ? json(k.sharedMemoryBytes) : json(nullptr)},
            {"mean_blocks_per_sm", optionalNumber(k.meanBlocksPerSm)},
            {"mean_occupancy_percent", optionalNumber(k.meanOccupancyPercent)},
            {"tensor_core", k.tensorCore},
            {"matrix_unit", std::string(matrixUnitName(k.unit))},
            {"op", k.topOp.empty() ? json(nullptr) : json(k.topOp)}};
}

json gapTotalsJson(const GapTotals& g)
{
    return {{"host_wait_us", toUs(double(g.hostWaitNs))},
            {"short_us", toUs(double(g.shortNs))},
            {"other_us", toUs(double(g.otherNs))},
            {"total_us", toUs(double(g.totalNs()))}};
}

// A share the trace may not have given.
std::string percentOr(std::optional<double> fraction)
{
    return fraction ? format::percent(*fraction) : "not available";
}

}  // namespace

json summaryJson(const std::string& path, const trace::LoadResult& loaded, const TraceSummary& s,
                 double analysisSeconds, const SummaryReportOptions& options)
{
    json steps = json::array();
    for (size_t i = 0; i < s.steps.steps.size(); ++i) {
        const Step& step = s.steps.steps[i];
        json row = {{"name", step.name.empty() ? "window" : step.name},
                    {"start_us", toUs(double(step.beginNs))},
                    {"duration_us", toUs(double(step.durationNs()))},
                    {"breakdown_us", categoryObject(s.breakdown.all.perStep[i])},
                    {"kernels", s.launches.kernelsPerStep[i]},
                    {"idle_us", gapTotalsJson(s.idleGaps.perStep[i])},
                    {"sync_call_us", toUs(double(s.sync.syncCallNsPerStep[i]))},
                    {"sync_calls", s.sync.syncCallsPerStep[i]},
                    {"scalar_read_us", toUs(double(s.sync.scalarReadNsPerStep[i]))},
                    {"scalar_reads", s.sync.scalarReadsPerStep[i]}};
        steps.push_back(std::move(row));
    }
    json perDevice = json::object();
    for (const auto& [device, b] : s.breakdown.perDevice)
        perDevice[std::to_string(device)] = categoryObject(b.averageNs, b.averageTotalNs);
    json gpu = json::object();
    for (const auto& [device, m] : s.gpu)
        gpu[std::to_string(device)] = {{"utilization", optionalNumber(m.utilization)},
                                       {"sm_efficiency", optionalNumber(m.smEfficiency)},
                                       {"achieved_occupancy", optionalNumber(m.achievedOccupancy)},
                                       {"tensor_core_share", optionalNumber(m.tensorCoreShare)},
                                       {"kernel_count", m.kernelCount},
                                       {"kernel_time_us", toUs(double(m.kernelTimeNs))}};
    json largest = json::array();
    for (const IdleGap& g : s.idleGaps.largest)
        largest.push_back({{"device", g.device},
                           {"stream", g.stream},
                           {"start_us", toUs(double(g.beginNs))},
                           {"duration_us", toUs(double(g.lengthNs()))},
                           {"kind", gapKindKey(g.kind)}});
    json idle = gapTotalsJson(s.idleGaps.total);
    idle["largest"] = largest;
    json perStream = json::array();
    for (const auto& [key, totals] : s.idleGaps.perStream) {
        json row = gapTotalsJson(totals);
        row["device"] = key.first;
        row["stream"] = key.second;
        perStream.push_back(std::move(row));
    }
    idle["per_stream"] = perStream;

    auto kernelRows = [&options](const std::vector<KernelStats>& table) {
        json rows = json::array();
        for (size_t i = 0; i < std::min(options.topRows, table.size()); ++i)
            rows.push_back(kernelJson(table[i]));
        return rows;
    };
    const OpTables& ops = s.ops;
    const json tensorCores = {
        {"kernel_us", toUs(double(ops.kernelNs))},
        {"eligible_kernel_us", toUs(double(ops.eligibleKernelNs))},
        {"eligible_share", ops.kernelNs > 0
                               ? json(double(ops.eligibleKernelNs) / double(ops.kernelNs))
                               : json(nullptr)},
        {"tensor_core_share_of_eligible",
         ops.eligibleKernelNs > 0
             ? json(double(ops.eligibleTensorCoreNs) / double(ops.eligibleKernelNs))
             : json(nullptr)}};
    json memcpy = json::array();
    for (const MemcpyStats& m : s.memcpy)
        memcpy.push_back({{"kind", m.kind},
                          {"direction", m.direction},
                          {"memory", m.memoryKind},
                          {"calls", m.calls},
                          {"total_us", toUs(double(m.totalNs))},
                          {"bytes", m.totalBytes >= 0 ? json(m.totalBytes) : json(nullptr)},
                          {"bandwidth_gb_per_s", optionalNumber(m.bandwidthGBps)}});
    json memory = json::object();
    for (const auto& [device, d] : s.memory) {
        json atStart = json::array();
        for (const auto& v : d.allocatedAtStepStart)
            atStart.push_back(v ? json(*v) : json(nullptr));
        json topOps = json::array();
        for (size_t i = 0; i < std::min<size_t>(10, d.byOp.size()); ++i) {
            const OpAllocation& o = d.byOp[i];
            topOps.push_back({{"op", o.op},
                              {"allocations", o.allocations},
                              {"bytes", o.bytes},
                              {"self_increase_bytes", o.selfIncreaseBytes},
                              {"total_allocations", o.totalAllocations},
                              {"total_bytes", o.totalBytes},
                              {"total_increase_bytes", o.totalIncreaseBytes}});
        }
        json live = json::array();
        for (size_t i = 0; i < std::min<size_t>(10, d.liveAtPeak.size()); ++i)
            live.push_back({{"stack", d.liveAtPeak[i].stack},
                            {"allocations", d.liveAtPeak[i].allocations},
                            {"bytes", d.liveAtPeak[i].bytes}});
        int64_t neverFreed = 0;
        for (const Allocation& a : d.allocations)
            neverFreed += a.freeNs < 0;
        memory[device] = {
            {"peak_allocated_bytes", d.peakAllocatedBytes},
            {"peak_reserved_bytes",
             d.peakReservedBytes ? json(*d.peakReservedBytes) : json(nullptr)},
            {"totals_recorded", d.totalsRecorded},
            {"samples", d.curve.size()},
            {"allocated_at_step_start_bytes", atStart},
            {"allocations", d.allocations.size()},
            {"allocations_never_freed", neverFreed},
            {"unpaired_frees", d.unpairedFrees},
            {"top_ops", topOps},
            {"peak_time_us", d.peakTimeNs ? json(toUs(double(*d.peakTimeNs))) : json(nullptr)},
            {"live_at_peak", live},
            {"peak_untracked_bytes", d.peakUntrackedBytes}};
        if (options.memoryPoints > 0) {
            json curve = json::array();
            for (const MemoryPoint& p : reduceCurve(d.curve, options.memoryPoints))
                curve.push_back({toUs(double(p.timeNs)), p.allocatedBytes,
                                 p.reservedBytes >= 0 ? json(p.reservedBytes) : json(nullptr)});
            memory[device]["curve"] = curve;
        }
    }
    const Breakdown& all = s.breakdown.all;
    json result = {
        {"file", path},
        {"status", trace::loadStatusName(loaded.status)},
        {"window", windowJson(s.window)},
        {"causal_model", causalJson(s.causal)},
        {"host_profile", hostProfileJson(s.host)},
        {"steps_from", stepSourceName(s.steps.source)},
        {"step_marker", s.steps.marker},
        {"dropped_incomplete_steps", s.steps.droppedIncompleteSteps},
        {"steps", steps},
        {"breakdown_us", categoryObject(all.averageNs, all.averageTotalNs)},
        {"breakdown_us_per_device", perDevice},
        {"gpu", gpu},
        {"idle", idle},
        {"launches",
         {{"kernels_per_step", s.launches.kernelsPerStep},
          {"short_kernel_share", optionalNumber(s.launches.shortKernelShare)},
          {"launch_delay_us", distributionJson(s.launches.launchDelay)},
          {"clock_skewed_kernels", s.launches.clockSkewed},
          {"launch_call_us", distributionJson(s.launches.launchCallDuration)}}},
        {"top_ops", opsJson(s.ops.byName, options.topRows)},
        {"top_ops_by_input_shapes", opsJson(s.ops.byNameAndShapes, options.topRows)},
        {"top_ops_by_stack", opsJson(s.ops.byNameAndStack, options.topRows, true)},
        {"top_kernels", kernelRows(s.kernels)},
        {"top_kernels_by_op", kernelRows(s.kernelsByOp)},
        {"top_kernels_by_launch_config", kernelRows(s.kernelsByLaunch)},
        {"tensor_cores", tensorCores},
        {"roofline", rooflineJson(s.roofline, options.topRows)},
        {"compiled", compiledJson(s.compiled)},
        {"memcpy", memcpy},
        {"memory", memory},
        {"modules", modulesJson(s.modules)},
        {"analysis_seconds", analysisSeconds},
        {"load_seconds", loaded.model->stats().loadSeconds},
    };
    if (options.includeSeries) {
        json gpuSeries = json::object();
        for (const auto& [device, values] : s.utilization.gpuBusy)
            gpuSeries[std::to_string(device)] = values;
        result["utilization_series"] = {{"begin_us", toUs(double(s.utilization.beginNs))},
                                        {"bucket_us", toUs(double(s.utilization.bucketNs))},
                                        {"gpu", gpuSeries},
                                        {"cpu", s.utilization.cpuBusy}};
    }
    if (!loaded.ok())
        result["problem"] = loaded.message;
    return result;
}

std::string summaryText(const std::string& path, const trace::LoadResult& loaded,
                        const TraceSummary& s, double analysisSeconds,
                        const SummaryReportOptions& options)
{
    std::ostringstream out;
    const Breakdown& all = s.breakdown.all;
    out << path << "\n\n";
    out << "What this trace is: " << s.window.headline() << "\n";
    for (const QualityIssue& q : s.window.quality)
        out << "  trace quality: " << q.message << "\n";
    out << "\n"
        << format::count(s.steps.steps.size())
        << (s.steps.source == StepSource::Window ? " window" : " steady steps") << ", average "
        << format::duration(all.averageTotalNs) << " per step";
    if (s.steps.droppedIncompleteSteps)
        out << "; " << format::count(s.steps.droppedIncompleteSteps)
            << " incomplete trailing step(s) left out";
    const CausalModel& model = s.causal;
    if (model.stepsModelled > 0 && s.window.deviceActivities > 0) {
        out << "\n\nWhere the device idles (per step: busy " << format::duration(model.deviceBusyNs)
            << ", idle " << format::duration(model.deviceIdleNs)
            << "), by what the host was doing\n";
        for (size_t i = 0; i < kHostStateCount; ++i) {
            if (model.idleByHostState[i] <= 0)
                continue;
            out << "  " << format::padRight(hostStateName(HostState(i)), 14) << " "
                << format::padLeft(format::duration(model.idleByHostState[i]), 12)
                << " idle   (host " << format::duration(model.hostByState[i]) << ")\n";
        }
        out << "Causal gains (the step replayed without each cause; credited once, never above its "
               "gain alone)\n";
        for (size_t i = 0; i < kCauseCount; ++i) {
            if (model.gainNs[i] <= 0 && model.soloGainNs[i] <= 0)
                continue;
            out << "  " << format::padRight(causeName(Cause(i)), 16) << " "
                << format::padLeft(format::duration(model.gainNs[i]), 12) << "  (alone "
                << format::duration(model.soloGainNs[i]) << ", after the others "
                << format::duration(model.afterOthersNs[i]) << ")\n";
        }
        out << "  model check: replayed step " << format::duration(model.replayedStepNs)
            << " vs measured " << format::duration(model.stepNs) << "\n";
    }
    out << "\n\nStep-time breakdown (average per step)\n";
    for (size_t c = 0; c < kTimeCategoryCount; ++c) {
        const double share = all.averageTotalNs > 0 ? all.averageNs[c] / all.averageTotalNs : 0.0;
        out << "  " << format::padRight(timeCategoryKey(TimeCategory(c)), 14) << " "
            << format::padLeft(format::duration(all.averageNs[c]), 12) << "  "
            << format::padLeft(format::percent(share), 7) << "\n";
    }
    out << "\nGPU\n";
    if (s.gpu.empty())
        out << "  no kernels in this trace\n";
    for (const auto& [device, m] : s.gpu) {
        if (m.kernelCount == 0) {  // it ran kernels, but outside the steps
            out << "  device " << device << ": no kernels inside the steps\n";
            continue;
        }
        // Occupancy is given in percent (0-100), the other shares as fractions.
        const std::string occupancy = m.achievedOccupancy
                                          ? format::percent(*m.achievedOccupancy / 100.0)
                                          : std::string("not available");
        out << "  device " << device << ": utilisation " << percentOr(m.utilization)
            << ", SM efficiency " << percentOr(m.smEfficiency) << ", achieved occupancy "
            << occupancy << ", Tensor Core kernels " << percentOr(m.tensorCoreShare)
            << " of kernel time\n";
    }
    if (s.ops.kernelNs > 0) {
        const double eligible = double(s.ops.eligibleKernelNs) / double(s.ops.kernelNs);
        out << "  Tensor Core eligible ops (GEMM, convolution, attention): "
            << format::percent(eligible) << " of kernel time";
        if (s.ops.eligibleKernelNs > 0)
            out << ", "
                << format::percent(double(s.ops.eligibleTensorCoreNs) /
                                   double(s.ops.eligibleKernelNs))
                << " of that on Tensor Cores";
        out << "\n";
    }
    const GapTotals& g = s.idleGaps.total;
    if (!s.gpu.empty())
        out << "  idle between device work inside steps: " << format::duration(double(g.totalNs()))
            << " (host wait " << format::duration(double(g.hostWaitNs)) << ", short gaps "
            << format::duration(double(g.shortNs)) << ", other "
            << format::duration(double(g.otherNs)) << ")\n";
    if (s.launches.launchDelay.count > 0) {
        out << "  launches: " << percentOr(s.launches.shortKernelShare)
            << " kernels under 10 µs; launch delay p50 "
            << format::duration(double(s.launches.launchDelay.p50)) << ", p95 "
            << format::duration(double(s.launches.launchDelay.p95)) << "; launch call mean "
            << format::duration(s.launches.launchCallDuration.mean) << "\n";
    }
    // Ranked by device time; by CPU time when no op launched device work.
    std::vector<OpStats> ops = s.ops.byName;
    const bool anyDevice = !ops.empty() && ops.front().deviceTotalNs > 0;
    if (!anyDevice)
        sortOps(ops, OpColumn::CpuTotal);
    out << (anyDevice ? "\nTop operators by device time\n" : "\nTop operators by CPU time\n");
    for (size_t i = 0; i < std::min<size_t>(options.topRows / 2, ops.size()); ++i) {
        const OpStats& o = ops[i];
        out << "  " << format::padRight(format::clip(o.name, 40), 40) << " "
            << callsColumn(o.calls, 8) << "  device "
            << format::padLeft(format::duration(double(o.deviceTotalNs)), 10) << "  CPU "
            << format::padLeft(format::duration(double(o.cpuTotalNs)), 10) << "  self CPU "
            << format::padLeft(format::duration(double(o.selfCpuNs)), 10) << "\n";
    }
    out << "\nTop kernels\n";
    for (size_t i = 0; i < std::min<size_t>(options.topRows / 2, s.kernels.size()); ++i) {
        const KernelStats& k = s.kernels[i];
        out << "  " << format::padRight(format::clip(k.name, 56), 56) << " "
            << callsColumn(k.calls, 7) << " "
            << format::padLeft(format::duration(double(k.totalNs)), 10) << "  mean "
            << format::padLeft(format::duration(k.meanNs()), 10)
            << (k.unit == MatrixUnit::TensorCore ? "  TC"
                : k.unit == MatrixUnit::Simt     ? "  SIMT"
                                                 : "")
            << "\n";
    }
    if (!s.roofline.empty() || s.roofline.peaks)
        out << rooflineText(s.roofline, options.topRows / 2);
    out << compiledText(s.compiled);
    if (!s.memory.empty()) {
        out << "\nMemory\n";
        for (const auto& [device, d] : s.memory) {
            out << "  " << device << ": peak allocated "
                << format::bytes(double(std::max<int64_t>(0, d.peakAllocatedBytes)));
            if (d.peakTimeNs)  // one origin for every time shown: the trace's first event
                out << " at " << format::duration(double(*d.peakTimeNs - s.utilization.beginNs))
                    << " after the first event";
            out << (d.totalsRecorded ? "" : " (rebuilt from allocation sizes)");
            out << ", peak reserved "
                << (d.peakReservedBytes ? format::bytes(double(*d.peakReservedBytes))
                                        : std::string("not available"))
                << ", " << format::count(uint64_t(d.allocations.size())) << " allocations\n";
        }
    }
    out << "\nModules\n";
    if (s.modules.empty()) {
        out << "  no nn.Module spans in this trace (record with with_stack=True to see the module "
               "hierarchy)\n";
    } else {
        out << "  " << format::count(uint64_t(s.modules.moduleSpans)) << " module spans; "
            << format::duration(double(s.modules.deviceInModulesNs)) << " of "
            << format::duration(double(s.modules.deviceNs))
            << " device time launched inside them (forward; backward runs outside module spans)\n";
        std::vector<const ModuleNode*> bySelf;
        bySelf.reserve(s.modules.nodes.size());
        for (const ModuleNode& m : s.modules.nodes)
            bySelf.push_back(&m);
        std::stable_sort(bySelf.begin(), bySelf.end(),
                         [](const ModuleNode* a, const ModuleNode* b) {
                             return a->deviceSelfNs > b->deviceSelfNs;
                         });
        for (size_t i = 0; i < std::min<size_t>(options.topRows / 2, bySelf.size()); ++i) {
            const ModuleNode& m = *bySelf[i];
            // The path's innermost modules tell most: cut from the left.
            const std::string shownPath =
                m.path.size() <= 60 ? m.path : "..." + m.path.substr(m.path.size() - 57);
            out << "  " << format::padRight(format::clip(shownPath, 60), 60) << " "
                << callsColumn(m.calls, 6) << "  device self "
                << format::padLeft(format::duration(double(m.deviceSelfNs)), 10) << "  total "
                << format::padLeft(format::duration(double(m.deviceTotalNs)), 10) << "  host "
                << format::padLeft(format::duration(double(m.hostTotalNs)), 10) << "\n";
        }
    }
    out << "\nloaded in " << format::seconds(loaded.model->stats().loadSeconds) << ", analysed in "
        << format::seconds(analysisSeconds) << "\n";
    return out.str();
}

}  // namespace kinetoscope::cli
