// The lab rules: what a live run measured (the seeds' readings of the three-run
// baseline and the memory triage; the DataLoader's in rules_lab_loader.cpp), as findings whose
// gain is the measured difference (Finding::measured). They need a session; a trace
// alone has none of it. Every figure comes from a file the fuzzer feeds at random: each
// is checked finite before it is divided or shown.
#include "core/analysis/diagnosis/rule_helpers.h"
#include "core/analysis/diagnosis/rules.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace kinetoscope::analysis::rules {

namespace {

// One arm of the baseline: its time per step (per batch for an inference run) and
// samples per second.
struct Arm
{
    std::optional<double> ns;
    std::optional<double> samplesPerSecond;
};

enum class ArmId
{
    Fp32,
    Bf16,
    Graphed
};

// An inference run is judged on its latency per batch when both arms of a pair have one.
bool perBatch(const LabMeasurements& lab, ArmId a, ArmId b)
{
    auto latency = [&](ArmId id) {
        return positive(id == ArmId::Fp32   ? lab.fp32LatencyNs
                        : id == ArmId::Bf16 ? lab.bf16LatencyNs
                                            : lab.graphedLatencyNs);
    };
    return lab.inference && latency(a) && latency(b);
}

Arm arm(const LabMeasurements& lab, ArmId id, bool latency)
{
    switch (id) {
    case ArmId::Fp32:
        return {positive(latency ? lab.fp32LatencyNs : lab.fp32StepNs),
                positive(lab.fp32SamplesPerSecond)};
    case ArmId::Bf16:
        return {positive(latency ? lab.bf16LatencyNs : lab.bf16StepNs),
                positive(lab.bf16SamplesPerSecond)};
    case ArmId::Graphed:
        return {positive(latency ? lab.graphedLatencyNs : lab.graphedStepNs),
                positive(lab.graphedSamplesPerSecond)};
    }
    return {};
}

// The jump from one arm to the next, as the seeds read it: samples/s over samples/s;
// the inverse ratio of the times where samples/s were not recorded.
std::optional<double> jump(const Arm& from, const Arm& to)
{
    double ratio = 0;
    if (from.samplesPerSecond && to.samplesPerSecond)
        ratio = *to.samplesPerSecond / *from.samplesPerSecond;
    else if (from.ns && to.ns)
        ratio = *from.ns / *to.ns;
    if (!std::isfinite(ratio) || ratio <= 0)
        return std::nullopt;
    return ratio;
}

// An arm's mean time as evidence: "fp32_step_us", or "fp32_latency_per_batch_us" when the
// pair is judged per batch.
Evidence::Figure armTime(const char* name, double ns, bool batch)
{
    return {std::string(name) + (batch ? "_latency_per_batch_us" : "_step_us"), ns / 1e3,
            Unit::Microseconds};
}

// What the faster arm saves, as a share of the slower arm's step (or batch).
Evidence::Figure savingShare(double gain, double slowerNs, bool batch)
{
    return {batch ? "saving_share_of_batch" : "saving_share_of_step", share(gain, slowerNs),
            Unit::Fraction};
}

const char* autocastDevice(const LabMeasurements& lab)
{
    return lab.cpu ? "cpu" : "cuda";
}

// bf16 autocast measured slower than fp32: where the device has no fast bf16 arithmetic,
// the advice to train in bf16 is the wrong way. Saves nothing over the fp32 baseline; it
// keeps the user from a change that costs time.
Finding bf16Slowdown(const LabMeasurements& lab, const Arm& fp32, const Arm& bf16, double ratio,
                     bool batch)
{
    const std::string unit = batch ? "batch" : "step";
    Finding f;
    f.id = "bf16-slowdown";
    f.measured = true;
    f.severity = Severity::Medium;
    f.title = "bf16 autocast makes each " + unit + " " + format::ratio(1.0 / ratio) + " slower" +
              (fp32.ns && bf16.ns ? ": " + format::duration(*fp32.ns) + " in fp32, " +
                                        format::duration(*bf16.ns) + " in bf16"
                                  : std::string()) +
              " (measured): keep fp32 here";
    std::string cause;
    if (!lab.cpu)
        cause = "On a GPU this usually means casts around many small kernels cost more than the "
                "arithmetic saves, "
                "or a GPU without bf16 Tensor Cores (before Ampere).";
    else if (lab.cpuBf16Units == "none")
        cause = "This CPU has no bf16 matrix units (neither AMX nor AVX-512 BF16 in its flags): "
                "every bf16 matmul "
                "is converted and computed the slow way.";
    else if (lab.cpuBf16Units == "amx_bf16" || lab.cpuBf16Units == "avx512_bf16")
        cause = "This CPU has bf16 matrix units (" + lab.cpuBf16Units +
                "), yet autocast costs more than it saves here: the casts around small matmuls, or "
                "ops without a "
                "bf16 kernel, outweigh the faster arithmetic.";
    else
        cause = "On a CPU bf16 pays only with bf16 matrix units (AMX or AVX-512 BF16); without "
                "them every bf16 "
                "matmul is converted and computed the slow way.";
    f.explanation =
        "The lab ran the same model, data and batch in fp32 and in bf16 autocast: bf16 processed " +
        format::ratio(ratio) + " the samples per second, a slowdown, not a small gain. " + cause;
    if (fp32.ns && bf16.ns)
        f.evidence.figures = {armTime("fp32", *fp32.ns, batch),
                              armTime("bf16", *bf16.ns, batch),
                              {"bf16_slowdown", *bf16.ns / *fp32.ns - 1.0, Unit::Fraction}};
    f.evidence.figures.push_back({"bf16_over_fp32_samples_per_s", ratio, Unit::Ratio});
    f.perBatch = batch;
    f.gainMethod =
        "measured in the lab: a slowdown saves nothing; it says which change not to make";
    const bool cpuWithoutUnits =
        lab.cpu && lab.cpuBf16Units != "amx_bf16" && lab.cpuBf16Units != "avx512_bf16";
    f.fix = cpuWithoutUnits ? "Keep fp32 on this CPU. Measure bf16 again on a GPU (Ampere or "
                              "later) or a CPU with AMX, "
                              "where it pays."
                            : "Keep fp32 for this model, or profile the bf16 arm to see which "
                              "casts or kernels cost the "
                              "time.";
    return f;
}

void precision(const LabMeasurements& lab, std::vector<Finding>& out)
{
    if (lab.bf16AsWritten)
        return;  // both arms ran the script's own precision: no fp32 -> bf16 to read
    const bool batch = perBatch(lab, ArmId::Fp32, ArmId::Bf16);
    const Arm fp32 = arm(lab, ArmId::Fp32, batch), bf16 = arm(lab, ArmId::Bf16, batch);
    const std::optional<double> ratio = jump(fp32, bf16);
    if (!ratio)
        return;
    const std::string per = batch ? "per batch" : "per step";
    if (*ratio < kLabSlowdown) {
        out.push_back(bf16Slowdown(lab, fp32, bf16, *ratio, batch));
        return;
    }
    if (*ratio < kSmallLabJump) {
        // The seed's small jump: where not to look.
        const double speedup = fp32.ns && bf16.ns ? 1.0 - *bf16.ns / *fp32.ns : 1.0 - 1.0 / *ratio;
        Finding f;
        f.id = "not-precision-bound";
        f.severity = Severity::Low;
        f.title = speedup > 0
                      ? "bf16 autocast speeds the step up only " + format::percent(speedup)
                      : "bf16 autocast does not speed the step up (" + format::percent(-speedup) +
                            " slower, "
                            "within this run's noise)";
        f.explanation =
            "Going from fp32 to bf16 barely changes the step time: arithmetic is not the "
            "bottleneck. Look at the input pipeline, launches and synchronisation first.";
        if (fp32.ns && bf16.ns)
            f.evidence.figures = {armTime("fp32", *fp32.ns, batch),
                                  armTime("bf16", *bf16.ns, batch)};
        f.evidence.figures.push_back({"bf16_speedup", speedup, Unit::Fraction});
        f.evidence.figures.push_back({"bf16_over_fp32_samples_per_s", *ratio, Unit::Ratio});
        f.measured = true;
        f.gainMethod = "measured in the lab: informational, tells where not to look";
        f.fix =
            "Keep bf16 for its memory savings, but look for the bottleneck outside the kernels.";
        out.push_back(std::move(f));
        return;
    }
    if (!fp32.ns || !bf16.ns || !(*fp32.ns > *bf16.ns))
        return;  // samples/s and times disagree (a different batch): no measured gain to claim
    const double gain = *fp32.ns - *bf16.ns;
    const std::string times =
        format::duration(*fp32.ns) + " in fp32, " + format::duration(*bf16.ns) + " in bf16";
    Finding f;
    f.id = "bf16-measured";
    f.measured = true;
    f.severity = severityForGain(share(gain, *fp32.ns));
    f.title = (lab.inference ? "bf16 autocast serves a batch " : "bf16 autocast runs the step ") +
              format::ratio(*ratio) + " faster: " + times + " " + per + " (measured)";
    f.explanation =
        "The lab ran the same model, data and batch in fp32 and in bf16 autocast: bf16 processed " +
        format::ratio(*ratio) + " the samples per second. " +
        (lab.inference
             ? "The model was bound by fp32 arithmetic; served in bf16, each batch takes "
             : "The step was bound by fp32 arithmetic; trained in bf16, each step takes ") +
        format::duration(gain) + " less, as measured.";
    f.evidence.figures = {armTime("fp32", *fp32.ns, batch),
                          armTime("bf16", *bf16.ns, batch),
                          {"bf16_over_fp32_samples_per_s", *ratio, Unit::Ratio},
                          savingShare(gain, *fp32.ns, batch)};
    if (lab.fp32PeakBytes && lab.bf16PeakBytes && std::isfinite(*lab.fp32PeakBytes) &&
        std::isfinite(*lab.bf16PeakBytes)) {
        f.evidence.figures.push_back({"fp32_peak_bytes", *lab.fp32PeakBytes, Unit::Bytes});
        f.evidence.figures.push_back({"bf16_peak_bytes", *lab.bf16PeakBytes, Unit::Bytes});
    }
    f.estimatedGainNs = gain;
    f.perBatch = batch;
    f.gainMethod = batch ? "measured in the lab: the fp32 arm's mean latency per batch minus the "
                           "bf16 autocast arm's"
                         : "measured in the lab: the fp32 arm's mean step minus the bf16 autocast "
                           "arm's (same model, "
                           "data and batch)";
    const std::string device = autocastDevice(lab);
    if (lab.inference) {
        f.fix = "Serve in bf16: run the forward under torch.inference_mode() and "
                "torch.autocast(dtype=torch.bfloat16), "
                "or cast the model to bf16 once its outputs are checked against fp32.";
        f.snippet = "model.eval()\n"
                    "with torch.inference_mode(), torch.autocast(\"" +
                    device +
                    "\", dtype=torch.bfloat16):\n"
                    "    outputs = model(inputs)\n";
    } else {
        f.fix = "Train in bf16 autocast: the forward pass and the loss under "
                "torch.autocast(dtype=torch.bfloat16), "
                "backward and the optimizer outside it. bf16 keeps fp32's exponent range: no "
                "GradScaler. Compare the "
                "loss curve with an fp32 run once.";
        f.snippet = "for inputs, targets in loader:\n"
                    "    optimizer.zero_grad(set_to_none=True)\n"
                    "    with torch.autocast(\"" +
                    device +
                    "\", dtype=torch.bfloat16):\n"
                    "        loss = loss_fn(model(inputs), targets)\n"
                    "    loss.backward()  # outside autocast; bf16 needs no GradScaler\n"
                    "    optimizer.step()\n";
    }
    out.push_back(std::move(f));
}

Evidence::Figure compileTime(double seconds)
{
    return {"compile_time_us", seconds * 1e6, Unit::Microseconds};
}

// The script lab's third arm, the real torch.compile, measured faster than bf16 eager.
void compiled(const LabMeasurements& lab, const Arm& bf16, const Arm& compiledArm, double ratio,
              bool batch, std::vector<Finding>& out)
{
    const std::string per = batch ? "per batch" : "per step";
    const double gain = *bf16.ns - *compiledArm.ns;
    Finding f;
    f.id = "compile-measured";
    f.measured = true;
    f.severity = severityForGain(share(gain, *bf16.ns));
    f.title = "torch.compile runs the " + std::string(lab.inference ? "forward" : "step") + " " +
              format::ratio(ratio) + " faster: " + format::duration(*bf16.ns) + " in bf16, " +
              format::duration(*compiledArm.ns) + " compiled " + per + " (measured)";
    f.explanation =
        "The lab ran the script's model compiled (torch.compile, in bf16 autocast): " +
        format::ratio(ratio) +
        " the samples per second of eager bf16. The compiler fuses the elementwise work "
        "between matmuls and cuts the launches, " +
        format::duration(gain) + " less " + per + ", as measured" +
        (lab.compileSeconds ? "; compiling took " + format::duration(*lab.compileSeconds * 1e9) +
                                  " once, outside the steady figures."
                            : ".");
    f.evidence.figures = {armTime("bf16", *bf16.ns, batch),
                          armTime("compiled", *compiledArm.ns, batch),
                          {"compiled_over_bf16_samples_per_s", ratio, Unit::Ratio},
                          savingShare(gain, *bf16.ns, batch)};
    if (lab.compileSeconds)
        f.evidence.figures.push_back(compileTime(*lab.compileSeconds));
    f.estimatedGainNs = gain;
    f.perBatch = batch;
    f.gainMethod = std::string("measured in the script's lab: the bf16 arm's mean ") +
                   (batch ? "latency per batch" : "step") +
                   " minus the bf16 + torch.compile arm's, compilation excluded";
    f.fix = "Compile the model once before the loop: model = torch.compile(model). Keep the "
            "shapes static (drop_last=True) so it does not recompile; on a GPU, "
            "mode=\"reduce-overhead\" also replays the step as CUDA graphs.";
    f.snippet = "model = torch.compile(model)  # once, before the loop\n"
                "loader = torch.utils.data.DataLoader(dataset, batch_size=batch_size, "
                "drop_last=True)  # static shapes\n";
    out.push_back(std::move(f));
}

void graphs(const LabMeasurements& lab, std::vector<Finding>& out)
{
    if (lab.compileAsWritten)
        return;  // every arm ran the script's own compiled model: no bf16 -> compile to read
    const bool batch = perBatch(lab, ArmId::Bf16, ArmId::Graphed);
    const Arm bf16 = arm(lab, ArmId::Bf16, batch), graphed = arm(lab, ArmId::Graphed, batch);
    const std::optional<double> ratio = jump(bf16, graphed);
    if (!ratio)
        return;
    const std::string per = batch ? "per batch" : "per step";
    // What the third arm did, as a title begins: the C++ lab's graph or the real compiler.
    const std::string what = lab.compiled ? "Compiling the model with torch.compile"
                                          : "Replaying the step as a CUDA graph";
    if (*ratio < kSmallLabJump) {
        const double speedup =
            bf16.ns && graphed.ns ? 1.0 - *graphed.ns / *bf16.ns : 1.0 - 1.0 / *ratio;
        Finding f;
        f.id = "already-fused";
        f.severity = Severity::Low;
        f.title = speedup > 0 ? what + " gains only " + format::percent(speedup)
                              : what + " makes it " + format::percent(-speedup) + " slower";
        if (*ratio < kLabSlowdown) {
            f.severity = Severity::Medium;
            f.title += lab.compiled ? ": keep it eager" : ": do not capture it";
        }
        f.explanation =
            "Launch overhead is not what limits this model: its kernels are already large or "
            "fused. torch.compile / CUDA graphs will not help much.";
        if (bf16.ns && graphed.ns)
            f.evidence.figures = {
                armTime("bf16", *bf16.ns, batch),
                armTime(lab.compiled ? "compiled" : "graphed", *graphed.ns, batch)};
        if (lab.compileSeconds)
            f.evidence.figures.push_back(compileTime(*lab.compileSeconds));
        f.evidence.figures.push_back({"graph_speedup", speedup, Unit::Fraction});
        f.evidence.figures.push_back({"graph_over_bf16_samples_per_s", *ratio, Unit::Ratio});
        f.measured = true;
        f.gainMethod = "measured in the lab: informational, tells where not to look";
        f.fix = "Spend the effort on data, memory or algorithmic changes instead.";
        out.push_back(std::move(f));
        return;
    }
    if (!bf16.ns || !graphed.ns || !(*bf16.ns > *graphed.ns))
        return;
    if (lab.compiled) {
        compiled(lab, bf16, graphed, *ratio, batch, out);
        return;
    }
    const double gain = *bf16.ns - *graphed.ns;
    Finding f;
    f.id = "cuda-graph-measured";
    f.measured = true;
    f.severity = severityForGain(share(gain, *bf16.ns));
    f.title = "Replaying the " + std::string(lab.inference ? "forward" : "step") +
              " as a CUDA graph runs it " + format::ratio(*ratio) +
              " faster: " + format::duration(*bf16.ns) + " in bf16, " +
              format::duration(*graphed.ns) + " graphed " + per + " (measured)";
    f.explanation = "The lab replayed the whole bf16 " +
                    std::string(lab.inference ? "forward" : "step") +
                    " as one CUDA graph: " + format::ratio(*ratio) +
                    " the samples per second. Launch overhead (the host issuing many small kernels "
                    "one at a time) "
                    "costs real time here; a graph launches them all at once, " +
                    format::duration(gain) + " less " + per + ", as measured.";
    f.evidence.figures = {armTime("bf16", *bf16.ns, batch),
                          armTime("graphed", *graphed.ns, batch),
                          {"graph_over_bf16_samples_per_s", *ratio, Unit::Ratio},
                          savingShare(gain, *bf16.ns, batch)};
    f.estimatedGainNs = gain;
    f.perBatch = batch;
    f.gainMethod = std::string("measured in the lab: the bf16 arm's mean ") +
                   (batch ? "latency per batch" : "step") +
                   " minus the bf16 + CUDA graph arm's (a whole-step graph, the C++ counterpart of "
                   "torch.compile(mode=\"reduce-overhead\"))";
    f.fix = "Capture the step: torch.compile(model, mode=\"reduce-overhead\") replays it as CUDA "
            "graphs. Keep the "
            "shapes static (drop_last=True, fixed sequence lengths) so one graph serves every "
            "step; or capture by "
            "hand with torch.cuda.graph.";
    f.snippet =
        "model = torch.compile(model, mode=\"reduce-overhead\")  # CUDA graphs under the hood\n"
        "loader = torch.utils.data.DataLoader(dataset, batch_size=batch_size, drop_last=True)  # "
        "static shapes\n";
    out.push_back(std::move(f));
}

}  // namespace

void labBaseline(const DiagnosisInput& in, std::vector<Finding>& out)
{
    // The seeds' rules on the three-run baseline; they need a live run (the engine).
    if (!in.lab)
        return;
    const size_t first = out.size();
    precision(*in.lab, out);
    graphs(*in.lab, out);
    // A jump between runs that did not have the machine alike may be the machine's: said,
    // and never above LOW.
    if (!in.lab->sharedRuns.empty())
        for (size_t i = first; i < out.size(); ++i) {
            out[i].severity = Severity::Low;
            out[i].explanation += kSharedClause;
        }
}

void labMachineShared(const DiagnosisInput& in, std::vector<Finding>& out)
{
    // Other processes took the CPU during some of the lab's runs: every comparison between
    // runs is then in doubt, which is said before the comparisons themselves.
    if (!in.lab || in.lab->sharedRuns.empty())
        return;
    const LabMeasurements& lab = *in.lab;
    double most = 0;
    std::string runs;
    for (const LabMeasurements::SharedRun& shared : lab.sharedRuns) {
        most = std::max(most, shared.otherCores);
        runs += (runs.empty() ? "" : ", ") + shared.run + " " + format::number(shared.otherCores);
    }
    const bool one = lab.sharedRuns.size() == 1;
    Finding f;
    f.id = "machine-shared";
    f.severity = Severity::High;
    f.aboutWindow = true;
    f.title = "Other processes used the CPU during " +
              (one ? "the " + lab.sharedRuns.front().run + " run" : std::string("the lab's runs")) +
              ": its comparisons are not reliable";
    f.explanation =
        "While the lab ran, other processes on this machine took CPU time (cores in use by them "
        "on average: " +
        runs + (lab.machineCores > 0 ? ", of " + std::to_string(lab.machineCores) : std::string()) +
        "). The lab's readings compare runs; when the machine is shared unevenly between them, a "
        "jump or a slowdown can be the other processes' doing, not the model's (torch's "
        "intra-op threads use every core: one busy core holds back each parallel op).";
    f.evidence.figures = {{"other_processes_cores_most", most, Unit::Count},
                          {"runs_shared", double(lab.sharedRuns.size()), Unit::Count}};
    f.gainMethod = "not a per-step cost: it says how far the comparisons between runs hold";
    f.fix = "Run the lab again on an idle machine (other jobs stopped or paused; on a shared "
            "server, cores of its own), or compare only runs made under the same load.";
    out.push_back(std::move(f));
}

void labOutsidePhases(const DiagnosisInput& in, std::vector<Finding>& out)
{
    // The script's measured steps hold, besides their five phases, what its loop does between
    // them (helper 47: validation and an EMA model every 10 steps held 64 % of the measured
    // time, and nothing said so; the trace's window of 3 steps held none of it).
    if (!in.lab || !in.lab->outsidePhases)
        return;
    const LabMeasurements::OutsidePhases& o = *in.lab->outsidePhases;
    constexpr double kShare = 0.10;  // of the measured steps' wall time
    if (!(o.share >= kShare))
        return;
    Finding f;
    f.id = "time-outside-phases";
    f.measured = true;
    f.severity = o.share >= 0.5    ? Severity::High
                 : o.share >= 0.25 ? Severity::Medium
                                   : Severity::Low;
    f.aboutWindow = true;
    const bool oneOff = o.every == 0 && o.firstBurst >= 0;
    std::string bursts = format::duration(o.perStepNs) + " a step on average";
    std::string how = ": work the loop does every step besides training (logging, .item() and "
                      "printing, metrics, an EMA update)";
    if (o.every > 0) {
        bursts = format::duration(o.burstNs) + " every " +
                 format::counted(uint64_t(o.every), "step", "steps") + " (steps " +
                 std::to_string(o.firstBurst) + ", " + std::to_string(o.firstBurst + o.every) +
                 ", ...)";
        how = ", in bursts at one interval: work the loop does every " + std::to_string(o.every) +
              " steps (validation, a checkpoint, an EMA model, logging)";
    } else if (oneOff) {
        bursts = format::duration(o.burstNs) + " of it in step " + std::to_string(o.firstBurst);
        how = ", most of it in one step: a one-off the loop did once (a checkpoint, an "
              "evaluation, a first save)";
    }
    f.title = format::percent(o.share) +
              " of the measured steps' time is outside their training phases: " + bursts +
              " (measured)";
    f.explanation =
        "Each measured step's wall time runs from one step's boundary to the next: it holds "
        "the wait for data, the copy to the device, the forward, the backward and the "
        "optimizer's step, and whatever the script's loop does between them. Over " +
        format::counted(uint64_t(o.steps), "measured step", "measured steps") + ", " +
        format::percent(o.share) + " of that time was none of the five phases" + how +
        ". The samples per second include it; the per-phase figures and the trace's window "
        "do not.";
    f.evidence.figures = {{"outside_phases_share", o.share, Unit::Fraction},
                          {"outside_phases_per_step_us", o.perStepNs / 1e3, Unit::Microseconds},
                          {"measured_steps", double(o.steps), Unit::Count}};
    if (o.every > 0)
        f.evidence.figures.push_back({"burst_every_steps", double(o.every), Unit::Count});
    if (o.firstBurst >= 0)
        f.evidence.figures.push_back({"burst_us", o.burstNs / 1e3, Unit::Microseconds});
    f.gainMethod = "not a per-step cost of training: it says where the run's time went";
    f.fix = o.every > 0 || oneOff
                ? "If it is evaluation or a checkpoint, run it less often, on fewer batches, or "
                  "in another process; profile it apart to make it cheaper."
                : "Move the per-step extra work out of the loop, or do it every N steps (a "
                  ".item() or a print each step also waits for the device).";
    out.push_back(std::move(f));
}

void labInterrupted(const DiagnosisInput& in, std::vector<Finding>& out)
{
    // A run that stopped before it finished (cancelled, its engine killed) holds what it
    // measured until then: said before anything else, so that it never reads as a whole run
    // (or, cut short in its first arm, as an empty one).
    if (!in.lab || in.lab->interrupted.empty())
        return;
    const LabMeasurements& lab = *in.lab;
    Finding f;
    f.id = "run-interrupted";
    f.severity = Severity::High;
    f.aboutWindow = true;
    f.title = "The run did not finish: " + lab.interrupted;
    if (lab.exitStatus) {
        // Its own sys.exit (helper 47: a script that ran all its steps and returned 3 read
        // "The run did not finish"): said as the script's end, which may or may not be early.
        f.severity = Severity::Medium;
        f.title = "The script ended itself: " + lab.interrupted + ", by its own sys.exit";
        f.explanation =
            "No exception and no signal ended it: the script chose its status. It may have run "
            "every step it meant to (a status that reports a result), or stopped early by a "
            "check of its own (a NaN loss, a signal handler that saves and exits); its output "
            "says which. The session holds " +
            format::counted(uint64_t(lab.keptSteps), "measured step", "measured steps") +
            ", and the findings below rest on that much.";
        f.evidence.figures = {{"measured_steps_kept", double(lab.keptSteps), Unit::Count},
                              {"exit_status", double(*lab.exitStatus), Unit::Count}};
        f.gainMethod = "not a per-step cost: it says how much of the run the session holds";
        f.fix = "If it stopped early, its own output says why; for a whole run's figures, run "
                "it to its end (kinetoscope profile --steps N bounds it).";
        out.push_back(std::move(f));
        return;
    }
    const std::string steps =
        format::counted(uint64_t(lab.keptSteps), "measured step", "measured steps");
    f.explanation =
        lab.keptSteps == 0 && lab.armsFinished == 0
            ? "Nothing was measured before it stopped: the session holds the run's configuration "
              "alone."
        : lab.script
            ? "What the session holds was measured before the script stopped: " + steps +
                  ". The findings below rest on that much."
            : "What the session holds was measured before it stopped: " + steps + ", " +
                  (lab.armsFinished == 0
                       ? std::string("no arm finished")
                       : format::counted(uint64_t(lab.armsFinished), "arm") + " finished") +
                  ". The findings below rest on that much; the arms and sweeps it did not reach "
                  "were never run.";
    f.evidence.figures = {{"measured_steps_kept", double(lab.keptSteps), Unit::Count},
                          {"arms_finished", double(lab.armsFinished), Unit::Count}};
    f.gainMethod = "not a per-step cost: it says how much of the run the session holds";
    f.fix = lab.script
                ? "Run the script again to its end (kinetoscope profile --steps N bounds it) "
                  "for a whole run's figures; its own traceback, on its standard error, "
                  "says why it stopped."
                : "Run the lab again and let it finish for the arms and sweeps this one did "
                  "not reach; an engine that died says why in OUT/engine.log.";
    out.push_back(std::move(f));
}

void labMemory(const DiagnosisInput& in, std::vector<Finding>& out)
{
    // The seeds' memory triage: what sets the peak, whether it grows step over step,
    // whether the caching allocator holds much more than the step used. Memory findings:
    // no time gain.
    if (!in.lab)
        return;
    const LabMeasurements& lab = *in.lab;
    // Plain values (0: not measured) rather than optionals: fewer paths to check.
    const double peakBytes = lab.peak ? positive(lab.peak->bytes).value_or(0.0) : 0.0;
    const double activations = positive(lab.activationBytes).value_or(0.0);

    const bool activationsSetIt =
        lab.peak && peakBytes > 0 &&
        (lab.peak->cause == LabPeakCause::Activations || activations > 0.5 * peakBytes);
    // On the CPU the peak is read as well, but a step's few MiB there limit nothing unless
    // the run met a memory limit: only then is it worth a finding.
    const bool peakMatters = !lab.cpu || lab.firstBatchOutOfMemory;
    if (activationsSetIt && !lab.inference && peakMatters) {
        const double fp32Peak = positive(lab.fp32PeakBytes).value_or(0.0);
        const double bf16Peak = positive(lab.bf16PeakBytes).value_or(0.0);
        const bool compared = fp32Peak > 0 && bf16Peak > 0;
        const double saving = compared ? std::max(0.0, fp32Peak - bf16Peak) : 0.0;
        Finding f;
        f.id = "activation-peak";
        f.measured = true;
        // Memory limits a run only near what it may use: a peak far below the device's
        // memory (and any limit), with no batch size out of memory, fits a larger batch
        // already and outranks no time finding.
        const double available = positive(lab.memoryAvailableBytes).value_or(0.0);
        const bool roomy = available > 0 && peakBytes < kActivationPeakTightShare * available &&
                           !lab.firstBatchOutOfMemory;
        f.severity = roomy ? Severity::Low : Severity::Medium;
        f.title = "Activations set the step's memory peak: " + format::bytes(peakBytes) +
                  " after " + lab.peak->phase + (lab.peak->firstStep ? " of the first step" : "") +
                  " (measured)";
        f.explanation =
            "The lab read the allocator after every phase of a step: the peak (" +
            format::bytes(peakBytes) + ") is reached after " + lab.peak->phase +
            ", while the activations the forward pass keeps for "
            "backward are alive" +
            (activations > 0 ? " (" + format::bytes(activations) + ", " +
                                   format::percent(share(activations, peakBytes)) + " of the peak)"
                             : std::string()) +
            ". Memory, not time: a lower peak fits a larger batch or a larger model.";
        if (lab.largestBatchFits)
            f.explanation +=
                " The batch-size sweep fits at most " + std::to_string(*lab.largestBatchFits) +
                (lab.firstBatchOutOfMemory
                     ? " (" + std::to_string(*lab.firstBatchOutOfMemory) + " ran out of memory)."
                     : std::string("."));
        f.evidence.figures = {{"peak_bytes", peakBytes, Unit::Bytes}};
        if (available > 0)
            f.evidence.figures.push_back(
                {"peak_share_of_available_memory", share(peakBytes, available), Unit::Fraction});
        if (activations > 0) {
            f.evidence.figures.push_back({"activation_bytes", activations, Unit::Bytes});
            f.evidence.figures.push_back(
                {"activation_share_of_peak", share(activations, peakBytes), Unit::Fraction});
        }
        if (compared) {
            f.evidence.figures.push_back({"fp32_peak_bytes", fp32Peak, Unit::Bytes});
            f.evidence.figures.push_back({"bf16_peak_bytes", bf16Peak, Unit::Bytes});
            f.evidence.figures.push_back({"bf16_saving_bytes", saving, Unit::Bytes});
        }
        if (lab.largestBatchFits)
            f.evidence.figures.push_back(
                {"largest_batch_that_fits", double(*lab.largestBatchFits), Unit::Count});
        f.gainMethod =
            "measured in the lab: memory, not time (the allocator read after each phase of a step)";
        const std::optional<LabMeasurements::Checkpointing>& ckpt = lab.checkpointing;
        const bool checkpointMeasured =
            ckpt && ckpt->peakWithoutBytes > 0 && ckpt->peakWithBytes >= 0;
        if (checkpointMeasured) {
            f.evidence.figures.push_back(
                {"checkpoint_peak_without_bytes", ckpt->peakWithoutBytes, Unit::Bytes});
            f.evidence.figures.push_back(
                {"checkpoint_peak_with_bytes", ckpt->peakWithBytes, Unit::Bytes});
            f.evidence.figures.push_back(
                {"checkpoint_step_without_us", ckpt->stepWithoutNs / 1e3, Unit::Microseconds});
            f.evidence.figures.push_back(
                {"checkpoint_step_with_us", ckpt->stepWithNs / 1e3, Unit::Microseconds});
        }
        const std::string checkpointSaving =
            checkpointMeasured
                ? " The lab measured it at batch size " + std::to_string(ckpt->batchSize) + ": " +
                      ckpt->name + " took the peak from " + format::bytes(ckpt->peakWithoutBytes) +
                      " to " + format::bytes(ckpt->peakWithBytes) + " and the step from " +
                      format::duration(ckpt->stepWithoutNs) + " to " +
                      format::duration(ckpt->stepWithNs) +
                      (ckpt->largestBatchFits && lab.largestBatchFits &&
                               *ckpt->largestBatchFits != *lab.largestBatchFits
                           ? "; the largest batch that fits went from " +
                                 std::to_string(*lab.largestBatchFits) + " to " +
                                 std::to_string(*ckpt->largestBatchFits) + "."
                           : std::string("."))
                : std::string();
        // A peak measured on arms that already checkpoint asks for more of it, not for it.
        const std::string checkpointAdvice =
            lab.armsCheckpointing.empty()
                ? std::string("Checkpoint activations: wrap every N-th block in "
                              "torch.utils.checkpoint, so its "
                              "activations are recomputed in backward instead of kept (about one "
                              "more forward of "
                              "those blocks for most of their activation memory).")
                : "The run's arms already used " + lab.armsCheckpointing +
                      ": checkpoint more of the blocks (a smaller N) to lower the peak further, at "
                      "about one more "
                      "forward of each.";
        f.fix = checkpointAdvice + checkpointSaving +
                " Or train in bf16 autocast, which keeps 16-bit activations: " +
                (compared ? "the lab measured its peak " + format::bytes(saving) + " lower (" +
                                format::bytes(fp32Peak) + " in fp32, " + format::bytes(bf16Peak) +
                                " in bf16)."
                          : std::string("the lab did not measure a bf16 peak to compare."));
        f.snippet =
            "from torch.utils.checkpoint import checkpoint\n"
            "\n"
            "def forward(self, x):\n"
            "    for i, block in enumerate(self.blocks):\n"
            "        # every 2nd block recomputes its activations in backward\n"
            "        x = checkpoint(block, x, use_reentrant=False) if i % 2 == 1 else block(x)\n"
            "    return x\n";
        out.push_back(std::move(f));
    }

    if (lab.growth && std::isfinite(lab.growth->bytesPerStep) && lab.growth->bytesPerStep > 0) {
        const std::string step = "ProfilerStep#" + std::to_string(lab.growth->fromStep);
        Finding f;
        f.id = "memory-growth-measured";
        f.measured = true;
        f.severity = Severity::High;
        f.title = "The step's peak memory grows " + format::bytes(lab.growth->bytesPerStep) +
                  " per step from step " + std::to_string(lab.growth->fromStep) + " (measured)";
        f.explanation = "The lab recorded the peak allocated of every step: from step " +
                        std::to_string(lab.growth->fromStep) + " on it grows at every step, " +
                        format::bytes(lab.growth->bytesPerStep) +
                        " per step. Something keeps each step's graph alive: usually a loss "
                        "accumulated without "
                        ".item() (total += loss keeps every step's autograd graph), or outputs "
                        "appended to a list. "
                        "The run will run out of memory.";
        f.evidence.figures = {{"growth_bytes_per_step", lab.growth->bytesPerStep, Unit::Bytes},
                              {"from_step", double(lab.growth->fromStep), Unit::Count}};
        if (peakBytes > 0)
            f.evidence.figures.push_back({"peak_bytes", peakBytes, Unit::Bytes});
        f.evidence.steps = {step};
        f.gainMethod = "measured in the lab: memory, not time (the peak allocated of each step)";
        f.fix = "Keep nothing of a step past its end: accumulate losses and metrics as Python "
                "numbers (loss.item()) "
                "or detached tensors, and drop references to outputs.";
        f.snippet = "total = 0.0\n"
                    "for inputs, targets in loader:\n"
                    "    loss = loss_fn(model(inputs), targets)\n"
                    "    loss.backward()\n"
                    "    optimizer.step()\n"
                    "    optimizer.zero_grad(set_to_none=True)\n"
                    "    total += loss.item()  # not `total += loss`: that keeps every step's "
                    "graph alive\n";
        out.push_back(std::move(f));
    }

    if (lab.reservedOverPeak && std::isfinite(*lab.reservedOverPeak) &&
        *lab.reservedOverPeak > kLabReservedOverPeak) {
        Finding f;
        f.id = "allocator-holds-freed";
        f.measured = true;
        f.severity = Severity::Low;
        f.title = "The caching allocator holds " + format::ratio(*lab.reservedOverPeak) +
                  " the step's peak (measured)";
        f.explanation = "After the steady step, PyTorch's caching allocator keeps " +
                        format::ratio(*lab.reservedOverPeak) +
                        " the memory the step ever had allocated at once: blocks freed by a phase "
                        "of a different "
                        "footprint stay reserved for reuse. Other processes on the GPU cannot use "
                        "them; the run "
                        "itself is not slowed.";
        f.evidence.figures = {{"reserved_over_peak", *lab.reservedOverPeak, Unit::Ratio}};
        if (peakBytes > 0)
            f.evidence.figures.push_back({"peak_bytes", peakBytes, Unit::Bytes});
        f.gainMethod = "measured in the lab: memory, not time (reserved after the steady step over "
                       "its peak allocated)";
        f.fix = "Call torch.cuda.empty_cache() between phases of different footprint (after "
                "evaluation, after a large "
                "first step), never inside the training loop: it synchronizes, and the next "
                "allocations go back to "
                "cudaMalloc.";
        f.snippet = "evaluate(model, val_loader)\n"
                    "torch.cuda.empty_cache()  # between phases, never inside the training loop\n"
                    "train_one_epoch(model, loader, optimizer)\n";
        out.push_back(std::move(f));
    }
}

}  // namespace kinetoscope::analysis::rules
