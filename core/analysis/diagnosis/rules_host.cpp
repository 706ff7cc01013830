// Rules for a window without device activity: a CPU run, or a GPU run whose device side
// was not recorded. Only the host can be read there, and it still has a story: the wait
// for the DataLoader, random data drawn in the loop, time in no recorded op (Python), and
// which ops hold the step. They read the host profile (host_profile.h); on such a window
// the host's time is the step, so removing one of these costs shortens the step by it
// (an upper bound), and the costs are disjoint: their gains add up to at most the step.
#include "core/analysis/diagnosis/rule_helpers.h"
#include "core/analysis/diagnosis/rules.h"

#include <algorithm>
#include <optional>

namespace kinetoscope::analysis::rules {

namespace {

// A CPU run on a machine whose trace names a GPU: the model's own ops hold the step on
// the CPU, and nothing touched the GPU (no launch, no device activity, no memory sample on
// it). Empty where the trace names no GPU (a CPU machine, an old export): the CPU run's
// own findings read it.
struct UnusedGpu
{
    std::string name;             // the first GPU the trace names
    int64_t memoryBytes = -1;     // its memory, -1 when not recorded
    double modelNs = 0;           // per step: self time of the model's ops on the CPU
    std::vector<HostOpTime> ops;  // those ops, the most time first
    int64_t cpuPeakBytes = -1;    // the CPU's peak allocated memory, -1 without samples
};

std::optional<UnusedGpu> unusedGpu(const DiagnosisInput& in);

// What was not recorded, said once in every host-only finding.
std::string notRecorded(const DiagnosisInput& in)
{
    if (in.summary.window.deviceActivityMissing)
        return " The device side was not recorded: these figures are the host's alone.";
    if (unusedGpu(in))
        return " Nothing ran on the GPU the trace names (gpu-not-used).";
    return " Only the host was recorded (a CPU run, or a GPU run profiled without "
           "ProfilerActivity.CUDA).";
}

// A GPU run whose device side was not recorded: the host's costs are its story, but
// whether they cost the step depends on a device nobody saw. No gain is claimed.
void claimNothingWithoutTheDevice(const DiagnosisInput& in, Finding& f)
{
    if (!in.summary.window.deviceActivityMissing)
        return;
    f.estimatedGainNs = 0;
    f.basis = SeverityBasis::Own;
    f.severity = Severity::Low;
    f.gainMethod = "none claimed: the device side was not recorded, so whether this host time "
                   "idles the device "
                   "is unknown";
}

// The optimizer's step of a CPU run holding this share of the step is a finding, LOW; from
// the larger share, MEDIUM (its gain is not claimed: see hostOptimizerUnfused).
constexpr double kHostOptimizerShare = 0.10;
constexpr double kHostOptimizerLargeShare = 0.25;

const char* kDataOnceSnippet =
    "# draw (or load) the data once, before the loop, and reuse it\n"
    "batches = [torch.randn(batch_size, features) for _ in range(16)]\n"
    "for step in range(steps):\n"
    "    x = batches[step % len(batches)]\n"
    "# on a GPU, draw it there: torch.randn(batch_size, features, device=\"cuda\")\n";

bool isMatmulOrConv(std::string_view op)
{
    for (std::string_view word :
         {"mm", "matmul", "linear", "conv", "addmm", "bmm", "baddbmm", "einsum"})
        if (op.find(word) != std::string_view::npos)
            return true;
    return false;
}

std::optional<UnusedGpu> unusedGpu(const DiagnosisInput& in)
{
    const WindowClass& w = in.summary.window;
    if (!w.cpuOnly || !hostOnlyJudgeable(in))
        return std::nullopt;
    const auto gpu =
        std::find_if(in.model.metadata().devices.begin(), in.model.metadata().devices.end(),
                     [](const trace::DeviceInfo& d) { return !d.name.empty(); });
    if (gpu == in.model.metadata().devices.end())
        return std::nullopt;
    // A GPU run profiled without its device activity still allocates on the GPU: memory
    // samples there say the model was on it.
    int64_t cpuPeak = -1;
    for (const auto& [device, memory] : in.summary.memory) {
        if (device != "cpu")
            return std::nullopt;
        cpuPeak = memory.peakAllocatedBytes;
    }
    // The model's own compute holds the step: in a GPU run the ops only dispatch and
    // launch (microseconds each) and the host waits in copies and synchronisations instead.
    UnusedGpu u;
    u.name = gpu->name;
    u.memoryBytes = gpu->totalGlobalMemBytes;
    u.cpuPeakBytes = cpuPeak;
    bool matmul = false;
    for (const HostOpTime& o : in.summary.host.bySelfTime) {
        if (isRandomDataOp(o.name) || isDataLoaderOp(o.name) || isCopyOp(o.name) ||
            !o.name.starts_with("aten::"))
            continue;
        u.modelNs += o.selfNs;
        u.ops.push_back(o);
        matmul |= isMatmulOrConv(o.name) && share(o.selfNs, in.summary.host.stepNs) >= 0.1;
    }
    if (!matmul || share(u.modelNs, in.summary.host.stepNs) < in.thresholds.hostHotspotShare)
        return std::nullopt;
    return u;
}

}  // namespace

void gpuNotUsed(const DiagnosisInput& in, std::vector<Finding>& out)
{
    const std::optional<UnusedGpu> u = unusedGpu(in);
    if (!u)
        return;
    const HostProfile& h = in.summary.host;
    const double fraction = share(u->modelNs, h.stepNs);
    std::string ops;
    for (size_t i = 0; i < std::min<size_t>(3, u->ops.size()); ++i)
        ops += (i == 0 ? "" : ", ") + u->ops[i].name + " " + format::duration(u->ops[i].selfNs);
    Finding f;
    f.id = "gpu-not-used";
    f.basis = SeverityBasis::Own;
    f.severity = Severity::High;
    f.title = "The GPU was never used: the model ran on the CPU (" + u->ops.front().name +
              (u->ops.size() > 1 ? " and " + u->ops[1].name : "") + " hold " +
              format::percent(fraction) + " of each step there), beside a " + u->name;
    f.explanation =
        "The trace names a GPU (" + u->name +
        "), but it holds no CUDA runtime call, no kernel, no copy to the device, and " +
        (u->cpuPeakBytes >= 0 ? "every memory sample is on the CPU (peak " +
                                    format::bytes(static_cast<double>(u->cpuPeakBytes)) + ")"
                              : "no memory sample on the GPU") +
        ": the model and its inputs stayed on the CPU. The step's time is the model's own "
        "compute there (" +
        ops +
        " per step). A GPU run whose device side was simply not recorded reads otherwise: it "
        "still records its launches or its allocations on the GPU.";
    f.evidence.figures = {{"model_ops_share_of_step", fraction, Unit::Fraction},
                          {"model_ops_time_per_step_us", u->modelNs / 1e3, Unit::Microseconds},
                          {"step_time_us", h.stepNs / 1e3, Unit::Microseconds},
                          {"device_activities", 0.0, Unit::Count},
                          {"launch_calls", 0.0, Unit::Count}};
    if (u->cpuPeakBytes >= 0)
        f.evidence.figures.push_back(
            {"cpu_peak_allocated_bytes", static_cast<double>(u->cpuPeakBytes), Unit::Bytes});
    if (u->memoryBytes > 0)
        f.evidence.figures.push_back(
            {"gpu_memory_bytes", static_cast<double>(u->memoryBytes), Unit::Bytes});
    for (const HostOpTime& o : u->ops)
        if (f.evidence.ops.size() < 5)
            f.evidence.ops.emplace_back(o.name);
    f.gainMethod = "none claimed: how much faster the GPU runs this model is not in the trace";
    f.fix = "Move the model and its inputs to the GPU: model.to(\"cuda\") once, and each batch "
            "as it is used" +
            (u->memoryBytes > 0 ? " (in chunks that fit the GPU's " +
                                      format::bytes(static_cast<double>(u->memoryBytes)) + ")"
                                : std::string(" (in chunks that fit the GPU's memory)")) +
            ", not the whole data set at once.";
    f.snippet = "device = torch.device(\"cuda\")\n"
                "model = model.to(device)\n"
                "for x in torch.split(inputs, batch_size):  # chunks that fit the GPU\n"
                "    out = model(x.to(device, non_blocking=True))\n";
    out.push_back(std::move(f));
}

void hostOnlyDataLoader(const DiagnosisInput& in, std::vector<Finding>& out)
{
    if (!hostOnlyJudgeable(in))
        return;
    const HostProfile& h = in.summary.host;
    const double fraction = share(h.dataLoaderNs, h.stepNs);
    if (fraction <= in.thresholds.dataloaderShare)
        return;
    Finding f;
    f.id = "dataloader-bound";
    f.basis = SeverityBasis::Gain;
    f.title = "The loop waits for data " + format::percent(fraction) + " of each step (" +
              format::duration(h.dataLoaderNs) + ")";
    f.explanation =
        "Each step spends " + format::duration(h.dataLoaderNs) +
        " in the DataLoader's __next__ on the training thread, loading and collating the next "
        "batch "
        "while no training work runs: on a CPU, as on a GPU, that wait is the step's waste. Worker "
        "processes that load the next batches while the step computes hide it (they need cores of "
        "their own: on a machine with few cores they compete with the loop's threads)." +
        notRecorded(in);
    f.evidence.figures = {{"dataloader_wait_per_step_us", h.dataLoaderNs / 1e3, Unit::Microseconds},
                          {"dataloader_share_of_step", fraction, Unit::Fraction},
                          {"step_time_us", h.stepNs / 1e3, Unit::Microseconds}};
    for (const trace::Event& e : in.model.events(h.thread))
        if (isDataLoaderOp(in.model.text(e.name)) && inSteps(in, e.startNs)) {
            if (f.evidence.ops.empty())
                f.evidence.ops.emplace_back(in.model.text(e.name));
            if (f.evidence.ranges.size() < 5)
                f.evidence.ranges.push_back({e.startNs, e.endNs()});
        }
    f.estimatedGainNs = h.dataLoaderNs;
    f.gainMethod = "the time per step inside the DataLoader's __next__ (an upper bound: batches "
                   "ready when asked "
                   "for, loaded by workers on cores of their own)";
    f.fix = "Load batches in worker processes (num_workers > 0) and keep them ahead of the loop; "
            "make the "
            "per-sample work cheaper (decode once, cache) if workers are already many." +
            dataLoaderFixNote(in.lab);
    f.snippet = dataLoaderSnippet(in.lab, true);
    claimNothingWithoutTheDevice(in, f);
    out.push_back(std::move(f));
}

void randomDataInLoop(const DiagnosisInput& in, std::vector<Finding>& out)
{
    if (!hostOnlyJudgeable(in))
        return;
    const HostProfile& h = in.summary.host;
    const double fraction = share(h.randomDataNs, h.stepNs);
    if (fraction < in.thresholds.randomDataShare || h.randomOps.empty())
        return;
    Finding f;
    f.id = "random-data-in-loop";
    f.basis = SeverityBasis::Gain;
    f.title = "The loop draws random data on the CPU every step: " + format::percent(fraction) +
              " of it (" + h.randomOps.front() + ", " + format::duration(h.randomDataNs) + ")";
    f.explanation =
        "Each step the loop itself calls " + h.randomOps.front() +
        " (outside the model and the DataLoader) and waits " + format::duration(h.randomDataNs) +
        " for the random generator: synthetic inputs drawn on the host at every iteration. In a "
        "benchmark that measures the generator, not the model; in training it is input preparation "
        "on the step's critical path." +
        notRecorded(in);
    f.evidence.figures = {{"random_data_per_step_us", h.randomDataNs / 1e3, Unit::Microseconds},
                          {"random_data_share_of_step", fraction, Unit::Fraction},
                          {"step_time_us", h.stepNs / 1e3, Unit::Microseconds}};
    for (const std::string& op : h.randomOps)
        f.evidence.ops.emplace_back(op);
    f.estimatedGainNs = h.randomDataNs;
    f.gainMethod =
        "the time per step the loop spends drawing random tensors itself (it goes when the data is "
        "drawn once, ahead, or on the device)";
    f.fix = "Draw the inputs once before the loop and reuse them (a benchmark), or produce them in "
            "DataLoader "
            "workers; on a GPU, draw them on the device.";
    f.snippet = kDataOnceSnippet;
    claimNothingWithoutTheDevice(in, f);
    out.push_back(std::move(f));
}

// "train.py(40): forward 610 µs, adam.py(312): _single_tensor_adam 200 µs": where the
// time in no op sits, by Python frame.
std::string framesText(const std::vector<HostOpTime>& frames)
{
    std::string text;
    for (const HostOpTime& frame : frames) {
        if (!text.empty())
            text += ", ";
        text += frame.name + " " + format::duration(frame.selfNs);
    }
    return text;
}

void hostOnlyPython(const DiagnosisInput& in, std::vector<Finding>& out)
{
    // A CPU run only: in a GPU run the loop's thread also waits outside its ops for work
    // on threads and devices the trace may not show (the backward runs on the autograd
    // engine's thread), and that wait is not Python.
    if (!hostOnlyJudgeable(in) || !in.summary.window.cpuOnly)
        return;
    const HostProfile& h = in.summary.host;
    const double fraction = share(h.outsideOpsNs, h.stepNs);
    if (fraction < in.thresholds.hostOutsideOpsShare)
        return;
    // Already compiled: compiling again is no fix; what stays in Python is the loop's own
    // code, Dynamo's guards and the eager code between graphs.
    const bool compiled = in.summary.compiled.compiled;
    Finding f;
    f.id = "python-bound";
    f.basis = SeverityBasis::Gain;
    f.title = "The host runs no op " + format::percent(fraction) + " of each step (" +
              format::duration(h.outsideOpsNs) + "): Python between the ops";
    f.explanation =
        "Between the recorded ops the thread runs code the profiler records as no op: the Python "
        "interpreter (the loop, bookkeeping, per-element work), or sleeps and waits outside "
        "torch. ";
    if (h.outsideOpsFrames.empty()) {
        f.explanation += "Record with with_stack=True to see which frames. ";
    } else {
        double listed = 0;
        for (const HostOpTime& frame : h.outsideOpsFrames)
            listed += frame.selfNs;
        f.explanation += "By the trace's Python stacks, the innermost frames with the largest "
                         "shares of it per step: " +
                         framesText(h.outsideOpsFrames) + " (" +
                         format::percent(share(listed, h.outsideOpsNs)) + " of it). ";
    }
    f.explanation += compiled ? "The model is already compiled (" +
                                    format::percent(in.summary.compiled.regionShare) +
                                    " of the step in compiled regions): this is the Python "
                                    "outside its graphs, the loop's and the eager code between "
                                    "them."
                              : "Vectorised into tensor ops or compiled, that time goes.";
    f.explanation += notRecorded(in);
    f.evidence.figures = {{"outside_ops_per_step_us", h.outsideOpsNs / 1e3, Unit::Microseconds},
                          {"outside_ops_share_of_step", fraction, Unit::Fraction},
                          {"step_time_us", h.stepNs / 1e3, Unit::Microseconds}};
    for (const HostOpTime& frame : h.outsideOpsFrames)
        f.evidence.ops.emplace_back(frame.name);
    f.estimatedGainNs = h.outsideOpsNs;
    f.gainMethod = "the time per step in no recorded op (an upper bound: the Python that drives "
                   "the ops stays)";
    if (compiled) {
        f.fix = "Move bookkeeping out of the step and vectorise per-element Python; bring more "
                "of the step into the compiled graphs (fewer graph breaks: TORCH_LOGS=graph_breaks "
                "shows them; the loss inside the compiled function; the optimizer step compiled "
                "too).";
        f.snippet = "@torch.compile\n"
                    "def forward_and_loss(x, y):   # the loss inside the graph too\n"
                    "    return loss_fn(model(x), y)\n"
                    "\n"
                    "@torch.compile\n"
                    "def optimizer_step():         # the optimizer compiled too\n"
                    "    optimizer.step()\n";
    } else {
        f.fix = "Vectorise per-element Python into tensor ops, move bookkeeping out of the step, "
                "or compile the step (torch.compile) so the interpreter runs less per op.";
        f.snippet = "total = values.sum()            # not: for v in values: total += v\n"
                    "step = torch.compile(train_step)  # fewer interpreter round trips per op\n";
    }
    claimNothingWithoutTheDevice(in, f);
    out.push_back(std::move(f));
}

void hostComputeBound(const DiagnosisInput& in, std::vector<Finding>& out)
{
    // A CPU run only: where launches were recorded without their device side, the ops'
    // host time is dispatch, not compute.
    if (!hostOnlyJudgeable(in) || !in.summary.window.cpuOnly || in.summary.host.bySelfTime.empty())
        return;
    const HostProfile& h = in.summary.host;
    // The op that holds the step besides the random data, which has its own finding.
    const auto hot = std::find_if(h.bySelfTime.begin(), h.bySelfTime.end(),
                                  [](const HostOpTime& o) { return !isRandomDataOp(o.name); });
    if (hot == h.bySelfTime.end())
        return;
    const HostOpTime& top = *hot;
    const double fraction = share(top.selfNs, h.stepNs);
    if (fraction < in.thresholds.hostHotspotShare)
        return;
    Finding f;
    f.id = "host-compute-bound";
    f.basis = SeverityBasis::Own;
    f.severity = Severity::Low;
    // A compiled region's or graph's own time is Inductor's C++ kernels, which the trace
    // records only as the span around them: the model's compute, compiled.
    const bool compiledCode = compiled::isCompiledSpan(top.name);
    const bool compute = compiledCode || isMatmulOrConv(top.name);
    const bool training = in.summary.window.kind == RunKind::Training;
    const std::string what =
        compiledCode ? "torch.compile's compiled code (" + top.name + ")" : top.name;
    f.title = what + " holds " + format::percent(fraction) + " of each step on the CPU (" +
              format::duration(top.selfNs) + ")";
    f.explanation =
        compute ? "The step's time is the model's own compute on the CPU: " + what +
                      (training ? " (forward and backward)" : "") +
                      " takes most of it, and nothing else in the step is waste on that scale. A "
                      "faster step needs faster compute, not a fix elsewhere."
                : "One op takes most of the step's time on the CPU: " + top.name +
                      ". Look at why it runs per step and on what sizes before anything else.";
    if (compiledCode)
        f.explanation +=
            " Inductor's C++ kernels run inside it unnamed: "
            "torch._inductor.config.cpp.enable_kernel_profile = True records each one.";
    f.explanation += notRecorded(in);
    f.evidence.figures = {{"op_self_time_per_step_us", top.selfNs / 1e3, Unit::Microseconds},
                          {"op_share_of_step", fraction, Unit::Fraction},
                          {"op_calls_per_step", top.calls, Unit::Count},
                          {"step_time_us", h.stepNs / 1e3, Unit::Microseconds}};
    for (auto it = hot; it != h.bySelfTime.end() && f.evidence.ops.size() < 3; ++it)
        f.evidence.ops.emplace_back(it->name);
    f.gainMethod = "none claimed: it says where the step's time goes";
    f.fix =
        compute
            ? std::string(
                  "Run the model on a GPU; on the CPU, use bf16 autocast where the CPU has bf16 "
                  "matrix units (AMX, AVX512-BF16), give intra-op threads every physical core") +
                  (compiledCode ? "." : ", or compile the model.")
            : "Move the op out of the step if it does not need to run every step, or make it "
              "cheaper "
              "(smaller inputs, a vectorised form).";
    f.snippet =
        !compute ? ""
        : training
            ? "torch.set_num_threads(os.cpu_count())       # every physical core\n"
              "with torch.autocast(\"cpu\", dtype=torch.bfloat16):  # AMX / AVX512-BF16 CPUs\n"
              "    loss = loss_fn(model(x), y)\n"
            : "torch.set_num_threads(os.cpu_count())  # every physical core\n"
              "with torch.inference_mode(), torch.autocast(\"cpu\", dtype=torch.bfloat16):\n"
              "    out = model(x)\n";
    out.push_back(std::move(f));
}

void hostOptimizerUnfused(const DiagnosisInput& in, std::vector<Finding>& out)
{
    // A CPU training run only: on a GPU, optimizer-unfused counts the kernels it launches.
    const WindowClass& w = in.summary.window;
    if (!hostOnlyJudgeable(in) || !w.cpuOnly || w.kind != RunKind::Training)
        return;
    const HostProfile& h = in.summary.host;
    double stepSpansNs = 0;
    int64_t ops = 0;
    bool foreach = false;
    std::vector<const trace::Event*> spans;
    for (const trace::Event& e : in.model.events(h.thread)) {
        const std::string_view name = in.model.text(e.name);
        if (name.starts_with("Optimizer.step#") && inSteps(in, e.startNs) &&
            (spans.empty() || e.startNs >= spans.back()->endNs())) {
            spans.push_back(&e);
            stepSpansNs += static_cast<double>(e.durationNs);
        } else if (!spans.empty() && e.startNs < spans.back()->endNs() &&
                   e.category == trace::Category::CpuOp) {
            if (name.find("_fused_") != std::string_view::npos)
                return;  // already one vectorised pass
            foreach
                |= name.find("_foreach_") != std::string_view::npos;
            ++ops;
        }
    }
    const double perStepNs = stepSpansNs / static_cast<double>(h.steps);
    const double fraction = share(perStepNs, h.stepNs);
    if (spans.empty() || fraction < kHostOptimizerShare)
        return;
    const std::string_view span = in.model.text(spans.front()->name);
    const std::string optimizer = optimizerClass(in.model);
    const bool hasFused =
        optimizer == "Adam" || optimizer == "AdamW" || optimizer == "SGD" || optimizer == "Adagrad";
    if (foreach && !hasFused)
        return;  // its multi-tensor form already: torch has no fused one
    Finding f;
    f.id = "optimizer-unfused";
    f.basis = SeverityBasis::Own;
    f.severity = fraction >= kHostOptimizerLargeShare ? Severity::Medium : Severity::Low;
    f.title = "The optimizer's step holds " + format::percent(fraction) +
              " of each step on the CPU (" + format::duration(perStepNs) + "): " + optimizer +
              (foreach ? " in its foreach form" : " as a loop over the parameters");
    f.explanation =
        std::string(span) + " runs " +
        format::count(static_cast<int64_t>(static_cast<double>(ops) / double(h.steps))) +
        " ops per step" +
        (foreach ? " (foreach: a few ops over all the parameters, each a pass over their memory)"
                 : " (a few elementwise ops per parameter, each a pass over its memory)") +
        ". The fused implementation updates every parameter in one vectorised pass, several "
        "times faster on the CPU (Adam, AdamW, SGD and Adagrad take fused=True there since "
        "torch 2.4)." +
        notRecorded(in);
    f.evidence.figures = {
        {"optimizer_step_time_us", perStepNs / 1e3, Unit::Microseconds},
        {"optimizer_share_of_step", fraction, Unit::Fraction},
        {"optimizer_ops_per_step", static_cast<double>(ops) / double(h.steps), Unit::Count},
        {"step_time_us", h.stepNs / 1e3, Unit::Microseconds}};
    f.evidence.ops.emplace_back(span);
    for (size_t i = 0; i < std::min<size_t>(3, spans.size()); ++i)
        f.evidence.ranges.push_back({spans[i]->startNs, spans[i]->endNs()});
    f.gainMethod = "none claimed: the fused step's cost on this CPU is not in the trace";
    f.fix = "Construct the optimizer with fused=True (torch >= 2.4 on the CPU); where the "
            "optimizer offers no fused form, foreach=True.";
    f.snippet = fusedOptimizerSnippet(in.model);
    out.push_back(std::move(f));
}

void cpuOnlyWindow(const DiagnosisInput& in, std::vector<Finding>& out)
{
    const WindowClass& w = in.summary.window;
    // A GPU left unused is gpu-not-used's reading: "if this run used a GPU" would be wrong.
    if (!w.cpuOnly || w.partlyRead() || !w.hostOpsRecorded || unusedGpu(in))
        return;
    Finding f;
    f.id = "cpu-only-window";
    f.aboutWindow = true;
    f.severity = Severity::Low;
    f.gainMethod = "not a per-step cost: it says what the window is";
    f.title = "Only the host was recorded: no kernel, copy or launch is in the trace";
    f.explanation =
        "The findings read the host's time alone. If this run used a GPU, its device side was not "
        "recorded: profile with ProfilerActivity.CUDA (or the device's activity) to see it.";
    f.evidence.figures = {{"device_activities", 0.0, Unit::Count}};
    f.fix = "For a GPU run, record the device too.";
    f.snippet =
        "with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,\n"
        "                                        torch.profiler.ProfilerActivity.CUDA]) as prof:\n"
        "    train_step(batch)\n";
    out.push_back(std::move(f));
}

}  // namespace kinetoscope::analysis::rules
