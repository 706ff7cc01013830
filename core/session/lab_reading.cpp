#include "core/session/lab_reading.h"

#include "core/format/format.h"
#include "core/format/number_text.h"
#include "core/session/memory_reading.h"

#include <algorithm>
#include <optional>

namespace kinetoscope::session {

namespace {

const LabArm* ranArm(const Session& s, ArmKind kind)
{
    for (const LabArm& arm : s.lab)
        if (arm.kind == kind && arm.ran && arm.samplesPerSecond > 0)
            return &arm;
    return nullptr;
}

// What the memory triage left out when it has no activations, and why: with loader
// workers on the CPU the phase table was measured but the batches they prefetch count in
// it too; a session without the table says what its triage gives as the reason.
std::string missingMemoryFigures(const Session& s)
{
    const MemoryTriage& m = *s.memory;
    bool table = false;
    for (const auto* rows : {&m.firstStep, &m.steadyStep})
        for (const PhaseMemory& row : *rows)
            table |= row.allocatedBytes >= 0;
    const auto workers = s.config.find("workers");
    const auto device = s.environment.find("device");
    const bool cpuWithWorkers = device != s.environment.end() && device->second == "CPU" &&
                                workers != s.config.end() && !workers->second.empty() &&
                                workers->second != "0";
    if (table)
        return cpuWithWorkers ? "activations not told apart: the loader workers' prefetched "
                                "batches count too (--workers 0 measures them)"
                              : "activations not measured";
    return "activations and the phase table not measured" +
           (m.unavailable.empty() ? std::string() : " (" + m.unavailable + ")");
}

// The fp32 arm's mean wait for data and its compute per step (ms): the split's figures
// where it ran (--split), else the phase table's (compute: forward, backward and the
// optimizer; an inference run's latency). Nullopt when neither was measured.
struct DataWait
{
    double dataMs = 0, computeMs = 0, stepMs = 0;
};
std::optional<DataWait> dataWaitOf(const Session& s)
{
    if (s.dataLoaderMs && s.computeMs && *s.dataLoaderMs >= 0 && *s.computeMs >= 0)
        return DataWait{*s.dataLoaderMs, *s.computeMs, *s.dataLoaderMs + *s.computeMs};
    std::optional<double> data;
    DataWait w;
    for (const PhaseTiming& p : s.phases) {
        if (!(p.meanMs >= 0))
            continue;
        if (p.phase == "data")
            data = p.meanMs;
        else if (p.phase == "forward" || p.phase == "backward" || p.phase == "optimizer" ||
                 p.phase == "latency")
            w.computeMs += p.meanMs;
        w.stepMs += p.meanMs;
    }
    if (!data || !(w.stepMs > 0))
        return std::nullopt;
    w.dataMs = *data;
    return w;
}

// Where the time goes when precision is not the bottleneck: the DataLoader only when the
// measured data wait is at least the compute (the seed's own test of a data-bound step).
std::string notPrecisionClause(const Session& s)
{
    const std::optional<DataWait> w = dataWaitOf(s);
    if (!w)
        return "the data wait was not measured (--split measures it): the DataLoader is a "
               "suspect, not a finding.";
    if (w->dataMs >= w->computeMs)
        return "the step waits on the DataLoader (" + format::duration(w->dataMs * 1e6) +
               " of data wait against " + format::duration(w->computeMs * 1e6) +
               " of compute per step).";
    // The step the arms' table shows (the fp32 arm's steady mean, with what no phase times:
    // a checkpoint, the script's own Python), else the phases' sum.
    const LabArm* fp32 = ranArm(s, ArmKind::Fp32);
    const double stepMs = fp32 && fp32->meanStepMs > 0 ? fp32->meanStepMs : w->stepMs;
    return "the data wait is " + format::duration(w->dataMs * 1e6) + " of a " +
           format::duration(stepMs * 1e6) +
           " step: not the DataLoader; the time is in compute that bf16 does not speed up "
           "(launches, synchronisation, memory-bound ops, or arithmetic without bf16 units).";
}

// "Compiling took 17.5 s (warm-up, not in the figures above); 1 graph break, no
// recompilation."
std::string compileLine(const LabArm& arm)
{
    std::string line = "Compiling took " + format::duration(arm.compileSeconds * 1e9) +
                       " (warm-up, not in the figures above)";
    std::vector<std::string> counts;
    if (arm.graphBreaks >= 0)
        counts.push_back(arm.graphBreaks == 0 ? "no graph break"
                                              : format::counted(uint64_t(arm.graphBreaks),
                                                                "graph break", "graph breaks"));
    if (arm.recompiles >= 0)
        counts.push_back(arm.recompiles == 0 ? "no recompilation"
                                             : format::counted(uint64_t(arm.recompiles),
                                                               "recompilation", "recompilations"));
    for (size_t i = 0; i < counts.size(); ++i)
        line += (i == 0 ? "; " : ", ") + counts[i];
    if (arm.compiledInMeasured > 0)
        line += "; " + format::counted(uint64_t(arm.compiledInMeasured), "compilation") +
                " fell in the measured steps (the median step stands)";
    return line + ".";
}

}  // namespace

std::string bf16SlowdownCause(const Session& s)
{
    // The C++ lab names the CPU in its environment; a script's session in its config.
    const auto device = s.environment.find("device");
    const auto configured = s.config.find("device");
    const bool cpu = (device != s.environment.end() && device->second == "CPU") ||
                     (configured != s.config.end() && configured->second == "cpu");
    if (!cpu)
        return "bf16 autocast costs more than it saves here (casts around small kernels, or a GPU "
               "without bf16 "
               "Tensor Cores, before Ampere)";
    const auto units = s.environment.find("cpu_bf16");
    if (units != s.environment.end() && units->second == "none")
        return "this CPU has no bf16 matrix units (neither AMX nor AVX-512 BF16 in its flags), so "
               "every bf16 matmul "
               "is converted and computed the slow way";
    if (units != s.environment.end() &&
        (units->second == "amx_bf16" || units->second == "avx512_bf16"))
        return "this CPU has bf16 matrix units (" + units->second +
               "), yet the casts around small matmuls, or ops without a bf16 kernel, outweigh the "
               "faster arithmetic";
    return "on a CPU, bf16 pays only with bf16 matrix units (AMX or AVX-512 BF16); without them "
           "every bf16 matmul "
           "is converted and computed the slow way";
}

bool sharedMachine(double otherCores, int machineCores)
{
    if (!(otherCores >= kSharedMachineCores))
        return false;
    return machineCores <= 0 || otherCores >= kSharedMachineShare * machineCores;
}

std::optional<WorkersAgainstRun> workersAgainstRun(const Session& s)
{
    const auto workers = s.config.find("workers");
    if (workers == s.config.end())
        return std::nullopt;
    const std::optional<int64_t> ranWorkers = format::integerIn(workers->second);
    if (!ranWorkers)
        return std::nullopt;
    WorkersAgainstRun against;
    for (const SweepPoint& p : s.sweep) {
        if (p.knob != "workers" || !p.error.empty() || !(p.samplesPerSecond > 0))
            continue;
        if (p.value == *ranWorkers && !against.ran)
            against.ran = &p;
        if (!against.best || p.samplesPerSecond > against.best->samplesPerSecond)
            against.best = &p;
    }
    if (!against.ran || against.best == against.ran)
        return std::nullopt;
    return against;
}

int machineCores(const Session& s)
{
    const auto threads = s.environment.find("host_threads");
    if (threads == s.environment.end())
        return 0;
    const std::optional<int64_t> cores = format::integerIn(threads->second);
    return cores && *cores > 0 && *cores <= INT32_MAX ? int(*cores) : 0;
}

std::vector<SharedRun> sharedRuns(const Session& s)
{
    const int cores = machineCores(s);
    std::vector<SharedRun> shared;
    for (const LabArm& arm : s.lab)
        if (arm.ran && sharedMachine(arm.otherCpuCores, cores))
            shared.push_back({arm.name(), arm.otherCpuCores});
    for (const SweepPoint& p : s.sweep)
        if (p.error.empty() && sharedMachine(p.otherCpuCores, cores))
            shared.push_back({p.knob + " = " + std::to_string(p.value), p.otherCpuCores});
    return shared;
}

namespace {

// "Other processes used the CPU while the bf16 run went on (1.02 of the machine's 2 cores
// on average): ..."; nullopt when no run shared the machine.
std::optional<std::string> sharedMachineLine(const Session& s)
{
    const std::vector<SharedRun> shared = sharedRuns(s);
    if (shared.empty())
        return std::nullopt;
    std::string runs;
    for (size_t i = 0; i < shared.size(); ++i)
        runs += (i == 0 ? "" : ", ") + shared[i].run + " " + format::number(shared[i].otherCores);
    const int cores = machineCores(s);
    return "Other processes used the CPU while " +
           (shared.size() == 1 ? "the " + shared.front().run + " run" : std::string("these runs")) +
           " went on (cores in use by them on average: " + runs +
           (cores > 0 ? ", of the machine's " + std::to_string(cores) : std::string()) +
           "): the figures, and the jumps between runs, are the machine's as much as the "
           "model's; run the lab again on an idle machine.";
}

}  // namespace

std::optional<std::string> stoppedEarly(const Session& s)
{
    if (s.interrupted.empty())
        return std::nullopt;
    const size_t arms = size_t(
        std::count_if(s.lab.begin(), s.lab.end(), [](const LabArm& arm) { return arm.ran; }));
    const std::string steps = format::counted(uint64_t(s.steps.size()), "measured step");
    // A user's script profiled without --lab has no arms to count.
    const auto kind = s.config.find("kind");
    const bool armless = s.lab.empty() && kind != s.config.end() && kind->second == "script";
    const std::string what =
        s.steps.empty() && arms == 0 && s.sweep.empty() ? "Nothing was measured before."
        : armless ? "What it holds was measured before: " + steps
                  : "What it holds was measured before: " + steps + ", " +
                        (arms == 0 ? std::string("no arm finished")
                                   : format::counted(uint64_t(arms), "arm") + " finished");
    return "This run did not finish: " + s.interrupted + ". " + what +
           (what.ends_with('.') ? "" : ".");
}

LabReading readLab(const Session& s)
{
    LabReading r;
    if (const std::optional<std::string> stopped = stoppedEarly(s))
        r.lines.push_back(*stopped);
    if (const std::optional<std::string> shared = sharedMachineLine(s))
        r.lines.push_back(*shared);
    const LabArm* fp32 = ranArm(s, ArmKind::Fp32);
    const LabArm* bf16 = ranArm(s, ArmKind::Bf16);
    const LabArm* graph = ranArm(s, ArmKind::Bf16CudaGraph);
    const LabArm* compiled = ranArm(s, ArmKind::Bf16Compile);
    // A script that trains other models with optimizers of their own (a GAN's generator):
    // the arms changed one model alone, and the jumps below are that model's (helper 47:
    // "keep fp32" read for the whole script from its discriminator alone).
    if (const auto others = s.config.find("other_optimizers");
        others != s.config.end() && (bf16 || graph || compiled)) {
        const auto model = s.config.find("model");
        r.lines.push_back(
            "The arms changed one model, " +
            (model == s.config.end() ? std::string("the one") : model->second + ", the one") +
            " the script's first optimizer trains: it trains " +
            (others->second == "1" ? std::string("another model")
                                   : others->second + " other models") +
            " with an optimizer of its own, which ran as written in every arm; the jumps below "
            "are that model's alone.");
    }
    if (fp32 && bf16 && bf16->scriptPrecision)
        r.lines.push_back("fp32 -> bf16 was not measured: both arms ran the script's own mixed "
                          "precision as written. The bf16 arm: " +
                          bf16->note + ".");
    else if (fp32 && bf16) {
        const double ratio =
            r.bf16OverFp32.emplace(bf16->samplesPerSecond / fp32->samplesPerSecond);
        if (ratio < kLabSlowdown)
            r.lines.push_back(
                "fp32 -> bf16 is a slowdown (" + format::ratio(ratio) + ": each " +
                (s.inference() ? "batch" : "step") + " takes " + format::ratio(1.0 / ratio) +
                " as long in bf16): " + bf16SlowdownCause(s) + "; keep fp32 on this device.");
        else if (ratio < 1.0)  // slower, if within the noise: a slowdown, never a jump
            r.lines.push_back("fp32 -> bf16 is a slowdown within this run's noise (" +
                              format::ratio(ratio) + ": each " +
                              (s.inference() ? "batch" : "step") + " takes " +
                              format::ratio(1.0 / ratio) +
                              " as long in bf16): precision is not the bottleneck and bf16 does "
                              "not pay here; " +
                              notPrecisionClause(s));
        else if (ratio < kSmallLabJump)
            r.lines.push_back("fp32 -> bf16 is a small jump (" + format::ratio(ratio) +
                              "): precision is not the bottleneck; " + notPrecisionClause(s));
        else
            r.lines.push_back("fp32 -> bf16 is a large jump (" + format::ratio(ratio) +
                              (s.inference()
                                   ? "): the model was bound by fp32 arithmetic; serve it in bf16."
                                   : "): the step was bound by fp32 arithmetic; train in bf16."));
    }
    if (bf16 && graph) {
        const double ratio =
            r.graphOverBf16.emplace(graph->samplesPerSecond / bf16->samplesPerSecond);
        if (ratio < kLabSlowdown)
            r.lines.push_back(
                "bf16 -> CUDA graph is a slowdown (" + format::ratio(ratio) +
                "): replaying the step as a graph costs more than the launches it saves (copies "
                "into "
                "the graph's static inputs, or a step too large for launches to matter); do not "
                "capture it.");
        else if (ratio < kSmallLabJump)
            r.lines.push_back("bf16 -> CUDA graph is a small jump (" + format::ratio(ratio) +
                              "): the kernels are already well fused for this model shape.");
        else
            r.lines.push_back("bf16 -> CUDA graph is a large jump (" + format::ratio(ratio) +
                              "): launch overhead costs real time; capture the step (in Python: "
                              "torch.compile(mode=\"reduce-overhead\")).");
    }
    if (bf16 && compiled && compiled->scriptCompiles)
        r.lines.push_back("bf16 -> compile was not measured: the script compiles its model "
                          "itself, so every arm ran compiled. The bf16+compile arm: " +
                          compiled->note + ".");
    else if (bf16 && compiled) {
        const double ratio =
            r.graphOverBf16.emplace(compiled->samplesPerSecond / bf16->samplesPerSecond);
        if (ratio < kLabSlowdown)
            r.lines.push_back("bf16 -> compile is a slowdown (" + format::ratio(ratio) +
                              "): the compiled model runs slower than eager here (guards, "
                              "graph breaks or recompilations around small work); keep it eager.");
        else if (ratio < kSmallLabJump)
            r.lines.push_back("bf16 -> compile is a small jump (" + format::ratio(ratio) +
                              "): the kernels are already fused; torch.compile has little to "
                              "take here.");
        else
            r.lines.push_back("bf16 -> compile is a large jump (" + format::ratio(ratio) +
                              "): fusion and fewer launches pay; compile the model.");
    }
    for (const LabArm& arm : s.lab)
        if (arm.ran && arm.compileSeconds >= 0)
            r.lines.push_back(compileLine(arm));
    // A script lab seeds torch before the script goes on; a script that seeds it again
    // decides its own randomness (the probe saw torch.manual_seed called).
    if (const auto reseeds = s.config.find("script_reseeds");
        !s.lab.empty() && reseeds != s.config.end() && reseeds->second == "true")
        r.lines.emplace_back("The script seeds torch itself (torch.manual_seed): each run used "
                             "its seed, not the lab's.");
    if (r.bf16OverFp32 && r.graphOverBf16 && *r.bf16OverFp32 >= kSmallLabJump &&
        *r.graphOverBf16 >= kSmallLabJump)
        r.lines.emplace_back(
            "Both transitions are large: there was room in precision and in launches; take both.");
    if (s.dataLoaderMs && s.computeMs) {
        r.dataBound = *s.dataLoaderMs > *s.computeMs;
        // Under the compute, a wait of 5 % of the step or more (dataloader-bound's share) is
        // still the loader not keeping up: never "keeps up" beside a finding that it waits.
        const double waitShare = *s.dataLoaderMs / (*s.dataLoaderMs + *s.computeMs);
        std::string verdict =
            *r.dataBound ? "data-bound, the loader sets the pace (more workers, pinned memory, "
                           "cheaper transforms)."
            : waitShare >= kLoaderWaitShare
                ? "compute takes most of the step, but the loop waits " +
                      format::percent(waitShare) +
                      " of it for the next batch: the loader does not keep up (more workers, "
                      "pinned memory, cheaper transforms)."
                : "compute-bound, the loader keeps up.";
        // The sweep changed num_workers alone: where more workers ran clearly faster, the
        // loader did not keep up, whatever the split's wait said (loading in the loop's own
        // process, or on the cores the compute needs, is timed as compute).
        const std::optional<WorkersAgainstRun> sweep = workersAgainstRun(s);
        if (!*r.dataBound && sweep && sweep->bestOverRan() >= kSmallLabJump)
            verdict = "the wait is under the compute, but the workers sweep measured workers = " +
                      std::to_string(sweep->best->value) + " at " +
                      format::ratio(sweep->bestOverRan()) +
                      " the samples per second of the run's " + std::to_string(sweep->ran->value) +
                      ": the loader holds the run back (loading in the loop's own process, or "
                      "on the cores the compute needs, is timed as compute).";
        else if (!*r.dataBound && sweep && waitShare >= kLoaderWaitShare)
            // More workers measured no faster: not the workers' count (helper 49).
            verdict = "compute takes most of the step; the loop waits " +
                      format::percent(waitShare) +
                      " of it for the next batch, which more workers did not shorten (the "
                      "workers sweep): the batch's own cost in the loop's process (collation, "
                      "transforms, pinning) sets it.";
        r.lines.push_back("DataLoader " + format::duration(*s.dataLoaderMs * 1e6) + " vs compute " +
                          format::duration(*s.computeMs * 1e6) + " per step: " + verdict);
    }
    if (s.memory) {
        const MemorySplit& m = s.memory->split;
        std::string split = "Memory of the model: parameters " +
                            format::bytes(double(m.parameterBytes)) + " (" +
                            format::count(double(m.parameterCount)) + "), gradients " +
                            format::bytes(double(m.gradientBytes)) + ", optimizer state " +
                            format::bytes(double(m.optimizerStateBytes));
        split += m.activationBytes >= 0
                     ? ", activations " + format::bytes(double(m.activationBytes)) + "."
                     : "; " + missingMemoryFigures(s) + ".";
        r.lines.push_back(split);
        if (const std::optional<PeakReading> peak = readPeak(*s.memory))
            r.lines.push_back("The peak (" + format::bytes(double(peak->peakBytes)) +
                              ") is set after " + peak->phase +
                              (peak->firstStep ? " of the first step" : "") + ": " +
                              peakCauseName(peak->cause) + ".");
        if (const std::optional<MemoryGrowth> growth = readGrowth(s.memory->peakPerStep))
            r.lines.push_back(
                "The peak grows " + format::bytes(growth->bytesPerStep) + " per step from step " +
                std::to_string(growth->fromStep) +
                ": something keeps each step's graph alive (a loss summed without .item()).");
        if (const std::optional<double> held = reservedOverPeak(*s.memory);
            held && *held > kReservedOverPeak)
            r.lines.push_back("The caching allocator holds " + format::ratio(*held) +
                              " the step's peak: freed blocks are kept; empty_cache() between "
                              "phases of different "
                              "footprint, never inside the loop.");
    }
    // The batch-size series: without checkpointing, and with it (if the sweep ran one).
    std::vector<int64_t> series{0};
    for (const SweepPoint& p : s.sweep)
        if (p.knob == "batch_size" && p.checkpointEvery > 0 &&
            std::find(series.begin(), series.end(), p.checkpointEvery) == series.end())
            series.push_back(p.checkpointEvery);
    for (const int64_t every : series) {
        const BatchFit fit = readBatchFit(s, every);
        if (fit.largestFits && fit.fastest)
            r.lines.push_back((every > 0 ? "Batch size with " + checkpointingName(every)
                                         : std::string("Batch size")) +
                              ": the largest that fits is " + std::to_string(*fit.largestFits) +
                              (fit.firstOutOfMemory ? " (" + std::to_string(*fit.firstOutOfMemory) +
                                                          " ran out of memory)"
                                                    : std::string(" (none ran out of memory)")) +
                              ", the fastest is " + std::to_string(*fit.fastest) + ".");
    }
    if (const std::optional<CheckpointTrade> trade = readCheckpointTrade(s)) {
        std::string line = "At batch size " + std::to_string(trade->batchSize) + ", " +
                           checkpointingName(trade->every);
        if (trade->peakWithoutBytes >= 0 && trade->peakWithBytes >= 0)
            line += " takes the peak from " + format::bytes(double(trade->peakWithoutBytes)) +
                    " to " + format::bytes(double(trade->peakWithBytes)) + " (" +
                    format::percentChange(-trade->memorySaved()) + ") and";
        line += " the step from " + format::duration(trade->stepWithoutMs * 1e6) + " to " +
                format::duration(trade->stepWithMs * 1e6) + " (" +
                format::percentChange(trade->timeCost()) + ").";
        r.lines.push_back(line);
    }
    for (const LabArm& arm : s.lab)
        if (arm.ran && !arm.latency.phase.empty())
            r.lines.push_back(std::string("Latency per batch, ") + arm.name() + ": mean " +
                              format::duration(arm.latency.meanMs * 1e6) + ", p50 " +
                              format::duration(arm.latency.medianMs * 1e6) + ", p95 " +
                              format::duration(arm.latency.p95Ms * 1e6) + ", p99 " +
                              format::duration(arm.latency.p99Ms * 1e6) + " (" +
                              format::rate(arm.samplesPerSecond, "samples") + ").");
    for (const char* knob : {"workers", "batch_size"}) {
        const SweepPoint* best = nullptr;
        for (const SweepPoint& p : s.sweep)
            if (p.knob == knob && p.error.empty() &&
                (!best || p.samplesPerSecond > best->samplesPerSecond))
                best = &p;
        const SweepPoint* fewest = nullptr;  // workers: the point to measure the best against
        for (const SweepPoint& p : s.sweep)
            if (p.knob == knob && p.error.empty() && p.samplesPerSecond > 0 &&
                (!fewest || p.value < fewest->value))
                fewest = &p;
        if (!best)
            continue;
        std::string line = std::string("Sweep of ") + knob + ": best at " + knob + " = " +
                           std::to_string(best->value) + " (" +
                           format::rate(best->samplesPerSecond, "samples");
        if (std::string(knob) == "workers" && fewest && fewest != best)
            line += ", " + format::ratio(best->samplesPerSecond / fewest->samplesPerSecond) +
                    " workers = " + std::to_string(fewest->value) + "'s; the data wait " +
                    format::duration(fewest->dataWaitMs * 1e6) + " -> " +
                    format::duration(best->dataWaitMs * 1e6) + " per step";
        r.lines.push_back(line + ").");
    }
    return r;
}

}  // namespace kinetoscope::session
