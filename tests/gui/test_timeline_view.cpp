// The timeline page over real traces, offscreen, driven through real mouse, wheel and key
// events: what it paints (kernels, counters, steps, the flow arrow), navigation that keeps
// the time under the cursor, selection with details, box-select totals, search, jumps
// from the tables and findings, and every trace in ../shared/traces.
#include "core/document/document.h"
#include "core/timeline/selection.h"
#include "tests/support/image_checks.h"
#include "tests/support/test_support.h"
#include "widgets/document_view.h"
#include "widgets/table_view.h"
#include "widgets/timeline/draw_list_builder.h"
#include "widgets/timeline/timeline_details.h"
#include "widgets/timeline/timeline_overview.h"
#include "widgets/timeline/timeline_page.h"
#include "widgets/timeline/timeline_palette.h"
#include "widgets/timeline/timeline_view.h"

#include <QLineEdit>
#include <QScrollBar>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTableView>
#include <QtTest>
#include <filesystem>
#include <set>

using namespace kinetoscope;
using widgets::TimelineView;

namespace {

void sendMouse(QWidget* widget, QEvent::Type type, QPointF at, Qt::MouseButtons buttons,
               Qt::KeyboardModifiers modifiers = Qt::NoModifier)
{
    const Qt::MouseButton button = type == QEvent::MouseMove ? Qt::NoButton : Qt::LeftButton;
    QMouseEvent event(type, at, widget->mapToGlobal(at), button, buttons, modifiers);
    QCoreApplication::sendEvent(widget, &event);
}

void drag(QWidget* widget, QPointF from, QPointF to,
          Qt::KeyboardModifiers modifiers = Qt::NoModifier)
{
    sendMouse(widget, QEvent::MouseButtonPress, from, Qt::LeftButton, modifiers);
    for (int i = 1; i <= 4; ++i)
        sendMouse(widget, QEvent::MouseMove, from + (to - from) * (i / 4.0), Qt::LeftButton,
                  modifiers);
    sendMouse(widget, QEvent::MouseButtonRelease, to, Qt::NoButton, modifiers);
}

void wheel(QWidget* widget, QPointF at, int notches)
{
    QWheelEvent event(at, widget->mapToGlobal(at), QPoint(), QPoint(0, 120 * notches), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QCoreApplication::sendEvent(widget, &event);
}

// Pixels of `image` inside `rect` whose colour is in `colours`.
int countColour(const QImage& image, const QRect& rect, const QSet<QRgb>& colours)
{
    int n = 0;
    for (int y = std::max(0, rect.top()); y <= std::min(image.height() - 1, rect.bottom()); ++y)
        for (int x = std::max(0, rect.left()); x <= std::min(image.width() - 1, rect.right()); ++x)
            n += colours.contains(image.pixel(x, y) | 0xff000000u);
    return n;
}

trace::EventId firstNamed(const trace::TraceModel& model, std::string_view name)
{
    for (const trace::Event& e : model.events())
        if (model.text(e.name) == name)
            return model.idOf(e);
    return {};
}

}  // namespace

class TestTimelineView : public QObject
{
    Q_OBJECT
    std::shared_ptr<const document::Document> m_resnet;

    std::unique_ptr<widgets::TimelinePage> openPage()
    {
        auto page = std::make_unique<widgets::TimelinePage>(m_resnet);
        page->resize(1400, 900);
        page->show();
        if (!QTest::qWaitForWindowExposed(page.get()))
            return nullptr;
        page->view()->waitForFrame();
        return page;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);  // the remembered layout away from the user's
        QSettings().remove(QStringLiteral("timeline"));
        m_resnet = document::open(
            test::sharedTrace("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz").string());
        QVERIFY(m_resnet->model);
    }

    void opensOnTheFirstSteadyStepWithTheDeviceOnScreen()
    {
        const auto page = openPage();
        QVERIFY(page);
        TimelineView* view = page->view();
        QVERIFY(view->waitForFrame());
        // The first steady step fills the view.
        const analysis::Step& first = m_resnet->summary.steps.steps.front();
        const timeline::Viewport& v = view->timeViewport();
        QVERIFY(v.beginNs <= first.beginNs && v.endNs() >= first.endNs);
        QVERIFY(double(first.durationNs()) / double(v.endNs() - v.beginNs) > 0.9);
        // The GPU stream and the lead thread's first row are on screen without scrolling.
        QCOMPARE(view->verticalScrollBar()->value(), 0);
        const int visible = view->viewport()->height() - TimelineView::kRulerHeight;
        const timeline::TimelineIndex& index = page->index();
        bool sawStream = false;
        for (uint32_t l = 0; l < index.lanes().size(); ++l)
            if (index.lanes()[l].track == index.leadThread() ||
                m_resnet->model->track(index.lanes()[l].track).kind ==
                    trace::TrackKind::GpuStream) {
                if (index.lanes()[l].depth > 0)
                    continue;
                sawStream = sawStream || m_resnet->model->track(index.lanes()[l].track).kind ==
                                             trace::TrackKind::GpuStream;
                QVERIFY(view->layout().laneY(l) >= 0);
                QVERIFY(view->layout().laneY(l) + timeline::TrackLayout::kLaneHeight <= visible);
            }
        QVERIFY(sawStream);
        // Home comes back here after a move, 0 shows the whole trace.
        view->setFocus();
        QTest::keyClick(view, Qt::Key_0);
        const trace::TraceModel& model = *m_resnet->model;
        QVERIFY(view->timeViewport().beginNs <= model.beginNs());
        QVERIFY(view->timeViewport().endNs() >= model.endNs());
        QVERIFY(view->waitForFrame());
        const auto frame = view->currentFrame();
        QVERIFY(frame && !frame->items.empty());
        QVERIFY(std::any_of(frame->items.begin(), frame->items.end(),
                            [](const timeline::DrawItem& d) { return d.count > 1; }));
        // Kernels on the stream lane, in their category's colours, in the picture.
        QSet<QRgb> kernelColours;
        int streamY = -1;
        for (const timeline::DrawItem& d : frame->items) {
            const trace::Event& e = model.event(d.event);
            if (e.category != trace::Category::Kernel)
                continue;
            const QColor c = widgets::sliceColor(e.category, e.name.value);
            kernelColours << c.rgb() << c.darker(125).rgb();
            streamY = view->layout().laneY(d.lane);
        }
        QVERIFY(streamY >= 0);
        const QImage image = view->viewport()->grab().toImage();
        const QRect streamRow(
            TimelineView::kLabelWidth,
            TimelineView::kRulerHeight + streamY - view->verticalScrollBar()->value(),
            image.width() - TimelineView::kLabelWidth, timeline::TrackLayout::kLaneHeight);
        QVERIFY(countColour(image, streamRow, kernelColours) > 200);
        QVERIFY(test::distinctColours(image) > 20);
        // Counters (memory, utilisation) built for every pixel; step boundaries drawn.
        QCOMPARE(frame->counters.size(), size_t(4));
        QVERIFY(std::any_of(frame->counters[0][0].begin(), frame->counters[0][0].end(),
                            [](const auto& c) { return c.covered; }));
        // Each step boundary: a dashed grey line (the step colour over white) down the rows.
        const QColor line = widgets::timeline_colors::kStepLine;
        const double alpha = line.alphaF();
        const int grey = int(std::lround(255 + (line.red() - 255) * alpha));
        QSet<QRgb> dashed;
        for (int g = grey - 2; g <= grey + 2; ++g)
            dashed << qRgb(g, g, g);
        QCOMPARE(m_resnet->summary.steps.steps.size(), size_t(6));
        for (const analysis::Step& step : m_resnet->summary.steps.steps) {
            const int x =
                int(std::floor(TimelineView::kLabelWidth + view->timeViewport().xOf(step.beginNs)));
            const QRect column(x, TimelineView::kRulerHeight, 2,
                               image.height() - TimelineView::kRulerHeight);
            QVERIFY2(countColour(image, column, dashed) > 20,
                     qPrintable(QString::fromStdString(step.name)));
        }
    }

    void wheelZoomKeepsTheTimeUnderTheCursor()
    {
        const auto page = openPage();
        TimelineView* view = page->view();
        const QPointF at(TimelineView::kLabelWidth + 437.0, 300.0);
        const int64_t under = view->timeViewport().timeAt(437.0);
        const double scale = view->timeViewport().nsPerPixel;
        wheel(view->viewport(), at, 1);
        QCOMPARE(view->timeViewport().nsPerPixel, scale * 0.8);
        QVERIFY(std::llabs(view->timeViewport().timeAt(437.0) - under) <= 1);
        wheel(view->viewport(), at, -3);
        QVERIFY(view->timeViewport().nsPerPixel > scale);
        QVERIFY(std::llabs(view->timeViewport().timeAt(437.0) - under) <= 1);
        // Many notches in: down to the deepest zoom (1000 px per ns), still anchored.
        for (int i = 0; i < 120; ++i)
            wheel(view->viewport(), at, 1);
        QCOMPARE(view->timeViewport().nsPerPixel, timeline::Viewport::kMinNsPerPixel);
        QVERIFY(std::llabs(view->timeViewport().timeAt(437.0) - under) <= 1);
        QVERIFY(view->waitForFrame());
    }

    void dragAndKeysPanZoomAndFit()
    {
        const auto page = openPage();
        TimelineView* view = page->view();
        view->setFocus();
        view->zoomAroundX(500, 0.01);  // somewhere in the middle, 100x in
        const timeline::Viewport before = view->timeViewport();
        drag(view->viewport(), QPointF(700, 300), QPointF(580, 300));  // drag left: later in time
        QCOMPARE(view->timeViewport().beginNs,
                 before.beginNs + std::llround(120 * before.nsPerPixel));
        QCOMPARE(view->timeViewport().nsPerPixel, before.nsPerPixel);
        const timeline::Viewport dragged = view->timeViewport();
        QTest::keyClick(view, Qt::Key_D);
        QCOMPARE(view->timeViewport().beginNs,
                 dragged.beginNs + std::llround(0.2 * dragged.widthPx * dragged.nsPerPixel));
        QTest::keyClick(view, Qt::Key_A);
        QVERIFY(std::llabs(view->timeViewport().beginNs - dragged.beginNs) <= 1);
        QTest::keyClick(view, Qt::Key_W);
        QCOMPARE(view->timeViewport().nsPerPixel, dragged.nsPerPixel * 0.8);
        QTest::keyClick(view, Qt::Key_S);
        QVERIFY(std::abs(view->timeViewport().nsPerPixel / dragged.nsPerPixel - 1.0) < 1e-12);
        QTest::keyClick(view, Qt::Key_0);
        QVERIFY(view->timeViewport().beginNs <= m_resnet->model->beginNs());
        QVERIFY(view->timeViewport().endNs() >= m_resnet->model->endNs());
        QTest::keyClick(view, Qt::Key_Home);
        const analysis::Step& first = m_resnet->summary.steps.steps.front();
        QVERIFY(view->timeViewport().beginNs <= first.beginNs &&
                view->timeViewport().endNs() >= first.endNs);
        QVERIFY(view->timeViewport().endNs() < m_resnet->model->endNs());
    }

    void clickingAKernelShowsItsDetailsAndTheLaunchArrow()
    {
        const auto page = openPage();
        TimelineView* view = page->view();
        const trace::TraceModel& model = *m_resnet->model;
        const trace::EventId kernel = firstNamed(model, "volta_sgemm_64x64_nt");
        QVERIFY(kernel.valid());
        page->revealEvent(kernel);  // brings it and its launch into view
        QCOMPARE(view->selected(), kernel);
        QVERIFY(view->waitForFrame());
        QTest::keyClick(view, Qt::Key_Escape);
        QVERIFY(!view->selected().valid());
        // A real click on the slice selects it through hit-testing.
        const auto point = view->pointOf(kernel);
        QVERIFY(point);
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, point->toPoint());
        QCOMPARE(view->selected(), kernel);
        QCOMPARE(view->links().size(), size_t(1));
        const trace::EventId launch = view->links()[0].from;
        QVERIFY(trace::isLaunchCall(model.event(launch).category));
        const QString details = page->details()->toPlainText();
        QVERIFY(details.contains(QStringLiteral("volta_sgemm_64x64_nt")));
        QVERIFY(details.contains(QStringLiteral("Launched by")));
        QVERIFY(details.contains(QString::fromUtf8(model.text(model.event(launch).name))));
        QVERIFY(details.contains(QStringLiteral("Grid / block")));
        QVERIFY(details.contains(QStringLiteral("Args")));  // read back from the file on demand
        QVERIFY(details.contains(QStringLiteral("correlation")));
        // The arrow is drawn in its colour between the two lanes.
        QVERIFY(view->waitForFrame());
        const QImage image = view->viewport()->grab().toImage();
        const QSet<QRgb> arrow{widgets::timeline_colors::kFlowArrow.rgb()};
        QVERIFY(countColour(image, image.rect(), arrow) > 10);
        // Following the "launched by" link selects the launch call.
        page->revealEvent(launch);
        QCOMPARE(view->selected(), launch);
        QVERIFY(page->details()->toPlainText().contains(QStringLiteral("Launched on the GPU")));
        // F zooms to the selection: it fills most of the view.
        QTest::keyClick(view, Qt::Key_F);
        const timeline::Viewport& v = view->timeViewport();
        const trace::Event& e = model.event(launch);
        QVERIFY(v.beginNs <= e.startNs && v.endNs() >= e.endNs());
        QVERIFY(double(e.durationNs) / double(v.endNs() - v.beginNs) > 0.8);
    }

    void boxSelectTotalsTheSlicesInTheBox()
    {
        const auto page = openPage();
        TimelineView* view = page->view();
        const int streamLane =
            int(view->layout().groups()[0].firstLane);  // GPU 0 / Stream 7: devices first
        QCOMPARE(QString::fromStdString(view->layout().laneLabel(uint32_t(streamLane))),
                 QString("Stream 7"));
        const double y = TimelineView::kRulerHeight + view->layout().laneY(uint32_t(streamLane)) -
                         view->verticalScrollBar()->value() + 5;
        drag(view->viewport(), QPointF(400, y), QPointF(900, y), Qt::ShiftModifier);
        QVERIFY(view->range());
        QCOMPARE(view->rangeLanes(), std::pair(uint32_t(streamLane), uint32_t(streamLane + 1)));
        const timeline::RangeTotals expected =
            timeline::totalsInRange(page->index(), view->range()->first, view->range()->second,
                                    uint32_t(streamLane), uint32_t(streamLane + 1));
        QVERIFY(expected.slices > 50);
        QVERIFY(page->details()->toPlainText().contains(
            QStringLiteral("%1 slices").arg(expected.slices)));
        QVERIFY(page->details()->toPlainText().contains(
            QString::fromStdString(expected.byName[0].name).left(30)));
        // A drag on the ruler selects the range over every lane; a click there clears it.
        drag(view->viewport(), QPointF(400, 10), QPointF(900, 10));
        QCOMPARE(view->rangeLanes(), std::pair(uint32_t(0), UINT32_MAX));
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, QPoint(500, 10));
        QVERIFY(!view->range());
    }

    void searchOutlinesMatchesAndStepsThroughThem()
    {
        const auto page = openPage();
        TimelineView* view = page->view();
        const auto expected = timeline::searchByName(*m_resnet->model, "volta_sgemm_64x64_nt");
        QCOMPARE(expected.size(), size_t(102));
        page->search(QStringLiteral("volta_sgemm_64x64_nt"));
        QCOMPARE(page->matches().size(), expected.size());
        page->nextMatch(true);
        QCOMPARE(view->selected(), expected[0]);
        page->nextMatch(true);
        QCOMPARE(view->selected(), expected[1]);
        page->nextMatch(false);
        QCOMPARE(view->selected(), expected[0]);
        // Outlined in the search colour on screen.
        QVERIFY(view->waitForFrame());
        const QImage image = view->viewport()->grab().toImage();
        QVERIFY(countColour(image, image.rect(), {widgets::timeline_colors::kSearchMatch.rgb()}) >
                10);
        // Typing and Enter in the field, again and again: the focus stays in the field, so
        // each Enter steps on and Shift+Enter steps back (issue 29: it stepped once).
        page->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(page.get()));
        QLineEdit* field = page->searchField();
        field->setFocus();
        field->clear();
        QTest::keyClicks(field, QStringLiteral("aten::addmm"));
        QTest::keyClick(field, Qt::Key_Return);
        QVERIFY(view->selected().valid());
        QCOMPARE(
            QString::fromUtf8(m_resnet->model->text(m_resnet->model->event(view->selected()).name)),
            QStringLiteral("aten::addmm"));
        const std::vector<trace::EventId>& addmm = page->matches();
        QVERIFY(addmm.size() >= 4);
        std::vector<trace::EventId> visited{view->selected()};
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(QApplication::focusWidget(), static_cast<QWidget*>(field));
            QTest::keyClick(QApplication::focusWidget(), Qt::Key_Return);
            visited.push_back(view->selected());
        }
        for (size_t i = 1; i < visited.size(); ++i) {
            const auto at = std::find(addmm.begin(), addmm.end(), visited[i]);
            const auto before = std::find(addmm.begin(), addmm.end(), visited[i - 1]);
            QVERIFY(at != addmm.end() && before != addmm.end());
            QCOMPARE(at - before, 1);  // the next match, each time
        }
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Return, Qt::ShiftModifier);
        QCOMPARE(view->selected(), visited[visited.size() - 2]);
        QCOMPARE(QApplication::focusWidget(), static_cast<QWidget*>(field));
    }

    // A collapsed group's lanes have no row: nothing of theirs is painted, least of all
    // over the first group's header at the top (issue 29). Here the host process's group
    // between the first and the GPU's: the lanes asked for still span it.
    void aCollapsedGroupPaintsNothing()
    {
        const auto page = openPage();
        TimelineView* view = page->view();
        const auto& groups = view->layout().groups();
        QVERIFY(groups.size() >= 3);
        const uint32_t middle = 1;
        QVERIFY(groups[middle].lastLane > groups[middle].firstLane);
        view->setGroupCollapsed(middle, true);
        QVERIFY(view->waitForFrame());
        const auto frame = view->currentFrame();
        std::set<uint32_t> collapsedLanes;
        for (uint32_t lane = groups[middle].firstLane; lane < groups[middle].lastLane; ++lane)
            collapsedLanes.insert(lane);
        QSet<QRgb> colours;
        bool asked =
            false;  // the frame holds slices of the collapsed lanes: the painter must skip them
        for (const timeline::DrawItem& d : frame->items) {
            if (!collapsedLanes.count(d.lane))
                continue;
            asked = true;
            const trace::Event& e = m_resnet->model->event(d.event);
            const QColor c = widgets::sliceColor(e.category, e.name.value);
            colours << c.rgb() << c.darker(125).rgb();
        }
        QVERIFY(asked);
        const QImage image = view->viewport()->grab().toImage();
        const int headerTop = TimelineView::kRulerHeight + view->layout().rows().front().y -
                              view->verticalScrollBar()->value();
        const QRect header(TimelineView::kLabelWidth, headerTop,
                           image.width() - TimelineView::kLabelWidth,
                           timeline::TrackLayout::kGroupHeight);
        QCOMPARE(countColour(image, header, colours), 0);
    }

    void clickingAGroupHeaderCollapsesIt()
    {
        const auto page = openPage();
        TimelineView* view = page->view();
        const uint32_t lane = view->layout().groups()[2].firstLane;
        QVERIFY(view->layout().laneY(lane) >= 0);
        const int headerY = TimelineView::kRulerHeight +
                            view->layout().rows().front().y;  // first group, at the top
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, QPoint(60, headerY + 5));
        QVERIFY(view->layout().groups()[0].collapsed);
        QVERIFY(view->layout().laneY(view->layout().groups()[0].firstLane) < 0 ||
                view->layout().groups()[0].firstLane == view->layout().groups()[0].lastLane);
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, QPoint(60, headerY + 5));
        QVERIFY(!view->layout().groups()[0].collapsed);
    }

    // An inference trace with every profiler flag: nine rows of Python frames spanning the
    // window fold into one that a click expands, with the device and the lead thread on
    // screen; what the user changes is how the next trace of its kind opens.
    void pythonFramesFoldAndTheLayoutIsRememberedPerKind()
    {
        QSettings().remove(QStringLiteral("timeline"));
        const auto doc = document::open(
            test::sharedTrace("tracelens/b300_sglang_deepseek_r1_decode.json.gz").string());
        QVERIFY(doc->model);
        QCOMPARE(doc->summary.window.kind, analysis::RunKind::Inference);
        auto open = [&] {
            auto page = std::make_unique<widgets::TimelinePage>(doc);
            page->resize(1280, 800);
            page->show();
            return page;
        };
        auto page = open();
        QVERIFY(QTest::qWaitForWindowExposed(page.get()));
        TimelineView* view = page->view();
        const timeline::TrackLayout& layout = view->layout();
        QVERIFY(!layout.folds().empty());
        const auto foldRow = std::find_if(
            layout.rows().begin(), layout.rows().end(), [&](const timeline::LayoutRow& row) {
                return row.kind == timeline::RowKind::Fold &&
                       page->index().lanes()[layout.folds()[row.index].firstLane].track ==
                           page->index().leadThread();
            });
        QVERIFY(foldRow != layout.rows().end());
        const timeline::LayoutFold& fold = layout.folds()[foldRow->index];
        QVERIFY(!fold.expanded);
        QVERIFY(fold.lastLane - fold.firstLane >= 8);
        // The fold and the row under it (what varies) are on screen at the top of the scroll.
        const int visible = view->viewport()->height() - TimelineView::kRulerHeight;
        QCOMPARE(view->verticalScrollBar()->value(), 0);
        QVERIFY(layout.laneY(fold.lastLane) >= 0 &&
                layout.laneY(fold.lastLane) + timeline::TrackLayout::kLaneHeight <= visible);
        const QPoint label(60, TimelineView::kRulerHeight + foldRow->y + 5);
        const QString tip = view->toolTipAt(label);
        QVERIFY2(tip.contains(QStringLiteral("spawn_main > _main > _bootstrap")), qPrintable(tip));
        // The folded row's slices are the frames': a click there selects the deepest.
        QVERIFY(view->waitForFrame());
        const trace::EventId hit =
            view->pointOf(page->index().lanes()[fold.lastLane - 1].events.front())
                ? page->index().lanes()[fold.lastLane - 1].events.front()
                : trace::EventId{};
        QVERIFY(hit.valid());
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->pointOf(hit)->toPoint());
        QCOMPARE(view->selected(), hit);
        // A click on the label expands it: one row per frame.
        const int folded = layout.height();
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, label);
        QVERIFY(fold.expanded);
        QCOMPARE(layout.height(),
                 folded + int(fold.lastLane - fold.firstLane) * timeline::TrackLayout::kLaneHeight);
        // Collapse the devices too: the next inference trace opens this way...
        view->setGroupCollapsed(0, true);
        QCOMPARE(layout.groups()[0].role, timeline::GroupRole::Device);
        page.reset();
        page = open();
        QVERIFY(page->view()->layout().groups()[0].collapsed);
        QVERIFY(std::any_of(page->view()->layout().folds().begin(),
                            page->view()->layout().folds().end(),
                            [](const auto& f) { return f.expanded; }));
        // ...and a training trace as it was.
        const auto training = std::make_unique<widgets::TimelinePage>(m_resnet);
        QVERIFY(!training->view()->layout().groups()[0].collapsed);
        QSettings().remove(QStringLiteral("timeline"));
    }

    // Events that overlap on one stream without nesting sit on a marked extra row, with a
    // tooltip that says so; none is drawn under another.
    void overlappingEventsSitOnAMarkedRowWithATooltip()
    {
        const auto doc = document::open(
            test::sharedTrace("tracelens/b300_sglang_deepseek_r1_decode.json.gz").string());
        widgets::TimelinePage page(doc);
        page.resize(1280, 800);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        const timeline::TimelineIndex& index = page.index();
        trace::EventId overlapping;
        for (const timeline::Lane& lane : index.lanes())
            if (lane.overlapRow > 0 &&
                doc->model->track(lane.track).kind == trace::TrackKind::GpuStream) {
                overlapping = lane.events[lane.events.size() / 2];
                break;
            }
        QVERIFY(overlapping.valid());
        page.revealEvent(overlapping);
        TimelineView* view = page.view();
        QVERIFY(view->waitForFrame());
        const auto at = view->pointOf(overlapping);
        QVERIFY(at);
        const QString tip = view->toolTipAt(*at);
        QVERIFY2(tip.contains(QStringLiteral("Overlaps")) &&
                     tip.contains(QStringLiteral("without nesting")),
                 qPrintable(tip));
        const trace::EventId other = index.overlappedBy(overlapping);
        QVERIFY(tip.contains(QString::fromUtf8(doc->model->text(doc->model->event(other).name))));
        QVERIFY(view->toolTipAt(QPointF(20, at->y())).contains(QStringLiteral("overlap")));
        // The marker: the overlap colour down the row's label and along the slice's top.
        const QImage image = view->viewport()->grab().toImage();
        const QSet<QRgb> marker{widgets::timeline_colors::kOverlapMarker.rgb()};
        QVERIFY(countColour(image, QRect(0, int(at->y()) - 8, 3, 16), marker) >= 10);
        QVERIFY(countColour(image,
                            QRect(TimelineView::kLabelWidth, int(at->y()) - 9, image.width(), 4),
                            marker) > 0);
    }

    // The overview strip: the whole trace with the device's busy sparkline and the view's
    // window; a click centres the timeline there and a drag moves it, the zoom unchanged.
    void theOverviewShowsTheWholeTraceAndMovesTheView()
    {
        const auto page = openPage();
        widgets::TimelineOverview* overview = page->overview();
        TimelineView* view = page->view();
        QVERIFY(overview->isVisible());
        const QImage image = overview->grab().toImage();
        const timeline::OverviewScale scale = overview->scale();
        const int left = overview->plotLeft();
        int green = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = left; x < image.width(); ++x) {
                const QColor c = image.pixelColor(x, y);
                green += c.green() > c.red() + 40 && c.green() > c.blue() + 20;
            }
        QVERIFY2(green > 500, qPrintable(QString::number(green)));  // six steps of GPU work
        // The view's window is outlined where the view is.
        const int windowX = left + int(std::lround(scale.xOf(view->timeViewport().endNs())));
        const QSet<QRgb> edge{widgets::timeline_colors::kRangeEdge.rgb()};
        QVERIFY(countColour(image, QRect(windowX - 1, 0, 3, image.height()), edge) > 10);
        // A click centres the view on the time under it.
        const analysis::Step& third = m_resnet->summary.window.allSteps.at(2);
        const int64_t target = (third.beginNs + third.endNs) / 2;
        const double scaleBefore = view->timeViewport().nsPerPixel;
        const QPoint at(left + int(std::lround(scale.xOf(target))), overview->height() / 2);
        QTest::mouseClick(overview, Qt::LeftButton, {}, at);
        const timeline::Viewport& v = view->timeViewport();
        const int64_t centre = v.beginNs + int64_t(v.nsPerPixel * v.widthPx / 2);
        const double nsPerOverviewPixel = double(scale.endNs - scale.beginNs) / scale.widthPx;
        QVERIFY(std::llabs(centre - target) <= int64_t(nsPerOverviewPixel) + 1);
        QCOMPARE(v.nsPerPixel, scaleBefore);
        // A drag carries it along.
        QTest::mousePress(overview, Qt::LeftButton, {}, at);
        QMouseEvent move(QEvent::MouseMove, QPointF(at.x() + 100, at.y()),
                         overview->mapToGlobal(QPointF(at.x() + 100, at.y())), Qt::NoButton,
                         Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(overview, &move);
        QTest::mouseRelease(overview, Qt::LeftButton, {}, QPoint(at.x() + 100, at.y()));
        const int64_t moved = view->timeViewport().beginNs + int64_t(v.nsPerPixel * v.widthPx / 2);
        QVERIFY(std::abs(double(moved - centre) - 100 * nsPerOverviewPixel) <=
                2 * nsPerOverviewPixel);
    }

    void jumpsFromKernelRowsAndFindings()
    {
        widgets::DocumentView doc(m_resnet);
        doc.resize(1400, 900);
        doc.show();
        QVERIFY(QTest::qWaitForWindowExposed(&doc));
        doc.setCurrentIndex(widgets::DocumentView::Kernels);
        QTableView* table = doc.kernels()->table();
        QVERIFY(QTest::qWaitForWindowExposed(table));
        QTest::qWait(50);  // the page's first layout
        const QString name = doc.kernels()->proxy()->index(0, 0).data().toString();
        const QRect cell = table->visualRect(doc.kernels()->proxy()->index(0, 0));
        // A press, then the double-click (QTest's double-click alone carries no press).
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center());
        QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, cell.center());
        QCOMPARE(doc.currentIndex(), int(widgets::DocumentView::Timeline));
        const trace::EventId selected = doc.timeline()->view()->selected();
        QVERIFY(selected.valid());
        QCOMPARE(QString::fromUtf8(m_resnet->model->text(m_resnet->model->event(selected).name)),
                 name);
        // The longest instance of that kernel.
        for (const trace::Event& e : m_resnet->model->events())
            if (m_resnet->model->text(e.name) == name.toStdString())
                QVERIFY(e.durationNs <= m_resnet->model->event(selected).durationNs);
        // A finding with time ranges: the timeline shows and selects its first range.
        const analysis::Finding& finding = m_resnet->findings.front();
        QVERIFY(!finding.evidence.ranges.empty());
        doc.setCurrentIndex(widgets::DocumentView::Diagnosis);
        doc.showEvidenceInTimeline(finding);
        QCOMPARE(doc.currentIndex(), int(widgets::DocumentView::Timeline));
        const auto range = doc.timeline()->view()->range();
        QVERIFY(range);
        QCOMPARE(range->first, finding.evidence.ranges.front().begin);
        QCOMPARE(range->second, finding.evidence.ranges.front().end);
        const timeline::Viewport& v = doc.timeline()->view()->timeViewport();
        QVERIFY(v.beginNs <= range->first && v.endNs() >= range->second);
    }

    void opensEveryTraceInTheSharedFolder()
    {
        int opened = 0;
        for (const auto& entry :
             std::filesystem::recursive_directory_iterator(test::sharedTracesDir())) {
            const std::string path = entry.path().string();
            if (!entry.is_regular_file() || path.find(".json") == std::string::npos)
                continue;
            const auto trace = document::open(path);
            if (!trace->model)
                continue;  // unreadable on purpose (test_bad_input covers those)
            widgets::TimelinePage page(trace);
            page.resize(1200, 700);
            page.show();
            QVERIFY(QTest::qWaitForWindowExposed(&page));
            QVERIFY2(page.view()->waitForFrame(), path.c_str());
            const auto frame = page.view()->currentFrame();
            QVERIFY2(!trace->model->events().empty() == !frame->items.empty() ||
                         page.view()->layout().rows().size() > 10,
                     path.c_str());
            // It opens with the first device stream and the lead thread's first row on
            // screen, without scrolling.
            const timeline::TimelineIndex& index = page.index();
            const int visible = page.view()->viewport()->height() - TimelineView::kRulerHeight;
            for (uint32_t l = 0; l < index.lanes().size(); ++l) {
                const bool stream =
                    trace->model->track(index.lanes()[l].track).kind == trace::TrackKind::GpuStream;
                if (l > 0 && stream && index.lanes()[l - 1].track == index.lanes()[l].track)
                    continue;  // the first row of each stream
                if (!(stream && l == 0) && index.lanes()[l].track != index.leadThread())
                    continue;
                const int y = page.view()->layout().laneY(l);
                QVERIFY2(y >= 0 && y + timeline::TrackLayout::kLaneHeight <= visible,
                         qPrintable(QString("%1: lane %2 at %3 of %4")
                                        .arg(path.c_str())
                                        .arg(l)
                                        .arg(y)
                                        .arg(visible)));
                if (!stream)
                    break;  // the lead thread's first row: the rest may scroll
            }
            // Select the first device activity (or any slice) and see its details.
            trace::EventId pick;
            for (const trace::Event& e : trace->model->events())
                if (!pick || (trace::isGpuActivity(e.category) &&
                              !trace::isGpuActivity(trace->model->event(pick).category)))
                    pick = trace->model->idOf(e);
            if (pick) {
                page.revealEvent(pick);
                QVERIFY2(page.details()->toPlainText().contains(QStringLiteral("Duration")),
                         path.c_str());
                QVERIFY2(page.view()->waitForFrame(), path.c_str());
            }
            QVERIFY(test::distinctColours(page.view()->viewport()->grab().toImage()) > 3);
            ++opened;
        }
        QVERIFY(opened >= 25);
    }
};

QTEST_MAIN(TestTimelineView)
#include "test_timeline_view.moc"
