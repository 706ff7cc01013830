#include "bench/synthetic_trace.h"

#include <array>
#include <cinttypes>
#include <random>
#include <string>

namespace kinetoscope::bench {

namespace {

constexpr int64_t kPid = 41872;
constexpr int64_t kMainTid = 41872;
constexpr int64_t kStream = 7;

struct Layer
{
    const char* module;
    std::array<const char*, 3> ops;  // outer -> inner
    const char* kernel;
};

// Names as torch.profiler writes them for a convolutional network.
constexpr std::array<Layer, 5> kLayers = {{
    {"nn.Module: Conv2d",
     {"aten::conv2d", "aten::convolution", "aten::cudnn_convolution"},
     "sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x128x16_stage4_"
     "warpsize2x2x1_g1_tensor16x8x8_kernel"},
    {"nn.Module: BatchNorm2d",
     {"aten::batch_norm", "aten::_batch_norm_impl_index", "aten::cudnn_batch_norm"},
     "void cudnn::bn_fw_tr_1C11_singleread<float, 512, true, 1, 2, 0>(cudnnTensorStruct, float "
     "const*, "
     "cudnnTensorStruct, float*, float const*, float const*, float, float, float*, float*, float*, "
     "float*, float, float)"},
    {"nn.Module: ReLU",
     {"aten::relu", "aten::relu_", "aten::clamp_min_"},
     "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
     "namespace)::clamp_min_scalar_kernel_impl("
     "at::TensorIteratorBase&, c10::Scalar)::{lambda()#1}::operator()() "
     "const::{lambda()#7}::operator()() const::"
     "{lambda(float)#1}, at::detail::Array<char*, 2> >(int, at::native::(anonymous "
     "namespace)::clamp_min_scalar_kernel_impl"
     "(at::TensorIteratorBase&, c10::Scalar)::{lambda()#1}::operator()() "
     "const::{lambda()#7}::operator()() const::"
     "{lambda(float)#1}, at::detail::Array<char*, 2>)"},
    {"nn.Module: Linear", {"aten::linear", "aten::matmul", "aten::mm"}, "ampere_sgemm_128x64_tn"},
    {"nn.Module: MaxPool2d",
     {"aten::max_pool2d", "aten::max_pool2d_with_indices", "aten::max_pool2d_with_indices_out"},
     "void at::native::(anonymous namespace)::max_pool_forward_nchw<float, float>(int, float "
     "const*, long, long, "
     "long, int, int, int, int, int, int, int, int, int, int, float*, long*)"},
}};

class Writer
{
public:
    Writer(std::FILE* out, uint64_t seed) : m_out(out), m_random(seed) {}

    void raw(const char* text) { emit(text); }

    template <typename... Args>
    void event(const char* format, Args... args)
    {
        char buffer[2048];
        const int n = std::snprintf(buffer, sizeof buffer, format, args...);
        emitSeparator();
        emit(std::string_view(buffer, static_cast<size_t>(n)));
        ++m_stats.events;
    }

    uint64_t next(uint64_t bound) { return m_random() % bound; }
    SyntheticTraceStats& stats() { return m_stats; }

private:
    void emitSeparator()
    {
        if (m_first) {
            m_first = false;
            emit("\n  ");
        } else {
            emit(",\n  ");
        }
    }
    void emit(std::string_view text)
    {
        std::fwrite(text.data(), 1, text.size(), m_out);
        m_stats.bytes += text.size();
    }

    std::FILE* m_out;
    std::mt19937_64 m_random;
    SyntheticTraceStats m_stats;
    bool m_first = true;
};

// Microseconds with three decimals, as Kineto writes relative ts.
struct Micros
{
    int64_t ns;
};
#define US_FMT "%" PRId64 ".%03" PRId64
#define US(x) (x).ns / 1000, (x).ns % 1000

}  // namespace

SyntheticTraceStats writeSyntheticTrace(std::FILE* out, uint64_t targetBytes, uint64_t seed)
{
    Writer w(out, seed);
    w.raw("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n    {\"id\": 0, \"name\": "
          "\"NVIDIA A100-SXM4-80GB\", "
          "\"totalGlobalMem\": 85031714816, \"computeMajor\": 8, \"computeMinor\": 0, "
          "\"maxThreadsPerBlock\": 1024, "
          "\"maxThreadsPerMultiprocessor\": 2048, \"regsPerBlock\": 65536, \"warpSize\": 32, "
          "\"sharedMemPerBlock\": 49152, "
          "\"numSms\": 108, \"regsPerMultiprocessor\": 65536, \"sharedMemPerBlockOptin\": 166912, "
          "\"sharedMemPerMultiprocessor\": 167936}\n  ],\n  \"cupti_version\": 24,\n  "
          "\"cuda_runtime_version\": 12040,\n"
          "  \"cuda_driver_version\": 12040,\n  \"distributedInfo\": {\"backend\": \"nccl\", "
          "\"rank\": 0, \"world_size\": 1},\n"
          "  \"baseTimeNanoseconds\": 1760000000000000000,\n  \"displayTimeUnit\": \"ms\",\n  "
          "\"traceEvents\": [");
    w.event(
        R"~({"name": "process_name", "ph": "M", "ts": 0.000, "pid": %lld, "tid": 0, "args": {"name": "python3"}})~",
        static_cast<long long>(kPid));
    w.event(
        R"~({"name": "thread_name", "ph": "M", "ts": 0.000, "pid": %lld, "tid": %lld, "args": {"name": "thread %lld (python3)"}})~",
        static_cast<long long>(kPid), static_cast<long long>(kMainTid),
        static_cast<long long>(kMainTid));
    w.event(
        R"~({"name": "process_labels", "ph": "M", "ts": 0.000, "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}})~");

    Micros cpu{1'000'000};  // CPU clock
    Micros gpu{1'000'000};  // when the GPU stream is next free
    int64_t externalId = 1;
    int64_t correlation = 100000;
    int64_t evIdx = 0;
    int64_t pythonId = 1;
    // The caching allocator: weights stay allocated, each layer's output is allocated
    // and the previous one freed; reserved memory grows in 20 MiB segments.
    constexpr int64_t kSegment = 20 * 1024 * 1024;
    int64_t allocated = 2'000'000'000;
    int64_t reserved = (allocated / kSegment + 1) * kSegment;
    uint64_t address = 0x7f3a00000000ULL;
    int64_t previousBytes = 0;
    uint64_t previousAddress = 0;

    while (w.stats().bytes < targetBytes) {
        const uint64_t step = w.stats().steps++;
        const Micros stepStart = cpu;
        const int layers = 40;
        // The step marker is written first with its final duration estimated; Kineto
        // writes events in completion order anyway, so order is not a promise.
        const int64_t stepDurationNs = layers * 60'000;
        w.event(
            R"~({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%llu", "pid": %lld, "tid": %lld, "ts": )~" US_FMT
            R"~(, "dur": )~" US_FMT
            R"~(, "args": {"External id": %lld, "Record function id": 0, "Ev Idx": %lld}})~",
            static_cast<unsigned long long>(step), static_cast<long long>(kPid),
            static_cast<long long>(kMainTid), US(stepStart), US(Micros{stepDurationNs}),
            static_cast<long long>(externalId++), static_cast<long long>(evIdx++));
        cpu.ns += 2'000;
        // Input batch copy.
        {
            const Micros launch{cpu.ns + 500};
            const Micros copyStart{std::max(gpu.ns, launch.ns + 4'000)};
            const int64_t copyNs = 180'000 + static_cast<int64_t>(w.next(20'000));
            w.event(
                R"~({"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": %lld, "tid": %lld, "ts": )~" US_FMT
                R"~(, "dur": )~" US_FMT
                R"~(, "args": {"External id": %lld, "cbid": 41, "correlation": %lld}})~",
                static_cast<long long>(kPid), static_cast<long long>(kMainTid), US(launch),
                US(Micros{9'000}), static_cast<long long>(externalId),
                static_cast<long long>(correlation));
            w.event(
                R"~({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": %lld, "ts": )~" US_FMT
                R"~(, "dur": )~" US_FMT
                R"~(, "args": {"External id": %lld, "device": 0, "context": 1, "stream": %lld, "correlation": %lld, "bytes": 19267584, "memory bandwidth (GB/s)": %.3f}})~",
                static_cast<long long>(kStream), US(copyStart), US(Micros{copyNs}),
                static_cast<long long>(externalId), static_cast<long long>(kStream),
                static_cast<long long>(correlation), 19267584.0 / static_cast<double>(copyNs));
            ++externalId;
            ++correlation;
            gpu.ns = copyStart.ns + copyNs;
            cpu.ns += 12'000;
        }
        for (int l = 0; l < layers; ++l) {
            const Layer& layer = kLayers[static_cast<size_t>(l) % kLayers.size()];
            const Micros pyStart = cpu;
            const int launches = 1 + static_cast<int>(w.next(2));
            const int64_t opNs = 8'000 + launches * 6'000 + static_cast<int64_t>(w.next(4'000));
            w.event(
                R"~({"ph": "X", "cat": "python_function", "name": "%s_%d", "pid": %lld, "tid": %lld, "ts": )~" US_FMT
                R"~(, "dur": )~" US_FMT
                R"~(, "args": {"Python parent id": %lld, "Python id": %lld, "Ev Idx": %lld}})~",
                layer.module, l, static_cast<long long>(kPid), static_cast<long long>(kMainTid),
                US(pyStart), US(Micros{opNs + 6'000}),
                static_cast<long long>(pythonId - 1 > 0 ? pythonId - 1 : 1),
                static_cast<long long>(pythonId), static_cast<long long>(evIdx++));
            ++pythonId;
            int64_t opOffset = 2'000;
            int64_t innerId = 0;
            for (int depth = 0; depth < 3; ++depth) {
                const Micros opStart{pyStart.ns + opOffset};
                innerId = externalId++;
                w.event(
                    R"~({"ph": "X", "cat": "cpu_op", "name": "%s", "pid": %lld, "tid": %lld, "ts": )~" US_FMT
                    R"~(, "dur": )~" US_FMT
                    R"~(, "args": {"External id": %lld, "Record function id": 0, "Sequence number": %lld, "Fwd thread id": 0, "Ev Idx": %lld, "Input Dims": [[%d, 64, 56, 56], [64, 64, 3, 3]]}})~",
                    layer.ops[static_cast<size_t>(depth)], static_cast<long long>(kPid),
                    static_cast<long long>(kMainTid), US(opStart), US(Micros{opNs - depth * 1'000}),
                    static_cast<long long>(innerId),
                    static_cast<long long>(step * 1000 + static_cast<uint64_t>(l)),
                    static_cast<long long>(evIdx++), 32 * (1 + l % 4));
                opOffset += 400;
            }
            // Allocation of the layer's output.
            const int64_t bytes = 1'048'576 * (1 + static_cast<int64_t>(w.next(16)));
            allocated += bytes;
            while (allocated > reserved)
                reserved += kSegment;
            w.event(
                R"~({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": %lld, "tid": %lld, "ts": )~" US_FMT
                R"~(, "args": {"Total Reserved": %lld, "Total Allocated": %lld, "Bytes": %lld, "Addr": %llu, "Device Id": 0, "Device Type": 1, "Ev Idx": %lld}})~",
                static_cast<long long>(kPid), static_cast<long long>(kMainTid),
                US(Micros{pyStart.ns + opOffset}), static_cast<long long>(reserved),
                static_cast<long long>(allocated), static_cast<long long>(bytes),
                static_cast<unsigned long long>(address), static_cast<long long>(evIdx++));
            const uint64_t thisAddress = address;
            address += static_cast<uint64_t>(bytes);
            for (int k = 0; k < launches; ++k) {
                const Micros launch{pyStart.ns + opOffset + 500 + k * 6'000};
                const int64_t kernelNs = 20'000 + static_cast<int64_t>(w.next(60'000));
                const Micros kernelStart{std::max(gpu.ns + 2'000, launch.ns + 5'000)};
                w.event(
                    R"~({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": %lld, "tid": %lld, "ts": )~" US_FMT
                    R"~(, "dur": )~" US_FMT
                    R"~(, "args": {"External id": %lld, "cbid": 211, "correlation": %lld}})~",
                    static_cast<long long>(kPid), static_cast<long long>(kMainTid), US(launch),
                    US(Micros{4'500}), static_cast<long long>(innerId),
                    static_cast<long long>(correlation));
                w.event(R"~({"ph": "s", "id": %lld, "pid": %lld, "tid": %lld, "ts": )~" US_FMT
                        R"~(, "cat": "ac2g", "name": "ac2g"})~",
                        static_cast<long long>(correlation), static_cast<long long>(kPid),
                        static_cast<long long>(kMainTid), US(launch));
                w.event(
                    R"~({"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": %lld, "ts": )~" US_FMT
                    R"~(, "dur": )~" US_FMT
                    R"~(, "args": {"External id": %lld, "queued": 0, "device": 0, "context": 1, "stream": %lld, "correlation": %lld, "registers per thread": %d, "shared memory": %d, "blocks per SM": %.6f, "warps per SM": %.6f, "grid": [%d, 1, 1], "block": [256, 1, 1], "est. achieved occupancy %%": %d}})~",
                    layer.kernel, static_cast<long long>(kStream), US(kernelStart),
                    US(Micros{kernelNs}), static_cast<long long>(innerId),
                    static_cast<long long>(kStream), static_cast<long long>(correlation),
                    32 + 8 * static_cast<int>(w.next(12)), 4096 * static_cast<int>(w.next(12)),
                    2.5 + static_cast<double>(w.next(100)) / 10.0,
                    20.0 + static_cast<double>(w.next(400)) / 10.0,
                    108 * (1 + static_cast<int>(w.next(64))), static_cast<int>(w.next(100)));
                w.event(R"~({"ph": "f", "id": %lld, "pid": 0, "tid": %lld, "ts": )~" US_FMT
                        R"~(, "cat": "ac2g", "name": "ac2g", "bp": "e"})~",
                        static_cast<long long>(correlation), static_cast<long long>(kStream),
                        US(kernelStart));
                gpu.ns = kernelStart.ns + kernelNs;
                ++correlation;
            }
            // The previous layer's output is freed.
            if (previousBytes > 0) {
                allocated -= previousBytes;
                w.event(
                    R"~({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": %lld, "tid": %lld, "ts": )~" US_FMT
                    R"~(, "args": {"Total Reserved": %lld, "Total Allocated": %lld, "Bytes": %lld, "Addr": %llu, "Device Id": 0, "Device Type": 1, "Ev Idx": %lld}})~",
                    static_cast<long long>(kPid), static_cast<long long>(kMainTid),
                    US(Micros{pyStart.ns + opNs}), static_cast<long long>(reserved),
                    static_cast<long long>(allocated), static_cast<long long>(-previousBytes),
                    static_cast<unsigned long long>(previousAddress),
                    static_cast<long long>(evIdx++));
            }
            previousBytes = bytes;
            previousAddress = thisAddress;
            cpu.ns = pyStart.ns + opNs + 6'500;
        }
        // A memset for the gradient buffers closes the step.
        w.event(
            R"~({"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": %lld, "ts": )~" US_FMT
            R"~(, "dur": )~" US_FMT
            R"~(, "args": {"device": 0, "context": 1, "stream": %lld, "correlation": %lld, "bytes": 4194304, "memory bandwidth (GB/s)": 970.9}})~",
            static_cast<long long>(kStream), US(gpu), US(Micros{4'000}),
            static_cast<long long>(kStream), static_cast<long long>(correlation++));
        gpu.ns += 4'000;
        cpu.ns = std::max(cpu.ns, stepStart.ns + stepDurationNs) + 1'000;
    }
    w.raw("\n  ],\n  \"traceName\": \"synthetic_trace.json\"\n}\n");
    return w.stats();
}

}  // namespace kinetoscope::bench
