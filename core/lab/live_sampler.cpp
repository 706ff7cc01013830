#include "core/lab/live_sampler.h"

#include <algorithm>
#include <chrono>
#include <dlfcn.h>
#include <fstream>
#include <unistd.h>

namespace kinetoscope::lab {

// The few NVML entry points the sampler uses, declared from NVML's documented C API
// (return code 0 = success; opaque device handles).
struct Nvml::Api
{
    struct Utilization
    {
        unsigned int gpu;
        unsigned int memory;
    };
    struct Memory
    {
        unsigned long long total;
        unsigned long long free;
        unsigned long long used;
    };
    void* library = nullptr;
    int (*init)() = nullptr;
    int (*shutdown)() = nullptr;
    int (*byIndex)(unsigned int, void**) = nullptr;
    int (*byPciBusId)(const char*, void**) = nullptr;
    int (*utilization)(void*, Utilization*) = nullptr;
    int (*memory)(void*, Memory*) = nullptr;
    int (*name)(void*, char*, unsigned int) = nullptr;
    int (*driverVersion)(char*, unsigned int) = nullptr;

    template <typename F>
    bool bind(F& function, const char* symbol)
    {
        function = reinterpret_cast<F>(dlsym(library, symbol));
        return function != nullptr;
    }
};

Nvml::Nvml(const std::string& pciBusId) : m_api(std::make_unique<Api>())
{
    Api& api = *m_api;
    api.library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!api.library)
        return;
    const bool bound = api.bind(api.init, "nvmlInit_v2") &&
                       api.bind(api.shutdown, "nvmlShutdown") &&
                       api.bind(api.byIndex, "nvmlDeviceGetHandleByIndex_v2") &&
                       api.bind(api.utilization, "nvmlDeviceGetUtilizationRates") &&
                       api.bind(api.memory, "nvmlDeviceGetMemoryInfo") &&
                       api.bind(api.name, "nvmlDeviceGetName") &&
                       api.bind(api.driverVersion, "nvmlSystemGetDriverVersion");
    api.bind(api.byPciBusId, "nvmlDeviceGetHandleByPciBusId_v2");
    if (!bound || api.init() != 0) {
        dlclose(api.library);
        api.library = nullptr;
        return;
    }
    // The device by its PCI bus id when the run names one, else the first.
    void* device = nullptr;
    const bool byBusId =
        !pciBusId.empty() && api.byPciBusId && api.byPciBusId(pciBusId.c_str(), &device) == 0;
    if (byBusId || api.byIndex(0, &device) == 0)
        m_device = device;
}

Nvml::~Nvml()
{
    if (m_api->library) {
        m_api->shutdown();
        dlclose(m_api->library);
    }
}

std::string Nvml::driverVersion() const
{
    char text[96] = {};
    return available() && m_api->driverVersion(text, sizeof text) == 0 ? std::string(text)
                                                                       : std::string();
}

std::string Nvml::deviceName() const
{
    char text[96] = {};
    return available() && m_api->name(m_device, text, sizeof text) == 0 ? std::string(text)
                                                                        : std::string();
}

bool Nvml::read(double& utilisationPercent, int64_t& memoryUsedBytes) const
{
    if (!available())
        return false;
    Api::Utilization u{};
    Api::Memory m{};
    if (m_api->utilization(m_device, &u) != 0 || m_api->memory(m_device, &m) != 0)
        return false;
    utilisationPercent = u.gpu;
    memoryUsedBytes = int64_t(m.used);
    return true;
}

// The aggregate "cpu" line: user nice system idle iowait irq softirq steal (jiffies).
bool readMachineCpuTicks(unsigned long long& busy, unsigned long long& total)
{
    std::ifstream in("/proc/stat");
    std::string label;
    if (!(in >> label) || label != "cpu")
        return false;
    unsigned long long value = 0, idle = 0;
    total = 0;
    for (int field = 0; field < 8 && in >> value; ++field) {
        total += value;
        if (field == 3 || field == 4)  // idle, iowait
            idle += value;
    }
    busy = total - idle;
    return total > 0;
}

CpuUsage::CpuUsage()
{
    readMachineCpuTicks(m_busy, m_total);
}

double CpuUsage::percentSinceLastRead()
{
    unsigned long long busy = 0, total = 0;
    if (!readMachineCpuTicks(busy, total))
        return -1;
    const unsigned long long dBusy = busy - m_busy, dTotal = total - m_total;
    m_busy = busy;
    m_total = total;
    return dTotal == 0 ? 0.0 : 100.0 * double(dBusy) / double(dTotal);
}

int64_t residentBytes(int pid)
{
    std::ifstream in(pid > 0 ? "/proc/" + std::to_string(pid) + "/statm" : "/proc/self/statm");
    long long pagesTotal = 0, pagesResident = 0;
    if (!(in >> pagesTotal >> pagesResident))
        return -1;
    return int64_t(pagesResident) * int64_t(sysconf(_SC_PAGESIZE));
}

LiveSampler::LiveSampler(int hz, Sink sink, AllocatorReading allocator,
                         const std::string& gpuPciBusId, int pid)
    : m_periodMs(1000 / std::clamp(hz, 10, 20)), m_sink(std::move(sink)),
      m_allocator(std::move(allocator)), m_nvml(gpuPciBusId), m_pid(pid)
{
    m_thread = std::thread([this] { loop(); });
}

LiveSampler::~LiveSampler()
{
    m_stop = true;
    m_thread.join();
}

void LiveSampler::loop()
{
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    CpuUsage cpu;
    auto next = start;
    for (bool last = false; !last;) {
        next += std::chrono::milliseconds(m_periodMs);
        // Sleep in short slices so that the destructor never waits a whole period; when
        // stopped, one last sample closes the series (a short run still has one).
        while (!m_stop.load() && Clock::now() < next)
            std::this_thread::sleep_for(
                std::min<Clock::duration>(next - Clock::now(), std::chrono::milliseconds(5)));
        last = m_stop.load();
        session::LiveSample s;
        s.seconds = std::chrono::duration<double>(Clock::now() - start).count();
        s.cpuPercent = cpu.percentSinceLastRead();
        s.residentBytes = residentBytes(m_pid);
        m_nvml.read(s.gpuPercent, s.gpuMemoryUsedBytes);
        if (m_allocator)
            std::tie(s.allocatedBytes, s.reservedBytes) = m_allocator();
        // The process sampled is gone (-1), or has exited and waits to be reaped (a zombie
        // holds no pages): nothing of it to say.
        if (m_pid > 0 && s.residentBytes <= 0)
            continue;
        m_sink(s);
    }
}

}  // namespace kinetoscope::lab
