// Rules about how the device computes: no-tensor-cores, tensor-core-misaligned,
// optimizer-unfused, copy-heavy.
#include "core/analysis/diagnosis/rule_helpers.h"
#include "core/analysis/diagnosis/rules.h"
#include "core/analysis/kernel_role.h"
#include "core/analysis/tensor_cores.h"
#include "core/trace/event_args.h"
#include "core/trace/format_description.h"
#include "core/trace/printable.h"

#include <algorithm>
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

// Does the device have matrix units the rules may recommend (NVIDIA Volta+, AMD CDNA)?
bool hasTensorCores(const DiagnosisInput& in)
{
    std::vector<std::string_view> names;
    names.reserve(in.summary.kernels.size());
    for (const KernelStats& k : in.summary.kernels)
        names.push_back(k.name);
    return hasMatrixUnits(in.model.metadata(), trace::detectGpuVendor(in.model), names);
}

// The `Input type`s of a few GEMM/convolution ops in the judged steps (recorded with
// record_shapes), read back from the trace: tensor dtypes only ("float", "c10::BFloat16").
std::vector<std::string> eligibleInputTypes(const DiagnosisInput& in)
{
    std::vector<std::string> types;
    int read = 0;
    for (const Event& e : in.model.events()) {
        if (read >= 4)
            break;
        if (e.category != Category::CpuOp || !in.model.inputShapes(in.model.idOf(e)).valid() ||
            !inSteps(in, e.startNs) || !isTensorCoreEligibleOp(in.model.text(e.name)))
            continue;
        ++read;
        const std::optional<std::vector<trace::Arg>> args =
            trace::readArgs(in.model, in.model.idOf(e));
        const trace::ArgValue* inputTypes = args ? trace::findArg(*args, "Input type") : nullptr;
        const trace::ArgValue::Array* list = inputTypes ? inputTypes->array() : nullptr;
        if (!list)
            continue;
        for (const trace::ArgValue& item : *list) {
            const std::string* type = item.string();
            if (type &&
                (*type == "float" || *type == "double" || type->find("Half") != std::string::npos ||
                 type->find("BFloat16") != std::string::npos))
                types.push_back(*type);
        }
    }
    return types;
}

}  // namespace

void noTensorCores(const DiagnosisInput& in, std::vector<Finding>& out)
{
    const double kernels = kernelTimeNs(in);
    if (!judgeable(in) || kernels <= 0 || !hasTensorCores(in))
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
    // The plugin's test (GEMM/conv ops' share of kernel time), or the model's: SIMT GEMM
    // kernels however they were launched (a compiled graph hides the aten::mm).
    const double steps = static_cast<double>(in.summary.steps.steps.size());
    const double simtShare =
        share(causal(in).deviceNs[static_cast<size_t>(Cause::Fp32Matmul)] * steps, kernels);
    if (std::max(eligibleShare, simtShare) < in.thresholds.tensorCoreEligibleShare ||
        tcShare >= in.thresholds.tensorCoreShareMax)
        return;
    std::sort(ops.rbegin(), ops.rend());
    // With record_shapes the ops say their input dtypes: 16-bit inputs are already what
    // Tensor Cores take (the library chose these kernels), so the advice would be wrong.
    const std::vector<std::string> dtypes = eligibleInputTypes(in);
    const bool fp32 = std::any_of(dtypes.begin(), dtypes.end(), [](const std::string& t) {
        return t == "float" || t == "double";
    });
    const bool halfOnly = !dtypes.empty() && !fp32;
    if (halfOnly)
        return;
    Finding f;
    f.id = "no-tensor-cores";
    const double gain = causal(in).gain(Cause::Fp32Matmul);
    f.basis = SeverityBasis::DeviceGain;
    f.title = "Matrix multiplies and convolutions run without Tensor Cores (" +
              format::percent(std::max(eligibleShare, simtShare)) + " of kernel time)";
    f.explanation = "The GPU has Tensor Cores, but " + format::percent(tcShare) +
                    " of the kernel time uses them while GEMM and convolution ops take " +
                    format::percent(eligibleShare) +
                    " of it: the model runs in fp32. Mixed precision moves "
                    "these ops onto Tensor Cores, typically 2x or more faster.";
    f.evidence.figures = {
        {"tensor_core_share_of_kernel_time", tcShare, Unit::Fraction},
        {"gemm_conv_share_of_kernel_time", eligibleShare, Unit::Fraction},
        {"gemm_conv_time_per_step_us", eligible / steps / 1e3, Unit::Microseconds}};
    for (size_t i = 0; i < std::min<size_t>(5, ops.size()); ++i)
        f.evidence.ops.emplace_back(ops[i].second);
    if (fp32)
        f.evidence.ops.emplace_back("input dtypes recorded: float (fp32)");
    for (const KernelStats& k : in.summary.kernels)
        if (!k.topOp.empty() && isTensorCoreEligibleOp(k.topOp) && f.evidence.kernels.size() < 5)
            f.evidence.kernels.emplace_back(k.name);
    f.evidence.figures.push_back({"simt_gemm_share_of_kernel_time", simtShare, Unit::Fraction});
    f.evidence.figures.push_back(
        {"gain_if_removed_alone_us", causal(in).solo(Cause::Fp32Matmul) / 1e3, Unit::Microseconds});
    f.evidence.figures.push_back({"gain_once_the_host_keeps_up_us",
                                  causal(in).afterOthers(Cause::Fp32Matmul) / 1e3,
                                  Unit::Microseconds});
    if (causal(in).afterOthers(Cause::Fp32Matmul) > 2 * gain + 1e6)
        f.explanation += " The host sets the pace today: this saves " + format::duration(gain) +
                         " on its own, up to " +
                         format::duration(causal(in).afterOthers(Cause::Fp32Matmul)) +
                         " once the host-side findings are fixed.";
    f.estimatedGainNs = gain;
    f.gainMethod =
        "the step replayed with the fp32 GEMM/convolution kernels at half their time (16-bit "
        "Tensor "
        "Core kernels run them at least 2x faster); saved only where the GPU sets the pace";
    // bf16 Tensor Cores need Ampere (compute capability 8.0); Volta and Turing use fp16
    // with a gradient scaler.
    bool bf16 = false;
    for (const trace::DeviceInfo& d : in.model.metadata().devices)
        bf16 |= d.computeMajor >= 8;
    if (in.model.metadata().devices.empty())
        for (const KernelStats& k : in.summary.kernels)
            for (std::string_view arch :
                 {"ampere_", "sm80_", "sm86_", "sm89_", "sm90", "sm100", "sm103", "nvjet"})
                bf16 |= k.name.find(arch) != std::string::npos;
    if (isInference(in)) {
        f.fix = std::string("Run inference in ") + (bf16 ? "bf16" : "fp16") +
                " (autocast, or the model converted), with TF32 allowed for what stays in fp32.";
        f.snippet =
            std::string("torch.backends.cuda.matmul.allow_tf32 = True\n"
                        "with torch.inference_mode(), torch.autocast(\"cuda\", dtype=torch.") +
            (bf16 ? "bfloat16" : "float16") + "):\n    out = model(x)\n";
    } else if (bf16) {
        f.fix = "Run the forward pass (and the loss) under bf16 autocast; keep the optimizer in "
                "fp32. TF32 "
                "also speeds up the ops autocast leaves in fp32.";
        f.snippet = "torch.backends.cuda.matmul.allow_tf32 = True\n"
                    "torch.backends.cudnn.allow_tf32 = True\n"
                    "with torch.autocast(\"cuda\", dtype=torch.bfloat16):\n"
                    "    loss = loss_fn(model(x), y)\n"
                    "loss.backward()\n";
    } else {
        f.explanation +=
            " This GPU predates bf16 Tensor Cores: use fp16 autocast with a gradient scaler.";
        f.fix = "Run the forward pass (and the loss) under fp16 autocast with a GradScaler; keep "
                "the optimizer "
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
    if (!judgeable(in) || kernels <= 0 || !hasTensorCores(in))
        return;
    double misaligned = 0;
    std::vector<std::pair<double, std::string>> offenders;
    for (const OpStats& o : in.summary.ops.byNameAndShapes) {
        if (!isTensorCoreEligibleOp(o.name) || o.selfDeviceNs <= 0 || o.inputShapes.empty() ||
            !misalignedForTensorCores(o.name, o.inputShapes))
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
    f.basis = SeverityBasis::DeviceGain;
    f.title = "GEMM/conv shapes that are not multiples of 8 take " + format::percent(fraction) +
              " of kernel time";
    f.explanation =
        "Tensor Core kernels need the matrix dimensions (and channel counts) to be multiples of 8 "
        "for fp16/bf16; otherwise cuBLAS and cuDNN pad internally or fall back to slower kernels. "
        "Padding the model's widths (vocabulary, hidden size, channels) fixes it.";
    f.evidence.figures = {
        {"misaligned_share_of_kernel_time", fraction, Unit::Fraction},
        {"misaligned_time_per_step_us", misaligned / steps / 1e3, Unit::Microseconds}};
    for (size_t i = 0; i < std::min<size_t>(5, offenders.size()); ++i)
        f.evidence.ops.emplace_back(offenders[i].second);
    // Padding speeds those kernels up by about a quarter (NVIDIA's guidance: 20-50 %); it
    // shortens the step only in the share of it where the GPU sets the pace.
    const double gpuBound = share(causal(in).deviceBusyNs, causal(in).stepNs);
    f.estimatedGainNs = 0.25 * misaligned / steps * gpuBound;
    f.gainMethod = "a quarter of the misaligned ops' device time per step (padding typically "
                   "recovers 20-50 %), "
                   "times the share of the step the GPU is busy";
    f.fix = "Pad the dimensions that feed matmuls and convolutions to a multiple of 8 (64 is "
            "better for "
            "large layers): vocabulary size, hidden/FFN widths, attention head dimensions, channel "
            "counts.";
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
    if (!judgeable(in) || spans.empty() || fused || in.summary.window.kind != RunKind::Training)
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
    const double gain = causal(in).gain(Cause::OptimizerHost);
    f.basis = SeverityBasis::Gain;
    f.title = "The optimizer launches " + format::count(static_cast<int64_t>(perStep)) +
              " kernels per step, one or more per parameter";
    f.explanation =
        "Optimizer.step runs a loop over parameters with a few small kernels each (" +
        format::duration(spanNs / static_cast<double>(spans.size())) +
        " per step). The foreach and fused implementations update all parameters with a handful "
        "of large kernels.";
    f.evidence.figures = {{"optimizer_kernels_per_step", perStep, Unit::Count},
                          {"optimizer_step_time_us",
                           spanNs / static_cast<double>(spans.size()) / 1e3, Unit::Microseconds}};
    f.evidence.ops.emplace_back(in.model.text(spans.front()->name));
    for (const std::string& kernel : largestFirst(byKernel, 3))
        f.evidence.kernels.emplace_back(kernel);
    for (size_t i = 0; i < std::min<size_t>(3, spans.size()); ++i)
        f.evidence.ranges.push_back({spans[i]->startNs, spans[i]->endNs()});
    f.evidence.figures.push_back({"gain_if_removed_alone_us",
                                  causal(in).solo(Cause::OptimizerHost) / 1e3, Unit::Microseconds});
    f.estimatedGainNs = gain;
    f.gainMethod =
        "the step replayed without the optimizer's per-parameter launch overhead on the host (a "
        "fused optimizer launches a handful of kernels); credited after launch-bound when both "
        "apply";
    f.fix = "Use the fused (or foreach) implementation of the optimizer.";
    f.snippet = fusedOptimizerSnippet(in.model);
    out.push_back(std::move(f));
}

void copyHeavy(const DiagnosisInput& in, std::vector<Finding>& out)
{
    if (!judgeable(in))
        return;
    // Device time of copies and conversions inside the model (aten::copy_/to/_to_copy
    // that neither bring input from the host nor read results back): a host that waits
    // in a .to("cpu") is host-sync's business, not a copy cost. A cast or .contiguous()
    // inside a chain of memory-bound kernels is fused with the chain (the causal model
    // gives it to Fusion): this is the data movement that survives fusion.
    const CausalModel& m = causal(in);
    const double device = m.deviceNs[static_cast<size_t>(Cause::DeviceCopies)];
    const double step = stepMeanNs(in);
    const double fraction = share(device, step);
    const double gain = m.gain(Cause::DeviceCopies);
    if (fraction < in.thresholds.copyShare || share(gain, step) < 0.01)
        return;
    std::map<std::string, double> callers;
    for (const Event& e : in.model.events()) {
        if (e.category != Category::Memcpy && e.category != Category::Kernel)
            continue;
        if (!e.op.valid() || !inSteps(in, e.startNs))
            continue;
        const std::string_view op = in.model.text(in.model.event(e.op).name);
        if (!isCopyOp(op))
            continue;
        trace::EventId caller = in.model.event(e.op).parent;
        while (caller.valid() && in.model.text(in.model.event(caller).name).starts_with("aten::") &&
               in.model.text(in.model.event(caller).name).find("copy") != std::string_view::npos)
            caller = in.model.event(caller).parent;
        if (caller.valid() && in.model.text(in.model.event(caller).name) == "aten::to")
            caller = in.model.event(caller).parent;
        callers[caller.valid() ? std::string(in.model.text(in.model.event(caller).name))
                               : "(top level)"] += static_cast<double>(e.durationNs);
    }
    Finding f;
    f.id = "copy-heavy";
    f.basis = SeverityBasis::DeviceGain;
    f.title = "Tensor copies and dtype conversions take " + format::percent(fraction) +
              " of the step on the GPU";
    f.explanation =
        "aten::copy_/aten::to run " + format::duration(device) +
        " of device work per step inside the model, outside any chain of elementwise kernels a "
        "compiler would fuse them into: device-to-device transfers, conversions of dtypes or "
        "layouts between GEMMs, tensors made contiguous, every step. Without them the step would "
        "be " +
        format::duration(gain) + " shorter.";
    f.evidence.figures = {
        {"copy_device_time_per_step_us", device / 1e3, Unit::Microseconds},
        {"copy_share_of_step", fraction, Unit::Fraction},
        {"gain_if_removed_alone_us", m.solo(Cause::DeviceCopies) / 1e3, Unit::Microseconds}};
    f.evidence.ops.emplace_back("aten::copy_");
    for (const std::string& caller : largestFirst(callers, 3))
        f.evidence.ops.emplace_back("called from " + caller);
    f.estimatedGainNs = gain;
    f.gainMethod =
        "the step replayed without the in-model copy kernels (their device time removed)";
    f.fix = "Create tensors on the device and in the dtype they are used in, and keep layouts "
            "consistent "
            "instead of calling .contiguous() or .to() inside the model.";
    f.snippet =
        "mask = torch.ones(n, device=device, dtype=x.dtype)  # not .cuda() / .to() every step\n"
        "x = x.to(memory_format=torch.channels_last)          # once, with the model\n";
    out.push_back(std::move(f));
}

}  // namespace kinetoscope::analysis::rules

namespace kinetoscope::analysis::rules {

void unfusedElementwise(const DiagnosisInput& in, std::vector<Finding>& out)
{
    const double kernels = kernelTimeNs(in);
    if (!judgeable(in) || kernels <= 0)
        return;
    // Kernel time by role over the judged steps, and the ops behind the fusible kernels:
    // the memory-bound ones, and the copies, casts and concatenations a compiler fuses with
    // them (in a chain of them on a stream, fusibleChains).
    double fusible = 0, compute = 0, chainedCopies = 0;
    std::map<uint32_t, double> byName;  // the op (else the kernel) behind the fusible time
    KernelRoles roles(in.model);
    std::vector<const Event*> stream;
    std::vector<KernelRole> streamRoles;
    for (size_t t = 0; t < in.model.tracks().size(); ++t) {
        if (in.model.tracks()[t].kind != trace::TrackKind::GpuStream)
            continue;
        stream.clear();
        streamRoles.clear();
        for (const Event& e : in.model.events(trace::TrackId{static_cast<uint32_t>(t)})) {
            if (e.category != Category::Kernel && e.category != Category::Memcpy &&
                e.category != Category::Memset)
                continue;
            stream.push_back(&e);
            streamRoles.push_back(e.category == Category::Kernel ? roles.of(e) : KernelRole::Other);
        }
        std::vector<bool> chained(stream.size(), false);
        for (const auto& [begin, end] : fusibleChains(streamRoles))
            std::fill(chained.begin() + static_cast<std::ptrdiff_t>(begin),
                      chained.begin() + static_cast<std::ptrdiff_t>(end), true);
        for (size_t i = 0; i < stream.size(); ++i) {
            const Event& e = *stream[i];
            if (!inSteps(in, e.startNs))
                continue;
            const KernelRole role = streamRoles[i];
            if (role == KernelRole::Compute)
                compute += static_cast<double>(e.durationNs);
            const bool copyInChain = role == KernelRole::Copy && chained[i];
            if (role != KernelRole::Fusible && !copyInChain)
                continue;
            fusible += static_cast<double>(e.durationNs);
            chainedCopies += copyInChain ? static_cast<double>(e.durationNs) : 0.0;
            byName[e.op.valid() ? in.model.event(e.op).name.value : e.name.value] +=
                static_cast<double>(e.durationNs);
        }
    }
    std::map<std::string, double> byOp;
    for (const auto& [name, ns] : byName)
        byOp[std::string(trace::utf8Prefix(in.model.text(trace::StringId{name}), 60))] += ns;
    const CausalModel& m = causal(in);
    const double step = stepMeanNs(in);
    const double gain = m.gain(Cause::Fusion);
    const double steps = static_cast<double>(in.summary.steps.steps.size());
    const double fusibleShare = share(fusible, kernels);
    if (fusibleShare < in.thresholds.fusibleShare || share(gain, step) < 0.01)
        return;
    Finding f;
    f.id = "unfused-elementwise";
    f.basis = SeverityBasis::DeviceGain;
    f.title = std::string(chainedCopies > 0 ? "Memory-bound elementwise, norm, reduction and "
                                              "cast kernels take "
                                            : "Memory-bound elementwise, norm and reduction "
                                              "kernels take ") +
              format::percent(fusibleShare) + " of kernel time, " +
              format::duration(m.deviceNs[static_cast<size_t>(Cause::Fusion)]) +
              " of it in chains a compiler fuses";
    f.explanation =
        "Between the GEMMs and convolutions (" + format::percent(share(compute, kernels)) +
        " of kernel time), the device runs one small kernel per pointwise op, activation, norm, "
        "softmax or reduction, each reading its inputs from memory and writing its output back. "
        "Consecutive ones on a stream fuse into one kernel that reads and writes each tensor once "
        "(torch.compile does it); the step would be " +
        format::duration(gain) + " shorter.";
    if (chainedCopies > 0)
        f.explanation += " " + format::percent(share(chainedCopies, kernels)) +
                         " of kernel time is dtype casts, copies and concatenations inside those "
                         "chains: the compiler fuses them too (they are not copy-heavy's data "
                         "movement).";
    if (m.afterOthers(Cause::Fusion) > 2 * gain + 1e6)
        f.explanation += " The host sets the pace today: this saves " + format::duration(gain) +
                         " on its own, up to " + format::duration(m.afterOthers(Cause::Fusion)) +
                         " once the host-side findings are fixed.";
    f.evidence.figures = {
        {"fusible_share_of_kernel_time", fusibleShare, Unit::Fraction},
        {"fusible_time_per_step_us", fusible / steps / 1e3, Unit::Microseconds},
        {"compute_share_of_kernel_time", share(compute, kernels), Unit::Fraction},
        {"casts_and_copies_in_chains_share_of_kernel_time", share(chainedCopies, kernels),
         Unit::Fraction},
        {"chained_time_per_step_us", m.deviceNs[static_cast<size_t>(Cause::Fusion)] / 1e3,
         Unit::Microseconds},
        {"gain_if_removed_alone_us", m.solo(Cause::Fusion) / 1e3, Unit::Microseconds},
        {"gain_once_the_host_keeps_up_us", m.afterOthers(Cause::Fusion) / 1e3, Unit::Microseconds}};
    for (const std::string& op : largestFirst(byOp, 5))
        f.evidence.ops.emplace_back(op);
    f.estimatedGainNs = gain;
    f.gainMethod = "the step replayed with each chain of consecutive memory-bound kernels on a "
                   "stream costing what "
                   "its costliest kernel costs (a fused kernel reads the chain's inputs and writes "
                   "its outputs once), "
                   "or, where the roofline knows the bytes that kernel moves, what they take at "
                   "half the memory "
                   "bandwidth if that is shorter (a generated fused kernel streams them)";
    f.fix = "Compile the model (torch.compile fuses chains of pointwise, norm and reduction ops "
            "into one kernel "
            "each), or use the fused forms: F.scaled_dot_product_attention, fused "
            "LayerNorm/RMSNorm, fused "
            "optimizers.";
    f.snippet = isInference(in)
                    ? "model = torch.compile(model)  # fuses pointwise chains\n"
                      "with torch.inference_mode():\n"
                      "    out = model(x)\n"
                    : "model = torch.compile(model)  # fuses pointwise, norm and reduction chains\n"
                      "loss = loss_fn(model(x), y)\n"
                      "loss.backward()\n";
    out.push_back(std::move(f));
}

}  // namespace kinetoscope::analysis::rules
