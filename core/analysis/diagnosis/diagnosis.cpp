#include "core/analysis/diagnosis/diagnosis.h"

#include "core/analysis/diagnosis/rules.h"

#include <algorithm>

namespace kinetoscope::analysis {

const char* severityName(Severity severity)
{
    switch (severity) {
    case Severity::Low: return "low";
    case Severity::Medium: return "medium";
    case Severity::High: return "high";
    }
    return "low";
}

bool parseSeverity(std::string_view text, Severity& severity)
{
    for (Severity s : {Severity::Low, Severity::Medium, Severity::High}) {
        if (text == severityName(s)) {
            severity = s;
            return true;
        }
    }
    return false;
}

const std::vector<RuleInfo>& ruleCatalogue()
{
    static const std::vector<RuleInfo> catalogue = {
        {"capture-window", rules::captureWindow},
        {"no-device-activity / not-a-timing-trace", rules::missingDeviceActivity},
        {"window-too-short", rules::windowTooShort},
        {"warmup-in-window", rules::warmUpInWindow},
        {"window-starts-mid-work", rules::startsInsideEarlierWork},
        {"trace-quality", rules::traceQuality},
        {"dataloader-bound", rules::dataloaderBound},
        {"python-bound", rules::pythonBound},
        {"low-gpu-utilization", rules::lowGpuUtilization},
        {"launch-bound", rules::launchBound},
        {"no-tensor-cores", rules::noTensorCores},
        {"tensor-core-misaligned", rules::tensorCoreMisaligned},
        {"host-sync", rules::hostSync},
        {"pageable-memcpy", rules::pageableMemcpy},
        {"copy-heavy", rules::copyHeavy},
        {"memory-growth", rules::memoryGrowth},
        {"allocator-fragmentation", rules::allocatorFragmentation},
        {"near-oom", rules::nearOom},
        {"communication-heavy", rules::communicationHeavy},
        {"dataparallel", rules::dataParallel},
        {"optimizer-unfused", rules::optimizerUnfused},
        {"unstable-steps", rules::unstableSteps},
        {"not-precision-bound / already-fused", rules::labBaseline},
    };
    return catalogue;
}

std::vector<Finding> diagnose(const DiagnosisInput& input)
{
    std::vector<Finding> findings;
    for (const RuleInfo& rule : ruleCatalogue())
        rule.rule(input, findings);
    // No two findings claim the same time. The causal gains (the model's replay) already
    // sum to at most the step; a gain estimated outside the model is capped at the time
    // they left unclaimed.
    auto outsideModel = [](const Finding& f) {
        return f.id == "unstable-steps" || f.id == "tensor-core-misaligned" || f.id == "dataparallel";
    };
    double unclaimed = input.summary.breakdown.all.averageTotalNs;
    for (const Finding& f : findings)
        if (!outsideModel(f))
            unclaimed -= std::max(0.0, f.estimatedGainNs);
    for (Finding& f : findings) {
        if (!outsideModel(f))
            continue;
        f.estimatedGainNs = std::clamp(f.estimatedGainNs, 0.0, std::max(0.0, unclaimed));
        unclaimed -= f.estimatedGainNs;
    }
    // A window finding that changes how everything else reads (a capture, missing
    // activity, a window of warm-up) comes first. Then the findings by the time per step a
    // fix would save; findings that save no time (memory risks, information, a minor
    // window note) follow in order of severity.
    auto leads = [](const Finding& f) { return f.aboutWindow && f.severity == Severity::High; };
    std::stable_sort(findings.begin(), findings.end(), [&](const Finding& a, const Finding& b) {
        if (leads(a) != leads(b))
            return leads(a);
        if (a.estimatedGainNs != b.estimatedGainNs)
            return a.estimatedGainNs > b.estimatedGainNs;
        return a.severity > b.severity;
    });
    return findings;
}

}  // namespace kinetoscope::analysis
