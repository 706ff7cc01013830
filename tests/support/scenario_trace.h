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

enum class Pathology
{
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
    WarmUp,  // the healthy loop; ProfilerStep#0 also loads modules, grows the pool, inits cuBLAS
    WarmUpNoMarkers,    // the same without ProfilerStep#: iterations from the DataLoader; with a
                        // backward
    CaptureWindow,      // a CUDA graph capture: ~200 launches, no kernel runs
    Inference,          // forward only, launch-bound, 300 kernels of 4 us per step
    GpuBoundFinalSync,  // GPU-bound; cudaDeviceSynchronize at the end of each step waits for the
                        // drain
    BlockingD2HCopy,    // a blocking 4-byte DtoH copy waits for the forward, then 3 ms of CPU work
    PythonPreprocessing,  // 5 ms of Python preprocessing per step with the GPU idle
};

std::vector<Pathology>
allPathologies();  // the 15 rule cases: every one from DataLoader to UnstableSteps
std::vector<Pathology> windowAndCausalCases();  // WarmUp .. PythonPreprocessing
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

// Pairs for the comparison (kinetoscope diff): one loop written twice, the second time with
// one known change. The loop, per step: DataLoader 100 us, the input copy, 40 x
// aten::linear (host 180 us, a 200 us GEMM), aten::softmax (host 30 us, a 300 us kernel),
// the fused optimizer, the host tail: host-bound, about 10 ms.
enum class PlantedChange
{
    SlowerKernel,    // softmax_warp_forward 300 -> 1,300 us
    NewSync,         // a cudaDeviceSynchronize after the forward, waiting for the GPU
    MoreDataLoader,  // the DataLoader span 100 -> 3,100 us
    FewerLaunches,   // each aten::linear launched 3 kernels (GEMM, bias, GELU), now 1
};
std::vector<PlantedChange> allPlantedChanges();
const char* plantedChangeName(PlantedChange change);

struct PlantedPair
{
    std::string before, after;  // the two traces
    std::string causeKind;      // the kind of cause the diff must name first (its JSON key)
    std::string causeName;      // its name where the kind has one (the kernel)
    // What was planted, per step: the cause's time change (us), or for FewerLaunches the
    // change in launches per step (its time depends on the launch calls' mean).
    double plantedUs = 0.0;
    double plantedLaunches = 0.0;
};
PlantedPair plantedPair(PlantedChange change);

// A job of `ranks` traces (distributedInfo names each rank) whose steps end in an
// all-reduce of 16 MiB (a 500 us transfer once the last rank arrives), where rank
// `slowRank` spends `delayUs` more in data loading per step: the others wait that long in
// the collective. The last rank's clock runs 2 s ahead of the others' (hosts disagree).
// scenario_trace.cpp has the loop.
std::vector<std::string> plantedJob(int ranks, int slowRank, int64_t delayUs);

}  // namespace kinetoscope::test
