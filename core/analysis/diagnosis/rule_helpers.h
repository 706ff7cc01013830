#pragma once
// Small shared helpers for the rules: averages, shares, names of the worst steps.
#include "core/analysis/diagnosis/diagnosis.h"
#include "core/format/format.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kinetoscope::analysis::rules {

inline double stepMeanNs(const DiagnosisInput& in)
{
    return in.summary.breakdown.all.averageTotalNs;
}

inline double share(double part, double whole)
{
    return whole > 0 ? part / whole : 0.0;
}

// Does `t` fall inside one of the judged (steady) steps? Steps are sorted and disjoint.
inline bool inSteps(const DiagnosisInput& in, int64_t t)
{
    const std::vector<Step>& steps = in.summary.steps.steps;
    const auto it = std::upper_bound(steps.begin(), steps.end(), t,
                                     [](int64_t time, const Step& s) { return time < s.beginNs; });
    return it != steps.begin() && t < std::prev(it)->endNs;
}

inline const CausalModel& causal(const DiagnosisInput& in)
{
    return in.summary.causal;
}

// Can the per-step rules judge this window (not a capture, not empty, activity recorded)?
inline bool judgeable(const DiagnosisInput& in)
{
    return in.summary.window.diagnosable() && !in.summary.steps.steps.empty();
}

// Can the rules about what the host did judge this window (CPU ops were recorded)?
inline bool hostJudgeable(const DiagnosisInput& in)
{
    return judgeable(in) && in.summary.window.hostOpsRecorded;
}

// Can the host-only rules judge this window: nothing recorded on the device (a CPU run, or
// a GPU run profiled without its device), but the window is a window?
inline bool hostOnlyJudgeable(const DiagnosisInput& in)
{
    const WindowClass& w = in.summary.window;
    return (w.cpuOnly || w.deviceActivityMissing) && !w.partlyRead() && !w.nearlyEmpty &&
           !w.sampled && !w.warmUpDominated && w.hostOpsRecorded && in.summary.host.steps > 0 &&
           in.summary.host.stepNs > 0;
}

inline bool isInference(const DiagnosisInput& in)
{
    return in.summary.window.kind == RunKind::Inference;
}

// The optimizer the trace ran, from torch's "Optimizer.step#SGD.step" spans: "SGD"; empty
// when the trace has none.
inline std::string optimizerClass(const trace::TraceModel& model)
{
    constexpr std::string_view prefix = "Optimizer.step#";
    for (const trace::Event& e : model.events()) {
        const std::string_view name = model.text(e.name);
        if (!name.starts_with(prefix))
            continue;
        const std::string_view rest = name.substr(prefix.size());
        return std::string(rest.substr(0, rest.find('.')));
    }
    return {};
}

// The run's own optimizer, fused: torch's fused implementations cover Adam, AdamW, SGD and
// Adagrad; the others have foreach. A trace that names none gets the common case.
inline std::string fusedOptimizerSnippet(const trace::TraceModel& model)
{
    const std::string name = optimizerClass(model);
    if (name.empty())
        return "optimizer = torch.optim.AdamW(model.parameters(), lr=lr, fused=True)  # your "
               "optimizer, fused=True\n"
               "# or foreach=True where fused is not available\n";
    const bool fused = name == "Adam" || name == "AdamW" || name == "SGD" || name == "Adagrad";
    const bool foreach = name == "RMSprop" || name == "Adadelta" || name == "Adamax" ||
                         name == "NAdam" || name == "RAdam" || name == "ASGD" || name == "Rprop";
    if (!fused && !foreach)  // not torch.optim's (apex's FusedAdam, Shampoo, a wrapper)
        return "# this run's optimizer is " + name +
               ", not one of torch.optim's: use its fused or multi-tensor\n"
               "# implementation where it has one (torch.optim's Adam, AdamW, SGD and Adagrad take "
               "fused=True)\n";
    return "optimizer = torch.optim." + name + "(model.parameters(), lr=lr, " +
           (fused ? "fused=True" : "foreach=True") + ")  # as this run's " + name + "\n";
}

// The caching allocator growing its segments instead of caching blocks of many sizes:
// the fix of memory held in free pieces, from a trace's counters or a memory snapshot.
inline constexpr const char* kExpandableSegmentsSnippet =
    "# before the first CUDA call (or in the environment):\n"
    "import os\n"
    "os.environ[\"PYTORCH_CUDA_ALLOC_CONF\"] = \"expandable_segments:True\"\n";

// Activation checkpointing of each block: the fix of activations that dominate the peak,
// from a trace's memory counters or a memory snapshot.
inline constexpr const char* kCheckpointSnippet =
    "from torch.utils.checkpoint import checkpoint\n"
    "def forward(self, x):\n"
    "    for block in self.blocks:\n"
    "        x = checkpoint(block, x, use_reentrant=False)\n"
    "    return x\n";

// A lab's measured figure that is finite and > 0, or nothing (every figure of a session
// comes from a file the fuzzer feeds at random).
inline std::optional<double> positive(const std::optional<double>& value)
{
    if (value && std::isfinite(*value) && *value > 0)
        return value;
    return std::nullopt;
}

// The lab's DataLoader-versus-compute split (ns per step): a wait > 0 and a compute >= 0,
// both finite, or nothing.
struct MeasuredSplit
{
    double waitNs, computeNs;
};
inline std::optional<MeasuredSplit> measuredSplit(const LabMeasurements& lab)
{
    const std::optional<double> wait = positive(lab.dataLoaderNs);
    if (!wait || !lab.computeNs || !std::isfinite(*lab.computeNs) || *lab.computeNs < 0)
        return std::nullopt;
    return MeasuredSplit{*wait, *lab.computeNs};
}

// The clause a comparison between lab runs carries when one of them shared the machine.
inline constexpr const char* kSharedClause =
    " Measured while other processes used the CPU (machine-shared): the comparison is not "
    "reliable until the lab runs on an idle machine.";

// A DataLoader that keeps ahead of the model, the snippet of a loader-bound finding, for
// where the run was measured (rules_lab_loader.cpp): on a GPU, pinned batches; on the CPU
// (`cpu`), workers on cores of their own and no pinning (page-locked memory speeds copies
// to a device only); a loop of Hugging Face's Trainer (`lab`'s loaderLoop), the
// TrainingArguments that build its loaders. `lab` is null for a trace alone. `workers`:
// the count a workers sweep measured fastest, else 0 (2 on a CPU, 8 on a device).
std::string dataLoaderSnippet(const LabMeasurements* lab, bool cpu, int workers = 0);
// What a loader-bound finding's fix adds for the run's loop: where a Trainer builds the
// loader, the arguments to set; for a script measured without a workers sweep, how to
// measure the count. Empty for a trace alone.
std::string dataLoaderFixNote(const LabMeasurements* lab);

// The keys of `byName` with the largest values, largest first (ties by name, last first),
// at most `count` of them.
template <typename Value>
std::vector<std::string> largestFirst(const std::map<std::string, Value>& byName, size_t count)
{
    std::vector<std::pair<Value, std::string>> order;
    order.reserve(byName.size());
    for (const auto& [name, value] : byName)
        order.emplace_back(value, name);
    std::sort(order.rbegin(), order.rend());
    std::vector<std::string> names;
    for (size_t i = 0; i < std::min(count, order.size()); ++i)
        names.push_back(order[i].second);
    return names;
}

// The names of the `count` steps with the largest `value(i)`, largest first.
template <typename Value>
std::vector<std::string> worstSteps(const DiagnosisInput& in, Value value, size_t count = 3)
{
    std::vector<size_t> order(in.summary.steps.steps.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return value(a) > value(b); });
    std::vector<std::string> names;
    for (size_t i = 0; i < std::min(count, order.size()); ++i) {
        const std::string& name = in.summary.steps.steps[order[i]].name;
        names.push_back(name.empty() ? "window" : name);
    }
    return names;
}

}  // namespace kinetoscope::analysis::rules
