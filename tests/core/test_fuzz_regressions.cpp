// Every input the fuzzers found a defect with (fuzz/regressions/, minimised by hand to the
// cause) runs through what the fuzzers run: the ingest, the analysis, the diagnosis, the
// timeline and every writer, with the fuzzer's reader sizes and with the defaults. Under
// the sanitizer build a regression is a sanitizer report; in every build the JSON writers
// must write valid UTF-8 and each defect's own outcome is checked below. The reader's
// sizes are also checked not to change what is read.
#include "app/cli/info_report.h"
#include "core/analysis/summary.h"
#include "core/session/session.h"
#include "core/snapshot/snapshot_summary.h"
#include "core/trace/printable.h"
#include "core/trace/trace_loader.h"
#include "fuzz/exercise.h"
#include "tests/support/test_support.h"

#include <QtTest>
#include <filesystem>
#include <nlohmann/json.hpp>

using namespace kinetoscope;
using test::readBytes;

namespace {

const std::filesystem::path kRegressions =
    std::filesystem::path(KINETOSCOPE_SOURCE_DIR) / "fuzz" / "regressions";

trace::LoadResult loadRegression(const char* name)
{
    return trace::loadTraceText(readBytes(kRegressions / "ingest" / name));
}

uint64_t skippedFor(const trace::TraceModel& model, std::string_view reasonStart)
{
    uint64_t count = 0;
    for (const auto& [reason, n] : model.stats().skipped)
        if (reason.starts_with(reasonStart))
            count += n;
    return count;
}

}  // namespace

class TestFuzzRegressions : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyIngestRegressionRunsThroughEverything()
    {
        int inputs = 0;
        for (const auto& entry : std::filesystem::directory_iterator(kRegressions / "ingest")) {
            const std::string bytes = readBytes(entry.path());
            try {
                fuzz::exerciseTrace(bytes, fuzz::optionsFor(bytes));
                fuzz::exerciseTrace(bytes, trace::LoadOptions{});
            } catch (const std::exception& e) {
                QFAIL(qPrintable(
                    QString::fromStdString(entry.path().filename().string() + ": " + e.what())));
            }
            ++inputs;
        }
        QVERIFY(inputs >= 9);
    }

    void everySessionRegressionIsReadOrRejectedInOneLine()
    {
        int inputs = 0;
        for (const auto& entry : std::filesystem::directory_iterator(kRegressions / "session")) {
            const std::string bytes = readBytes(entry.path());
            try {
                fuzz::exerciseSession(bytes);
            } catch (const std::exception& e) {
                QFAIL(qPrintable(
                    QString::fromStdString(entry.path().filename().string() + ": " + e.what())));
            }
            std::string error;
            QVERIFY(!session::parseSession(bytes, entry.path().string(), error));
            QVERIFY2(error.starts_with("malformed session") || error.starts_with("session format"),
                     error.c_str());
            QVERIFY(error.find('\n') == std::string::npos && error.size() < 300);
            ++inputs;
        }
        QVERIFY(inputs >= 4);
    }

    // Snapshots: a list that holds itself, lists nested 3,000 deep (freed without
    // recursion), sizes negative or past any device, a memo index far past the next.
    void everySnapshotRegressionIsReadOrRejectedInOneLine()
    {
        int inputs = 0;
        for (const auto& entry : std::filesystem::directory_iterator(kRegressions / "snapshot")) {
            try {
                fuzz::exerciseSnapshot(readBytes(entry.path()));
            } catch (const std::exception& e) {
                QFAIL(qPrintable(
                    QString::fromStdString(entry.path().filename().string() + ": " + e.what())));
            }
            ++inputs;
        }
        QVERIFY(inputs >= 4);
        const snapshot::LoadedSnapshot huge = snapshot::readSnapshot(
            readBytes(kRegressions / "snapshot" / "huge-and-negative-sizes.pickle"));
        QVERIFY2(huge.model, huge.error.c_str());
        const snapshot::SnapshotSummary s = snapshot::summarize(*huge.model);
        QCOMPARE(s.reservedBytes, int64_t(0));         // a negative total_size reads as 0
        QCOMPARE(s.allocatedBytes, int64_t(1) << 40);  // 2^62 capped at 1 TiB
        QVERIFY(snapshot::readSnapshot(
                    readBytes(kRegressions / "snapshot" / "memo-index-out-of-order.pickle"))
                    .error.find("memo index") != std::string::npos);
    }

    // A track made of flow events only, in a process without a labels row, once read the
    // string table at an invalid id.
    void aFlowOnlyTrackHasNoLabel()
    {
        const trace::LoadResult loaded = loadRegression("flow-only-track.json");
        QVERIFY(loaded.ok());
        bool flowOnly = false;
        for (const trace::Track& t : loaded.model->tracks())
            flowOnly |= t.pid == 3 && t.eventCount == 0 && !t.processLabel.valid() &&
                        t.kind == trace::TrackKind::Other;
        QVERIFY(flowOnly);
        const trace::LoadResult cut = loadRegression("flow-only-track-truncated.json");
        QCOMPARE(cut.status, trace::LoadStatus::Truncated);
    }

    // Names and keys that are not UTF-8 are mended where they enter (and counted), so that
    // every writer's JSON is valid.
    void invalidUtf8IsMendedAndCounted()
    {
        const trace::LoadResult loaded = loadRegression("invalid-utf8-names.json");
        QVERIFY(loaded.model);
        const trace::TraceModel& model = *loaded.model;
        QCOMPARE(model.stats().repairedEvents, uint64_t(3));  // a name, a category, a thread name
        QCOMPARE(model.events().size(), size_t(2));
        for (size_t i = 0; i < model.strings().size(); ++i)
            QVERIFY(trace::isValidUtf8(model.text(trace::StringId{static_cast<uint32_t>(i)})));
        bool mendedName = false;
        for (const trace::Event& e : model.events())
            mendedName |= model.text(e.name) ==
                          std::string("aten::mm") + std::string(trace::kReplacementCharacter);
        QVERIFY(mendedName);
        for (const auto& [key, value] : model.metadata().versions)
            QVERIFY(trace::isValidUtf8(key) && trace::isValidUtf8(value));
        for (const auto& [key, value] : model.metadata().otherKeys)
            QVERIFY(trace::isValidUtf8(key));
        const nlohmann::json info = cli::infoJson("x.json", loaded);
        QVERIFY(!info.dump().empty());  // strict: throws on invalid UTF-8
        QCOMPARE(info["events"]["repaired"].get<uint64_t>(), uint64_t(3));
        QVERIFY(cli::infoText("x.json", loaded).find("bytes not UTF-8") != std::string::npos);
        QVERIFY(info["versions"].contains("bad\xef\xbf\xbd_version"));  // the bad key, mended

        // Whatever reaches the string table unchecked is mended there, and counted.
        trace::StringTable table;
        const trace::StringId id = table.intern("main\xe2\x82");
        QCOMPARE(table.view(id), std::string_view("main\xef\xbf\xbd"));
        QCOMPARE(table.intern("main\xe2\x82"), id);
        QCOMPARE(table.mendedCount(), size_t(1));

        const trace::LoadResult phase = loadRegression("invalid-utf8-phase.json");
        QVERIFY(phase.model);
        for (const auto& [reason, count] : phase.model->stats().skipped)
            QVERIFY2(trace::isValidUtf8(reason) && reason.find('\xe9') == std::string::npos,
                     reason.c_str());

        const trace::LoadResult separator = loadRegression("invalid-utf8-separator.json");
        QCOMPARE(separator.status, trace::LoadStatus::Malformed);
        QVERIFY2(separator.message.find("found '\\xff'") != std::string::npos,
                 separator.message.c_str());
    }

    void excerptsArePrintableAndShort()
    {
        QCOMPARE(trace::printableExcerpt("ab\xff\ncd", 40), std::string("ab\\xff\\x0acd"));
        QCOMPARE(trace::printableExcerpt(std::string(100, 'x'), 10), std::string(10, 'x') + "...");
        size_t replaced = 0;
        QCOMPARE(trace::toValidUtf8("a\xe2\x82z\xc0\xafq", &replaced),
                 std::string("a") + std::string(trace::kReplacementCharacter) + "z" +
                     std::string(trace::kReplacementCharacter) +
                     std::string(trace::kReplacementCharacter) + "q");
        QCOMPARE(replaced, size_t(3));
        QVERIFY(trace::isValidUtf8("\xe2\x82\xac \xf0\x9f\x98\x80"));
        QVERIFY(!trace::isValidUtf8("\xed\xa0\x80"));      // a surrogate
        QVERIFY(!trace::isValidUtf8("\xf4\x90\x80\x80"));  // above U+10FFFF
    }

    // Numbers beyond what a field holds are left unset and counted, never cast.
    void hugeMetadataIntegersAreRejectedAndCounted()
    {
        const trace::LoadResult loaded = loadRegression("huge-metadata-integers.json");
        QVERIFY(loaded.ok());
        const trace::TraceMetadata& m = loaded.model->metadata();
        QVERIFY(!m.baseTimeNs);
        QVERIFY(!m.schemaVersion);
        QCOMPARE(m.devices.size(), size_t(1));
        QCOMPARE(m.devices[0].id, -1);
        QCOMPARE(m.devices[0].numSms, -1);
        QCOMPARE(m.devices[0].totalGlobalMemBytes, int64_t(-1));
        QCOMPARE(m.devices[0].computeMajor, -1);
        QCOMPARE(m.devices[0].warpSize, -1);  // 32.5 is not an integer
        QVERIFY(m.distributed);
        QCOMPARE(m.distributed->rank, -1);
        QCOMPARE(m.distributed->worldSize, -1);
        QCOMPARE(skippedFor(*loaded.model, "metadata value out of range"), uint64_t(9));
        QCOMPARE(
            loaded.model->stats().skipped.at("metadata value out of range: distributedInfo.rank"),
            uint64_t(1));
    }

    // Times beyond int64 nanoseconds (or the model's range) skip their event, with a
    // reason; the rest loads, and ends and spans cannot overflow.
    void extremeTimesAreSkippedWithAReason()
    {
        const trace::LoadResult loaded = loadRegression("extreme-times.json");
        QVERIFY(loaded.ok());
        const trace::TraceModel& model = *loaded.model;
        QCOMPARE(skippedFor(model, "ts or dur beyond"), uint64_t(7));
        QCOMPARE(model.events().size(), size_t(1));
        QCOMPARE(model.text(model.events().front().name), std::string_view("ok"));
        QVERIFY(model.memorySamples().empty());
    }

    void aTimeBaseThatPushesTimesOutIsClampedAndCounted()
    {
        const trace::LoadResult loaded = loadRegression("time-base-overflow.json");
        QVERIFY(loaded.ok());
        const trace::TraceModel& model = *loaded.model;
        QCOMPARE(model.stats().clampedTimes, uint64_t(2));  // the step and the flow point
        for (const trace::Event& e : model.events()) {
            QVERIFY(trace::isHeldTime(e.startNs));
            QVERIFY(e.endNs() >= e.startNs);
        }
        QCOMPARE(model.endNs(), trace::kMaxTimeNs + 1000000);
        const analysis::TraceSummary summary = analysis::summarize(model);
        QVERIFY(!summary.steps.steps.empty());
    }

    // Sums over events (kernel time per stream, copy sizes, memory) once overflowed:
    // what lies days from the rest of the trace is left out, and args beyond what the
    // hardware has are left unset, all counted.
    void farEventsAndHugeArgsAreLeftOutAndCounted()
    {
        const trace::LoadResult loaded = loadRegression("sums-of-extreme-durations.json");
        QVERIFY(loaded.ok());
        const trace::TraceModel& model = *loaded.model;
        QCOMPARE(skippedFor(model, "more than 39 hours from the rest"),
                 uint64_t(13));                      // 2 steps, 10 kernels, the stray
        QCOMPARE(model.events().size(), size_t(1));  // the copy
        const trace::CopyInfo* copy = model.copyInfo(model.idOf(model.events().front()));
        QVERIFY(copy);
        QCOMPARE(copy->bytes, int64_t(-1));  // 2^62 bytes: unset
        QCOMPARE(model.memorySamples().size(), size_t(4));
        for (const trace::MemorySample& m : model.memorySamples())
            QCOMPARE(m.totalAllocated, int64_t(-1));
        QCOMPARE(model.stats().valuesOutOfRange, uint64_t(15));  // 10 grids, the copy, 4 samples
    }

    void durationsTogetherStayInsideInt64()
    {
        // 32784 overlapping events of 2^47 ns (39 hours) each, on as many threads: their
        // sum would pass 2^62; the 16 beyond are left out with a reason.
        std::string text = "{\"traceEvents\":[";
        for (int i = 0; i < 32784; ++i)
            text += std::string(i ? "," : "") +
                    "{\"ph\":\"X\",\"name\":\"op\",\"cat\":\"cpu_op\",\"pid\":1,\"tid\":" +
                    std::to_string(i) + ",\"ts\":0,\"dur\":140737488355.328}";
        text += "]}";
        const trace::LoadResult loaded = trace::loadTraceText(text);
        QVERIFY(loaded.ok());
        QCOMPARE(loaded.model->events().size(), size_t(32768));
        QCOMPARE(skippedFor(*loaded.model, "durations together beyond"), uint64_t(16));
        const analysis::TraceSummary summary = analysis::summarize(*loaded.model);
        QVERIFY(summary.ops.byName.size() == 1 && summary.ops.byName[0].cpuTotalNs == int64_t(1)
                                                                                          << 62);
    }

    void inputDimsTooLongForInt64StillDiagnose()
    {
        const trace::LoadResult loaded = loadRegression("long-input-dims.json");
        QVERIFY(loaded.ok());
        QVERIFY_THROWS_NO_EXCEPTION(
            fuzz::exerciseTrace(readBytes(kRegressions / "ingest" / "long-input-dims.json"), {}));
    }

    // The reader's window, look-back and batch split, and the parser backend, change how
    // the bytes are read, never what is read.
    void readerSizesDoNotChangeWhatIsRead()
    {
        for (const char* name :
             {"kineto/cuda_sync_before_fix.json", "hta/alexnet_critical_path.json.gz"}) {
            const std::filesystem::path path = test::sharedTrace(name);
            if (!std::filesystem::exists(path))
                QSKIP("shared traces not found");
            const trace::LoadResult reference = trace::loadTraceFile(path);
            QVERIFY(reference.ok());
            for (const trace::ParserBackendChoice parser :
                 {trace::ParserBackendChoice::Generic, trace::ParserBackendChoice::Avx2}) {
                for (const size_t window : {size_t(64), size_t(1000), size_t(4096)}) {
                    trace::LoadOptions options;
                    options.parser = parser;
                    options.limits = {window, window / 2, window / 4};
                    const trace::LoadResult small = trace::loadTraceFile(path, options);
                    QVERIFY2(small.ok(), small.message.c_str());
                    QCOMPARE(small.model->events().size(), reference.model->events().size());
                    QCOMPARE(small.model->flows().size(), reference.model->flows().size());
                    QCOMPARE(small.model->stats().entries, reference.model->stats().entries);
                    for (size_t i = 0; i < reference.model->events().size(); ++i) {
                        const trace::Event& a = reference.model->events()[i];
                        const trace::Event& b = small.model->events()[i];
                        QCOMPARE(b.startNs, a.startNs);
                        QCOMPARE(b.durationNs, a.durationNs);
                        QCOMPARE(small.model->text(b.name), reference.model->text(a.name));
                        QCOMPARE(small.model->sourceOffset(small.model->idOf(b)),
                                 reference.model->sourceOffset(reference.model->idOf(a)));
                    }
                }
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestFuzzRegressions)
#include "test_fuzz_regressions.moc"
