// Rules about how the device computes: no-tensor-cores, tensor-core-misaligned,
// optimizer-unfused, copy-heavy.
#include "core/analysis/diagnosis/rule_helpers.h"
#include "core/analysis/diagnosis/rules.h"

#include <map>

namespace kinetoscope::analysis::rules {

using trace::Category;

namespace {

// Kernel time inside the steps' span, over all devices.
double kernelTimeNs(const DiagnosisInput& in)
{
    double total = 0;
    for (const auto& [device, m] : in.summary.gpu)
        total += static_cast<double>(m.kernelTimeNs);
    return total;
}

// Compute capability >= 7 (Volta and later have Tensor Cores), from the device list or,
// when the trace has none, from architecture prefixes in kernel names.
bool hasTensorCores(const DiagnosisInput& in)
{
    for (const trace::DeviceInfo& d : in.model.metadata().devices)
        if (d.computeMajor >= 7)
            return true;
    if (!in.model.metadata().devices.empty())
        return false;
    for (const KernelStats& k : in.summary.kernels)
        for (std::string_view arch : {"volta_", "turing_", "ampere_", "sm70_", "sm75_", "sm80_", "sm86_", "sm90_"})
            if (k.name.find(arch) != std::string::npos)
                return true;
    return false;
}

// Input Dims as written ("[[32, 64, 56, 56], [64, 64, 3, 3], []]") -> tensors' dims.
std::vector<std::vector<int64_t>> parseShapes(std::string_view text)
{
    std::vector<std::vector<int64_t>> tensors;
    int depth = 0;
    int64_t number = 0;
    bool inNumber = false;
    for (char c : text) {
        if (c >= '0' && c <= '9') {
            number = number * 10 + (c - '0');
            inNumber = true;
            continue;
        }
        if (inNumber && depth == 2)
            tensors.back().push_back(number);
        inNumber = false;
        number = 0;
        if (c == '[') {
            ++depth;
            if (depth == 2)
                tensors.emplace_back();
        } else if (c == ']') {
            --depth;
        }
    }
    return tensors;
}

// The dimensions that decide whether a GEMM or convolution can use Tensor Cores.
std::vector<int64_t> tensorCoreDims(std::string_view op, const std::vector<std::vector<int64_t>>& tensors)
{
    std::vector<int64_t> dims;
    const bool conv = op.find("conv") != std::string_view::npos;
    if (conv) {
        if (!tensors.empty() && tensors[0].size() >= 2)
            dims.push_back(tensors[0][1]);  // input channels
        if (tensors.size() > 1 && tensors[1].size() >= 2) {
            dims.push_back(tensors[1][0]);  // output channels
            dims.push_back(tensors[1][1]);  // input channels per group
        }
        return dims;
    }
    int matrices = 0;
    for (const auto& t : tensors) {
        if (t.size() < 2)
            continue;  // a bias or a scalar
        dims.push_back(t[t.size() - 2]);
        dims.push_back(t[t.size() - 1]);
        if (++matrices == 2)
            break;
    }
    return dims;
}

}  // namespace

void noTensorCores(const DiagnosisInput& in, std::vector<Finding>& out)
{
    const double kernels = kernelTimeNs(in);
    if (kernels <= 0 || !hasTensorCores(in))
        return;
    double tensorCore = 0;
    for (const auto& [device, m] : in.summary.gpu)
        tensorCore += m.tensorCoreShare.value_or(0.0) * static_cast<double>(m.kernelTimeNs);
    double eligible = 0;
    std::vector<std::pair<double, std::string>> ops;
    for (const OpStats& o : in.summary.ops.byName) {
        if (isTensorCoreEligibleOp(o.name) && o.selfDeviceNs > 0) {
            eligible += static_cast<double>(o.selfDeviceNs);
            ops.emplace_back(static_cast<double>(o.selfDeviceNs), o.name);
        }
    }
    const double tcShare = share(tensorCore, kernels);
    const double eligibleShare = share(eligible, kernels);
    if (eligibleShare < in.thresholds.tensorCoreEligibleShare || tcShare >= in.thresholds.tensorCoreShareMax)
        return;
    std::sort(ops.rbegin(), ops.rend());
    const double steps = static_cast<double>(in.summary.steps.steps.size());
    Finding f;
    f.id = "no-tensor-cores";
    f.severity = eligibleShare >= 0.3 ? Severity::High : Severity::Medium;
    f.title = "Matrix multiplies and convolutions run without Tensor Cores (" + formatPercent(eligibleShare) +
              " of kernel time)";
    f.explanation = "The GPU has Tensor Cores, but " + formatPercent(tcShare) +
                    " of the kernel time uses them while GEMM and convolution ops take " +
                    formatPercent(eligibleShare) + " of it: the model runs in fp32. Mixed precision moves "
                    "these ops onto Tensor Cores, typically 2x or more faster.";
    f.evidence.figures = {{"tensor_core_share_of_kernel_time", tcShare, "fraction"},
                          {"gemm_conv_share_of_kernel_time", eligibleShare, "fraction"},
                          {"gemm_conv_time_per_step_us", eligible / steps / 1e3, "us"}};
    for (size_t i = 0; i < std::min<size_t>(5, ops.size()); ++i)
        f.evidence.ops.push_back(ops[i].second);
    for (const KernelStats& k : in.summary.kernels)
        if (k.topOp.size() && isTensorCoreEligibleOp(k.topOp) && f.evidence.kernels.size() < 5)
            f.evidence.kernels.push_back(k.name);
    f.estimatedGainNs = 0.5 * eligible / steps;
    f.gainMethod = "half of the GEMM/convolution kernel time per step (Tensor Core kernels in 16-bit are at "
                   "least 2x faster than fp32 ones)";
    // bf16 Tensor Cores need Ampere (compute capability 8.0); Volta and Turing use fp16
    // with a gradient scaler.
    bool bf16 = false;
    for (const trace::DeviceInfo& d : in.model.metadata().devices)
        bf16 |= d.computeMajor >= 8;
    if (in.model.metadata().devices.empty())
        for (const KernelStats& k : in.summary.kernels)
            bf16 |= k.name.find("ampere_") != std::string::npos || k.name.find("sm80_") != std::string::npos ||
                    k.name.find("sm90_") != std::string::npos;
    if (bf16) {
        f.fix = "Run the forward pass (and the loss) under bf16 autocast; keep the optimizer in fp32. TF32 "
                "also speeds up the ops autocast leaves in fp32.";
        f.snippet = "torch.backends.cuda.matmul.allow_tf32 = True\n"
                    "torch.backends.cudnn.allow_tf32 = True\n"
                    "with torch.autocast(\"cuda\", dtype=torch.bfloat16):\n"
                    "    loss = loss_fn(model(x), y)\n"
                    "loss.backward()\n";
    } else {
        f.explanation += " This GPU predates bf16 Tensor Cores: use fp16 autocast with a gradient scaler.";
        f.fix = "Run the forward pass (and the loss) under fp16 autocast with a GradScaler; keep the optimizer "
                "in fp32.";
        f.snippet = "scaler = torch.amp.GradScaler(\"cuda\")\n"
                    "with torch.autocast(\"cuda\", dtype=torch.float16):\n"
                    "    loss = loss_fn(model(x), y)\n"
                    "scaler.scale(loss).backward()\n"
                    "scaler.step(optimizer)\n"
                    "scaler.update()\n";
    }
    out.push_back(std::move(f));
}

void tensorCoreMisaligned(const DiagnosisInput& in, std::vector<Finding>& out)
{
    const double kernels = kernelTimeNs(in);
    if (kernels <= 0)
        return;
    double misaligned = 0;
    std::vector<std::pair<double, std::string>> offenders;
    for (const OpStats& o : in.summary.ops.byNameAndShapes) {
        if (!isTensorCoreEligibleOp(o.name) || o.selfDeviceNs <= 0 || o.inputShapes.empty())
            continue;
        std::vector<int64_t> bad;
        for (int64_t d : tensorCoreDims(o.name, parseShapes(o.inputShapes)))
            if (d > 1 && d % 8 != 0)
                bad.push_back(d);
        if (bad.empty())
            continue;
        misaligned += static_cast<double>(o.selfDeviceNs);
        offenders.emplace_back(static_cast<double>(o.selfDeviceNs), o.name + " " + o.inputShapes);
    }
    const double fraction = share(misaligned, kernels);
    if (fraction < in.thresholds.misalignedShare)
        return;
    std::sort(offenders.rbegin(), offenders.rend());
    const double steps = static_cast<double>(in.summary.steps.steps.size());
    Finding f;
    f.id = "tensor-core-misaligned";
    f.severity = fraction >= 0.25 ? Severity::High : Severity::Medium;
    f.title = "GEMM/conv shapes that are not multiples of 8 take " + formatPercent(fraction) + " of kernel time";
    f.explanation = "Tensor Core kernels need the matrix dimensions (and channel counts) to be multiples of 8 "
                    "for fp16/bf16; otherwise cuBLAS and cuDNN pad internally or fall back to slower kernels. "
                    "Padding the model's widths (vocabulary, hidden size, channels) fixes it.";
    f.evidence.figures = {{"misaligned_share_of_kernel_time", fraction, "fraction"},
                          {"misaligned_time_per_step_us", misaligned / steps / 1e3, "us"}};
    for (size_t i = 0; i < std::min<size_t>(5, offenders.size()); ++i)
        f.evidence.ops.push_back(offenders[i].second);
    f.estimatedGainNs = 0.25 * misaligned / steps;
    f.gainMethod = "a quarter of the misaligned ops' device time per step (padding typically recovers 20-50 %)";
    f.fix = "Pad the dimensions that feed matmuls and convolutions to a multiple of 8 (64 is better for "
            "large layers): vocabulary size, hidden/FFN widths, attention head dimensions, channel counts.";
    f.snippet = "def pad8(n):\n"
                "    return (n + 7) // 8 * 8\n"
                "embedding = torch.nn.Embedding(pad8(vocab_size), hidden)\n"
                "head = torch.nn.Linear(hidden, pad8(vocab_size))\n";
    out.push_back(std::move(f));
}

void optimizerUnfused(const DiagnosisInput& in, std::vector<Finding>& out)
{
    // Optimizer.step#... spans (torch annotates every optimizer step), and the kernels
    // launched from inside them.
    std::vector<const Event*> spans;
    bool fused = false;
    for (const Event& e : in.model.events()) {
        const std::string_view name = in.model.text(e.name);
        if ((e.category == Category::UserAnnotation || e.category == Category::CpuOp) &&
            name.starts_with("Optimizer.step#"))
            spans.push_back(&e);
        if (e.category == Category::CpuOp && name.find("_fused_") != std::string_view::npos)
            fused = true;
    }
    if (spans.empty() || fused)
        return;
    double kernels = 0, spanNs = 0;
    std::map<std::string, int64_t> byKernel;
    for (const Event* span : spans) {
        spanNs += static_cast<double>(span->durationNs);
        const auto list = in.model.events(span->track);
        auto it = std::lower_bound(list.begin(), list.end(), span->startNs,
                                   [](const Event& e, int64_t t) { return e.startNs < t; });
        for (; it != list.end() && it->startNs <= span->endNs(); ++it) {
            const Event& e = *it;
            if (!trace::isLaunchCall(e.category) || e.endNs() > span->endNs())
                continue;
            for (trace::EventId k : in.model.activitiesLaunchedBy(in.model.idOf(e))) {
                if (in.model.event(k).category == Category::Kernel) {
                    ++kernels;
                    ++byKernel[std::string(in.model.text(in.model.event(k).name))];
                }
            }
        }
    }
    const double perStep = kernels / static_cast<double>(spans.size());
    if (perStep < in.thresholds.optimizerKernelsPerStep)
        return;
    Finding f;
    f.id = "optimizer-unfused";
    f.severity = perStep >= 4 * in.thresholds.optimizerKernelsPerStep ? Severity::Medium : Severity::Low;
    f.title = "The optimizer launches " + std::to_string(static_cast<int64_t>(perStep)) +
              " kernels per step, one or more per parameter";
    f.explanation = "Optimizer.step runs a loop over parameters with a few small kernels each (" +
                    formatMs(spanNs / static_cast<double>(spans.size())) +
                    " per step). The foreach and fused implementations update all parameters with a handful "
                    "of large kernels.";
    f.evidence.figures = {{"optimizer_kernels_per_step", perStep, "count"},
                          {"optimizer_step_time_us", spanNs / static_cast<double>(spans.size()) / 1e3, "us"}};
    f.evidence.ops.emplace_back(in.model.text(spans.front()->name));
    std::vector<std::pair<int64_t, std::string>> top;
    for (const auto& [name, count] : byKernel)
        top.emplace_back(count, name);
    std::sort(top.rbegin(), top.rend());
    for (size_t i = 0; i < std::min<size_t>(3, top.size()); ++i)
        f.evidence.kernels.push_back(top[i].second);
    for (size_t i = 0; i < std::min<size_t>(3, spans.size()); ++i)
        f.evidence.ranges.push_back({spans[i]->startNs, spans[i]->endNs()});
    f.estimatedGainNs = 0.7 * spanNs / static_cast<double>(spans.size());
    f.gainMethod = "70 % of the optimizer step's duration (fused optimizers replace hundreds of launches "
                   "with a few)";
    f.fix = "Use the fused (or foreach) implementation of the optimizer.";
    f.snippet = "optimizer = torch.optim.AdamW(model.parameters(), lr=lr, fused=True)\n"
                "# or foreach=True where fused is not available\n";
    out.push_back(std::move(f));
}

void copyHeavy(const DiagnosisInput& in, std::vector<Finding>& out)
{
    const std::vector<Step>& steps = in.summary.steps.steps;
    if (steps.empty())
        return;
    const int64_t begin = steps.front().beginNs, end = steps.back().endNs;
    auto isCopyOp = [](std::string_view n) {
        return n == "aten::copy_" || n == "aten::to" || n == "aten::_to_copy";
    };
    // Copies that bring input from the host are the data pipeline's business
    // (pageable-memcpy, dataloader-bound): leave out the copy ops that launched them.
    std::vector<bool> hostInput(in.model.events().size(), false);
    for (const Event& e : in.model.events()) {
        if (e.category != Category::Memcpy || !e.op.valid() ||
            in.model.text(e.name).find("HtoD") == std::string_view::npos)
            continue;
        for (trace::EventId a = e.op; a.valid() && isCopyOp(in.model.text(in.model.event(a).name));
             a = in.model.event(a).parent)
            hostInput[a.value] = true;
    }
    double cpu = 0, device = 0;
    std::map<std::string, double> callers;
    for (const Event& e : in.model.events()) {
        if (e.startNs < begin || e.startNs >= end)
            continue;
        const std::string_view name = in.model.text(e.name);
        if (e.category == Category::CpuOp && isCopyOp(name) && !hostInput[in.model.idOf(e).value]) {
            // Outermost copy op only (aten::to -> _to_copy -> copy_).
            bool nested = false;
            for (trace::EventId p = e.parent; p.valid(); p = in.model.event(p).parent)
                nested |= isCopyOp(in.model.text(in.model.event(p).name));
            if (!nested) {
                cpu += static_cast<double>(e.durationNs);
                if (e.parent.valid())
                    callers[std::string(in.model.text(in.model.event(e.parent).name))] += static_cast<double>(e.durationNs);
            }
        } else if ((e.category == Category::Kernel || e.category == Category::Memcpy) && e.op.valid() &&
                   isCopyOp(in.model.text(in.model.event(e.op).name)) && !hostInput[e.op.value]) {
            device += static_cast<double>(e.durationNs);
        }
    }
    const double n = static_cast<double>(steps.size());
    const double worst = std::max(cpu, device) / n;
    const double fraction = share(worst, stepMeanNs(in));
    if (fraction < in.thresholds.copyShare)
        return;
    Finding f;
    f.id = "copy-heavy";
    f.severity = fraction >= 0.25 ? Severity::High : Severity::Medium;
    f.title = "Tensor copies and dtype/device conversions take " + formatPercent(fraction) + " of the step";
    f.explanation = "aten::copy_/aten::to run " + formatMs(cpu / n) + " on the CPU and " + formatMs(device / n) +
                    " on the GPU per step. Moving data between devices or dtypes every step, or making "
                    "tensors contiguous repeatedly, is work the model does not need.";
    f.evidence.figures = {{"copy_cpu_time_per_step_us", cpu / n / 1e3, "us"},
                          {"copy_device_time_per_step_us", device / n / 1e3, "us"},
                          {"copy_share_of_step", fraction, "fraction"}};
    std::vector<std::pair<double, std::string>> top;
    for (const auto& [name, ns] : callers)
        top.emplace_back(ns, name);
    std::sort(top.rbegin(), top.rend());
    f.evidence.ops.push_back("aten::copy_");
    for (size_t i = 0; i < std::min<size_t>(3, top.size()); ++i)
        f.evidence.ops.push_back("called from " + top[i].second);
    f.estimatedGainNs = 0.5 * worst;
    f.gainMethod = "half of the larger of the CPU and device copy time per step";
    f.fix = "Create tensors on the device and in the dtype they are used in, move each batch once (with "
            "non_blocking=True from pinned memory), and keep layouts consistent instead of calling "
            ".contiguous() or .to() inside the model.";
    f.snippet = "x = x.to(device, non_blocking=True)          # once per batch\n"
                "mask = torch.ones(n, device=device, dtype=x.dtype)  # not .cuda() every step\n";
    out.push_back(std::move(f));
}

}  // namespace kinetoscope::analysis::rules
