#pragma once
// Paints one timeline frame: the ruler, group headers, lane labels, slices (folded runs
// darker), counters as min/max columns, step boundaries, search matches, the selection
// with its flow arrows, and a selected range. Painting only paints: every list it reads
// was built beforehand (DrawListBuilder, TrackLayout, linksOf).
#include "core/analysis/steps.h"
#include "core/timeline/selection.h"
#include "core/timeline/track_layout.h"
#include "widgets/timeline/draw_list_builder.h"

#include <QSize>
#include <optional>
#include <utility>

class QPainter;

namespace kinetoscope::widgets {

struct TimelinePaintState
{
    const timeline::TimelineIndex* index = nullptr;
    const timeline::TrackLayout* layout = nullptr;
    const std::vector<timeline::CounterTrack>* counters = nullptr;
    const TimelineFrame* frame = nullptr;  // may be older than `view`: it is mapped onto it
    const std::vector<analysis::Step>* steps = nullptr;
    timeline::Viewport view;  // the time area only: x = 0 is its left edge
    int64_t originNs = 0;     // the ruler counts from here (the trace's first event)
    int scrollY = 0;          // layout pixels above the first visible row
    int labelWidth = 200;
    int rulerHeight = 34;
    trace::EventId selected;
    std::vector<timeline::FlowLink> links;
    std::optional<std::pair<int64_t, int64_t>> range;
    std::pair<uint32_t, uint32_t> rangeLanes{0, UINT32_MAX};  // the box's lanes
    const std::vector<uint8_t>* matchedNames = nullptr;       // by string id; null: no search
};

void paintTimeline(QPainter& painter, QSize size, const TimelinePaintState& state);

}  // namespace kinetoscope::widgets
