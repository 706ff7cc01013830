#pragma once
// A session's parts as JSON values, exactly as the session file holds them; shared by
// the file (session.cpp) and the engine's line protocol (core/lab/engine_protocol.cpp).
// The readers throw nlohmann::json::exception or std::invalid_argument on a value of the
// wrong shape.
#include "core/session/session.h"

#include <nlohmann/json.hpp>

namespace kinetoscope::session {

// {"phase", "mean_ms", "std_ms", "median_ms", "p95_ms", "p99_ms"}
nlohmann::json toJson(const PhaseTiming& timing);
PhaseTiming phaseTimingFrom(const nlohmann::json& value);

nlohmann::json toJson(const LabArm& arm);
LabArm labArmFrom(const nlohmann::json& value);

// A row: step, data, h2d, forward, backward, optimizer (ms), loss.
nlohmann::json toJson(const StepTiming& step);
StepTiming stepTimingFrom(const nlohmann::json& row);

nlohmann::json toJson(const SweepPoint& point);
SweepPoint sweepPointFrom(const nlohmann::json& value);

// Phase rows [phase, allocated, reserved, peak] per step, the split, peaks per step.
nlohmann::json toJson(const MemoryTriage& memory);
MemoryTriage memoryTriageFrom(const nlohmann::json& value);

// A row: seconds, cpu %, gpu %, gpu memory used, allocated, reserved, resident (bytes;
// -1 where not available).
nlohmann::json toJson(const LiveSample& sample);
LiveSample liveSampleFrom(const nlohmann::json& row);

// An integer field: a JSON integer, or a float with an integral value, inside int64;
// anything else throws std::invalid_argument naming `field`.
int64_t integerOf(const nlohmann::json& value, const char* field);

}  // namespace kinetoscope::session
