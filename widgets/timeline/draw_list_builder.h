#pragma once
// Builds the timeline's frames (draw list and counter columns) on a worker thread, so the
// GUI thread only paints. The newest request wins: requests made while one is being built
// replace each other, and frameReady() tells the view a new frame can be painted.
#include "core/timeline/counter_track.h"
#include "core/timeline/timeline_index.h"

#include <QObject>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace kinetoscope::widgets {

struct FrameRequest
{
    timeline::Viewport view;
    uint32_t firstLane = 0, lastLane = 0;  // the lanes on screen
    uint64_t generation = 0;
};

struct TimelineFrame
{
    FrameRequest request;  // what it was built for (painting maps it to the current view)
    std::vector<timeline::DrawItem> items;
    // Per counter track, per series: one column per pixel of request.view.
    std::vector<std::vector<std::vector<timeline::CounterColumn>>> counters;
    double buildMs = 0;
};

class DrawListBuilder : public QObject
{
    Q_OBJECT
public:
    static constexpr float kFoldPx = 3.0f;  // slices narrower than this fold into runs

    DrawListBuilder(const timeline::TimelineIndex& index,
                    const std::vector<timeline::CounterTrack>& counters, QObject* parent = nullptr);
    ~DrawListBuilder() override;

    void request(const FrameRequest& request);
    std::shared_ptr<const TimelineFrame> latest() const;
    // Blocks until no request is pending or being built (tests, screenshots).
    bool waitUntilIdle(int timeoutMs) const;
    // The work itself, for benchmarks and synchronous callers.
    static void build(const timeline::TimelineIndex& index,
                      const std::vector<timeline::CounterTrack>& counters,
                      const FrameRequest& request, TimelineFrame& frame);

Q_SIGNALS:
    void frameReady();  // emitted from the worker thread

private:
    void loop();
    const timeline::TimelineIndex& m_index;
    const std::vector<timeline::CounterTrack>& m_counters;
    mutable std::mutex m_mutex;
    mutable std::condition_variable m_changed;
    std::optional<FrameRequest> m_pending;
    bool m_busy = false;
    bool m_stop = false;
    std::shared_ptr<const TimelineFrame> m_latest;
    std::thread m_thread;  // last: starts once everything above exists
};

}  // namespace kinetoscope::widgets
