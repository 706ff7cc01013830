#include "core/lab/run_progress.h"

#include "core/format/format.h"

#include <algorithm>

namespace kinetoscope::lab {

void StageEstimate::update(const RunProgress& progress, Clock::time_point now)
{
    if (progress.stage != m_progress.stage || progress.step < m_progress.step)
        m_secondStep.reset();  // a new stage (or the same name again): its own pace
    if (progress.step == 1)
        m_secondStep = now;
    m_progress = progress;
    m_last = now;
}

std::optional<double> StageEstimate::secondsLeft(Clock::time_point now) const
{
    // Steps timed since step 1 began: step - 1 of them are done.
    const int64_t timed = m_progress.step - 1;
    if (!m_secondStep || timed < 1 || m_progress.steps <= 0)
        return std::nullopt;
    const double perStep =
        std::chrono::duration<double>(m_last - *m_secondStep).count() / double(timed);
    // The step in flight has run for a while already.
    const double inFlight = std::chrono::duration<double>(now - m_last).count();
    const double left =
        perStep * double(m_progress.steps - m_progress.step) - std::min(inFlight, perStep);
    return std::max(0.0, left);
}

std::string StageEstimate::line(Clock::time_point now) const
{
    std::string text = m_progress.stage;
    if (m_progress.steps > 0)
        text += ": step " + std::to_string(m_progress.step + 1) + " of " +
                std::to_string(m_progress.steps);
    // The time left is this stage's: an arm, or a point of a sweep.
    const std::string stage = m_progress.stage.starts_with("sweep ") ? "this point" : "this arm";
    if (const std::optional<double> left = secondsLeft(now))
        text += (*left < 1 ? std::string(", under a second left")
                           : ", about " + format::seconds(*left) + " left") +
                " in " + stage;
    return text;
}

}  // namespace kinetoscope::lab
