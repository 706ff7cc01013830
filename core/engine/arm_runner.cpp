#include "core/engine/arm_runner.h"

#include "core/engine/cuda_support.h"
#include "core/engine/optimizer.h"

#include <ATen/autocast_mode.h>
#include <ATen/record_function.h>
#include <torch/csrc/autograd/profiler_kineto.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>

namespace kinetoscope::engine::detail {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// bf16 autocast on the run's device for the forward pass (and the loss).
class AutocastScope
{
public:
    AutocastScope(bool enabled, torch::Device device) : m_enabled(enabled), m_type(device.type())
    {
        if (!m_enabled)
            return;
        m_previous = at::autocast::is_autocast_enabled(m_type);
        at::autocast::set_autocast_enabled(m_type, true);
        at::autocast::set_autocast_dtype(m_type, at::kBFloat16);
        at::autocast::increment_nesting();
    }
    ~AutocastScope()
    {
        if (!m_enabled)
            return;
        if (at::autocast::decrement_nesting() == 0)
            at::autocast::clear_cache();
        at::autocast::set_autocast_enabled(m_type, m_previous);
    }
    AutocastScope(const AutocastScope&) = delete;
    AutocastScope& operator=(const AutocastScope&) = delete;

private:
    bool m_enabled;
    c10::DeviceType m_type;
    bool m_previous = false;
};

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

}  // namespace

double ArmResult::meanMs(const std::string& phase) const
{
    for (const session::PhaseTiming& t : phases)
        if (t.phase == phase)
            return t.meanMs;
    return 0.0;
}

session::PhaseTiming phaseTiming(const std::string& phase, std::vector<double> values)
{
    session::PhaseTiming t;
    t.phase = phase;
    if (values.empty())
        return t;
    std::sort(values.begin(), values.end());
    double sum = 0;
    for (double v : values)
        sum += v;
    t.meanMs = sum / double(values.size());
    double squares = 0;
    for (double v : values)
        squares += (v - t.meanMs) * (v - t.meanMs);
    t.stdMs = std::sqrt(squares / double(values.size()));
    // Nearest-rank percentiles.
    auto rank = [&](double p) {
        return values[std::min(values.size() - 1, size_t(std::ceil(p * double(values.size()))) - 1)];
    };
    t.medianMs = rank(0.5);
    t.p95Ms = rank(0.95);
    t.p99Ms = rank(0.99);
    return t;
}

ArmRunner::ArmRunner(const RunConfig& config, const RunCallbacks& callbacks) : m_callbacks(callbacks)
{
    if (config.device != "auto" && config.device != "cpu" && config.device != "cuda")
        throw UserError("--device takes auto, cpu or cuda, not '" + config.device + "'");
    const bool cudaHere = torch::cuda::is_available();
    if (config.device == "cuda" && !cudaHere)
        throw UserError("--device cuda: no CUDA device is available on this machine");
    m_device = (config.device == "cuda" || (config.device == "auto" && cudaHere)) ? torch::Device(torch::kCUDA)
                                                                                   : torch::Device(torch::kCPU);
    if (config.steps < 1 || config.batchSize < 1 || config.warmup < 0 || config.workers < 0 || config.prefetch < 1)
        throw UserError("--steps, --batch-size and --prefetch must be at least 1, --warmup and --workers at least 0");
    m_dataset = openDataset(config);
    // A model that cannot be built or loaded fails here, before any arm runs.
    buildModel(config, m_dataset->spec());
}

ArmResult ArmRunner::run(const ArmOptions& arm, const RunConfig& config, double progressFrom, double progressTo)
{
    torch::manual_seed(config.seed);
    std::unique_ptr<Model> model = buildModel(config, m_dataset->spec());
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
    auto forwardLoss = [&](const torch::Tensor& x, const torch::Tensor& y) {
        AutocastScope autocast(arm.bf16, m_device);
        return torch::nn::functional::cross_entropy(model->forward(x), y);
    };
    // The graph arm's whole step on fixed tensors; grads are set to none first so that
    // backward allocates them inside the capture.
    torch::Tensor staticInputs, staticTargets;
    auto wholeStep = [&] {
        optimizer.zeroGrad();
        torch::Tensor loss = forwardLoss(staticInputs, staticTargets);
        loss.backward();
        optimizer.step();
        return loss;
    };
    std::unique_ptr<cuda::GraphedStep> graphed;

    const int64_t total = config.warmup + config.steps;
    // Profiler schedule over the measured steps: wait 1, warm up 1, record up to 5.
    const int64_t profileStart = config.warmup + std::min<int64_t>(2, config.steps - 1);
    const int64_t profileEnd = std::min(total, profileStart + 5);
    std::vector<double> phaseMs[std::size(kPhases)];
    ArmResult result;
    StepClock clock(cuda());
    Clock::time_point measureStart = Clock::now();
    // A failure inside the profiler window must not leave the profiler on for the next run.
    struct ProfilerOff
    {
        ArmRunner& runner;
        ~ProfilerOff()
        {
            if (runner.m_profiling) {
                torch::autograd::profiler::disableProfiler();
                runner.m_profiling = false;
            }
        }
    } profilerOff{*this};
    for (int64_t step = 0; step < total; ++step) {
        if (m_callbacks.cancel && m_callbacks.cancel->load())
            throw Cancelled{};
        if (m_callbacks.progress)
            m_callbacks.progress(arm.name, progressFrom + (progressTo - progressFrom) * double(step) / double(total));
        if (step == config.warmup) {
            synchronize();
            measureStart = Clock::now();
            if (config.outOfMemoryInArm == arm.name)
                TORCH_CHECK_WITH(OutOfMemoryError, false, "injected out-of-memory in the ", arm.name, " arm");
        }
        if (arm.profile && step == profileStart - 1)
            startProfiler(/*prepareOnly=*/true);
        if (arm.profile && step == profileStart)
            startProfiler(false);
        RECORD_USER_SCOPE(("ProfilerStep#" + std::to_string(step)).c_str());
        const auto dataStart = Clock::now();
        Batch batch;
        {
            RECORD_USER_SCOPE("enumerate(DataLoader)#_KinetoscopeLoaderIter.__next__");
            batch = loader.next();
        }
        const double dataMs = msSince(dataStart);
        clock.mark(0);
        const torch::Tensor x = batch.inputs.to(m_device, config.nonBlocking);
        const torch::Tensor y = batch.targets.to(m_device, config.nonBlocking);
        clock.mark(1);
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
            clock.mark(2);
            loss.backward();
            clock.mark(3);
            {
                RECORD_USER_SCOPE("Optimizer.step#Adam.step");
                optimizer.step();
                optimizer.zeroGrad();
            }
            clock.mark(4);
        }
        float value = loss.item<float>();  // waits for the step: the marks are complete
        if (step == config.poisonLossAtStep && arm.recordSteps)
            value = std::nanf("");
        if (!std::isfinite(value))
            throw UserError("the loss became " + std::string(std::isnan(value) ? "NaN" : "infinite") + " at step " +
                            std::to_string(step) + " of the " + arm.name + " run");
        if (arm.profile && step == profileEnd - 1)
            stopProfiler(config);
        if (step < config.warmup)
            continue;
        session::StepTiming t{step, dataMs, clock.ms(0, 1), clock.ms(1, 2), clock.ms(2, 3), clock.ms(3, 4), value};
        const double values[] = {t.dataMs, t.h2dMs, t.forwardMs, t.backwardMs, t.optimizerMs};
        for (size_t p = 0; p < std::size(kPhases); ++p)
            phaseMs[p].push_back(values[p]);
        if (arm.recordSteps) {
            result.steps.push_back(t);
            if (m_callbacks.step)
                m_callbacks.step(t);
        }
    }
    synchronize();
    const double seconds = std::chrono::duration<double>(Clock::now() - measureStart).count();
    result.samplesPerSecond = double(config.steps * config.batchSize) / seconds;
    result.meanStepMs = seconds * 1e3 / double(config.steps);
    result.peakAllocatedBytes = cuda::peakAllocatedBytes();
    for (size_t p = 0; p < std::size(kPhases); ++p)
        result.phases.push_back(phaseTiming(kPhases[p], std::move(phaseMs[p])));
    return result;
}

void ArmRunner::startProfiler(bool prepareOnly)
{
    namespace impl = torch::profiler::impl;
    const impl::ProfilerConfig config(impl::ProfilerState::KINETO, /*report_input_shapes=*/true,
                                      /*profile_memory=*/true, /*with_stack=*/false, /*with_flops=*/true);
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
