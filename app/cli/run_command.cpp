#include "app/cli/run_command.h"

#include "app/cli/cli_main.h"
#include "core/format/format.h"
#include "core/lab/engine_process.h"
#include "core/lab/run_options.h"
#include "core/session/lab_reading.h"
#include "core/session/memory_reading.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <ostream>
#include <unistd.h>

namespace kinetoscope::cli {

namespace {

// Ctrl-C while a run goes: cancel it (the engine saves and stops after its step) instead
// of dying with it. Set by the signal handler, read by runEngine's loop.
std::atomic<bool> g_interrupted{false};

void onInterrupt(int)
{
    g_interrupted = true;
}

// The handler, for as long as the run lasts.
class InterruptCancels
{
public:
    InterruptCancels()
    {
        struct sigaction action{};
        action.sa_handler = onInterrupt;
        ::sigemptyset(&action.sa_mask);
        ::sigaction(SIGINT, &action, &m_previous);
    }
    ~InterruptCancels() { ::sigaction(SIGINT, &m_previous, nullptr); }
    InterruptCancels(const InterruptCancels&) = delete;
    InterruptCancels& operator=(const InterruptCancels&) = delete;

private:
    struct sigaction m_previous{};
};

// A byte figure the allocator measured, or "needs a GPU" where it was not (-1).
std::string bytesOrDash(int64_t bytes)
{
    return bytes < 0 ? std::string("needs a GPU") : format::bytes(double(bytes));
}

// The seeds' memory triage: the allocator after each phase of the first and of a steady
// step, then where the memory goes.
void printMemory(const session::MemoryTriage& m, std::ostream& out)
{
    out << "\nmemory after each phase" << (m.unavailable.empty() ? "" : " (the allocator figures: " + m.unavailable + ")")
        << "\nphase              allocated     reserved  peak allocated\n";
    for (const auto* rows : {&m.firstStep, &m.steadyStep}) {
        out << (rows == &m.firstStep ? "first step\n" : "steady step\n");
        for (const session::PhaseMemory& row : *rows) {
            char line[200];
            std::snprintf(line, sizeof line, "  %-16s %11s %12s %15s\n", row.phase.c_str(),
                          bytesOrDash(row.allocatedBytes).c_str(), bytesOrDash(row.reservedBytes).c_str(),
                          bytesOrDash(row.peakAllocatedBytes).c_str());
            out << line;
        }
    }
    const session::MemorySplit& split = m.split;
    out << "parameters " << format::bytes(double(split.parameterBytes)) << " ("
        << format::count(split.parameterCount) << " in " << format::count(split.parameterTensors)
        << " tensors), gradients " << format::bytes(double(split.gradientBytes)) << ", optimizer state "
        << format::bytes(double(split.optimizerStateBytes)) << ", activations " << bytesOrDash(split.activationBytes)
        << "\n";
}

void printResults(const lab::RunResult& result, std::ostream& out)
{
    const session::Session& s = result.session;
    for (const session::LabArm& arm : s.lab) {
        char line[200];
        if (arm.ran && !arm.latency.phase.empty())
            std::snprintf(line, sizeof line, "%-18s %18s  latency mean %s  std %s  p50 %s  p95 %s  p99 %s\n",
                          arm.name(), format::rate(arm.samplesPerSecond, "samples").c_str(),
                          format::duration(arm.latency.meanMs * 1e6).c_str(),
                          format::duration(arm.latency.stdMs * 1e6).c_str(),
                          format::duration(arm.latency.medianMs * 1e6).c_str(),
                          format::duration(arm.latency.p95Ms * 1e6).c_str(),
                          format::duration(arm.latency.p99Ms * 1e6).c_str());
        else if (arm.ran)
            std::snprintf(line, sizeof line, "%-18s %18s  %10s/step  peak %s\n", arm.name(),
                          format::rate(arm.samplesPerSecond, "samples").c_str(),
                          format::duration(arm.meanStepMs * 1e6).c_str(), bytesOrDash(arm.peakAllocatedBytes).c_str());
        else
            std::snprintf(line, sizeof line, "%-18s not run: %s\n", arm.name(), arm.skippedReason.c_str());
        out << line;
    }
    if (!s.phases.empty()) {
        out << "\nphase (fp32)   mean ms    std   median    p95    p99\n";  // "latency" in an inference run
        for (const session::PhaseTiming& p : s.phases) {
            char line[160];
            auto ms = [](double value) {
                return format::durationIn(value * 1e6, format::TimeUnit::Milliseconds, 3);
            };
            std::snprintf(line, sizeof line, "%-12s %8s %7s %8s %6s %6s\n", p.phase.c_str(), ms(p.meanMs).c_str(),
                          ms(p.stdMs).c_str(), ms(p.medianMs).c_str(), ms(p.p95Ms).c_str(), ms(p.p99Ms).c_str());
            out << line;
        }
    }
    if (s.memory)
        printMemory(*s.memory, out);
    if (!s.sweep.empty()) {
        out << "\nsweep\n";
        for (const session::SweepPoint& p : s.sweep) {
            char line[240];
            // Points of the series that checkpoints activations say so.
            const std::string series =
                p.checkpointEvery > 0 ? "  " + session::checkpointingName(p.checkpointEvery) : std::string();
            if (p.error.empty() && !p.latency.phase.empty())
                std::snprintf(line, sizeof line, "%-10s = %-6lld %18s  latency p50 %s  p95 %s  p99 %s  peak %s%s\n",
                              p.knob.c_str(), static_cast<long long>(p.value),
                              format::rate(p.samplesPerSecond, "samples").c_str(),
                              format::duration(p.latency.medianMs * 1e6).c_str(),
                              format::duration(p.latency.p95Ms * 1e6).c_str(),
                              format::duration(p.latency.p99Ms * 1e6).c_str(), bytesOrDash(p.peakAllocatedBytes).c_str(),
                              series.c_str());
            else if (p.error.empty())
                std::snprintf(line, sizeof line, "%-10s = %-6lld %18s  %10s/step  data wait %s  peak %s%s\n",
                              p.knob.c_str(), static_cast<long long>(p.value),
                              format::rate(p.samplesPerSecond, "samples").c_str(),
                              format::duration(p.meanStepMs * 1e6).c_str(), format::duration(p.dataWaitMs * 1e6).c_str(),
                              bytesOrDash(p.peakAllocatedBytes).c_str(), series.c_str());
            else
                std::snprintf(line, sizeof line, "%-10s = %-6lld %s%s\n", p.knob.c_str(),
                              static_cast<long long>(p.value), p.error.c_str(), series.c_str());
            out << line;
        }
    }
    const session::LabReading reading = session::readLab(s);
    if (!reading.lines.empty()) {
        out << "\n";
        for (const std::string& line : reading.lines)
            out << line << "\n";
    }
}

}  // namespace

int runRun(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    for (const std::string& arg : args)
        if (arg == "--help" || arg == "-h") {
            out << "usage: kinetoscope run [options] --out DIR\n\n" << lab::kRunOptionsHelp;
            return kExitOk;
        }
    lab::RunConfig c;
    std::string error;
    if (!lab::parseRunOptions(args, c, error)) {
        err << "kinetoscope run: " << error << " (see kinetoscope run --help)\n";
        return kExitBadInput;
    }
    if (!lab::hasOutOption(args)) {
        err << "kinetoscope run: --out DIR is required (where the session and trace go)\n";
        return kExitBadInput;
    }
    lab::RunCallbacks callbacks;
    // The bar redraws one line in place: only on a terminal, never into a log file.
    const bool terminal = &err == &std::cerr && isatty(STDERR_FILENO);
    // Elsewhere (a log, a CI job) each stage gets a line as it starts.
    std::string stage;
    if (terminal)
        callbacks.progress = [&err](const std::string& current, double fraction) {
            const int width = 30, done = int(fraction * width);
            err << "\r[" << std::string(size_t(done), '#') << std::string(size_t(width - done), ' ') << "] "
                << int(fraction * 100) << "% " << current << "        " << std::flush;
        };
    else
        callbacks.progress = [&err, &stage](const std::string& current, double) {
            if (current != stage)
                err << "kinetoscope run: " << current << std::endl;
            stage = current;
        };
    // Said once, before the first stage: torch's and Kineto's own messages about it (and
    // anything else the engine prints) are in OUT/engine.log, not on this terminal.
    callbacks.started = [&err, &c](const session::Session& header, const std::string&) {
        const auto cuda = header.environment.find("cuda_available");
        if (c.device == "auto" && cuda != header.environment.end() && cuda->second == "no")
            err << "kinetoscope run: no CUDA GPU here, running on the CPU (torch's own messages: "
                << lab::engineLogPath(c) << ")" << std::endl;
    };
    g_interrupted = false;
    callbacks.cancel = &g_interrupted;
    const lab::RunResult result = [&] {
        const InterruptCancels interruptCancels;
        return lab::runEngine(c, callbacks);
    }();
    if (terminal)
        err << "\r" << std::string(60, ' ') << "\r";
    printResults(result, out);
    if (!result.sessionPath.empty())
        out << "\nsession: " << result.sessionPath << "\n";
    if (!result.ok) {
        err << "kinetoscope run: " << result.error << '\n';
        return kExitBadInput;
    }
    if (!result.session.tracePath.empty()) {
        out << "\n";
        return run({"diagnose", result.sessionPath}, out, err) == kExitBadInput ? kExitBadInput : kExitOk;
    }
    return kExitOk;
}

}  // namespace kinetoscope::cli
