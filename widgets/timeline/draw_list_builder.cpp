#include "widgets/timeline/draw_list_builder.h"

#include <chrono>

namespace kinetoscope::widgets {

DrawListBuilder::DrawListBuilder(const timeline::TimelineIndex& index,
                                 const std::vector<timeline::CounterTrack>& counters,
                                 QObject* parent)
    : QObject(parent), m_index(index), m_counters(counters), m_thread([this] { loop(); })
{
}

DrawListBuilder::~DrawListBuilder()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_changed.notify_all();
    m_thread.join();
}

void DrawListBuilder::request(const FrameRequest& request)
{
    {
        std::lock_guard lock(m_mutex);
        m_pending = request;
    }
    m_changed.notify_all();
}

std::shared_ptr<const TimelineFrame> DrawListBuilder::latest() const
{
    std::lock_guard lock(m_mutex);
    return m_latest;
}

bool DrawListBuilder::waitUntilIdle(int timeoutMs) const
{
    std::unique_lock lock(m_mutex);
    return m_changed.wait_for(lock, std::chrono::milliseconds(timeoutMs),
                              [this] { return !m_pending && !m_busy; });
}

void DrawListBuilder::build(const timeline::TimelineIndex& index,
                            const std::vector<timeline::CounterTrack>& counters,
                            const FrameRequest& request, TimelineFrame& frame)
{
    const auto start = std::chrono::steady_clock::now();
    frame.request = request;
    frame.items.clear();
    if (request.firstLane < request.lastLane)
        index.buildDrawList(request.view, kFoldPx, frame.items, request.firstLane,
                            request.lastLane);
    frame.counters.resize(counters.size());
    for (size_t c = 0; c < counters.size(); ++c) {
        frame.counters[c].resize(counters[c].series.size());
        for (size_t s = 0; s < counters[c].series.size(); ++s)
            timeline::buildCounterColumns(counters[c].series[s], request.view,
                                          frame.counters[c][s]);
    }
    frame.buildMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

void DrawListBuilder::loop()
{
    while (true) {
        FrameRequest request;
        {
            std::unique_lock lock(m_mutex);
            m_changed.wait(lock, [this] { return m_stop || m_pending.has_value(); });
            if (m_stop)
                return;
            request = *m_pending;
            m_pending.reset();
            m_busy = true;
        }
        auto frame = std::make_shared<TimelineFrame>();
        build(m_index, m_counters, request, *frame);
        {
            std::lock_guard lock(m_mutex);
            m_latest = std::move(frame);
            m_busy = false;
        }
        m_changed.notify_all();
        Q_EMIT frameReady();
    }
}

}  // namespace kinetoscope::widgets
