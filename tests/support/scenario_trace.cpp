#include "tests/support/scenario_trace.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace kinetoscope::test {

namespace {

constexpr int kSteps = 8;
constexpr int64_t kPid = 4242, kTid = 4242;
constexpr int64_t kStream = 7;
constexpr int64_t kGiB = 1024LL * 1024 * 1024;

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
                    ", \"name\": \"NVIDIA A100-SXM4-80GB\", \"totalGlobalMem\": " + std::to_string(80 * kGiB) +
                    ", \"computeMajor\": 8, \"computeMinor\": 0, \"numSms\": 108}";
        text += "], ";
        if (m_p == Pathology::Communication)
            text += "\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 8}, ";
        text += "\"traceEvents\": [\n";
        for (size_t i = 0; i < m_events.size(); ++i)
            text += m_events[i] + (i + 1 < m_events.size() ? ",\n" : "\n");
        return text + "]}\n";
    }

    void cpu(const char* cat, const std::string& name, int64_t ts, int64_t dur, const std::string& args = "")
    {
        m_events.push_back("{\"ph\": \"X\", \"cat\": \"" + std::string(cat) + "\", \"name\": \"" + name +
                           "\", \"pid\": " + std::to_string(kPid) + ", \"tid\": " + std::to_string(kTid) +
                           ", \"ts\": " + std::to_string(ts) + ", \"dur\": " + std::to_string(dur) +
                           (args.empty() ? "" : ", \"args\": {" + args + "}") + "}");
    }

    // A launch call at `ts` and the device activity it starts on `device`, queued behind
    // the work already there. Returns the activity's end.
    int64_t launch(const char* call, int64_t ts, int64_t callDur, const char* cat, const std::string& name,
                   int64_t dur, int64_t externalId, int device = 0, const std::string& extra = "")
    {
        const int64_t correlation = m_correlation++;
        cpu("cuda_runtime", call, ts, callDur,
            "\"External id\": " + std::to_string(externalId) + ", \"correlation\": " + std::to_string(correlation));
        int64_t& free = m_gpuFree[device];
        const int64_t start = std::max(free, ts + callDur + 5);
        m_events.push_back("{\"ph\": \"X\", \"cat\": \"" + std::string(cat) + "\", \"name\": \"" + name +
                           "\", \"pid\": " + std::to_string(device) + ", \"tid\": " + std::to_string(kStream) +
                           ", \"ts\": " + std::to_string(start) + ", \"dur\": " + std::to_string(dur) +
                           ", \"args\": {\"device\": " + std::to_string(device) + ", \"stream\": " +
                           std::to_string(kStream) + ", \"correlation\": " + std::to_string(correlation) +
                           (extra.empty() ? "" : ", " + extra) + "}}");
        free = start + dur;
        return free;
    }

    void memory(int64_t ts, int64_t bytes, int64_t allocated, int64_t reserved, uint64_t address)
    {
        m_events.push_back("{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", "
                           "\"pid\": " + std::to_string(kPid) + ", \"tid\": " + std::to_string(kTid) +
                           ", \"ts\": " + std::to_string(ts) + ", \"args\": {\"Device Type\": 1, \"Device Id\": 0, "
                           "\"Addr\": " + std::to_string(address) + ", \"Bytes\": " + std::to_string(bytes) +
                           ", \"Total Allocated\": " + std::to_string(allocated) +
                           ", \"Total Reserved\": " + std::to_string(reserved) + "}}");
    }

    int64_t nextId() { return m_externalId++; }
    int64_t gpuFree(int device = 0) { return m_gpuFree[device]; }

private:
    Pathology m_p;
    std::vector<std::string> m_events;
    std::map<int, int64_t> m_gpuFree;
    int64_t m_correlation = 1;
    int64_t m_externalId = 1;
};

const char* kTensorCoreGemm = "sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x32_stage3_warpsize2x2x1_tensor16x8x16_kernel";
const char* kFp32Gemm = "ampere_sgemm_128x64_tn";

}  // namespace

std::vector<Pathology> allPathologies()
{
    return {Pathology::DataLoader,     Pathology::LowUtilization, Pathology::LaunchBound,   Pathology::NoTensorCores,
            Pathology::Misaligned,     Pathology::HostSync,       Pathology::PageableMemcpy, Pathology::CopyHeavy,
            Pathology::MemoryGrowth,   Pathology::Fragmentation,  Pathology::NearOom,       Pathology::Communication,
            Pathology::DataParallel,   Pathology::OptimizerUnfused, Pathology::UnstableSteps};
}

const char* pathologyName(Pathology p)
{
    switch (p) {
    case Pathology::None: return "healthy";
    case Pathology::DataLoader: return "dataloader-bound";
    case Pathology::LowUtilization: return "low-gpu-utilization";
    case Pathology::LaunchBound: return "launch-bound";
    case Pathology::NoTensorCores: return "no-tensor-cores";
    case Pathology::Misaligned: return "tensor-core-misaligned";
    case Pathology::HostSync: return "host-sync";
    case Pathology::PageableMemcpy: return "pageable-memcpy";
    case Pathology::CopyHeavy: return "copy-heavy";
    case Pathology::MemoryGrowth: return "memory-growth";
    case Pathology::Fragmentation: return "allocator-fragmentation";
    case Pathology::NearOom: return "near-oom";
    case Pathology::Communication: return "communication-heavy";
    case Pathology::DataParallel: return "dataparallel";
    case Pathology::OptimizerUnfused: return "optimizer-unfused";
    case Pathology::UnstableSteps: return "unstable-steps";
    }
    return "?";
}

std::string scenarioTrace(Pathology p)
{
    Writer w(p);
    const bool launchBound = p == Pathology::LaunchBound;
    const int layers = launchBound ? 600 : 40;
    const int64_t kernelUs = launchBound ? 4 : p == Pathology::LowUtilization ? 50 : 200;
    const int64_t cpuPerLayer = launchBound ? 14 : 180;
    const std::string dims = p == Pathology::Misaligned ? "[[256, 1027], [1027, 1027], [1027]]"
                                                        : "[[256, 1024], [1024, 1024], [1024]]";
    int64_t base = 20 * kGiB, reserved = 22 * kGiB;
    if (p == Pathology::Fragmentation)
        reserved = 60 * kGiB;
    if (p == Pathology::NearOom) {
        base = 76 * kGiB;
        reserved = 78 * kGiB;
    }
    const int64_t activation = 100LL * 1000 * 1000;
    int64_t t = 1'000'000;
    for (int s = 0; s < kSteps; ++s) {
        const int64_t stepStart = t;
        int64_t cursor = t + 20;
        const int64_t allocated = base + (p == Pathology::MemoryGrowth ? s * 500LL * 1000 * 1000 : 0);
        if (p == Pathology::MemoryGrowth)
            reserved = std::max(reserved, allocated + 2 * kGiB);
        w.memory(cursor, activation, allocated + activation, reserved, 0x7f0000000000ULL + static_cast<uint64_t>(s) * 4096);
        if (p == Pathology::UnstableSteps && s == 0) {
            w.cpu("cpu_op", "aten::cudnn_benchmark_warmup", cursor, 20000);
            cursor += 20010;
        }
        const int64_t dataloader = p == Pathology::DataLoader ? 4000 : 100;
        w.cpu("user_annotation", "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", cursor, dataloader);
        cursor += dataloader + 10;
        {
            const bool pageable = p == Pathology::PageableMemcpy;
            const int64_t id = w.nextId();
            w.cpu("cpu_op", "aten::copy_", cursor, pageable ? 1520 : 20, "\"External id\": " + std::to_string(id));
            w.launch("cudaMemcpyAsync", cursor + 5, pageable ? 1500 : 8, "gpu_memcpy",
                     pageable ? "Memcpy HtoD (Pageable -> Device)" : "Memcpy HtoD (Pinned -> Device)",
                     pageable ? 1500 : 40, id, 0, "\"bytes\": 25165824");
            cursor += pageable ? 1530 : 30;
        }
        if (p == Pathology::DataParallel) {
            w.cpu("cpu_op", "Broadcast", cursor, 500);
            cursor += 510;
        }
        for (int i = 0; i < layers; ++i) {
            const int64_t id = w.nextId();
            w.cpu("cpu_op", launchBound ? "aten::add" : "aten::linear", cursor, cpuPerLayer - 5,
                  "\"External id\": " + std::to_string(id) + ", \"Input Dims\": " + dims);
            const char* kernel = p == Pathology::NoTensorCores ? kFp32Gemm : kTensorCoreGemm;
            w.launch("cudaLaunchKernel", cursor + 2, 5, "kernel", launchBound ? "elementwise_add_kernel" : kernel,
                     kernelUs, id, 0, "\"blocks per SM\": 2.0, \"est. achieved occupancy %\": 50");
            if (p == Pathology::DataParallel)
                w.launch("cudaLaunchKernel", cursor + 8, 5, "kernel", kernel, kernelUs, id, 1);
            cursor += cpuPerLayer;
        }
        if (p == Pathology::DataParallel) {
            w.cpu("cpu_op", "Gather", cursor, 500);
            w.cpu("user_annotation", "DataParallel.forward", stepStart + 20, cursor + 500 - stepStart - 20);
            cursor += 510;
        }
        if (p == Pathology::CopyHeavy) {
            const int64_t id = w.nextId();
            w.cpu("cpu_op", "aten::to", cursor, 1600);
            w.cpu("cpu_op", "aten::_to_copy", cursor + 5, 1590);
            w.cpu("cpu_op", "aten::copy_", cursor + 10, 1580, "\"External id\": " + std::to_string(id));
            w.launch("cudaMemcpyAsync", cursor + 15, 10, "gpu_memcpy", "Memcpy DtoD (Device -> Device)", 1200, id);
            cursor += 1610;
        }
        if (p == Pathology::HostSync) {
            w.cpu("cpu_op", "aten::item", cursor, 2000);
            w.cpu("cpu_op", "aten::_local_scalar_dense", cursor + 2, 1996);
            w.cpu("cuda_runtime", "cudaStreamSynchronize", cursor + 20, 1970);
            cursor += 2010;
        }
        if (p == Pathology::Communication) {
            const int64_t id = w.nextId();
            w.cpu("cpu_op", "nccl:all_reduce", cursor, 30, "\"External id\": " + std::to_string(id));
            w.launch("cudaLaunchKernel", cursor + 5, 10, "kernel", "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)",
                     3000, id);
            cursor += 40;
        }
        {
            const bool unfused = p == Pathology::OptimizerUnfused;
            const int64_t optimizerStart = cursor;
            if (unfused) {
                for (int k = 0; k < 300; ++k) {
                    const int64_t id = w.nextId();
                    w.cpu("cpu_op", "aten::add_", cursor, 6, "\"External id\": " + std::to_string(id));
                    w.launch("cudaLaunchKernel", cursor + 1, 3, "kernel",
                             "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float> >", 4, id);
                    cursor += 7;
                }
            } else {
                const int64_t id = w.nextId();
                w.cpu("cpu_op", "aten::_fused_adamw_", cursor, 40, "\"External id\": " + std::to_string(id));
                w.launch("cudaLaunchKernel", cursor + 5, 8, "kernel", "fused_adamw_kernel", 150, id);
                cursor += 50;
            }
            w.cpu("user_annotation", "Optimizer.step#AdamW.step", optimizerStart, cursor - optimizerStart);
        }
        w.memory(cursor, -activation, allocated, reserved, 0x7f0000000000ULL + static_cast<uint64_t>(s) * 4096);
        const int64_t stepEnd = std::max(stepStart + 10000, cursor + 50);
        w.cpu("user_annotation", "ProfilerStep#" + std::to_string(s), stepStart, stepEnd - stepStart);
        t = stepEnd + 10;
    }
    return w.finish();
}

}  // namespace kinetoscope::test
