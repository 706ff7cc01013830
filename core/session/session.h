#pragma once
// A Session: what one lab run measured (configuration, environment, the three-run
// baseline, phase timings, the DataLoader-vs-compute split), the trace it wrote and the
// findings at the time, saved as one JSON file (`*.kinetoscope.json`), written
// atomically. Plain data and its JSON: core/document opens a session with its trace for
// the GUI and `kinetoscope diagnose|report SESSION`, and feeds the lab-aware rules.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope::session {

inline constexpr int kSessionFormat = 1;
inline constexpr const char* kSessionSuffix = ".kinetoscope.json";

// The three runs of the lab's baseline (seed 000): fp32, bf16 autocast, and bf16 with the
// launches cut: a whole-step CUDA graph (the C++ lab, which has no torch.compile) or the
// real torch.compile (a user's script, `kinetoscope profile --lab`, kinetoscope.lab()).
enum class ArmKind : uint8_t
{
    Fp32,
    Bf16,
    Bf16CudaGraph,
    Bf16Compile,
};
// "fp32", "bf16", "bf16+cuda-graph", "bf16+compile": the session file, CLI and GUI
const char* armName(ArmKind kind);
std::optional<ArmKind> parseArmKind(std::string_view name);

// Mean, std, median, p95 and p99 of one phase's per-step times (milliseconds).
struct PhaseTiming
{
    std::string phase;  // "data", "h2d", "forward", "backward", "optimizer"; "latency"
    double meanMs = 0, stdMs = 0, medianMs = 0, p95Ms = 0, p99Ms = 0;
};

struct LabArm
{
    ArmKind kind = ArmKind::Fp32;
    bool ran = false;
    std::string skippedReason;  // why it did not run ("needs a GPU", "out of memory at batch 512")
    double samplesPerSecond = 0.0;
    double meanStepMs = 0.0;
    int64_t peakAllocatedBytes = -1;
    int64_t peakReservedBytes = -1;  // the CUDA caching allocator's largest hold; -1 on the CPU
    // An inference run's per-batch latency (the forward on a batch already on the
    // device); an empty phase in a training run.
    PhaseTiming latency{};
    // bf16+compile: seconds spent compiling (the warm-up calls that compiled; never in the
    // steady figures), graph breaks, compilations after the first; -1 where not measured.
    double compileSeconds = -1;
    int64_t graphBreaks = -1;
    int64_t recompiles = -1;
    int64_t compiledInMeasured = -1;  // compilations during measured steps (the median holds)
    // What the arm found ("the script already uses autocast"), or empty. The "{}" because
    // GCC warns (missing-field-initializers) on the aggregates that leave it out.
    std::string note{};  // NOLINT(readability-redundant-member-init)
    // The script runs its own mixed precision (autocast, a GradScaler): the arm's bf16 was
    // not applied, so this arm and the fp32 arm both ran the script as written.
    bool scriptPrecision = false;
    // The script compiles its model itself: the arm's torch.compile was not applied (every
    // arm ran the script's compiled model).
    bool scriptCompiles = false;
    // Cores other processes used on average while the arm's run went on (a script's lab:
    // core/lab/other_processes.h); -1 where not measured.
    double otherCpuCores = -1;

    const char* name() const { return armName(kind); }
};

// One step of the fp32 arm (or of a profiled script) as it finished, milliseconds per
// phase. A step's memory is the CUDA caching allocator's (bytes; -1 where not measured: on
// the CPU, and in sessions written before a script could be profiled).
struct StepTiming
{
    int64_t step = 0;
    double dataMs = 0, h2dMs = 0, forwardMs = 0, backwardMs = 0, optimizerMs = 0;
    double loss = 0;                                          // NaN when not known or not finite
    int64_t allocatedBytes = -1, reservedBytes = -1;          // at the step's end
    int64_t peakAllocatedBytes = -1, peakReservedBytes = -1;  // the most during the step
    double wallMs = -1;  // boundary to boundary, everything in the step; -1: not measured
    // The step's time (ms): its wall time where measured, else the sum of its phases (the
    // engine's steps, a probe older than the wall column).
    double wallOrPhasesMs() const
    {
        return wallMs >= 0 ? wallMs : dataMs + h2dMs + forwardMs + backwardMs + optimizerMs;
    }
};

// One point of a sweep: samples/s with one knob set to `value`.
struct SweepPoint
{
    std::string knob;  // "workers" or "batch_size"
    int64_t value = 0;
    double samplesPerSecond = 0;  // 0 when it failed
    double dataWaitMs = 0;        // mean wait for the next batch per step
    std::string error;            // "out of memory at batch size 4096", or empty
    double meanStepMs = 0;        // training: a step; inference: a batch's latency
    // The most tensor bytes live at once in a step: the CUDA caching allocator's, or on
    // the CPU the engine's counting allocator's; -1 when not measured.
    int64_t peakAllocatedBytes = -1;
    int64_t peakReservedBytes = -1;  // the CUDA caching allocator's largest hold; -1 on the CPU
    PhaseTiming latency{};           // inference runs only (empty phase otherwise)
    int64_t checkpointEvery = 0;     // activation checkpointing of every N-th block (0: off)
    double otherCpuCores = -1;       // as LabArm's
};

// Memory after one phase of a step, as the seeds' memory triage prints it (bytes; -1
// where not measured: the CPU has no caching allocator to read).
struct PhaseMemory
{
    std::string phase;  // "start", "batch to device", "forward", "loss", "backward", "optimizer
                        // step", "zero_grad"
    int64_t allocatedBytes = -1;      // live tensors after the phase
    int64_t reservedBytes = -1;       // held by the caching allocator after the phase
    int64_t peakAllocatedBytes = -1;  // the most allocated at once since the step began
};

// Where a training step's memory goes (the seed-001 memory table), computed from the
// model and the optimizer: exact on any device. Activations need the allocator's figures
// (the CUDA caching allocator, or the engine's counting CPU allocator; -1 without them).
struct MemorySplit
{
    int64_t parameterCount = 0;  // elements
    int64_t parameterTensors = 0;
    int64_t parameterBytes = 0;
    int64_t gradientBytes = 0;  // after backward, before zero_grad (set to none)
    int64_t optimizerStateBytes =
        0;                         // Adam: two moments per parameter and a float32 step per tensor
    int64_t activationBytes = -1;  // allocated after forward + loss minus after the batch arrived
};

struct MemoryTriage
{
    std::vector<PhaseMemory> firstStep;   // step 0: the optimizer's state is created
    std::vector<PhaseMemory> steadyStep;  // the first measured step (after warm-up)
    // Peak allocated bytes of each step, warm-up included (index = step); on the CPU only
    // when no loader worker prefetches (their batches would count too).
    std::vector<int64_t> peakPerStep;
    MemorySplit split;
    // What the figures leave out, in words ("reserved: the CPU has no caching allocator"),
    // empty when everything was measured. Sessions written before the CPU was counted say
    // "needs a GPU" and carry no figures.
    std::string unavailable;
};

// A live sample of the machine while the run went on; -1 where not available.
struct LiveSample
{
    double seconds = 0;               // since the run started
    double cpuPercent = -1;           // all cores of the machine, 0-100
    double gpuPercent = -1;           // NVML utilisation of the run's GPU
    int64_t gpuMemoryUsedBytes = -1;  // NVML: every process on that GPU
    int64_t allocatedBytes = -1;      // CUDA caching allocator: live tensors
    int64_t reservedBytes = -1;       // CUDA caching allocator: held from the driver
    int64_t residentBytes = -1;       // this process's resident set (host memory)
};

struct Session
{
    std::map<std::string, std::string> config;       // model, dataset, device, batch_size...
    std::map<std::string, std::string> environment;  // device name, driver, torch version
    std::vector<LabArm> lab;
    std::vector<PhaseTiming> phases;
    std::optional<double> dataLoaderMs;  // mean wait for the next batch per step
    std::optional<double> computeMs;     // mean forward + backward + optimizer per step
    std::vector<StepTiming> steps;       // the fp32 arm's measured steps
    std::vector<SweepPoint> sweep;
    std::vector<LiveSample> samples;
    std::optional<MemoryTriage> memory;  // the fp32 arm's, when it ran (training only)
    std::string tracePath;               // relative to the session file's folder, or absolute
    std::string snapshotPath;            // a CUDA memory snapshot (--memory-snapshot), likewise
    std::vector<std::pair<std::string, std::string>> findings;  // (id, title) when saved
    // Why the run stopped before it finished ("the engine was killed by SIGKILL in fp32,
    // after step 7"), or empty: what it holds was measured before that.
    std::string interrupted;

    // config["mode"]: an inference run (eval mode, no autograd, latency per batch).
    bool inference() const;
};

// What a session recorded without a trace lacks and how to get it, for every place that
// says so: a lab run without --profile, or a profiled script that ended before its window
// (or ran with --no-trace).
inline constexpr const char* kNoTraceAdvice =
    "the trace's findings need a profiler window (kinetoscope run --profile; a profiled script "
    "that runs past its --skip warm-up steps, without --no-trace)";
// The same for this session: when the probe says why its window was not taken (config
// "window": a profiler of the script's own had the process's one profiler session), that.
std::string noTraceAdvice(const Session& session);

bool isSessionPath(const std::filesystem::path& path);
// The session as the JSON text saveSession writes.
std::string sessionJson(const Session& session);
// Writes to a temporary file in the same folder, flushes it to disk, then renames it over
// `path`: a crash mid-write never leaves a half-written session. False + one-line error.
bool saveSession(const Session& session, const std::filesystem::path& path, std::string& error);
std::optional<Session> loadSession(const std::filesystem::path& path, std::string& error);
// The same over a session's JSON text; `origin` names it in the error line.
std::optional<Session> parseSession(std::string_view text, const std::string& origin,
                                    std::string& error);
// The trace path resolved against the session file's folder; its ".gz" when only that exists.
std::filesystem::path traceOf(const Session& session, const std::filesystem::path& sessionPath);
// The session's memory snapshot (--memory-snapshot), resolved like its trace; empty if none.
std::filesystem::path snapshotOf(const Session& session, const std::filesystem::path& sessionPath);

}  // namespace kinetoscope::session
