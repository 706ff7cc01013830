#pragma once
// The line protocol between `kinetoscope-engine` and the app that started it:
// newline-delimited JSON, one object per line, each with a "type" (docs/engine.md has
// the table). The engine writes on its standard output, the probe in a user's script on
// the socket it was given (docs/profile.md); the app writes back on the same channel
// (only "cancel"). Torch-free.
#include "core/lab/run_progress.h"
#include "core/session/session.h"

#include <optional>
#include <string>
#include <string_view>

namespace kinetoscope::lab {

// Bumped when a message changes shape; the app refuses an engine that speaks another.
// 2: "memory", latency in arms and sweep points; 3: a stage's step of steps; 4: a step's
// memory columns, "done"'s `by`, spoken by the probe in a user's script too.
inline constexpr int kProtocolVersion = 4;

enum class MessageType
{
    Hello,       // engine -> app, first: protocol version, process id
    Started,     // the session's config and environment, the file it will be saved to
    Progress,    // stage ("fp32", "sweep workers=4") and the run's fraction done
    Step,        // one measured step of the fp32 arm
    Sample,      // one live sample
    Arm,         // one arm, run or skipped
    SweepPoint,  // one sweep point
    Memory,      // the fp32 arm's memory triage (phase table, split, peak per step)
    Saved,       // the session file was written (atomically) with everything so far
    Done,        // last: ok or the one-line error, and the session file
    Cancel,      // app -> engine: stop after the step in flight (and who asked)
};

struct EngineMessage
{
    MessageType type = MessageType::Hello;
    int protocol = kProtocolVersion;  // Hello
    int64_t pid = 0;                  // Hello
    RunProgress progress;             // Progress
    std::string sessionPath;          // Started, Saved, Done
    session::Session header;          // Started: config and environment only
    session::StepTiming step;         // Step
    session::LiveSample sample;       // Sample
    session::LabArm arm;              // Arm
    session::SweepPoint sweepPoint;   // SweepPoint
    session::MemoryTriage memory;     // Memory
    bool ok = false;                  // Done
    std::string error;                // Done, when !ok
    // Cancel: who asked for it ("Ctrl-C"), or empty. Done (the probe): why the script was
    // stopped early ("--steps 20", a cancel's `by`), or empty.
    std::string by;
};

// One line, ending in '\n'; text that is not UTF-8 is replaced, never thrown on.
std::string encodeMessage(const EngineMessage& message);
// One line (without its '\n'); nullopt + a one-line reason when it is not a message.
std::optional<EngineMessage> decodeMessage(std::string_view line, std::string& error);

}  // namespace kinetoscope::lab
