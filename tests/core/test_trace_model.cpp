// Queries over a TraceModel: binary searches per track, the launch -> activities index,
// interning.
#ifndef Q_MOC_RUN  // moc need not (and cannot) parse the C++20 standard headers
#include "core/trace/id_index.h"
#include "core/trace/string_table.h"
#include "core/trace/trace_loader.h"
#endif

#include <QtTest>

using namespace kinetoscope::trace;

namespace {
// A CPU thread with nested ops and a CUDA graph launch that starts three kernels.
const char* kGraphTrace = R"j({"schemaVersion": 1, "traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "outer", "pid": 1, "tid": 1, "ts": 100, "dur": 100},
  {"ph": "X", "cat": "cpu_op", "name": "inner", "pid": 1, "tid": 1, "ts": 120, "dur": 30},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 1, "tid": 1, "ts": 125, "dur": 10, "args": {"correlation": 5}},
  {"ph": "X", "cat": "cpu_op", "name": "later", "pid": 1, "tid": 1, "ts": 300, "dur": 10},
  {"ph": "X", "cat": "kernel", "name": "k3", "pid": 0, "tid": 7, "ts": 180, "dur": 10, "args": {"correlation": 5}},
  {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 140, "dur": 10, "args": {"correlation": 5}},
  {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 160, "dur": 10, "args": {"correlation": 5}}
]})j";

QString nameOf(const TraceModel& model, EventId id)
{
    const std::string_view name = id.valid() ? model.text(model.event(id).name) : "<none>";
    return QString::fromUtf8(name.data(), qsizetype(name.size()));
}

TrackId cpuTrack(const TraceModel& model)
{
    for (uint32_t i = 0; i < model.tracks().size(); ++i)
        if (model.tracks()[i].kind == TrackKind::CpuThread)
            return TrackId{i};
    return {};
}
}  // namespace

class TestTraceModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // The index the finish links launches and ops with: the first index stored for an id
    // stays, one can be replaced through the pointer, and growing keeps every entry.
    void indexesIdsAcrossGrowth()
    {
        IdIndex index(4);
        for (int64_t id = 0; id < 100000; id += 3)
            QVERIFY(index.emplace(id * 7919, static_cast<uint32_t>(id)).second);
        QCOMPARE(index.size(), size_t(33334));
        const auto [again, inserted] = index.emplace(3 * 7919, 42);
        QVERIFY(!inserted);
        QCOMPARE(*again, 3u);
        *again = 42;
        for (int64_t id = 0; id < 100000; ++id) {
            const uint32_t* found = index.find(id * 7919);
            if (id % 3 != 0) {
                QVERIFY(found == nullptr);
                continue;
            }
            QVERIFY(found != nullptr);
            QCOMPARE(*found, id == 3 ? 42u : static_cast<uint32_t>(id));
        }
        IdIndex highBits;  // ids that differ only above bit 40 spread too (and are all found)
        for (int64_t i = 0; i < 4096; ++i)
            QVERIFY(highBits.emplace(i << 44, static_cast<uint32_t>(i)).second);
        for (int64_t i = 0; i < 4096; ++i)
            QCOMPARE(*highBits.find(i << 44), static_cast<uint32_t>(i));
        QVERIFY(index.find(-1) == nullptr);
        QVERIFY(IdIndex().find(0) == nullptr);
    }

    void findsInnermostEventAtATime()
    {
        const auto result = loadTraceText(kGraphTrace);
        QVERIFY(result.ok());
        const TraceModel& model = *result.model;
        const TrackId cpu = cpuTrack(model);
        QVERIFY(cpu.valid());
        QCOMPARE(nameOf(model, model.innermostEventAt(cpu, 99'000)), QString("<none>"));
        QCOMPARE(nameOf(model, model.innermostEventAt(cpu, 110'000)), QString("outer"));
        QCOMPARE(nameOf(model, model.innermostEventAt(cpu, 130'000)), QString("cudaGraphLaunch"));
        QCOMPARE(nameOf(model, model.innermostEventAt(cpu, 140'000)), QString("inner"));
        QCOMPARE(nameOf(model, model.innermostEventAt(cpu, 160'000)), QString("outer"));
        QCOMPARE(nameOf(model, model.innermostEventAt(cpu, 250'000)), QString("<none>"));
        QCOMPARE(nameOf(model, model.firstEventAtOrAfter(cpu, 151'000)), QString("later"));
        QCOMPARE(nameOf(model, model.firstEventAtOrAfter(cpu, 301'000)), QString("<none>"));
    }

    void indexesEveryActivityOfALaunch()
    {
        const auto result = loadTraceText(kGraphTrace);
        QVERIFY(result.ok());
        const TraceModel& model = *result.model;
        EventId launch;
        for (const Event& e : model.events())
            if (e.category == Category::Runtime)
                launch = model.idOf(e);
        const auto activities = model.activitiesLaunchedBy(launch);
        QCOMPARE(activities.size(), size_t(3));
        QCOMPARE(nameOf(model, activities[0]), QString("k1"));  // in time order
        QCOMPARE(nameOf(model, activities[2]), QString("k3"));
        QCOMPARE(nameOf(model, model.event(launch).correlated), QString("k1"));
        for (EventId k : activities)
            QCOMPARE(model.event(k).correlated, launch);
        // Without an External id, a launch belongs to the op that encloses it.
        QCOMPARE(nameOf(model, model.event(launch).op), QString("inner"));
        QVERIFY(model.activitiesLaunchedBy(model.event(launch).op).empty());
        // And the op knows its launch calls.
        const auto launches = model.launchCallsOf(model.event(launch).op);
        QCOMPARE(launches.size(), size_t(1));
        QCOMPARE(launches[0], launch);
        QVERIFY(model.launchCallsOf(launch).empty());
    }

    void tracksAreTimeSortedAndContiguous()
    {
        const auto result = loadTraceText(kGraphTrace);
        QVERIFY(result.ok());
        const TraceModel& model = *result.model;
        size_t total = 0;
        for (uint32_t t = 0; t < model.tracks().size(); ++t) {
            const auto events = model.events(TrackId{t});
            total += events.size();
            for (size_t i = 1; i < events.size(); ++i)
                QVERIFY(events[i - 1].startNs <= events[i].startNs);
            for (const Event& e : events)
                QCOMPARE(e.track, TrackId{t});
        }
        QCOMPARE(total, model.events().size());
        QCOMPARE(model.beginNs(), int64_t(100'000));
        QCOMPARE(model.endNs(), int64_t(310'000));
    }

    void internsStringsOnce()
    {
        StringTable table;
        const StringId a = table.intern("aten::mm");
        const StringId b = table.intern(std::string("aten::") + "mm");
        QCOMPARE(a, b);
        QCOMPARE(table.intern(""), StringId{0});
        QVERIFY(table.intern("aten::add") != a);
        QCOMPARE(QString::fromUtf8(table.view(a).data(), 8), QString("aten::mm"));
        const std::string longName(300'000, 'k');  // longer than a storage block
        QCOMPARE(table.view(table.intern(longName)).size(), longName.size());
        QVERIFY(table.find("aten::add").has_value());
        QVERIFY(!table.find("nope").has_value());
    }

    // The recent-texts cache in front of the index: texts alike in size and in the bytes
    // its fingerprint reads (first, middle and last 8) still get ids of their own, a text
    // met again gets its id whichever of them came last, and a text that is not UTF-8
    // keeps resolving to its mended form.
    void internsTextsAlikeInTheirFingerprintApart()
    {
        StringTable table;
        std::vector<std::string> alike;
        for (char c = 'a'; c <= 'z'; ++c) {  // differ only at byte 10 of 40
            std::string text(40, 'x');
            text[10] = c;
            alike.push_back(text);
        }
        std::vector<StringId> ids;
        for (const std::string& text : alike)
            ids.push_back(table.intern(text));
        for (int round = 0; round < 3; ++round)
            for (size_t i = alike.size(); i-- > 0;) {
                QCOMPARE(table.intern(alike[i]), ids[i]);
                QCOMPARE(table.view(ids[i]), std::string_view(alike[i]));
            }
        QCOMPARE(table.size(), alike.size() + 1);
        const std::string broken = "kernel\xff name";
        const StringId mended = table.intern(broken);
        QCOMPARE(table.intern(broken), mended);
        QCOMPARE(table.intern(std::string(table.view(mended))), mended);
        QCOMPARE(table.mendedCount(), size_t(1));
        StringTable moved = std::move(table);
        QCOMPARE(moved.intern(alike[3]), ids[3]);
    }
};

QTEST_GUILESS_MAIN(TestTraceModel)
#include "test_trace_model.moc"
