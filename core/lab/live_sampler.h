#pragma once
// Samples the machine while a run goes on, on its own thread at 10-20 Hz: CPU
// utilisation from /proc/stat, a process's resident memory from /proc/PID/statm (the
// engine's own, or the launcher's child: a profiled script),
// GPU utilisation and memory from NVML (libnvidia-ml loaded with dlopen; without it
// those read -1, "not available") and the CUDA allocator's figures through a callback.
// Torch-free.
#include "core/session/session.h"

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>

namespace kinetoscope::lab {

// NVML, if the driver's library is on this machine. One GPU, found by PCI bus id
// ("0000:17:00.0") or else index 0.
class Nvml
{
public:
    explicit Nvml(const std::string& pciBusId = {});
    ~Nvml();
    Nvml(const Nvml&) = delete;
    Nvml& operator=(const Nvml&) = delete;
    bool available() const { return m_device != nullptr; }
    std::string driverVersion() const;
    std::string deviceName() const;
    // Utilisation over the driver's last sample period (percent) and memory used by
    // every process on the GPU (bytes); false when NVML is not available.
    bool read(double& utilisationPercent, int64_t& memoryUsedBytes) const;

private:
    struct Api;
    std::unique_ptr<Api> m_api;
    void* m_device = nullptr;
};

// The machine's CPU time so far, every core together, in USER_HZ ticks (/proc/stat's
// aggregate line): busy (all but idle and iowait; steal included) and total. False when
// /proc/stat cannot be read.
bool readMachineCpuTicks(unsigned long long& busy, unsigned long long& total);

// Busy share of all cores between two reads of /proc/stat.
class CpuUsage
{
public:
    CpuUsage();
    double percentSinceLastRead();  // -1 when /proc/stat cannot be read

private:
    unsigned long long m_busy = 0, m_total = 0;
};

// A process's resident set (0: this process); -1 when /proc/PID/statm cannot be read (gone).
int64_t residentBytes(int pid = 0);

class LiveSampler
{
public:
    using Sink = std::function<void(const session::LiveSample&)>;
    using AllocatorReading = std::function<std::pair<int64_t, int64_t>()>;  // allocated, reserved

    // Starts sampling at `hz` (clamped to 10-20) until destroyed; the resident memory is
    // process `pid`'s (0: this process). `allocator` may be empty (those read -1).
    LiveSampler(int hz, Sink sink, AllocatorReading allocator, const std::string& gpuPciBusId = {},
                int pid = 0);
    ~LiveSampler();
    LiveSampler(const LiveSampler&) = delete;
    LiveSampler& operator=(const LiveSampler&) = delete;
    const Nvml& nvml() const { return m_nvml; }

private:
    void loop();

    int m_periodMs;
    Sink m_sink;
    AllocatorReading m_allocator;
    Nvml m_nvml;
    int m_pid = 0;
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
};

}  // namespace kinetoscope::lab
