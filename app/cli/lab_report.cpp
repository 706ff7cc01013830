#include "app/cli/lab_report.h"

#include "core/format/format.h"
#include "core/session/lab_reading.h"
#include "core/session/memory_reading.h"

#include <nlohmann/json.hpp>
#include <sstream>

namespace kinetoscope::cli {

namespace {

using format::padLeft;
using format::padRight;

// A byte figure the allocator measured, or "not measured" where it was not (-1).
std::string bytesOrDash(int64_t bytes)
{
    return bytes < 0 ? std::string("not measured") : format::bytes(double(bytes));
}

std::string ms(double milliseconds)
{
    return format::duration(milliseconds * 1e6);
}

// The seeds' memory triage: the allocator after each phase of the first and of a steady
// step, then where the memory goes. A column nothing measured (reserved, on the CPU) is
// left out and named once, in the heading.
void printMemory(const session::MemoryTriage& m, std::ostream& out)
{
    bool anyAllocated = false, anyReserved = false;
    for (const auto* rows : {&m.firstStep, &m.steadyStep})
        for (const session::PhaseMemory& row : *rows) {
            anyAllocated |= row.allocatedBytes >= 0;
            anyReserved |= row.reservedBytes >= 0;
        }
    if (anyAllocated) {
        out << "\nmemory after each phase"
            << (m.unavailable.empty() ? "" : " (" + m.unavailable + ")") << "\n"
            << padRight("phase", 18) << padLeft("allocated", 11)
            << (anyReserved ? padLeft("reserved", 13) : "") << padLeft("peak allocated", 16)
            << "\n";
        for (const auto* rows : {&m.firstStep, &m.steadyStep}) {
            out << (rows == &m.firstStep ? "first step\n" : "steady step\n");
            for (const session::PhaseMemory& row : *rows)
                out << "  " << padRight(row.phase, 16)
                    << padLeft(bytesOrDash(row.allocatedBytes), 11)
                    << (anyReserved ? padLeft(bytesOrDash(row.reservedBytes), 13) : "")
                    << padLeft(bytesOrDash(row.peakAllocatedBytes), 16) << "\n";
        }
    } else {
        out << "\nmemory after each phase: "
            << (m.unavailable.empty() ? "not measured" : m.unavailable) << "\n";
    }
    const session::MemorySplit& split = m.split;
    out << "parameters " << format::bytes(double(split.parameterBytes)) << " ("
        << format::count(split.parameterCount) << " in "
        << format::counted(uint64_t(split.parameterTensors), "tensor") << "), gradients "
        << format::bytes(double(split.gradientBytes)) << ", optimizer state "
        << format::bytes(double(split.optimizerStateBytes)) << ", activations "
        << bytesOrDash(split.activationBytes) << "\n";
}

// "  other processes 1.02 cores" after a run that shared the machine, else nothing.
std::string otherProcesses(const session::Session& s, double cores)
{
    return session::sharedMachine(cores, session::machineCores(s))
               ? "  other processes " + format::number(cores) + " cores"
               : std::string();
}

void printArms(const session::Session& s, std::ostream& out)
{
    for (const session::LabArm& arm : s.lab) {
        out << padRight(arm.name(), 18) << " ";
        if (arm.ran && !arm.latency.phase.empty())
            out << padLeft(format::rate(arm.samplesPerSecond, "samples"), 18) << "  latency mean "
                << ms(arm.latency.meanMs) << "  std " << ms(arm.latency.stdMs) << "  p50 "
                << ms(arm.latency.medianMs) << "  p95 " << ms(arm.latency.p95Ms) << "  p99 "
                << ms(arm.latency.p99Ms) << "\n";
        else if (arm.ran) {
            out << padLeft(format::rate(arm.samplesPerSecond, "samples"), 18) << "  "
                << padLeft(ms(arm.meanStepMs), 10) << "/step  peak "
                << bytesOrDash(arm.peakAllocatedBytes);
            if (arm.compileSeconds >= 0)
                out << "  compiling " << format::duration(arm.compileSeconds * 1e9) << " apart";
            out << otherProcesses(s, arm.otherCpuCores) << "\n";
        } else {
            out << "not run: " << arm.skippedReason << "\n";
        }
        if (!arm.note.empty())
            out << padRight("", 19) << arm.note << "\n";
    }
}

void printPhases(const session::Session& s, std::ostream& out)
{
    if (s.phases.empty())
        return;
    // Each figure a duration with its unit ("1.09 ms", "812 µs"), as everywhere else; a
    // column is as wide as the widest of them ("999 µs" and "16.7 min" fit 10).
    constexpr size_t kPhase = 14, kFigure = 10;
    auto cell = [](double milliseconds) { return padLeft(ms(milliseconds), kFigure); };
    out << "\n" << padRight("phase (fp32)", kPhase);
    for (const char* heading : {"mean", "std", "median", "p95", "p99"})
        out << padLeft(heading, kFigure);
    out << "\n";
    for (const session::PhaseTiming& p : s.phases)
        out << padRight(p.phase, kPhase) << cell(p.meanMs) << cell(p.stdMs) << cell(p.medianMs)
            << cell(p.p95Ms) << cell(p.p99Ms) << "\n";
}

void printSweep(const session::Session& s, std::ostream& out)
{
    if (s.sweep.empty())
        return;
    out << "\nsweep\n";
    for (const session::SweepPoint& p : s.sweep) {
        out << padRight(p.knob, 10) << " = " << padRight(std::to_string(p.value), 6) << " ";
        if (p.error.empty() && !p.latency.phase.empty())
            out << padLeft(format::rate(p.samplesPerSecond, "samples"), 18) << "  latency p50 "
                << ms(p.latency.medianMs) << "  p95 " << ms(p.latency.p95Ms) << "  p99 "
                << ms(p.latency.p99Ms) << "  peak " << bytesOrDash(p.peakAllocatedBytes);
        else if (p.error.empty())
            out << padLeft(format::rate(p.samplesPerSecond, "samples"), 18) << "  "
                << padLeft(ms(p.meanStepMs), 10) << "/step  data wait " << ms(p.dataWaitMs)
                << "  peak " << bytesOrDash(p.peakAllocatedBytes);
        else
            out << p.error;
        if (p.error.empty())
            out << otherProcesses(s, p.otherCpuCores);
        // Points of the series that checkpoints activations say so.
        if (p.checkpointEvery > 0)
            out << "  " << session::checkpointingName(p.checkpointEvery);
        out << "\n";
    }
}

}  // namespace

nlohmann::json labSessionJson(const std::string& source, const session::Session& session)
{
    return {{"source", source},
            {"trace", false},
            {"session", nlohmann::json::parse(session::sessionJson(session))}};
}

std::string labText(const session::Session& s)
{
    std::ostringstream out;
    printArms(s, out);
    printPhases(s, out);
    if (s.memory)
        printMemory(*s.memory, out);
    printSweep(s, out);
    const session::LabReading reading = session::readLab(s);
    if (!reading.lines.empty()) {
        out << "\n";
        for (const std::string& line : reading.lines)
            out << line << "\n";
    }
    return out.str();
}

}  // namespace kinetoscope::cli
