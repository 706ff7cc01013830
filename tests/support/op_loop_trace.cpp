#include "tests/support/op_loop_trace.h"

#include <algorithm>

namespace kinetoscope::test {

std::string opLoopTrace(const std::vector<OpCall>& calls)
{
    std::string events;
    auto add = [&](const std::string& e) { events += (events.empty() ? "" : ",\n") + e; };
    int64_t host = 0, device = 100, correlation = 1, external = 1;
    for (int step = 0; step < kOpLoopSteps; ++step) {
        const int64_t stepStart = host;
        std::string stepEvents;
        for (int repeat = 0; repeat < kOpLoopRepeats; ++repeat)
            for (const OpCall& c : calls) {
                const int64_t id = external++;
                std::string args = "\"External id\": " + std::to_string(id) +
                                   ", \"Input Dims\": " + c.dims + ", \"Input type\": " + c.types;
                if (!c.concrete.empty())
                    args += ", \"Concrete Inputs\": " + c.concrete;
                const int64_t opDur = 10 + 12 * int64_t(c.kernels.size());
                add("{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"" + c.op +
                    "\", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(host) +
                    ", \"dur\": " + std::to_string(opDur) + ", \"args\": {" + args + "}}");
                int64_t t = host + 5;
                for (const auto& [kernel, dur] : c.kernels) {
                    const int64_t corr = correlation++;
                    add("{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "
                        "\"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
                        "\"ts\": " +
                        std::to_string(t) + ", \"dur\": 8, \"args\": {\"External id\": " +
                        std::to_string(id) + ", \"correlation\": " + std::to_string(corr) + "}}");
                    device = std::max(device, t + 13);
                    add("{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" + kernel +
                        "\", \"pid\": 0, \"tid\": 7, \"ts\": " + std::to_string(device) +
                        ", \"dur\": " + std::to_string(dur) + ", \"args\": {\"correlation\": " +
                        std::to_string(corr) + ", \"device\": 0, \"stream\": 7}}");
                    device += dur + 2;
                    t += 12;
                }
                host += opDur + 2;
            }
        // The step waits for its work at its end (a loss read): the device sets the pace.
        add("{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaDeviceSynchronize\", "
            "\"pid\": 1, \"tid\": 1, "
            "\"ts\": " +
            std::to_string(host) + ", \"dur\": " + std::to_string(device + 3 - host) + "}");
        host = device + 3 + 20;
        add("{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#" +
            std::to_string(step) + "\", \"pid\": 1, \"tid\": 1, \"ts\": " +
            std::to_string(stepStart) + ", \"dur\": " + std::to_string(host - stepStart - 1) + "}");
    }
    return "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100 80GB "
           "HBM3\", "
           "\"totalGlobalMem\": 85029158912, \"computeMajor\": 9, \"computeMinor\": 0, \"numSms\": "
           "132}],\n"
           "\"traceEvents\": [\n" +
           events + "\n]}\n";
}

}  // namespace kinetoscope::test
