#include "tests/support/scenario_trace.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>

namespace kinetoscope::test {

namespace {

constexpr int kSteps = 8;
constexpr int64_t kPid = 4242, kTid = 4242;
constexpr int64_t kStream = 7;
constexpr int64_t kGiB = 1024LL * 1024 * 1024;
// The healthy step's host time after its last op (untraced Python: 10,000 - 7,410 us).
// Every case of the training loop keeps it, so that a planted cost lengthens the step
// by what it costs and removing it gives back the healthy step.
constexpr int64_t kHostTail = 2590;
// A device activity starts at the earliest this long after the call that queued it.
constexpr int64_t kLaunchLatency = 5;
// A call that waited for device work returns this long after that work ended.
constexpr int64_t kReturnLatency = 3;

std::string ext(int64_t id)
{
    return "\"External id\": " + std::to_string(id);
}

class Writer
{
public:
    explicit Writer(Pathology p) : m_p(p) {}

    std::string finish()
    {
        const int devices = m_p == Pathology::DataParallel ? 2 : 1;
        std::string text = "{\"schemaVersion\": 1, \"deviceProperties\": [";
        for (int d = 0; d < devices; ++d)
            text += std::string(d ? ", " : "") + "{\"id\": " + std::to_string(d) +
                    ", \"name\": \"NVIDIA A100-SXM4-80GB\", \"totalGlobalMem\": " +
                    std::to_string(80 * kGiB) +
                    ", \"computeMajor\": 8, \"computeMinor\": 0, \"numSms\": 108}";
        text += "], ";
        if (m_rank >= 0)
            text +=
                "\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": " + std::to_string(m_rank) +
                ", \"world_size\": " + std::to_string(m_worldSize) + "}, ";
        else if (m_p == Pathology::Communication)
            text +=
                "\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 8}, ";
        text += "\"traceEvents\": [\n";
        for (size_t i = 0; i < m_events.size(); ++i)
            text += m_events[i] + (i + 1 < m_events.size() ? ",\n" : "\n");
        return text + "]}\n";
    }

    void cpu(const char* cat, const std::string& name, int64_t ts, int64_t dur,
             const std::string& args = "")
    {
        m_events.push_back("{\"ph\": \"X\", \"cat\": \"" + std::string(cat) + "\", \"name\": \"" +
                           name + "\", \"pid\": " + std::to_string(kPid) +
                           ", \"tid\": " + std::to_string(kTid) +
                           ", \"ts\": " + std::to_string(ts) + ", \"dur\": " + std::to_string(dur) +
                           (args.empty() ? "" : ", \"args\": {" + args + "}") + "}");
    }

    // A launch call at `ts` and the device activity it starts on `device`, queued behind
    // the work already there. Returns the activity's end.
    int64_t launch(const char* call, int64_t ts, int64_t callDur, const char* cat,
                   const std::string& name, int64_t dur, int64_t externalId, int device = 0,
                   const std::string& extra = "")
    {
        const int64_t correlation = runtime(call, ts, callDur, externalId);
        return activity(correlation, ts + callDur + kLaunchLatency, cat, name, dur, device, extra);
    }

    // A runtime call that starts no device activity (cudaMalloc, cudaFree, the capture
    // calls, a launch during a capture). No External id when `externalId` is 0 (a call
    // outside any op). Returns its correlation id.
    int64_t runtime(const char* call, int64_t ts, int64_t dur, int64_t externalId)
    {
        const int64_t correlation = m_correlation++;
        cpu("cuda_runtime", call, ts, dur,
            (externalId ? ext(externalId) + ", " : std::string()) +
                "\"correlation\": " + std::to_string(correlation));
        return correlation;
    }

    // A copy call that blocks the host until its copy has run (cudaMemcpyAsync to
    // pageable host memory): the copy is queued behind the device's work at `ts` and the
    // call returns kReturnLatency after the copy ends. Returns the call's end.
    int64_t blockingCopy(const char* call, int64_t ts, const std::string& name, int64_t dur,
                         int64_t externalId, const std::string& extra)
    {
        const int64_t start = std::max(m_gpuFree[0], ts + kLaunchLatency);
        const int64_t callEnd = start + dur + kReturnLatency;
        const int64_t correlation = runtime(call, ts, callEnd - ts, externalId);
        activity(correlation, start, "gpu_memcpy", name, dur, 0, extra);
        return callEnd;
    }

    // cudaStreamSynchronize / cudaDeviceSynchronize at `ts` (one stream, one device):
    // returns kReturnLatency after the queued work ends, or at once (3 us) when there is
    // none. Returns the call's end.
    int64_t synchronize(const char* call, int64_t ts, int64_t externalId)
    {
        const int64_t end = std::max(ts, m_gpuFree[0]) + kReturnLatency;
        runtime(call, ts, end - ts, externalId);
        return end;
    }

    void python(const std::string& name, int64_t ts, int64_t dur, int64_t id, int64_t parent)
    {
        cpu("python_function", name, ts, dur,
            "\"Python id\": " + std::to_string(id) +
                ", \"Python parent id\": " + std::to_string(parent) + ", \"Python thread\": 0");
    }

    void memory(int64_t ts, int64_t bytes, int64_t allocated, int64_t reserved, uint64_t address)
    {
        m_events.push_back(
            "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", "
            "\"pid\": " +
            std::to_string(kPid) + ", \"tid\": " + std::to_string(kTid) +
            ", \"ts\": " + std::to_string(ts) +
            ", \"args\": {\"Device Type\": 1, \"Device Id\": 0, "
            "\"Addr\": " +
            std::to_string(address) + ", \"Bytes\": " + std::to_string(bytes) +
            ", \"Total Allocated\": " + std::to_string(allocated) +
            ", \"Total Reserved\": " + std::to_string(reserved) + "}}");
    }

    void setRank(int rank, int worldSize)
    {
        m_rank = rank;
        m_worldSize = worldSize;
    }
    int64_t nextId() { return m_externalId++; }
    int64_t nextPythonId() { return m_pythonId++; }
    int64_t gpuFree(int device = 0) { return m_gpuFree[device]; }

private:
    // The device activity of `correlation`, starting at `earliest` or when the stream is
    // free (one stream per device: activities never overlap). Returns its end.
    int64_t activity(int64_t correlation, int64_t earliest, const char* cat,
                     const std::string& name, int64_t dur, int device, const std::string& extra)
    {
        int64_t& free = m_gpuFree[device];
        const int64_t start = std::max(free, earliest);
        m_events.push_back(
            "{\"ph\": \"X\", \"cat\": \"" + std::string(cat) + "\", \"name\": \"" + name +
            "\", \"pid\": " + std::to_string(device) + ", \"tid\": " + std::to_string(kStream) +
            ", \"ts\": " + std::to_string(start) + ", \"dur\": " + std::to_string(dur) +
            ", \"args\": {\"device\": " + std::to_string(device) + ", \"stream\": " +
            std::to_string(kStream) + ", \"correlation\": " + std::to_string(correlation) +
            (extra.empty() ? "" : ", " + extra) + "}}");
        free = start + dur;
        return free;
    }

    Pathology m_p;
    int m_rank = -1, m_worldSize = 0;
    std::vector<std::string> m_events;
    std::map<int, int64_t> m_gpuFree;
    int64_t m_correlation = 1;
    int64_t m_externalId = 1;
    int64_t m_pythonId = 1;
};

const char* kTensorCoreGemm = "sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x32_stage3_"
                              "warpsize2x2x1_tensor16x8x16_kernel";
const char* kTensorCoreGemmNt = "sm80_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize128x128x32_"
                                "stage3_warpsize2x2x1_tensor16x8x16_kernel";
const char* kFp32Gemm = "ampere_sgemm_128x64_tn";
const char* kDataLoader = "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__";
const char* kDims = "[[256, 1024], [1024, 1024], [1024]]";
constexpr int64_t kActivation = 100LL * 1000 * 1000;
constexpr uint64_t kActivationAddress = 0x7f0000000000ULL;

// The batch's host-to-device copy from pinned memory, as every loop does it: host 30 us
// (aten::copy_ 20 us, cudaMemcpyAsync 8 us), the copy 40 us. Returns the new cursor.
int64_t inputCopy(Writer& w, int64_t cursor)
{
    const int64_t id = w.nextId();
    w.cpu("cpu_op", "aten::copy_", cursor, 20, ext(id));
    w.launch("cudaMemcpyAsync", cursor + 5, 8, "gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", 40,
             id, 0, "\"bytes\": 25165824");
    return cursor + 30;
}

// One layer of a backward: autograd::engine::evaluate_function: AddmmBackward0 >
// AddmmBackward0 > aten::mm > cudaLaunchKernel, `hostUs` of host time, one GEMM kernel.
// Returns the new cursor.
int64_t backwardLayer(Writer& w, int64_t cursor, int64_t hostUs, int64_t kernelUs)
{
    const int64_t function = w.nextId(), node = w.nextId(), mm = w.nextId();
    w.cpu("cpu_op", "autograd::engine::evaluate_function: AddmmBackward0", cursor, hostUs - 5,
          ext(function));
    w.cpu("cpu_op", "AddmmBackward0", cursor + 1, hostUs - 7, ext(node));
    w.cpu("cpu_op", "aten::mm", cursor + 2, hostUs - 9,
          ext(mm) + ", \"Input Dims\": [[1024, 256], [256, 1024]]");
    w.launch("cudaLaunchKernel", cursor + 4, 5, "kernel", kTensorCoreGemmNt, kernelUs, mm, 0,
             "\"blocks per SM\": 2.0, \"est. achieved occupancy %\": 50");
    return cursor + hostUs;
}

// AdamW, fused: host 50 us, one kernel of 150 us. Returns the new cursor.
int64_t fusedOptimizer(Writer& w, int64_t cursor)
{
    const int64_t id = w.nextId();
    w.cpu("cpu_op", "aten::_fused_adamw_", cursor, 40, ext(id));
    w.launch("cudaLaunchKernel", cursor + 5, 8, "kernel", "fused_adamw_kernel", 150, id);
    w.cpu("user_annotation", "Optimizer.step#AdamW.step", cursor, 50);
    return cursor + 50;
}

// ---------------------------------------------------------------------------------------
// The training loop of the rule cases. Per step (healthy): DataLoader 100 us, the input
// copy, 40 layers of aten::linear (host 180 us each, a 200 us GEMM), the fused optimizer,
// then kHostTail of untraced host time: 10,000 us. The GPU runs from +188 to +8,338 and
// is idle from there to the next step's input copy (+148 into it); the host is the
// limiter (GPU work 8,190 us per 10,000 us step).
//
// WarmUp and WarmUpNoMarkers add, in the first layer of the first step, cudaFree 300 ms
// (cuBLAS/cuDNN init), 10 x cudaMalloc 20 ms (the pool grows) and a first
// cudaLaunchKernel of 1,500 ms (lazy module loading): 2,000,017 us more in step 0, steps
// 1-7 unchanged. WarmUpNoMarkers has no ProfilerStep# and a backward (40 x
// evaluate_function: AddmmBackward0, host 180 us, kernel 200 us) after the forward:
// iterations of 17,200 us found from the DataLoader spans.
std::string trainingLoop(Pathology p)
{
    Writer w(p);
    const bool launchBound = p == Pathology::LaunchBound;
    const bool warmUp = p == Pathology::WarmUp || p == Pathology::WarmUpNoMarkers;
    const bool markers = p != Pathology::WarmUpNoMarkers;
    const bool backward = p == Pathology::WarmUpNoMarkers;
    const int layers = launchBound ? 600 : 40;
    const int64_t kernelUs = launchBound ? 4 : p == Pathology::LowUtilization ? 50 : 200;
    // LowUtilization: small kernels, a host that keeps up with them, and 4 ms per step of
    // host time the profiler did not record (no op, no Python frame): an under-loaded GPU
    // whose idle nothing recorded explains.
    const bool underLoaded = p == Pathology::LowUtilization;
    const int64_t cpuPerLayer = launchBound ? 14 : underLoaded ? 40 : 180;
    const std::string dims =
        p == Pathology::Misaligned ? "[[256, 1027], [1027, 1027], [1027]]" : kDims;
    int64_t base = 20 * kGiB, reserved = 22 * kGiB;
    if (p == Pathology::Fragmentation)
        reserved = 60 * kGiB;
    if (p == Pathology::NearOom) {
        base = 76 * kGiB;
        reserved = 78 * kGiB;
    }
    const int64_t activation = kActivation;
    int64_t t = 1'000'000;
    for (int s = 0; s < kSteps; ++s) {
        const int64_t stepStart = t;
        int64_t cursor = t + 20;
        const int64_t allocated =
            base + (p == Pathology::MemoryGrowth ? s * 500LL * 1000 * 1000 : 0);
        if (p == Pathology::MemoryGrowth)
            reserved = std::max(reserved, allocated + 2 * kGiB);
        w.memory(cursor, activation, allocated + activation, reserved,
                 kActivationAddress + static_cast<uint64_t>(s) * 4096);
        if (p == Pathology::UnstableSteps && s == 4) {
            // Periodic work in the middle of the run (a checkpoint written on the training
            // thread, in host code the profiler did not record), not warm-up: the first
            // step is as fast as the others.
            cursor += 20010;
        }
        const int64_t dataloader = p == Pathology::DataLoader ? 4000 : 100;
        w.cpu("user_annotation", kDataLoader, cursor, dataloader);
        cursor += dataloader + 10;
        if (underLoaded)
            cursor += 4000;
        if (p == Pathology::PythonPreprocessing) {
            // 5,000 us of Python on the batch before it goes to the GPU: no op, no launch.
            const int64_t top = w.nextPythonId();
            w.python("train.py(42): preprocess", cursor, 5000, top, 0);
            for (int k = 0; k < 5; ++k) {
                const int64_t at = cursor + 1000 * k;
                const int64_t normalize = w.nextPythonId();
                w.python("train.py(57): normalize", at + 10, 480, normalize, top);
                w.python("numpy/core/_methods.py(101): _mean", at + 15, 400, w.nextPythonId(),
                         normalize);
                w.python("numpy/core/shape_base.py(449): stack", at + 500, 490, w.nextPythonId(),
                         top);
            }
            cursor += 5000;
        }
        if (p == Pathology::PageableMemcpy) {
            // From pageable memory the call returns only once the staged copy is done.
            const int64_t id = w.nextId();
            const int64_t returned =
                w.blockingCopy("cudaMemcpyAsync", cursor + 5, "Memcpy HtoD (Pageable -> Device)",
                               1500, id, "\"bytes\": 25165824");
            w.cpu("cpu_op", "aten::copy_", cursor, returned + 5 - cursor, ext(id));
            cursor = returned + 15;
        } else {
            const int64_t id = w.nextId();
            w.cpu("cpu_op", "aten::copy_", cursor, 20, ext(id));
            w.launch("cudaMemcpyAsync", cursor + 5, 8, "gpu_memcpy",
                     "Memcpy HtoD (Pinned -> Device)", 40, id, 0, "\"bytes\": 25165824");
            cursor += 30;
        }
        if (p == Pathology::DataParallel) {
            // Replicating the module: the host copies the weights to the second GPU.
            const int64_t id = w.nextId();
            w.cpu("cpu_op", "Broadcast", cursor, 500, ext(id));
            w.launch("cudaMemcpyAsync", cursor + 480, 10, "gpu_memcpy",
                     "Memcpy PtoP (Device -> Device)", 20, id, 1);
            cursor += 510;
        }
        for (int i = 0; i < layers; ++i) {
            const int64_t id = w.nextId();
            const char* kernel = p == Pathology::NoTensorCores ? kFp32Gemm : kTensorCoreGemm;
            const bool oneOffs = warmUp && s == 0 && i == 0;
            // The warm-up one-offs: cudaFree [+2, +300,002], cudaMalloc k at +300,004 +
            // 20,002 k for 20,000, the launch at +500,024 for 1,500,000: it ends at
            // +2,000,024 instead of +7, so the layer is 2,000,017 us longer.
            const int64_t launchAt = oneOffs ? cursor + 500024 : cursor + 2;
            const int64_t launchDur = oneOffs ? 1500000 : 5;
            const int64_t extra = oneOffs ? launchAt + launchDur - (cursor + 7) : 0;
            w.cpu("cpu_op", launchBound ? "aten::add" : "aten::linear", cursor,
                  cpuPerLayer - 5 + extra, ext(id) + ", \"Input Dims\": " + dims);
            if (oneOffs) {
                w.runtime("cudaFree", cursor + 2, 300000, id);
                for (int k = 0; k < 10; ++k)
                    w.runtime("cudaMalloc", cursor + 300004 + 20002 * k, 20000, id);
            }
            w.launch("cudaLaunchKernel", launchAt, launchDur, "kernel",
                     launchBound ? "elementwise_add_kernel" : kernel, kernelUs, id, 0,
                     "\"blocks per SM\": 2.0, \"est. achieved occupancy %\": 50");
            if (p == Pathology::DataParallel)
                w.launch("cudaLaunchKernel", cursor + 8, 5, "kernel", kernel, kernelUs, id, 1);
            cursor += cpuPerLayer + extra;
        }
        if (p == Pathology::DataParallel) {
            const int64_t id = w.nextId();
            w.cpu("cpu_op", "Gather", cursor, 500, ext(id));
            w.launch("cudaMemcpyAsync", cursor + 480, 10, "gpu_memcpy",
                     "Memcpy PtoP (Device -> Device)", 20, id, 0);
            w.cpu("user_annotation", "DataParallel.forward", stepStart + 20,
                  cursor + 500 - stepStart - 20);
            cursor += 510;
        }
        if (backward)
            for (int i = 0; i < 40; ++i)
                cursor = backwardLayer(w, cursor, 180, 200);
        if (p == Pathology::CopyHeavy) {
            const int64_t id = w.nextId();
            w.cpu("cpu_op", "aten::to", cursor, 1600);
            w.cpu("cpu_op", "aten::_to_copy", cursor + 5, 1590);
            w.cpu("cpu_op", "aten::copy_", cursor + 10, 1580, ext(id));
            w.launch("cudaMemcpyAsync", cursor + 15, 10, "gpu_memcpy",
                     "Memcpy DtoD (Device -> Device)", 1200, id);
            cursor += 1610;
        }
        if (p == Pathology::Communication) {
            const int64_t id = w.nextId();
            w.cpu("cpu_op", "nccl:all_reduce", cursor, 30,
                  ext(id) + ", \"Input Dims\": [[4194304]], \"Input type\": [\"float\"]");
            w.launch("cudaLaunchKernel", cursor + 5, 10, "kernel",
                     "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", 3000, id);
            cursor += 40;
        }
        if (p == Pathology::OptimizerUnfused) {
            const int64_t optimizerStart = cursor;
            for (int k = 0; k < 300; ++k) {
                const int64_t id = w.nextId();
                w.cpu("cpu_op", "aten::add_", cursor, 6, ext(id));
                w.launch("cudaLaunchKernel", cursor + 1, 3, "kernel",
                         "void at::native::vectorized_elementwise_kernel<4, "
                         "at::native::AddFunctor<float> >",
                         4, id);
                cursor += 7;
            }
            w.cpu("user_annotation", "Optimizer.step#AdamW.step", optimizerStart,
                  cursor - optimizerStart);
        } else {
            cursor = fusedOptimizer(w, cursor);
        }
        w.memory(cursor, -activation, allocated, reserved,
                 kActivationAddress + static_cast<uint64_t>(s) * 4096);
        const int64_t stepEnd = cursor + kHostTail;
        if (markers)
            w.cpu("user_annotation", "ProfilerStep#" + std::to_string(s), stepStart,
                  stepEnd - stepStart);
        t = stepEnd + 10;
    }
    return w.finish();
}

// ---------------------------------------------------------------------------------------
// A GPU-bound training loop: the host launches faster than the GPU runs, so it is far
// ahead, and one blocking call per step holds it back.
//
// HostSync and BlockingD2HCopy, per step: DataLoader 100 us, the input copy, a forward of
// 20 x aten::linear (host 20 us, a 400 us GEMM: launched in 400 us, run in 8,000 us), a
// blocking read of one value queued behind that forward, CPU-only work during which the
// GPU has nothing to run, a backward of 20 x evaluate_function: AddmmBackward0 (host
// 20 us, 400 us), the fused optimizer, 50 us. Nothing waits for the backward: it runs
// while the next step's host reaches its blocking read, which then waits for the backward
// and the next forward. From step 1 the period (one step's start to the next's) is the
// GPU's: its device work (16,192 us for HostSync, 16,193 for BlockingD2HCopy) plus the idle
// gap the CPU work leaves. Step 0 is shorter (the GPU starts empty); after the last step
// the GPU still runs that step's backward.
//   HostSync: aten::item > aten::_local_scalar_dense > cudaMemcpyAsync (4 bytes, DtoH to
//   pinned memory as PyTorch does since 2.1: the call returns at once) +
//   cudaStreamSynchronize, which waits for the queued forward and the copy; then 2,000 us
//   of CPU ops (8 x 250 us).
//   BlockingD2HCopy: aten::to > aten::_to_copy > aten::copy_ > cudaMemcpyAsync (4 bytes,
//   DtoH to pageable memory: the call itself blocks until the copy has run behind the
//   forward); then 3,000 us of CPU work (user_annotation compute_metrics, CPU ops).
// GpuBoundFinalSync, per step: DataLoader, input copy, 40 x aten::linear (host 20 us, a
// 500 us GEMM), the fused optimizer, cudaDeviceSynchronize until the GPU has drained,
// 50 us.
std::string gpuBoundLoop(Pathology p)
{
    Writer w(p);
    const bool finalSync = p == Pathology::GpuBoundFinalSync;
    const int forwardLayers = finalSync ? 40 : 20;
    const int backwardLayers = finalSync ? 0 : 20;
    const int64_t kernelUs = finalSync ? 500 : 400;
    int64_t t = 1'000'000;
    for (int s = 0; s < kSteps; ++s) {
        const int64_t stepStart = t;
        int64_t cursor = t + 20;
        const int64_t allocated = 20 * kGiB, reserved = 22 * kGiB;
        w.memory(cursor, kActivation, allocated + kActivation, reserved,
                 kActivationAddress + static_cast<uint64_t>(s) * 4096);
        w.cpu("user_annotation", kDataLoader, cursor, 100);
        cursor = inputCopy(w, cursor + 110);
        for (int i = 0; i < forwardLayers; ++i) {
            const int64_t id = w.nextId();
            w.cpu("cpu_op", "aten::linear", cursor, 15, ext(id) + ", \"Input Dims\": " + kDims);
            w.launch("cudaLaunchKernel", cursor + 2, 5, "kernel", kTensorCoreGemm, kernelUs, id, 0,
                     "\"blocks per SM\": 2.0, \"est. achieved occupancy %\": 50");
            cursor += 20;
        }
        if (p == Pathology::HostSync) {
            // The copy (2 us) starts when the forward ends, at E; the sync returns at
            // E + 5, the ops at E + 7 and E + 9; the CPU work runs [E + 10, E + 2,010).
            const int64_t item = w.nextId(), dense = w.nextId();
            const int64_t at = cursor;
            w.launch("cudaMemcpyAsync", at + 4, 8, "gpu_memcpy", "Memcpy DtoH (Device -> Pinned)",
                     2, dense, 0, "\"bytes\": 4");
            const int64_t synced = w.synchronize("cudaStreamSynchronize", at + 14, dense);
            w.cpu("cpu_op", "aten::_local_scalar_dense", at + 2, synced + 2 - (at + 2), ext(dense));
            w.cpu("cpu_op", "aten::item", at, synced + 4 - at, ext(item));
            cursor = synced + 5;
            const char* cpuOps[] = {"aten::eq",     "aten::sum",           "aten::div",
                                    "aten::lt",     "aten::masked_select", "aten::sort",
                                    "aten::cumsum", "aten::index_select"};
            for (int k = 0; k < 8; ++k)
                w.cpu("cpu_op", cpuOps[k], cursor + 250 * k, 245, ext(w.nextId()));
            cursor += 2000;
        }
        if (p == Pathology::BlockingD2HCopy) {
            // The copy (3 us) starts when the forward ends, at E; the call returns at
            // E + 6, the ops at E + 8, E + 10, E + 12; compute_metrics runs
            // [E + 13, E + 3,013).
            const int64_t to = w.nextId(), toCopy = w.nextId(), copy = w.nextId();
            const int64_t at = cursor;
            const int64_t returned =
                w.blockingCopy("cudaMemcpyAsync", at + 6, "Memcpy DtoH (Device -> Pageable)", 3,
                               copy, "\"bytes\": 4");
            w.cpu("cpu_op", "aten::copy_", at + 4, returned + 2 - (at + 4), ext(copy));
            w.cpu("cpu_op", "aten::_to_copy", at + 2, returned + 4 - (at + 2), ext(toCopy));
            w.cpu("cpu_op", "aten::to", at, returned + 6 - at, ext(to));
            cursor = returned + 7;
            w.cpu("user_annotation", "compute_metrics", cursor, 3000);
            const char* cpuOps[] = {"aten::eq",    "aten::where", "aten::nonzero",
                                    "aten::index", "aten::sum",   "aten::div"};
            for (int k = 0; k < 6; ++k)
                w.cpu("cpu_op", cpuOps[k], cursor + 5 + 498 * k, 490, ext(w.nextId()));
            cursor += 3000;
        }
        for (int i = 0; i < backwardLayers; ++i)
            cursor = backwardLayer(w, cursor, 20, kernelUs);
        cursor = fusedOptimizer(w, cursor);
        if (finalSync)
            cursor = w.synchronize("cudaDeviceSynchronize", cursor, 0);
        w.memory(cursor, -kActivation, allocated, reserved,
                 kActivationAddress + static_cast<uint64_t>(s) * 4096);
        const int64_t stepEnd = cursor + 50;
        w.cpu("user_annotation", "ProfilerStep#" + std::to_string(s), stepStart,
              stepEnd - stepStart);
        t = stepEnd + 10;
    }
    return w.finish();
}

// ---------------------------------------------------------------------------------------
// Inference, forward only: per step DataLoader 100 us, the input copy, 300 ops (aten::linear
// and aten::relu in turn, aten::softmax last; host 14 us each, a 4 us kernel), the
// predictions read back (aten::to > ... > cudaMemcpyAsync DtoH to pageable memory, 256
// bytes: blocks until the copy has run, which is at once: the GPU keeps up), 200 us of
// untraced host time. Step 4,584 us; kernels 1,200 us of it.
std::string inferenceLoop()
{
    Writer w(Pathology::Inference);
    int64_t t = 1'000'000;
    for (int s = 0; s < kSteps; ++s) {
        const int64_t stepStart = t;
        int64_t cursor = t + 20;
        const int64_t allocated = 20 * kGiB, reserved = 22 * kGiB;
        w.memory(cursor, kActivation, allocated + kActivation, reserved,
                 kActivationAddress + static_cast<uint64_t>(s) * 4096);
        w.cpu("user_annotation", kDataLoader, cursor, 100);
        cursor = inputCopy(w, cursor + 110);
        for (int i = 0; i < 300; ++i) {
            const int64_t id = w.nextId();
            const bool linear = i % 2 == 0 && i < 299;
            const char* op = i == 299 ? "aten::softmax" : linear ? "aten::linear" : "aten::relu";
            const char* kernel =
                i == 299 ? "void (anonymous namespace)::softmax_warp_forward<c10::BFloat16, "
                           "c10::BFloat16, float, 10, false, false>"
                : linear
                    ? kTensorCoreGemm
                    : "void at::native::vectorized_elementwise_kernel<4, "
                      "at::native::clamp_min_scalar_kernel_impl, at::detail::Array<char*, 2> >";
            w.cpu("cpu_op", op, cursor, 9,
                  ext(id) + ", \"Input Dims\": " +
                      (linear ? "[[32, 1024], [1024, 1024], [1024]]" : "[[32, 1024]]"));
            w.launch("cudaLaunchKernel", cursor + 2, 5, "kernel", kernel, 4, id, 0,
                     "\"blocks per SM\": 0.5, \"est. achieved occupancy %\": 12");
            cursor += 14;
        }
        {
            const int64_t to = w.nextId(), toCopy = w.nextId(), copy = w.nextId();
            const int64_t at = cursor;
            const int64_t returned =
                w.blockingCopy("cudaMemcpyAsync", at + 6, "Memcpy DtoH (Device -> Pageable)", 3,
                               copy, "\"bytes\": 256");
            w.cpu("cpu_op", "aten::copy_", at + 4, returned + 2 - (at + 4), ext(copy));
            w.cpu("cpu_op", "aten::_to_copy", at + 2, returned + 4 - (at + 2), ext(toCopy));
            w.cpu("cpu_op", "aten::to", at, returned + 6 - at, ext(to));
            cursor = returned + 7;
        }
        w.memory(cursor, -kActivation, allocated, reserved,
                 kActivationAddress + static_cast<uint64_t>(s) * 4096);
        const int64_t stepEnd = cursor + 200;
        w.cpu("user_annotation", "ProfilerStep#" + std::to_string(s), stepStart,
              stepEnd - stepStart);
        t = stepEnd + 10;
    }
    return w.finish();
}

// ---------------------------------------------------------------------------------------
// A window in which a CUDA graph is captured (one ProfilerStep#0 around it):
// cudaStreamBeginCapture, 200 ops (host 90 us each) whose cudaLaunchKernel starts nothing (nothing
// runs during a capture), cudaStreamEndCapture, cudaGraphInstantiate (1.8 ms). 19,950 us; no device
// activity at all.
std::string captureWindow()
{
    Writer w(Pathology::CaptureWindow);
    const int64_t stepStart = 1'000'000;
    int64_t cursor = stepStart + 20;
    w.runtime("cudaStreamBeginCapture", cursor, 12, 0);
    cursor += 20;
    const char* ops[] = {"aten::linear", "aten::relu", "aten::linear", "aten::add"};
    for (int i = 0; i < 200; ++i) {
        const int64_t id = w.nextId();
        const bool linear = i % 2 == 0;
        w.cpu("cpu_op", ops[i % 4], cursor, 85,
              ext(id) + ", \"Input Dims\": " + (linear ? kDims : "[[256, 1024], [256, 1024]]"));
        w.runtime("cudaLaunchKernel", cursor + 2, 5, id);
        cursor += 90;
    }
    w.runtime("cudaStreamEndCapture", cursor, 40, 0);
    cursor += 50;
    w.runtime("cudaGraphInstantiate", cursor, 1800, 0);
    cursor += 1810;
    w.cpu("user_annotation", "ProfilerStep#0", stepStart, cursor + 50 - stepStart);
    return w.finish();
}

}  // namespace

std::vector<Pathology> allPathologies()
{
    return {Pathology::DataLoader,     Pathology::LowUtilization,   Pathology::LaunchBound,
            Pathology::NoTensorCores,  Pathology::Misaligned,       Pathology::HostSync,
            Pathology::PageableMemcpy, Pathology::CopyHeavy,        Pathology::MemoryGrowth,
            Pathology::Fragmentation,  Pathology::NearOom,          Pathology::Communication,
            Pathology::DataParallel,   Pathology::OptimizerUnfused, Pathology::UnstableSteps};
}

std::vector<Pathology> windowAndCausalCases()
{
    return {Pathology::WarmUp,
            Pathology::WarmUpNoMarkers,
            Pathology::CaptureWindow,
            Pathology::Inference,
            Pathology::GpuBoundFinalSync,
            Pathology::BlockingD2HCopy,
            Pathology::PythonPreprocessing};
}

const char* pathologyName(Pathology p)
{
    switch (p) {
    case Pathology::None:
        return "healthy";
    case Pathology::DataLoader:
        return "dataloader-bound";
    case Pathology::LowUtilization:
        return "low-gpu-utilization";
    case Pathology::LaunchBound:
        return "launch-bound";
    case Pathology::NoTensorCores:
        return "no-tensor-cores";
    case Pathology::Misaligned:
        return "tensor-core-misaligned";
    case Pathology::HostSync:
        return "host-sync";
    case Pathology::PageableMemcpy:
        return "pageable-memcpy";
    case Pathology::CopyHeavy:
        return "copy-heavy";
    case Pathology::MemoryGrowth:
        return "memory-growth";
    case Pathology::Fragmentation:
        return "allocator-fragmentation";
    case Pathology::NearOom:
        return "near-oom";
    case Pathology::Communication:
        return "communication-heavy";
    case Pathology::DataParallel:
        return "dataparallel";
    case Pathology::OptimizerUnfused:
        return "optimizer-unfused";
    case Pathology::UnstableSteps:
        return "unstable-steps";
    case Pathology::WarmUp:
        return "warmup-in-window";
    case Pathology::WarmUpNoMarkers:
        return "warmup-in-window";
    case Pathology::CaptureWindow:
        return "capture-window";
    case Pathology::Inference:
        return "launch-bound";
    case Pathology::GpuBoundFinalSync:
        return "gpu-bound";
    case Pathology::BlockingD2HCopy:
        return "host-sync";
    case Pathology::PythonPreprocessing:
        return "python-bound";
    }
    return "?";
}

std::string scenarioTrace(Pathology p)
{
    switch (p) {
    case Pathology::HostSync:
    case Pathology::BlockingD2HCopy:
    case Pathology::GpuBoundFinalSync:
        return gpuBoundLoop(p);
    case Pathology::Inference:
        return inferenceLoop();
    case Pathology::CaptureWindow:
        return captureWindow();
    default:
        return trainingLoop(p);
    }
}

// ---------------------------------------------------------------------------------------
// The planted-change loop (scenario_trace.h). Returns the trace; `syncWaitUs` gets the
// mean time per step the planted cudaDeviceSynchronize blocked for.
namespace {

struct LoopKnobs
{
    int64_t dataloaderUs = 100;
    int64_t softmaxUs = 300;
    bool syncAfterForward = false;
    bool unfusedLinear = false;  // 3 launches per aten::linear
};

std::string plantedLoop(const LoopKnobs& k, double* syncWaitUs = nullptr)
{
    Writer w(Pathology::None);
    int64_t t = 1'000'000;
    int64_t waited = 0;
    for (int s = 0; s < kSteps; ++s) {
        const int64_t stepStart = t;
        int64_t cursor = t + 20;
        w.cpu("user_annotation", kDataLoader, cursor, k.dataloaderUs);
        cursor = inputCopy(w, cursor + k.dataloaderUs + 10);
        for (int i = 0; i < 40; ++i) {
            const int64_t id = w.nextId();
            w.cpu("cpu_op", "aten::linear", cursor, 175, ext(id) + ", \"Input Dims\": " + kDims);
            w.launch("cudaLaunchKernel", cursor + 2, 5, "kernel", kTensorCoreGemm, 200, id);
            if (k.unfusedLinear) {
                w.launch("cudaLaunchKernel", cursor + 100, 5, "kernel", "bias_add_kernel", 4, id);
                w.launch("cudaLaunchKernel", cursor + 150, 5, "kernel", "gelu_kernel", 4, id);
            }
            cursor += 180;
        }
        const int64_t softmax = w.nextId();
        w.cpu("cpu_op", "aten::softmax", cursor, 25,
              ext(softmax) + ", \"Input Dims\": [[256, 1024], []]");
        w.launch("cudaLaunchKernel", cursor + 5, 8, "kernel", "softmax_warp_forward", k.softmaxUs,
                 softmax);
        cursor += 30;
        if (k.syncAfterForward) {
            // torch.cuda.synchronize() in the loop: no op around it.
            const int64_t end = w.synchronize("cudaDeviceSynchronize", cursor, 0);
            waited += end - cursor;
            cursor = end + 5;
        }
        cursor = fusedOptimizer(w, cursor);
        const int64_t stepEnd = cursor + kHostTail;
        w.cpu("user_annotation", "ProfilerStep#" + std::to_string(s), stepStart,
              stepEnd - stepStart);
        t = stepEnd + 10;
    }
    if (syncWaitUs)
        *syncWaitUs = double(waited) / kSteps;
    return w.finish();
}

}  // namespace

std::vector<PlantedChange> allPlantedChanges()
{
    return {PlantedChange::SlowerKernel, PlantedChange::NewSync, PlantedChange::MoreDataLoader,
            PlantedChange::FewerLaunches};
}

const char* plantedChangeName(PlantedChange change)
{
    switch (change) {
    case PlantedChange::SlowerKernel:
        return "slower-kernel";
    case PlantedChange::NewSync:
        return "new-sync";
    case PlantedChange::MoreDataLoader:
        return "more-dataloader";
    case PlantedChange::FewerLaunches:
        return "fewer-launches";
    }
    return "?";
}

PlantedPair plantedPair(PlantedChange change)
{
    PlantedPair pair;
    LoopKnobs before, after;
    switch (change) {
    case PlantedChange::SlowerKernel:
        after.softmaxUs = 1300;
        pair.causeKind = "kernel";
        pair.causeName = "softmax_warp_forward";
        pair.plantedUs = 1000;
        break;
    case PlantedChange::NewSync:
        after.syncAfterForward = true;
        pair.causeKind = "sync";
        break;
    case PlantedChange::MoreDataLoader:
        after.dataloaderUs = 3100;
        pair.causeKind = "dataloader";
        pair.plantedUs = 3000;
        break;
    case PlantedChange::FewerLaunches:
        before.unfusedLinear = true;
        pair.causeKind = "launches";
        pair.plantedLaunches = -80;  // 122 launches per step -> 42
        break;
    }
    pair.before = plantedLoop(before);
    double waited = 0.0;
    pair.after = plantedLoop(after, &waited);
    if (change == PlantedChange::NewSync)
        pair.plantedUs = waited;
    return pair;
}

// ---------------------------------------------------------------------------------------
// The planted job (scenario_trace.h). Every rank, per step: DataLoader 100 us (plus the
// delay on the slow rank), the input copy, 20 x aten::linear (host 180 us, a 100 us GEMM:
// host-bound, so the delay moves everything after it), then nccl:all_reduce, whose kernel
// starts when the rank's GPU reaches it and ends kTransfer after the last rank's does.
namespace {

constexpr int64_t kTransferUs = 500;
constexpr int64_t kJobTailUs = 200;
constexpr int64_t kClockShiftUs = 2'000'000;

// One rank's trace; `arrival` gets the offset from the step's start at which its GPU
// reaches the collective (the same every step), `stepUs` is the common step period and
// `lastArrival` the slowest rank's offset (0 in the dry run that measures `arrival`).
std::string jobRank(int rank, int ranks, int slowRank, int64_t delayUs, int64_t stepUs,
                    int64_t lastArrival, int64_t* arrival, int steps)
{
    Writer w(Pathology::None);
    w.setRank(rank, ranks);
    for (int s = 0; s < steps; ++s) {
        // The last rank's host clock runs kClockShiftUs ahead of the others'.
        const int64_t stepStart = 1'000'000 + s * stepUs + (rank == ranks - 1 ? kClockShiftUs : 0);
        int64_t cursor = stepStart + 20;
        const int64_t dataloader = 100 + (rank == slowRank ? delayUs : 0);
        w.cpu("user_annotation", kDataLoader, cursor, dataloader);
        cursor = inputCopy(w, cursor + dataloader + 10);
        for (int i = 0; i < 20; ++i) {
            const int64_t id = w.nextId();
            w.cpu("cpu_op", "aten::linear", cursor, 175, ext(id) + ", \"Input Dims\": " + kDims);
            w.launch("cudaLaunchKernel", cursor + 2, 5, "kernel", kTensorCoreGemm, 100, id);
            cursor += 180;
        }
        const int64_t id = w.nextId();
        w.cpu("cpu_op", "nccl:all_reduce", cursor, 30,
              ext(id) + ", \"Input Dims\": [[4194304]], \"Input type\": [\"float\"]");
        const int64_t reach = std::max(w.gpuFree(), cursor + 5 + 10 + kLaunchLatency);
        if (arrival)
            *arrival = reach - stepStart;
        const int64_t end = stepStart + std::max(lastArrival, reach - stepStart) + kTransferUs;
        w.launch("cudaLaunchKernel", cursor + 5, 10, "kernel",
                 "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", end - reach, id);
        w.cpu("user_annotation", "ProfilerStep#" + std::to_string(s), stepStart,
              end + kJobTailUs - stepStart);
    }
    return w.finish();
}

}  // namespace

std::vector<std::string> plantedJob(int ranks, int slowRank, int64_t delayUs)
{
    // A dry run measures when each rank reaches the collective; then every rank is
    // written with the step the slowest one sets.
    int64_t lastArrival = 0;
    for (int r = 0; r < ranks; ++r) {
        int64_t arrival = 0;
        jobRank(r, ranks, slowRank, delayUs, 1'000'000, 0, &arrival, 1);
        lastArrival = std::max(lastArrival, arrival);
    }
    const int64_t stepUs = lastArrival + kTransferUs + kJobTailUs + 10;
    std::vector<std::string> traces;
    for (int r = 0; r < ranks; ++r)
        traces.push_back(
            jobRank(r, ranks, slowRank, delayUs, stepUs, lastArrival, nullptr, kSteps));
    return traces;
}

// The gains, per step, in us. "Removed" is the cause taken out of the trace by the rules
// of the header: the rest of the host timeline (untraced time included) keeps its
// durations and order, device work keeps its durations and stream order, a device
// activity starts at the earliest kLaunchLatency after its call (at its call's start for
// a blocking copy), a call that no longer blocks returns at once.
double plantedGainUs(Pathology p)
{
    switch (p) {
    case Pathology::DataLoader:
        // The DataLoader span is 4,000 us instead of the healthy 100 us; everything after it
        // moves 3,900 us later, the step is 13,900 us (healthy 10,000). The GPU's last
        // kernel ends at +12,238, before the step's end: the host is the limiter before and
        // after. Removing the wait (the whole 4,000 us span) gives a 9,900 us step:
        // 13,900 - 9,900 = 4,000. (Only the excess over the healthy loop would be 3,900,
        // 2.5 % less; the healthy loop's own 100 us wait is 1 % of its step, under the
        // rule's 5 %.) The wait, not the excess, is the cause the estimate removes.
        return 4000;
    case Pathology::HostSync:
        // GPU-bound (the GPU's period: 40 + 20 x 400 + 2 + 20 x 400 + 150 = 16,192 us of
        // device work per step). The queued forward ends at E; the DtoH copy runs
        // [E, E + 2); cudaStreamSynchronize returns at E + 5, aten::item at E + 9, the CPU
        // work runs [E + 10, E + 2,010), the first backward op starts at E + 2,010, its
        // launch ends at E + 2,019 and its kernel starts at E + 2,024: the GPU idles
        // 2,022 us per step (2,000 of CPU work + 22 of call returns and launch latency).
        // Period (from step 1; ProfilerStep + the 10 us between steps) = 16,192 + 2,022 =
        // 18,214 us. With the sync returning at once,
        // the host runs ahead, the CPU work overlaps the forward and the backward's
        // launches are queued before the forward ends: the GPU never idles, step 16,192:
        // gain 2,022 (2,000 + 1.1 %).
        return 2022;
    case Pathology::BlockingD2HCopy:
        // As HostSync: the forward ends at E; the DtoH copy runs [E, E + 3); the blocking
        // cudaMemcpyAsync returns at E + 6, aten::to at E + 12; compute_metrics runs
        // [E + 13, E + 3,013); the first backward kernel starts at E + 3,013 + 14 =
        // E + 3,027: the GPU idles 3,024 us per step. Period (from step 1) = 16,193 (40 +
        // 8,000 + 3 + 8,000 + 150) + 3,024 = 19,217 us; without the block it is 16,193:
        // gain 3,024
        // (3,000 + 0.8 %). The copy's own device time is 3 us.
        return 3024;
    case Pathology::PythonPreprocessing:
        // The healthy step with the 5,000 us preprocess span inserted after the DataLoader
        // (nothing else changes: everything after it moves 5,000 us later): 15,000 us.
        // The GPU is idle during it (the previous step's work ended 1,672 us before this
        // step began). Removed: the healthy 10,000 us step, still host-bound: gain 5,000.
        return 5000;
    case Pathology::LaunchBound:
        // 600 ops of 14 us host time (the 9 us aten::add, its 5 us launch inside, a 5 us
        // gap) each launching a 4 us kernel: the launches take 8,400 us of host time
        // [+160, +8,560); the step is 11,200 us (the healthy host tail kept). If launches
        // cost nothing on the host the 600 kernels run back to back, [+188, +2,588), and the
        // optimizer kernel [+2,588, +2,738); the host reaches the optimizer at +160 and
        // ends the step at +160 + 50 + 2,590 = +2,800, after the GPU: the step is 2,800,
        // gain 11,200 - 2,800 = 8,400, the whole launch time. (The kernels' 2,400 us are
        // hidden behind the host's remaining 2,640 us, so host minus kernel time, 6,000,
        // would understate it.)
        return 8400;
    case Pathology::Inference:
        // 300 ops of 14 us each launch a 4 us kernel: [+160, +4,360) of host time, the last
        // kernel ends at +4,362. The predictions' blocking copy is called at +4,366, its copy
        // runs [+4,371, +4,374). If launches cost nothing, the host calls the copy at +166,
        // the kernels run back to back [+188, +1,388) and the copy [+1,388, +1,391); all
        // after it is host time that keeps its durations. Gain = 4,374 - 1,391 = 2,983
        // (= 4,200 of launches - 1,200 of kernels - 17 us of latencies at the ends).
        return 2983;
    case Pathology::CopyHeavy:
        // aten::to holds the host 1,600 us (+ a 10 us gap) while its 1,200 us DtoD copy
        // runs [+8,188, +9,388), after the forward's kernels; the step is 11,610 us and the
        // GPU's last kernel ends at +9,538: the GPU is NOT the limiter, the host is.
        // Removing the copy's device time alone gains nothing (it was in the GPU's slack:
        // 0); removing the op (host and device) gives back the healthy 10,000 us step:
        // gain 1,610, all of it the op's host time.
        return 1610;
    case Pathology::PageableMemcpy:
        // The batch's copy from pageable memory holds the host about 1,500 us longer than
        // the pinned copy of the healthy loop (the call returns when the staged copy is
        // done): the step is 11,500 us; the GPU's last kernel
        // ends at +11,290, inside it. Pinned (the healthy loop): 10,000. Gain 1,500.
        return 1500;
    case Pathology::OptimizerUnfused:
        // 300 aten::add_ of 7 us host (a 4 us kernel each, the GPU keeps up) instead of the
        // 50 us fused AdamW: the step is 12,050 us, host-bound. Fused (the healthy loop):
        // 10,000. Gain 2,050 (2,100 if the whole optimizer section were removed). Note that
        // this section is itself launch-bound: launches costing nothing would gain 2,100.
        return 2050;
    case Pathology::GpuBoundFinalSync:
        // The GPU runs 40 + 40 x 500 + 150 = 20,190 us per step, the host launches it in
        // 1,010 us and then waits in cudaDeviceSynchronize until +20,341. Without the wait
        // the host runs ahead and the GPU is the limiter: the period becomes the GPU's
        // 20,190 us instead of 20,401 (ProfilerStep 20,391 + 10): the 211 us bubble at each
        // step's start (the host's way from the sync's return to the next input copy) is
        // all that is gained, 1.0 % of the step (191 us averaged over the 8 steps of the
        // window: the last has no next step). Nothing is planted: 0.
        return 0;
    default:
        // Memory (MemoryGrowth, Fragmentation, NearOom), the windows (WarmUp,
        // WarmUpNoMarkers, CaptureWindow): no time cost. LowUtilization: small kernels and
        // 4,000 us per step of host time the profiler did not record (nothing attributes
        // it, so nothing is gained). NoTensorCores, Misaligned: the step is the healthy
        // 10,000 us (host-bound; what faster kernels would save is not planted). Communication: the
        // 3,000 us all-reduce makes the GPU do 11,190 us per 10,040 us step with nothing waiting
        // for it, so the device work drifts later every step (no steady state). DataParallel: the
        // fix (DDP) is not a removal. UnstableSteps: one slow step in the middle (unrecorded
        // periodic work), not a per-step cost.
        return -1;
    }
}

}  // namespace kinetoscope::test
