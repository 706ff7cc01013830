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
        {"dataloader-bound", rules::dataloaderBound},
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
    // Ranked by the time per step a fix would save; findings that save no time (memory
    // risks, information) follow in order of severity.
    std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
        if (a.estimatedGainNs != b.estimatedGainNs)
            return a.estimatedGainNs > b.estimatedGainNs;
        return a.severity > b.severity;
    });
    return findings;
}

}  // namespace kinetoscope::analysis
