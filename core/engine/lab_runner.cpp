// The method of shared/seeds/, run through LibTorch: warm-up, per-phase timings, the
// three-run lab, the DataLoader-vs-compute split and a Kineto profiler window. The
// profiler is enabled and disabled on this (the training) thread: its state is
// thread-local.
#include "core/engine/lab_runner.h"

#include "core/engine/engine_internal.h"

#include <ATen/autocast_mode.h>
#include <ATen/record_function.h>
#include <torch/csrc/autograd/profiler_kineto.h>
#include <torch/version.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>

namespace kinetoscope::engine {

namespace {

using Clock = std::chrono::steady_clock;
using detail::UserError;

struct Cancelled
{
};

struct ArmOptions
{
    std::string name;
    bool bf16 = false;
    bool profile = false;  // this arm carries the profiler window
};

struct ArmResult
{
    double samplesPerSecond = 0;
    double meanStepMs = 0;
    std::map<std::string, std::vector<double>> phaseMs;  // phase -> per measured step
};

double msSince(Clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

session::PhaseTiming timing(const std::string& phase, std::vector<double> values)
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
    auto rank = [&](double p) { return values[std::min(values.size() - 1, size_t(std::ceil(p * double(values.size()))) - 1)]; };
    t.medianMs = rank(0.5);
    t.p95Ms = rank(0.95);
    t.p99Ms = rank(0.99);
    return t;
}

class Runner
{
public:
    Runner(const RunConfig& config, const RunCallbacks& callbacks) : m_config(config), m_callbacks(callbacks)
    {
        const bool cuda = torch::cuda::is_available();
        if (config.device == "cuda" && !cuda)
            throw UserError("--device cuda: no CUDA device is available on this machine");
        if (config.device != "auto" && config.device != "cpu" && config.device != "cuda")
            throw UserError("--device takes auto, cpu or cuda, not '" + config.device + "'");
        m_device = (config.device == "cuda" || (config.device == "auto" && cuda)) ? torch::Device(torch::kCUDA)
                                                                                   : torch::Device(torch::kCPU);
        if (config.steps < 1 || config.batchSize < 1 || config.warmup < 0)
            throw UserError("--steps and --batch-size must be at least 1, --warmup at least 0");
        if (config.dataset != "synthetic")
            throw UserError("unknown or not yet supported dataset '" + config.dataset + "' (built-in: synthetic)");
    }

    ArmResult runArm(const ArmOptions& arm, int armIndex, int armCount)
    {
        torch::manual_seed(m_config.seed);
        std::vector<int64_t> shape;
        std::vector<torch::Tensor> parameters;
        torch::nn::Sequential model = detail::buildModel(m_config, shape, parameters);
        model->to(m_device);
        model->train();
        std::vector<torch::Tensor> onDevice;
        for (const auto& p : model->parameters())
            onDevice.push_back(p);
        torch::optim::AdamW optimizer(onDevice, torch::optim::AdamWOptions(1e-3));
        detail::SyntheticLoader loader(m_config, shape);

        const int64_t total = m_config.warmup + m_config.steps;
        // Profiler schedule over the measured steps: wait 1, warm up 1, record up to 5.
        const int64_t profileStart = m_config.warmup + std::min<int64_t>(2, m_config.steps - 1);
        const int64_t profileEnd = std::min(total, profileStart + 5);
        ArmResult result;
        const auto measured = Clock::now();
        Clock::time_point measureStart = measured;
        for (int64_t step = 0; step < total; ++step) {
            if (m_callbacks.cancel && m_callbacks.cancel->load())
                throw Cancelled{};
            if (m_callbacks.progress)
                m_callbacks.progress(arm.name, (double(armIndex) + double(step) / double(total)) / double(armCount));
            if (step == m_config.warmup)
                measureStart = Clock::now();
            if (arm.profile && step == profileStart - 1)
                startProfiler(/*prepareOnly=*/true);
            if (arm.profile && step == profileStart)
                startProfiler(false);
            RECORD_USER_SCOPE(("ProfilerStep#" + std::to_string(step)).c_str());
            auto t = Clock::now();
            detail::Batch batch;
            {
                RECORD_USER_SCOPE("enumerate(DataLoader)#_KinetoscopeLoaderIter.__next__");
                batch = loader.next();
            }
            const double data = msSince(t);
            t = Clock::now();
            torch::Tensor x = batch.inputs.to(m_device, m_config.nonBlocking);
            torch::Tensor y = batch.targets.to(m_device, m_config.nonBlocking);
            synchronize();
            const double h2d = msSince(t);
            t = Clock::now();
            torch::Tensor loss;
            {
                AutocastScope autocast(arm.bf16, m_device);
                loss = torch::nn::functional::cross_entropy(model->forward(x), y);
            }
            synchronize();
            const double forward = msSince(t);
            t = Clock::now();
            optimizer.zero_grad();
            loss.backward();
            synchronize();
            const double backward = msSince(t);
            t = Clock::now();
            {
                RECORD_USER_SCOPE("Optimizer.step#AdamW.step");
                optimizer.step();
            }
            synchronize();
            const double opt = msSince(t);
            float value = loss.item<float>();
            if (step == m_config.poisonLossAtStep && armIndex == 0)
                value = std::nanf("");
            if (!std::isfinite(value))
                throw UserError("the loss became " + std::string(std::isnan(value) ? "NaN" : "infinite") + " at step " +
                                std::to_string(step) + " of the " + arm.name + " run");
            if (arm.profile && step == profileEnd - 1)
                stopProfiler();
            if (step >= m_config.warmup) {
                result.phaseMs["data"].push_back(data);
                result.phaseMs["h2d"].push_back(h2d);
                result.phaseMs["forward"].push_back(forward);
                result.phaseMs["backward"].push_back(backward);
                result.phaseMs["optimizer"].push_back(opt);
            }
        }
        const double seconds = std::chrono::duration<double>(Clock::now() - measureStart).count();
        result.samplesPerSecond = double(m_config.steps * m_config.batchSize) / seconds;
        result.meanStepMs = seconds * 1e3 / double(m_config.steps);
        return result;
    }

    bool cuda() const { return m_device.is_cuda(); }
    std::string deviceName() const { return cuda() ? "cuda" : "cpu"; }
    std::string tracePath() const { return m_tracePath; }

private:
    // bf16 autocast on the run's device for the forward pass (and the loss).
    struct AutocastScope
    {
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
        bool m_enabled;
        c10::DeviceType m_type;
        bool m_previous = false;
    };

    void synchronize()
    {
        if (cuda())
            torch::cuda::synchronize();
    }

    void startProfiler(bool prepareOnly)
    {
        namespace impl = torch::profiler::impl;
        const impl::ProfilerConfig config(impl::ProfilerState::KINETO, /*report_input_shapes=*/true,
                                          /*profile_memory=*/true, /*with_stack=*/false, /*with_flops=*/true);
        std::set<impl::ActivityType> activities{impl::ActivityType::CPU};
        if (cuda())
            activities.insert(impl::ActivityType::CUDA);
        if (prepareOnly)
            torch::autograd::profiler::prepareProfiler(config, activities);
        else
            torch::autograd::profiler::enableProfiler(config, activities);
    }

    void stopProfiler()
    {
        auto result = torch::autograd::profiler::disableProfiler();
        std::filesystem::create_directories(m_config.outDir);
        m_tracePath = (std::filesystem::path(m_config.outDir) / "trace.json").string();
        result->save(m_tracePath);
    }

    RunConfig m_config;
    RunCallbacks m_callbacks;
    torch::Device m_device{torch::kCPU};
    std::string m_tracePath;
};

}  // namespace

RunResult runLab(const RunConfig& config, const RunCallbacks& callbacks)
{
    RunResult result;
    session::Session& s = result.session;
    s.config = {{"model", config.model},
                {"dataset", config.dataset},
                {"device", config.device},
                {"batch_size", std::to_string(config.batchSize)},
                {"steps", std::to_string(config.steps)},
                {"warmup", std::to_string(config.warmup)},
                {"workers", std::to_string(config.workers)},
                {"pin_memory", config.pinMemory ? "true" : "false"},
                {"seed", std::to_string(config.seed)}};
    s.environment = {{"torch", TORCH_VERSION}, {"cuda_available", torch::cuda::is_available() ? "yes" : "no"}};
    const auto sessionPath = std::filesystem::path(config.outDir) / "session.kinetoscope.json";
    auto save = [&] {
        std::error_code ec;
        std::filesystem::create_directories(config.outDir, ec);
        std::string error;
        if (session::saveSession(s, sessionPath, error))
            result.sessionPath = sessionPath.string();
        else if (result.error.empty())
            result.error = error;
    };
    try {
        Runner runner(config, callbacks);
        s.environment["device"] = runner.deviceName();
        std::vector<ArmOptions> arms{{"fp32", false, config.profile}};
        if (config.lab) {
            arms.push_back({"bf16", true, false});
            arms.push_back({"bf16+cuda-graph", true, false});
        }
        for (size_t i = 0; i < arms.size(); ++i) {
            session::LabArm arm;
            arm.name = arms[i].name;
            if (arms[i].name == "bf16+cuda-graph") {
                // torch.compile has no C++ API; its C++ counterpart is a whole-step CUDA graph.
                arm.skippedReason = runner.cuda() ? "the CUDA-graph arm is not implemented yet" : "needs a GPU";
                s.lab.push_back(arm);
                continue;
            }
            try {
                const ArmResult measured = runner.runArm(arms[i], int(i), int(arms.size()));
                arm.ran = true;
                arm.samplesPerSecond = measured.samplesPerSecond;
                arm.meanStepMs = measured.meanStepMs;
                if (i == 0) {
                    for (const char* phase : {"data", "h2d", "forward", "backward", "optimizer"})
                        s.phases.push_back(timing(phase, measured.phaseMs.at(phase)));
                    if (config.split) {
                        s.dataLoaderMs = s.phases[0].meanMs;
                        s.computeMs = s.phases[2].meanMs + s.phases[3].meanMs + s.phases[4].meanMs;
                    }
                }
            } catch (const c10::OutOfMemoryError&) {
                arm.skippedReason = "out of memory at batch size " + std::to_string(config.batchSize);
            }
            s.lab.push_back(arm);
            save();  // nothing measured is lost if a later arm fails
        }
        if (!runner.tracePath().empty())
            s.tracePath = "trace.json";
        result.ok = true;
    } catch (const Cancelled&) {
        result.error = "cancelled";
    } catch (const UserError& e) {
        result.error = e.what();
    } catch (const c10::Error& e) {
        result.error = std::string("torch: ") + e.what_without_backtrace();
    } catch (const std::exception& e) {
        result.error = e.what();
    }
    if (const size_t newline = result.error.find('\n'); newline != std::string::npos)
        result.error.resize(newline);
    save();
    return result;
}

}  // namespace kinetoscope::engine
