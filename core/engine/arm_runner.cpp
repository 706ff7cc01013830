#include "core/engine/arm_runner.h"

#include "core/engine/autocast_scope.h"
#include "core/engine/cpu_allocator.h"
#include "core/engine/cuda_support.h"
#include "core/engine/optimizer.h"
#include "core/lab/run_options.h"
#include "core/session/timing_stats.h"

#include <ATen/record_function.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <thread>
#include <torch/csrc/autograd/profiler_kineto.h>
#include <torch/cuda.h>
#include <torch/nn/functional/loss.h>

namespace kinetoscope::engine::detail {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// Times the marks of one step: CUDA events on the stream on a GPU (read after the step,
// adding no synchronisation), the steady clock on the CPU (where ops are synchronous).
class StepClock
{
public:
    static constexpr size_t kMarks = 5;  // before h2d, after h2d, forward, backward, optimizer
    explicit StepClock(bool cuda) : m_cuda(cuda), m_events(cuda ? kMarks : 0) {}
    void mark(size_t i)
    {
        if (m_cuda)
            m_events.mark(i);
        else
            m_times[i] = Clock::now();
    }
    double ms(size_t from, size_t to)
    {
        if (m_cuda)
            return m_events.elapsedMs(from, to);
        return std::chrono::duration<double, std::milli>(m_times[to] - m_times[from]).count();
    }

private:
    bool m_cuda;
    cuda::PhaseEvents m_events;
    Clock::time_point m_times[kMarks];
};

constexpr const char* kPhases[] = {"data", "h2d", "forward", "backward", "optimizer"};

// The profiler's schedule over the measured steps: wait 1, warm up 1, record up to 5;
// [first recorded step, end).
// The profiler window: steps [start, end), after the measured ones and one step that
// prepares the profiler, so that no measured figure carries CUPTI's per-kernel cost or
// the profiler's start and stop. The arm without a window ends with its measured steps.
struct ProfileWindow
{
    int64_t start = 0, end = 0;
};
ProfileWindow profileWindow(const RunConfig& config, bool profiled)
{
    const int64_t measuredEnd = config.warmup + config.steps;
    if (!profiled)
        return {measuredEnd, measuredEnd};
    const int64_t start = measuredEnd + 1;
    return {start, start + std::min<int64_t>(5, config.steps)};
}

// The test-only planted latency: the measured step's share of it, slept inside the timed
// forward.
void sleepPlanted(const RunConfig& config, int64_t measuredStep)
{
    if (config.plantedLatencyUs.empty())
        return;
    const int64_t us =
        config.plantedLatencyUs[size_t(measuredStep) % config.plantedLatencyUs.size()];
    std::this_thread::sleep_for(std::chrono::microseconds(us));
}

// A step's peak of live tensor bytes: the CUDA caching allocator's, or on the CPU the
// engine's counting allocator's (which also counts batches the loader's workers prefetch).
void resetStepPeak(bool cuda)
{
    cuda ? cuda::resetPeakAllocated() : cpu::resetPeakAllocated();
}
int64_t stepPeak(bool cuda)
{
    return cuda ? cuda::peakAllocatedBytes() : cpu::peakAllocatedBytes();
}
// The CPU's counting allocator caches nothing: only CUDA has a reserved figure.
int64_t stepPeakReserved(bool cuda)
{
    return cuda ? cuda::peakReservedBytes() : -1;
}

// The seeds' memory triage of one step: the allocator after each phase (the CUDA caching
// allocator's host-side counters: reading them adds no synchronisation; on the CPU the
// engine's counting allocator, which has no cache and so nothing reserved).
class MemoryProbe
{
public:
    explicit MemoryProbe(bool cuda) : m_cuda(cuda) {}
    void begin(std::vector<session::PhaseMemory>* rows)
    {
        m_rows = rows;
        resetStepPeak(m_cuda);
        after("start");
    }
    void after(const char* phase)
    {
        if (!m_rows)
            return;
        session::PhaseMemory row;
        row.phase = phase;
        if (m_cuda) {
            const cuda::AllocatorBytes bytes = cuda::allocatorBytes();
            row.allocatedBytes = bytes.allocated;
            row.reservedBytes = bytes.reserved;
        } else {
            row.allocatedBytes = cpu::allocatedBytes();
        }
        row.peakAllocatedBytes = stepPeak(m_cuda);
        m_rows->push_back(row);
    }
    void end() { m_rows = nullptr; }

private:
    bool m_cuda;
    std::vector<session::PhaseMemory>* m_rows = nullptr;  // the step being probed, or none
};

// Training reads the logits as [batch, classes] against class indices below the data's
// class count: a model with fewer outputs would index past them (torch's "Target 7 is out
// of bounds" on the CPU, a device-side assert that poisons the context on a GPU), so the
// one line says what to change instead.
void checkLogits(const torch::Tensor& logits, const torch::Tensor& targets, const SampleSpec& data,
                 const RunConfig& config)
{
    const int64_t batch = targets.size(0);
    if (logits.dim() == 2 && logits.size(0) == batch && logits.size(1) >= data.classes)
        return;
    const std::string output = shapeText(logits.sizes());
    if (logits.dim() != 2 || logits.size(0) != batch)
        throw UserError("the model's output is " + output + " for a batch of " +
                        std::to_string(batch) +
                        " samples: training needs logits of shape [batch, classes]");
    const std::string classes = std::to_string(logits.size(1));
    const std::string text = "the model gives " + classes + " classes (its output is " + output +
                             ") but the " + config.dataset + " targets have " +
                             std::to_string(data.classes);
    if (config.dataset == "synthetic")
        throw UserError(text + " (--classes, 10 by default): pass --classes " + classes);
    throw UserError(text + ": the model needs at least " + std::to_string(data.classes) +
                    " outputs");
}

// loss.backward(). A TorchScript model's backward graph runs in torch's interpreter too,
// which rethrows what it met, an out-of-memory included, as a std::runtime_error of several
// lines: an out-of-memory goes on as one (the arms and the batch sweep stop at it), anything
// else as one line with torch's reason.
void backward(const torch::Tensor& loss)
{
    try {
        loss.backward();
    } catch (const c10::Error&) {
        throw;
    } catch (const std::bad_alloc&) {
        throw;
    } catch (const std::exception& e) {
        const std::string reason = torchReason(e.what());
        if (isOutOfMemoryMessage(reason))
            TORCH_CHECK_WITH(OutOfMemoryError, false, reason);
        throw UserError("the model's backward failed: " + reason);
    }
}

int64_t bytesOf(const std::vector<torch::Tensor>& tensors, bool gradients)
{
    int64_t bytes = 0;
    for (const torch::Tensor& t : tensors) {
        const torch::Tensor& counted = gradients ? t.grad() : t;
        if (counted.defined())
            bytes += int64_t(counted.nbytes());
    }
    return bytes;
}

}  // namespace

double ArmResult::meanMs(const std::string& phase) const
{
    for (const session::PhaseTiming& t : phases)
        if (t.phase == phase)
            return t.meanMs;
    return 0.0;
}

ArmRunner::ArmRunner(const RunConfig& config, const RunCallbacks& callbacks)
    : m_callbacks(callbacks)
{
    // What can be told without torch (names, counts, files), as `kinetoscope run` checked
    // before it started this process; then what only torch can tell.
    if (std::string error; !lab::validateRunConfig(config, error))
        throw UserError(error);
    const bool cudaHere = torch::cuda::is_available();
    if (config.device == "cuda" && !cudaHere)
        throw UserError("--device cuda: no CUDA device is available on this machine");
    m_device = (config.device == "cuda" || (config.device == "auto" && cudaHere))
                   ? torch::Device(torch::kCUDA)
                   : torch::Device(torch::kCPU);
    m_dataset = openDataset(config);
    // A CPU step's peak comes from the counting allocator; installed after the dataset is
    // read, so that an in-memory dataset counts neither in the peaks nor against a limit.
    if (!cuda())
        cpu::countAllocations();
    // A model that cannot be built or loaded fails here, before any arm runs.
    buildModel(config, m_dataset->spec());
}

ArmResult ArmRunner::run(const ArmOptions& arm, const RunConfig& config, double progressFrom,
                         double progressTo)
{
    // Each arm's reserved peak is its own: blocks an earlier arm left cached go back first.
    if (cuda())
        cuda::releaseCachedMemory();
    return config.mode == "inference" ? infer(arm, config, progressFrom, progressTo)
                                      : train(arm, config, progressFrom, progressTo);
}

ArmResult ArmRunner::train(const ArmOptions& arm, const RunConfig& config, double progressFrom,
                           double progressTo)
{
    torch::manual_seed(config.seed);
    const SampleSpec data = m_dataset->spec();
    std::unique_ptr<Model> model = buildModel(config, data);
    model->to(m_device);
    model->train();
    ClippedAdam optimizer(model->parameters());
    RunConfig loaderConfig = config;
    if (arm.graph)
        loaderConfig.dropLast = true;  // a captured graph has one batch shape
    Loader loader(loaderConfig, *m_dataset);
    if (cuda()) {
        torch::cuda::synchronize();
        cuda::resetPeakAllocated();
    }

    auto synchronize = [&] {
        if (cuda())
            torch::cuda::synchronize();
    };
    MemoryProbe probe(cuda());
    auto forwardLoss = [&](const torch::Tensor& x, const torch::Tensor& y) {
        AutocastScope autocast(arm.bf16, m_device.type());
        const torch::Tensor logits = model->forward(x);
        checkLogits(logits, y, data, config);
        probe.after("forward");
        return torch::nn::functional::cross_entropy(logits, y);
    };
    // The graph arm's whole step on fixed tensors; grads are set to none first so that
    // backward allocates them inside the capture.
    torch::Tensor staticInputs, staticTargets;
    auto wholeStep = [&] {
        optimizer.zeroGrad();
        torch::Tensor loss = forwardLoss(staticInputs, staticTargets);
        backward(loss);
        optimizer.step();
        return loss;
    };
    std::unique_ptr<cuda::GraphedStep> graphed;

    const int64_t measuredEnd = config.warmup + config.steps;
    const auto [profileStart, profileEnd] = profileWindow(config, arm.profile);
    const int64_t total = profileEnd;
    std::vector<double> phaseMs[std::size(kPhases)];
    ArmResult result;
    // The arm that records its steps also records the memory triage: step 0 (the
    // optimizer's state is created) and the first measured step.
    session::MemoryTriage memory;
    if (!cuda())
        memory.unavailable = config.workers > 0
                                 ? "reserved: the CPU has no caching allocator; with loader "
                                   "workers the figures include "
                                   "the batches they prefetch, and activations cannot be told apart"
                                 : "reserved: the CPU has no caching allocator";
    const std::vector<torch::Tensor> parameters = model->parameters();
    memory.split.parameterTensors = int64_t(parameters.size());
    for (const torch::Tensor& p : parameters)
        memory.split.parameterCount += p.numel();
    memory.split.parameterBytes = bytesOf(parameters, false);
    StepClock clock(cuda());
    Clock::time_point measureStart = Clock::now(), measureEnd = measureStart;
    // A failure inside the profiler window must not leave the profiler on for the next run.
    const ProfilerOff profilerOff{*this};
    for (int64_t step = 0; step < total; ++step) {
        if (step == config.warmup) {
            synchronize();
            measureStart = Clock::now();
        }
        if (step == measuredEnd) {
            synchronize();
            measureEnd = Clock::now();
        }
        beginStep(arm, config, step, total,
                  progressFrom + (progressTo - progressFrom) * double(step) / double(total),
                  profileStart);
        RECORD_USER_SCOPE(("ProfilerStep#" + std::to_string(step)).c_str());
        resetStepPeak(cuda());
        const bool probed = arm.recordSteps && !arm.graph && (step == 0 || step == config.warmup);
        if (probed)
            probe.begin(step == 0 ? &memory.firstStep : &memory.steadyStep);
        double dataMs = 0;
        const Batch batch = nextBatch(loader, dataMs);
        clock.mark(0);
        const torch::Tensor x = batch.inputs.to(m_device, config.nonBlocking);
        const torch::Tensor y = batch.targets.to(m_device, config.nonBlocking);
        clock.mark(1);
        probe.after("batch to device");
        if (step >= config.warmup && step < measuredEnd)
            sleepPlanted(config, step - config.warmup);
        torch::Tensor loss;
        if (arm.graph) {
            if (!graphed) {  // capture on the first batch: its call is this step's update
                staticInputs = x.clone();
                staticTargets = y.clone();
                graphed = std::make_unique<cuda::GraphedStep>(wholeStep, /*warmupCalls=*/3);
                loss = graphed->replay();
            } else {
                staticInputs.copy_(x, /*non_blocking=*/true);
                staticTargets.copy_(y, /*non_blocking=*/true);
                loss = graphed->replay();
            }
            clock.mark(2);  // forward, backward and optimizer are one replay
            clock.mark(3);
            clock.mark(4);
        } else {
            loss = forwardLoss(x, y);
            probe.after("loss");
            clock.mark(2);
            backward(loss);
            probe.after("backward");
            if (probed)
                memory.split.gradientBytes = bytesOf(parameters, true);
            clock.mark(3);
            {
                RECORD_USER_SCOPE("Optimizer.step#Adam.step");
                optimizer.step();
                probe.after("optimizer step");
                optimizer.zeroGrad();
                probe.after("zero_grad");
            }
            probe.end();
            clock.mark(4);
        }
        float value = loss.item<float>();  // waits for the step: the marks are complete
        const int64_t peak = stepPeak(cuda());
        result.peakAllocatedBytes = std::max(result.peakAllocatedBytes, peak);
        result.peakReservedBytes = std::max(result.peakReservedBytes, stepPeakReserved(cuda()));
        // The growth reading wants a peak that only the step sets: on the CPU, loader
        // workers' prefetched batches would count too, so only with none.
        if ((cuda() || config.workers == 0) && step < measuredEnd)
            memory.peakPerStep.push_back(peak);
        if (step == config.poisonLossAtStep && arm.recordSteps)
            value = std::nanf("");
        if (!std::isfinite(value))
            throw UserError("the loss became " +
                            std::string(std::isnan(value) ? "NaN" : "infinite") + " at step " +
                            std::to_string(step) + " of the " + arm.name + " run");
        if (step < config.warmup || step >= measuredEnd)
            continue;
        session::StepTiming t{step,           dataMs,         clock.ms(0, 1), clock.ms(1, 2),
                              clock.ms(2, 3), clock.ms(3, 4), value};
        const double values[] = {t.dataMs, t.h2dMs, t.forwardMs, t.backwardMs, t.optimizerMs};
        for (size_t p = 0; p < std::size(kPhases); ++p)
            phaseMs[p].push_back(values[p]);
        if (arm.recordSteps) {
            result.steps.push_back(t);
            if (m_callbacks.step)
                m_callbacks.step(t);
        }
    }
    // Outside every step's scope: the last profiled step ends before the profiler's stop.
    if (arm.profile)
        stopProfiler(config);
    if (total == measuredEnd) {
        synchronize();
        measureEnd = Clock::now();
    }
    const double seconds = std::chrono::duration<double>(measureEnd - measureStart).count();
    result.samplesPerSecond = double(config.steps * config.batchSize) / seconds;
    result.meanStepMs = seconds * 1e3 / double(config.steps);
    for (size_t p = 0; p < std::size(kPhases); ++p)
        result.phases.push_back(session::timingStats(kPhases[p], std::move(phaseMs[p])));
    if (arm.recordSteps && !arm.graph) {
        memory.split.optimizerStateBytes = optimizer.stateBytes();
        // Activations: what forward and the loss added on top of the batch, in the steady step.
        const auto& rows = memory.steadyStep;
        auto allocatedAfter = [&](const char* phase) -> int64_t {
            for (const session::PhaseMemory& row : rows)
                if (row.phase == phase)
                    return row.allocatedBytes;
            return -1;
        };
        // (On the CPU, loader workers allocate their batches in between: not told apart.)
        if (allocatedAfter("loss") >= 0 && allocatedAfter("batch to device") >= 0 &&
            (cuda() || config.workers == 0))
            memory.split.activationBytes =
                std::max<int64_t>(0, allocatedAfter("loss") - allocatedAfter("batch to device"));
        result.memory = std::move(memory);
    }
    return result;
}

ArmResult ArmRunner::infer(const ArmOptions& arm, const RunConfig& config, double progressFrom,
                           double progressTo)
{
    torch::manual_seed(config.seed);
    std::unique_ptr<Model> model = buildModel(config, m_dataset->spec());
    model->to(m_device);
    model->eval();
    RunConfig loaderConfig = config;
    if (arm.graph)
        loaderConfig.dropLast = true;  // a captured graph has one batch shape
    Loader loader(loaderConfig, *m_dataset);
    // No autograd: no graph is recorded and no tensor keeps one alive.
    c10::InferenceMode inference;
    auto forward = [&](const torch::Tensor& x) {
        AutocastScope autocast(arm.bf16, m_device.type());
        return model->forward(x);
    };
    torch::Tensor staticInputs;
    std::unique_ptr<cuda::GraphedStep> graphed;

    const int64_t measuredEnd = config.warmup + config.steps;
    const auto [profileStart, profileEnd] = profileWindow(config, arm.profile);
    const int64_t total = profileEnd;
    const ProfilerOff profilerOff{*this};
    std::vector<double> phaseMs[3];  // data, h2d, latency
    ArmResult result;
    StepClock clock(cuda());
    for (int64_t step = 0; step < total; ++step) {
        beginStep(arm, config, step, total,
                  progressFrom + (progressTo - progressFrom) * double(step) / double(total),
                  profileStart);
        RECORD_USER_SCOPE(("ProfilerStep#" + std::to_string(step)).c_str());
        resetStepPeak(cuda());
        double dataMs = 0;
        const Batch batch = nextBatch(loader, dataMs);
        clock.mark(0);
        const torch::Tensor x = batch.inputs.to(m_device, config.nonBlocking);
        clock.mark(1);
        // The latency is the forward on a batch already on the device (seed 002's
        // measure_latency): between marks 1 and 2.
        if (step >= config.warmup && step < measuredEnd)
            sleepPlanted(config, step - config.warmup);
        torch::Tensor output;
        if (arm.graph) {
            if (!graphed) {
                staticInputs = x.clone();
                graphed = std::make_unique<cuda::GraphedStep>([&] { return forward(staticInputs); },
                                                              /*warmupCalls=*/3);
            } else {
                staticInputs.copy_(x, /*non_blocking=*/true);
            }
            output = graphed->replay();
        } else {
            output = forward(x);
        }
        clock.mark(2);
        const double latencyMs = clock.ms(1, 2);  // on a GPU, waits for the forward's last kernel
        result.peakAllocatedBytes = std::max(result.peakAllocatedBytes, stepPeak(cuda()));
        result.peakReservedBytes = std::max(result.peakReservedBytes, stepPeakReserved(cuda()));
        if (step < config.warmup || step >= measuredEnd)
            continue;
        const session::StepTiming t{step, dataMs, clock.ms(0, 1), latencyMs, 0, 0, 0};
        phaseMs[0].push_back(t.dataMs);
        phaseMs[1].push_back(t.h2dMs);
        phaseMs[2].push_back(latencyMs);
        if (arm.recordSteps) {
            result.steps.push_back(t);
            if (m_callbacks.step)
                m_callbacks.step(t);
        }
    }
    if (arm.profile)
        stopProfiler(config);  // outside every step's scope, as in train
    if (cuda())
        torch::cuda::synchronize();
    result.phases = {session::timingStats("data", std::move(phaseMs[0])),
                     session::timingStats("h2d", std::move(phaseMs[1]))};
    result.latency = session::timingStats("latency", std::move(phaseMs[2]));
    result.phases.push_back(result.latency);
    result.meanStepMs = result.latency.meanMs;
    if (result.latency.meanMs > 0)
        result.samplesPerSecond = double(config.batchSize) * 1e3 / result.latency.meanMs;
    return result;
}

void ArmRunner::beginStep(const ArmOptions& arm, const RunConfig& config, int64_t step,
                          int64_t steps, double fraction, int64_t profileStart)
{
    if (m_callbacks.cancel && m_callbacks.cancel->load())
        throw Cancelled{};
    if (m_callbacks.progress)
        m_callbacks.progress({arm.name, fraction, step, steps});
    if (step == config.warmup && config.outOfMemoryInArm == arm.name)
        TORCH_CHECK_WITH(OutOfMemoryError, false, "injected out-of-memory in the ", arm.name,
                         " arm");
    if (arm.profile && step == profileStart - 1)
        startProfiler(/*prepareOnly=*/true);
    if (arm.profile && step == profileStart)
        startProfiler(false);
}

Batch ArmRunner::nextBatch(Loader& loader, double& waitMs)
{
    const auto start = Clock::now();
    RECORD_USER_SCOPE("enumerate(DataLoader)#_KinetoscopeLoaderIter.__next__");
    Batch batch = loader.next();
    waitMs = msSince(start);
    return batch;
}

ArmRunner::ProfilerOff::~ProfilerOff()
{
    if (runner.m_profiling) {
        torch::autograd::profiler::disableProfiler();
        runner.m_profiling = false;
    }
}

void ArmRunner::startProfiler(bool prepareOnly)
{
    namespace impl = torch::profiler::impl;
    const impl::ProfilerConfig config(impl::ProfilerState::KINETO, /*report_input_shapes=*/true,
                                      /*profile_memory=*/true, /*with_stack=*/false,
                                      /*with_flops=*/true);
    std::set<impl::ActivityType> activities{impl::ActivityType::CPU};
    if (cuda())
        activities.insert(impl::ActivityType::CUDA);
    if (prepareOnly) {
        torch::autograd::profiler::prepareProfiler(config, activities);
    } else {
        torch::autograd::profiler::enableProfiler(config, activities);
        m_profiling = true;
    }
}

void ArmRunner::stopProfiler(const RunConfig& config)
{
    auto result = torch::autograd::profiler::disableProfiler();
    m_profiling = false;
    std::filesystem::create_directories(config.outDir);
    m_tracePath = (std::filesystem::path(config.outDir) / "trace.json").string();
    result->save(m_tracePath);
}

}  // namespace kinetoscope::engine::detail
