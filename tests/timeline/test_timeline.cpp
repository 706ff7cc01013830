// The timeline's index: folding keeps every slice's count and time; viewport arithmetic
// and hit-testing are exact to the nanosecond at the end of an hour-long trace; search by
// name with next/previous.
#include "core/analysis/summary.h"
#ifndef Q_MOC_RUN  // moc cannot parse <concepts>
#include "core/format/format.h"
#endif
#include "core/timeline/counter_track.h"
#include "core/timeline/frame_folds.h"
#include "core/timeline/overview.h"
#include "core/timeline/selection.h"
#include "core/timeline/time_ruler.h"
#include "core/timeline/timeline_index.h"
#include "core/timeline/track_layout.h"
#include "core/trace/trace_loader.h"
#include "tests/support/test_support.h"

#include <QtTest>
#include <random>

using namespace kinetoscope;
using timeline::DrawItem;
using timeline::Viewport;

namespace {

constexpr int64_t kHourNs = 3'600'000'000'000;

// Checks one draw list against brute force: per lane, the items' counts add up to the
// slices that overlap the window, and each slice lies inside the item that holds it.
void verifyFolding(const timeline::TimelineIndex& index, const Viewport& view, float minPx)
{
    std::vector<DrawItem> items;
    index.buildDrawList(view, minPx, items);
    const auto events = index.model().events();
    const int64_t begin = view.beginNs, end = view.endNs();
    size_t item = 0;
    for (uint32_t l = 0; l < index.lanes().size(); ++l) {
        const timeline::Lane& lane = index.lanes()[l];
        size_t visible = 0, counted = 0;
        for (; item < items.size() && items[item].lane == l; ++item) {
            const DrawItem& d = items[item];
            QVERIFY(d.count >= 1);
            QVERIFY(d.x1 >= d.x0);
            if (d.count > 1)
                QVERIFY(d.x1 - d.x0 >= minPx - 1e-3f || d.x1 >= float(view.widthPx));
            // The run is lane.events[k .. k + count): each slice inside the item (pixels).
            const auto first = std::find(lane.events.begin(), lane.events.end(), d.event);
            QVERIFY(first != lane.events.end());
            for (uint32_t k = 0; k < d.count; ++k) {
                const trace::Event& e = events[(first + k)->value];
                const double x0 = std::clamp(view.xOf(e.startNs), -1.0, view.widthPx + 1.0);
                const double x1 = std::clamp(view.xOf(e.endNs()), -1.0, view.widthPx + 1.0);
                QVERIFY2(x0 >= d.x0 - 1e-2 && x1 <= d.x1 + 1e-2,
                         qPrintable(QString("slice %1..%2 outside item %3..%4")
                                        .arg(x0)
                                        .arg(x1)
                                        .arg(d.x0)
                                        .arg(d.x1)));
                // A run never swallows a wide slice (it would lose its name): each slice
                // in one ends within 2 minPx of the run's start.
                if (d.count > 1)
                    QVERIFY(view.xOf(e.endNs()) - view.xOf(events[first->value].startNs) <=
                            2.0 * minPx + 0.01);
            }
            counted += d.count;
        }
        for (trace::EventId id : lane.events) {
            const trace::Event& e = events[id.value];
            if (e.endNs() > begin && e.startNs <= end)
                ++visible;
        }
        QCOMPARE(counted, visible);
    }
    QCOMPARE(item, items.size());  // items come lane by lane
}

}  // namespace

class TestTimeline : public QObject
{
    Q_OBJECT
    std::shared_ptr<const trace::TraceModel> m_resnet;

private Q_SLOTS:
    void initTestCase()
    {
        trace::LoadResult r = trace::loadTraceFile(
            test::sharedTrace("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz"));
        QVERIFY2(r.ok(), r.message.c_str());
        m_resnet = std::move(r.model);
    }

    void lanesHoldEveryEventInTimeOrderAtTwelveBytesEach()
    {
        const analysis::TraceSummary summary = analysis::summarize(*m_resnet);
        const trace::TrackId lead = timeline::leadThreadOf(*m_resnet, summary.window.stepMarker);
        const timeline::TimelineIndex index(*m_resnet, lead);
        size_t total = 0;
        bool sawCpu = false;
        for (const timeline::Lane& lane : index.lanes()) {
            total += lane.events.size();
            for (size_t i = 1; i < lane.events.size(); ++i)
                QVERIFY(m_resnet->event(lane.events[i - 1]).startNs <=
                        m_resnet->event(lane.events[i]).startNs);
            for (trace::EventId id : lane.events)
                QCOMPARE(m_resnet->event(id).depth, lane.depth);
            const bool cpu = m_resnet->track(lane.track).kind == trace::TrackKind::CpuThread;
            QVERIFY(!(sawCpu && m_resnet->track(lane.track).kind ==
                                    trace::TrackKind::GpuStream));  // devices first
            sawCpu = sawCpu || cpu;
        }
        QCOMPARE(total, m_resnet->events().size());
        QVERIFY(sawCpu);
        QVERIFY(double(index.memoryBytes()) / double(total) <= 16.0);
        const trace::EventId some{uint32_t(total / 2)};
        const timeline::Lane& lane = index.lanes()[index.laneOf(some)];
        QVERIFY(std::find(lane.events.begin(), lane.events.end(), some) != lane.events.end());
        // The lead thread holds the step markers and comes right after the devices.
        QVERIFY(lead.valid());
        const auto steps = std::count_if(
            m_resnet->events().begin(), m_resnet->events().end(), [&](const trace::Event& e) {
                return e.track == lead && m_resnet->text(e.name).starts_with("ProfilerStep#");
            });
        QVERIFY(steps >= 6);
        const auto firstCpu =
            std::find_if(index.lanes().begin(), index.lanes().end(), [&](const timeline::Lane& l) {
                return m_resnet->track(l.track).kind == trace::TrackKind::CpuThread;
            });
        QCOMPARE(firstCpu->track, lead);
    }

    // Real traces hold events that overlap on one thread or stream without nesting; each
    // goes on an extra row of its depth, so no lane holds two slices over the same time.
    void overlappingEventsGoOnExtraRowsNeverHidden()
    {
        trace::LoadResult r = trace::loadTraceFile(
            test::sharedTrace("tracelens/b300_sglang_deepseek_r1_decode.json.gz"));
        QVERIFY2(r.ok(), r.message.c_str());
        const trace::TraceModel& model = *r.model;
        const timeline::TimelineIndex index(model);
        QVERIFY(model.stats().partialOverlaps > 100);
        size_t total = 0, onExtraRows = 0;
        for (uint32_t l = 0; l < index.lanes().size(); ++l) {
            const timeline::Lane& lane = index.lanes()[l];
            total += lane.events.size();
            int64_t lastEnd = INT64_MIN;
            for (trace::EventId id : lane.events) {
                const trace::Event& e = model.event(id);
                QVERIFY2(e.startNs >= lastEnd, "two slices of one lane overlap");
                lastEnd = e.endNs();
                QCOMPARE(index.laneOf(id), l);
                if (lane.overlapRow > 0) {
                    ++onExtraRows;
                    const trace::EventId other = index.overlappedBy(id);
                    QVERIFY(other.valid());
                    const trace::Event& o = model.event(other);
                    QCOMPARE(o.track, e.track);
                    QCOMPARE(o.depth, e.depth);
                    QVERIFY(o.startNs < e.endNs() && e.startNs < o.endNs());  // they do overlap
                } else {
                    QVERIFY(!index.overlappedBy(id).valid());
                }
            }
            if (lane.overlapRow > 0) {  // right after its depth's earlier rows
                QCOMPARE(index.lanes()[l - 1].track, lane.track);
                QCOMPARE(index.lanes()[l - 1].depth, lane.depth);
                QCOMPARE(index.lanes()[l - 1].overlapRow, uint16_t(lane.overlapRow - 1));
            }
        }
        QCOMPARE(total, model.events().size());
        QCOMPARE(onExtraRows, index.overlappingEvents());
        QVERIFY(onExtraRows > 0);
    }

    // A real inference trace opens with ten rows of Python frames spanning the whole
    // window (<module>, spawn_main, _bootstrap, the scheduler's loop): all but the
    // thread's first fold into one row; the frames that vary stay rows of their own.
    void pythonFramesSpanningTheWindowFoldIntoOneRow()
    {
        trace::LoadResult r = trace::loadTraceFile(
            test::sharedTrace("tracelens/b300_sglang_deepseek_r1_decode.json.gz"));
        QVERIFY2(r.ok(), r.message.c_str());
        const trace::TraceModel& model = *r.model;
        const analysis::TraceSummary summary = analysis::summarize(model);
        const timeline::TimelineIndex index(
            model, timeline::leadThreadOf(model, summary.window.stepMarker));
        const int64_t span = timeline::foldSpanNs(model, summary.steps.steps);
        const auto folds = timeline::findFrameFolds(index, span);
        const auto& lanes = index.lanes();
        const auto onLead =
            std::find_if(folds.begin(), folds.end(), [&](const timeline::FrameFold& f) {
                return lanes[f.firstLane].track == index.leadThread();
            });
        QVERIFY(onLead != folds.end());
        const timeline::FrameFold& fold = *onLead;
        QCOMPARE(lanes[fold.firstLane].depth, uint16_t(1));  // the thread's named first row stays
        const uint32_t frames = fold.lastLane - fold.firstLane;
        QVERIFY(frames >= 8);
        for (uint32_t l = fold.firstLane; l < fold.lastLane; ++l) {
            bool long_ = false;
            for (trace::EventId id : lanes[l].events) {
                QCOMPARE(model.event(id).category, trace::Category::PythonFunction);
                long_ = long_ || model.event(id).durationNs >= span;
            }
            QVERIFY(long_);
        }
        // The row below the fold holds frames that vary within the window.
        const timeline::Lane& below = lanes[fold.lastLane];
        QCOMPARE(below.track, index.leadThread());
        QVERIFY(std::all_of(below.events.begin(), below.events.end(),
                            [&](trace::EventId id) { return model.event(id).durationNs < span; }) ||
                std::any_of(below.events.begin(), below.events.end(), [&](trace::EventId id) {
                    return model.event(id).category != trace::Category::PythonFunction;
                }));
        QVERIFY2(QString::fromStdString(fold.label)
                     .startsWith(QString("%1 Python frames: spawn_main > \u2026 > ").arg(frames)),
                 fold.label.c_str());
        QCOMPARE(std::count(fold.chain.begin(), fold.chain.end(), '>'), std::ptrdiff_t(frames - 1));
        QCOMPARE(std::string(timeline::frameFunction("scheduler.py(1534): run_event_loop")),
                 std::string("run_event_loop"));

        // Laid out: one row while folded, holding every folded lane; expanded, a header
        // and one row per frame.
        timeline::TrackLayout layout(index, {}, folds);
        const int folded = layout.height();
        for (uint32_t l = fold.firstLane; l < fold.lastLane; ++l)
            QCOMPARE(layout.laneY(l), layout.laneY(fold.firstLane));
        const auto foldRow = std::find_if(
            layout.rows().begin(), layout.rows().end(), [&](const timeline::LayoutRow& row) {
                return row.kind == timeline::RowKind::Fold &&
                       layout.folds()[row.index].firstLane == fold.firstLane;
            });
        QVERIFY(foldRow != layout.rows().end());
        QCOMPARE(layout.lanesOf(*foldRow), std::pair(fold.firstLane, fold.lastLane));
        QCOMPARE(layout.lanesIn(foldRow->y, foldRow->y + 1),
                 std::pair(fold.firstLane, fold.lastLane));
        const uint32_t f = uint32_t(onLead - folds.begin());
        layout.setExpanded(f, true);
        QCOMPARE(layout.height(), folded + int(frames) * timeline::TrackLayout::kLaneHeight);
        QVERIFY(layout.laneY(fold.firstLane + 1) > layout.laneY(fold.firstLane));
        layout.setExpanded(f, false);
        QCOMPARE(layout.height(), folded);
    }

    // The overview's sparkline: the device's busy fraction per bucket (the mean over
    // devices), or the CPU's when there is no device activity.
    void busyProfileIsTheDevicesElseTheCpus()
    {
        const analysis::TraceSummary summary = analysis::summarize(*m_resnet);
        const timeline::BusyProfile gpu = timeline::busyProfile(summary.utilization);
        QCOMPARE(gpu.label, std::string("GPU busy"));
        QCOMPARE(summary.utilization.gpuBusy.size(), size_t(1));
        QCOMPARE(gpu.values, summary.utilization.gpuBusy.begin()->second);
        QVERIFY(gpu.endNs() >= m_resnet->endNs() - gpu.bucketNs);
        trace::LoadResult r =
            trace::loadTraceFile(test::sharedTrace("misc/dtu_mlops_cpu_memory.json.gz"));
        QVERIFY2(r.ok(), r.message.c_str());
        const timeline::BusyProfile cpu =
            timeline::busyProfile(analysis::summarize(*r.model).utilization);
        QCOMPARE(cpu.label, std::string("CPU busy"));
        QVERIFY(
            std::any_of(cpu.values.begin(), cpu.values.end(), [](float v) { return v > 0.5f; }));
        QVERIFY(std::all_of(cpu.values.begin(), cpu.values.end(),
                            [](float v) { return v >= 0.0f && v <= 1.0f; }));
    }

    void foldingKeepsCountsAndTimeCoverage()
    {
        const timeline::TimelineIndex index(*m_resnet);
        const int64_t begin = m_resnet->beginNs(), end = m_resnet->endNs();
        verifyFolding(index, Viewport::fit(begin, end, 1600), 3.0f);  // whole trace: mostly folds
        std::mt19937_64 random(7);
        for (int round = 0; round < 25; ++round) {
            const int64_t a = begin + int64_t(random() % uint64_t(end - begin));
            const int64_t span = int64_t(1) << (10 + random() % 26);  // 1 us .. 34 s
            verifyFolding(index, Viewport::fit(a, a + span, 1000), round % 2 ? 3.0f : 1.0f);
        }
        // Folding really happens on the whole-trace view, and not at 1 ms around a kernel.
        std::vector<DrawItem> whole, narrow;
        index.buildDrawList(Viewport::fit(begin, end, 1600), 3.0f, whole);
        QVERIFY(whole.size() < m_resnet->events().size() / 4);
        QVERIFY(
            std::any_of(whole.begin(), whole.end(), [](const DrawItem& d) { return d.count > 1; }));
    }

    void viewportArithmeticIsExactAtTheEndOfAnHour()
    {
        // An hour-long trace on the Unix clock (ns since 1970: about 1.7e18).
        const int64_t epoch = 1'763'000'000'000'000'000;
        Viewport view = Viewport::fit(epoch, epoch + kHourNs, 1920);
        const double x = 1919.5;
        const int64_t anchor = view.timeAt(x);
        QVERIFY(anchor > epoch + kHourNs - int64_t(2 * view.nsPerPixel));
        for (int i = 0; i < 200 && view.nsPerPixel > Viewport::kMinNsPerPixel; ++i) {
            view.zoomAround(x, 0.8);
            QCOMPARE(view.timeAt(x), anchor);  // the time under the cursor never moves
        }
        QCOMPARE(view.nsPerPixel, Viewport::kMinNsPerPixel);
        for (int i = 0; i < 400; ++i)  // far past the widest zoom: clamped, no overflow
            view.zoomAround(x, 1.25);
        QCOMPARE(view.nsPerPixel, Viewport::kMaxNsPerPixel);
        QCOMPARE(view.timeAt(x), anchor);
        // At ns scale every ns maps to its own pixel and back.
        view.widthPx = 1000;
        view.showRange(epoch + kHourNs - 1000, epoch + kHourNs);
        for (int64_t t = epoch + kHourNs - 1000; t <= epoch + kHourNs; ++t)
            QCOMPARE(view.timeAt(view.xOf(t)), t);
        view.pan(-250.0);
        QCOMPARE(view.beginNs, epoch + kHourNs - 1250);
    }

    void hitTestingFindsOneNanosecondAtTheEndOfAnHour()
    {
        // Three slices on one thread: one long, two of 1 ns in the trace's last microsecond.
        const std::string text = R"j({"traceEvents": [
            {"ph": "X", "name": "long op", "cat": "cpu_op", "pid": 1, "tid": 1, "ts": 0, "dur": 1000},
            {"ph": "X", "name": "tiny a", "cat": "cpu_op", "pid": 1, "tid": 1, "ts": 3599999999.998, "dur": 0.001},
            {"ph": "X", "name": "tiny b", "cat": "cpu_op", "pid": 1, "tid": 1, "ts": 3599999999.999, "dur": 0.001}]})j";
        trace::LoadResult r = trace::loadTraceText(text);
        QVERIFY2(r.ok(), r.message.c_str());
        const timeline::TimelineIndex index(*r.model);
        QCOMPARE(index.lanes().size(), size_t(1));
        const int64_t a = kHourNs - 2, b = kHourNs - 1;
        QCOMPARE(r.model->event(index.lanes()[0].events[1]).startNs - r.model->beginNs(), a);
        // 100 px per ns around the two.
        Viewport view = Viewport::fit(r.model->beginNs() + a - 5, r.model->beginNs() + a + 5, 1000);
        QCOMPARE(view.nsPerPixel, 0.01);
        auto nameAt = [&](double x, double tolerance) {
            const trace::EventId id = index.hitTest(0, view, x, tolerance);
            if (!id)
                return QString();
            const std::string_view name =
                r.model->text(r.model->event(id).name);  // not NUL-terminated
            return QString::fromUtf8(name.data(), qsizetype(name.size())).left(6);
        };
        QCOMPARE(nameAt(view.xOf(r.model->beginNs() + a) + 50, 0), QStringLiteral("tiny a"));
        QCOMPARE(nameAt(view.xOf(r.model->beginNs() + b) + 50, 0), QStringLiteral("tiny b"));
        QCOMPARE(nameAt(view.xOf(r.model->beginNs() + b + 1) + 60, 0), QString());  // past the end
        QCOMPARE(nameAt(view.xOf(r.model->beginNs() + b + 1) + 60, 100),
                 QStringLiteral("tiny b"));                                      // within 1 ns
        QCOMPARE(nameAt(view.xOf(r.model->beginNs() + a) - 350, 0), QString());  // before
        // The folded whole-trace view still counts all three.
        std::vector<DrawItem> items;
        index.buildDrawList(Viewport::fit(r.model->beginNs(), r.model->endNs(), 800), 3.0f, items);
        uint32_t count = 0;
        for (const DrawItem& d : items)
            count += d.count;
        QCOMPARE(count, 3u);
    }

    void searchFindsNamesAndSteps()
    {
        const std::vector<trace::EventId> matches =
            timeline::searchByName(*m_resnet, "CONVOLUTION");
        QVERIFY(matches.size() > 100);
        for (size_t i = 0; i < matches.size(); ++i) {
            QString name = QString::fromUtf8(
                m_resnet->text(m_resnet->event(matches[i]).name).data(),
                qsizetype(m_resnet->text(m_resnet->event(matches[i]).name).size()));
            QVERIFY(name.contains(QStringLiteral("convolution"), Qt::CaseInsensitive));
            if (i > 0)
                QVERIFY(m_resnet->event(matches[i - 1]).startNs <=
                        m_resnet->event(matches[i]).startNs);
        }
        const int64_t middle = m_resnet->event(matches[matches.size() / 2]).startNs;
        const trace::EventId next = timeline::nextMatch(*m_resnet, matches, middle, true);
        const trace::EventId previous = timeline::nextMatch(*m_resnet, matches, middle, false);
        QVERIFY(m_resnet->event(next).startNs > middle);
        QVERIFY(m_resnet->event(previous).startNs < middle);
        // Wrap-around at both ends; nothing for a name that is not there.
        QCOMPARE(timeline::nextMatch(*m_resnet, matches, m_resnet->endNs(), true), matches.front());
        QCOMPARE(timeline::nextMatch(*m_resnet, matches, m_resnet->beginNs(), false),
                 matches.back());
        QVERIFY(timeline::searchByName(*m_resnet, "no such kernel anywhere").empty());
        QVERIFY(!timeline::nextMatch(*m_resnet, {}, 0, true));
    }

    void rulerTicksAreEvenlySpacedWithExactLabels()
    {
        QCOMPARE(timeline::rulerStepNs(1.0, 90), int64_t(100));
        QCOMPARE(timeline::rulerStepNs(1000.0, 90), int64_t(100'000));
        QCOMPARE(timeline::rulerStepNs(3000.0, 90), int64_t(500'000));
        QCOMPARE(timeline::rulerStepNs(0.001, 90), int64_t(1));  // never below a nanosecond
        // A 10 ms view at 1000 px: labels every 1 ms, 0.2 ms minor ticks, in ms.
        const int64_t origin = 1'700'000'000'000'000'000;
        const Viewport view = Viewport::fit(origin, origin + 10'000'000, 1000);
        const auto ticks = timeline::rulerTicks(view, origin);
        std::vector<std::string> labels;
        for (size_t i = 0; i < ticks.size(); ++i) {
            QCOMPARE(ticks[i].x, view.xOf(ticks[i].timeNs));
            if (i > 0)
                QCOMPARE(ticks[i].timeNs - ticks[i - 1].timeNs, int64_t(200'000));
            if (ticks[i].labelled)
                labels.push_back(ticks[i].label);
        }
        QVERIFY(labels.size() >= 10);
        QCOMPARE(QString::fromStdString(labels[0]), QString("0 ms"));
        QCOMPARE(QString::fromStdString(labels[3]), QString("3 ms"));
        // At the end of an hour, 1 ns apart: the last digit of each label still differs.
        const Viewport end = Viewport::fit(origin + kHourNs - 20, origin + kHourNs, 1000);
        const auto fine = timeline::rulerTicks(end, origin, 90);
        std::vector<std::string> last;
        for (const auto& t : fine)
            if (t.labelled)
                last.push_back(t.label);
        QVERIFY(last.size() >= 2);
        QCOMPARE(QString::fromStdString(last.back()), QString("3600.000000000 s"));
        QVERIFY(last[last.size() - 2] != last.back());
        QCOMPARE(QString::fromStdString(format::duration(1'234'567)), QString("1.23 ms"));
        QCOMPARE(QString::fromStdString(format::duration(850)), QString("850 ns"));
        QCOMPARE(QString::fromStdString(format::duration(12'345)), QString("12.3 µs"));
        QCOMPARE(QString::fromStdString(timeline::formatTime(kHourNs - 1, 1)),
                 QString("3599.999999999 s"));
    }

    void counterColumnsHoldTheMinAndMaxOfEachPixel()
    {
        // A saw-tooth with 100 000 samples, drawn at 500 px: brute force per column.
        timeline::CounterSeries series;
        std::mt19937_64 random(3);
        int64_t t = 1'000'000;
        for (int i = 0; i < 100'000; ++i) {
            series.timesNs.push_back(t);
            series.values.push_back(double(random() % 1000));
            t += 1 + int64_t(random() % 200);
        }
        series.endNs = t;
        // Both passes: sample by sample, and per column from the min/max pyramid (taken
        // when a column holds many samples: the first two views).
        for (const bool pyramid : {false, true}) {
            if (pyramid)
                timeline::buildPyramid(series);
            QCOMPARE(series.pyramid.empty(), !pyramid);
            for (const Viewport& view :
                 {Viewport::fit(0, t + 1'000'000, 500), Viewport::fit(t / 2, t / 2 + 400'000, 20),
                  Viewport::fit(t / 2, t / 2 + 40'000, 500),
                  Viewport::fit(t / 3, t / 3 + 300, 500)}) {
                std::vector<timeline::CounterColumn> columns;
                timeline::buildCounterColumns(series, view, columns);
                QCOMPARE(columns.size(), size_t(view.widthPx));
                for (int c = 0; c < view.widthPx; ++c) {
                    // Values whose holding interval [t_i, t_i+1) meets the column [c, c + 1) in
                    // pixels.
                    double lo = 1e300, hi = -1e300;
                    for (size_t i = 0; i < series.timesNs.size(); ++i) {
                        const int64_t until =
                            i + 1 < series.timesNs.size() ? series.timesNs[i + 1] : series.endNs;
                        const double x0 = view.xOf(series.timesNs[i]), x1 = view.xOf(until);
                        if (std::floor(x0) <= c && (std::ceil(x1) > c || std::floor(x0) == c)) {
                            lo = std::min(lo, series.values[i]);
                            hi = std::max(hi, series.values[i]);
                        }
                    }
                    const bool covered = lo <= hi;
                    QCOMPARE(columns[size_t(c)].covered, covered);
                    if (covered) {
                        QCOMPARE(columns[size_t(c)].min, lo);
                        QCOMPARE(columns[size_t(c)].max, hi);
                    }
                }
            }
        }
    }

    void rangeTotalsMatchBruteForce()
    {
        const timeline::TimelineIndex index(*m_resnet);
        const int64_t begin = m_resnet->beginNs() + (m_resnet->endNs() - m_resnet->beginNs()) / 3;
        const int64_t end = begin + 20'000'000;
        const auto cpu =
            std::find_if(index.lanes().begin(), index.lanes().end(), [&](const timeline::Lane& l) {
                return m_resnet->track(l.track).kind == trace::TrackKind::CpuThread;
            });
        const uint32_t firstCpu = uint32_t(cpu - index.lanes().begin());
        for (auto [first, last] :
             {std::pair<uint32_t, uint32_t>{0, UINT32_MAX}, {firstCpu + 1, firstCpu + 4}}) {
            const timeline::RangeTotals totals =
                timeline::totalsInRange(index, begin, end, first, last);
            uint64_t slices = 0;
            int64_t total = 0;
            for (uint32_t l = first; l < std::min<uint32_t>(last, uint32_t(index.lanes().size()));
                 ++l)
                for (trace::EventId id : index.lanes()[l].events) {
                    const trace::Event& e = m_resnet->event(id);
                    if (e.endNs() > begin && e.startNs < end) {
                        ++slices;
                        total += std::min(e.endNs(), end) - std::max(e.startNs, begin);
                    }
                }
            QVERIFY(slices > 10);
            QCOMPARE(totals.slices, slices);
            QCOMPARE(totals.totalNs, total);
            uint64_t rows = 0;
            for (size_t i = 0; i < totals.byName.size(); ++i) {
                rows += totals.byName[i].count;
                if (i > 0)
                    QVERIFY(totals.byName[i - 1].totalNs >= totals.byName[i].totalNs);
            }
            QCOMPARE(rows, slices);
        }
    }

    void linksJoinLaunchesAndKernelsBothWays()
    {
        const auto events = m_resnet->events();
        const auto kernel = std::find_if(events.begin(), events.end(), [](const trace::Event& e) {
            return e.category == trace::Category::Kernel && e.correlated.valid();
        });
        QVERIFY(kernel != events.end());
        const trace::EventId kernelId = m_resnet->idOf(*kernel);
        const auto up = timeline::linksOf(*m_resnet, kernelId);
        QCOMPARE(up.size(), size_t(1));
        QCOMPARE(up[0].to, kernelId);
        QVERIFY(trace::isLaunchCall(m_resnet->event(up[0].from).category));
        const auto down = timeline::linksOf(*m_resnet, up[0].from);
        QVERIFY(std::any_of(down.begin(), down.end(),
                            [&](const timeline::FlowLink& l) { return l.to == kernelId; }));
        // From the CPU op behind the launch: at least the same kernel.
        if (kernel->op.valid()) {
            const auto fromOp = timeline::linksOf(*m_resnet, kernel->op);
            QVERIFY(std::any_of(fromOp.begin(), fromOp.end(),
                                [&](const timeline::FlowLink& l) { return l.to == kernelId; }));
        }
        QVERIFY(timeline::linksOf(*m_resnet, {}).empty());
    }

    void layoutGroupsLanesAndCountersAndCollapses()
    {
        const timeline::TimelineIndex index(*m_resnet);
        const analysis::TraceSummary summary = analysis::summarize(*m_resnet);
        const auto counters = timeline::countersFromSummary(summary, m_resnet->endNs());
        QVERIFY(std::any_of(counters.begin(), counters.end(),
                            [](const auto& c) { return c.label == "cuda:0 memory"; }));
        QVERIFY(std::any_of(counters.begin(), counters.end(),
                            [](const auto& c) { return c.label == "GPU 0 utilisation"; }));
        timeline::TrackLayout layout(index, counters);
        // Every lane has exactly one row; every counter one row; rows tile the height.
        size_t lanes = 0, counterRows = 0;
        int y = 0;
        for (const timeline::LayoutRow& row : layout.rows()) {
            QCOMPARE(row.y, y);
            y += row.height;
            lanes += row.kind == timeline::RowKind::Lane;
            counterRows += row.kind == timeline::RowKind::Counter;
            QCOMPARE(layout.rowAt(row.y), &row);
            QCOMPARE(layout.rowAt(row.y + row.height - 1), &row);
        }
        QCOMPARE(y, layout.height());
        QCOMPARE(lanes, index.lanes().size());
        QCOMPARE(counterRows, counters.size());
        QVERIFY(layout.rowAt(layout.height()) == nullptr);
        // The GPU group holds the GPU memory counter, and collapsing hides its lanes.
        const auto gpu =
            std::find_if(layout.groups().begin(), layout.groups().end(),
                         [](const timeline::TrackGroup& g) { return g.key == "gpu:0"; });
        QVERIFY(gpu != layout.groups().end());
        QVERIFY(!gpu->counters.empty());
        const uint32_t g = uint32_t(gpu - layout.groups().begin());
        const uint32_t lane = gpu->firstLane;
        QVERIFY(layout.laneY(lane) >= 0);
        const int before = layout.height();
        layout.setCollapsed(g, true);
        QCOMPARE(layout.laneY(lane), -1);
        QVERIFY(layout.height() < before);
        for (const timeline::LayoutRow& row : layout.rows())
            QVERIFY(!(row.kind == timeline::RowKind::Lane && row.index >= gpu->firstLane &&
                      row.index < gpu->lastLane));
        layout.setCollapsed(g, false);
        QCOMPARE(layout.height(), before);
        QCOMPARE(QString::fromStdString(layout.laneLabel(lane)), QString("Stream 7"));
    }
};

QTEST_GUILESS_MAIN(TestTimeline)
#include "test_timeline.moc"
