#pragma once
// Synthetic Kineto traces of a small training loop (8 steps of ~10 ms on an A100): a
// healthy one, and one per diagnosis rule with that single pathology planted. The
// validation corpus of the diagnosis (tests/analysis/test_diagnosis.cpp).
//
// Beyond the rule cases: windows that are not a steady training loop (warm-up, a CUDA
// graph capture) and cases whose planted cost is a causal gain the diagnosis must
// estimate: how much shorter the step would be if the cause were removed and everything
// else stayed as it is (device work keeps its durations and stream order, the host's
// other work, untraced gaps included, keeps its durations, a blocking call that no
// longer blocks returns at once). plantedGainUs() gives that number per case; the
// arithmetic is beside each case in scenario_trace.cpp.
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
    // Windows and causal cases (windowAndCausalCases()).
    WarmUp,               // the healthy loop; ProfilerStep#0 also loads modules, grows the pool, inits cuBLAS
    WarmUpNoMarkers,      // the same without ProfilerStep#: iterations from the DataLoader; with a backward
    CaptureWindow,        // a CUDA graph capture: ~200 launches, no kernel runs
    Inference,            // forward only, launch-bound, 300 kernels of 4 us per step
    GpuBoundFinalSync,    // GPU-bound; cudaDeviceSynchronize at the end of each step waits for the drain
    BlockingD2HCopy,      // a blocking 4-byte DtoH copy waits for the forward, then 3 ms of CPU work
    PythonPreprocessing,  // 5 ms of Python preprocessing per step with the GPU idle
};

std::vector<Pathology> allPathologies();         // the 15 rule cases: every one from DataLoader to UnstableSteps
std::vector<Pathology> windowAndCausalCases();   // WarmUp .. PythonPreprocessing
// The finding id expected first ("healthy" for None; "gpu-bound" for GpuBoundFinalSync,
// where no finding should be High).
const char* pathologyName(Pathology p);
std::string scenarioTrace(Pathology p);
// The per-step causal gain planted (us), for the cases with a time cost (DataLoader,
// LaunchBound, HostSync, PageableMemcpy, CopyHeavy, OptimizerUnfused, Inference,
// BlockingD2HCopy, PythonPreprocessing); 0 for GpuBoundFinalSync (nothing to gain: the GPU
// is the limiter); -1 for the cases whose pathology is not a time cost (memory, windows)
// or whose amount is not planted as one.
double plantedGainUs(Pathology p);

}  // namespace kinetoscope::test
