#pragma once
// Synthetic Kineto traces of a small training loop (8 steps of ~10 ms on an A100): a
// healthy one, and one per diagnosis rule with that single pathology planted. The
// validation corpus of the diagnosis (tests/analysis/test_diagnosis.cpp).
#include <string>
#include <vector>

namespace kinetoscope::test {

enum class Pathology {
    None,
    DataLoader,
    LowUtilization,
    LaunchBound,
    NoTensorCores,
    Misaligned,
    HostSync,
    PageableMemcpy,
    CopyHeavy,
    MemoryGrowth,
    Fragmentation,
    NearOom,
    Communication,
    DataParallel,
    OptimizerUnfused,
    UnstableSteps,
};

std::vector<Pathology> allPathologies();  // every one but None
const char* pathologyName(Pathology p);    // the rule id it should trigger ("healthy" for None)
std::string scenarioTrace(Pathology p);

}  // namespace kinetoscope::test
