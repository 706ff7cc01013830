// The event array read on several threads gives the model a serial read gives, field for
// field: on every shared trace, on a generated one, and on broken ones (a corrupt event,
// a cut file), with blocks small enough that a few kilobytes make many of them.
#include "bench/synthetic_trace.h"
#include "core/trace/trace_loader.h"
#include "tests/support/model_difference.h"
#include "tests/support/test_support.h"

#include <QtTest>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

using namespace kinetoscope::trace;
using kinetoscope::test::firstDifference;
using kinetoscope::test::sharedTrace;

namespace {

// Sanitized builds run every load about ten times slower: fewer combinations there, and
// no bound on time.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
constexpr bool kSanitized = __has_feature(address_sanitizer) || __has_feature(thread_sanitizer);
#else
constexpr bool kSanitized = false;
#endif

// Sizes that put block cuts, look-backs and window refills every few events.
ReaderLimits smallLimits()
{
    ReaderLimits limits;
    limits.windowBytes = 16 * 1024;
    limits.batchLookBackBytes = 2 * 1024;
    limits.parallelBlockBytes = 4 * 1024;
    return limits;
}

LoadOptions withThreads(unsigned threads, bool small)
{
    LoadOptions options;
    options.threads = threads;
    if (small)
        options.limits = smallLimits();
    return options;
}

std::string readText(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string generatedTrace(uint64_t bytes)
{
    char* buffer = nullptr;
    size_t size = 0;
    std::FILE* out = open_memstream(&buffer, &size);
    kinetoscope::bench::writeSyntheticTrace(out, bytes, 7);
    std::fclose(out);
    std::string text(buffer, size);
    std::free(buffer);
    return text;
}

// Loads with one thread and with several, and says how the results differ ("" if not).
QString compareThreadCounts(const std::function<LoadResult(const LoadOptions&)>& load,
                            bool expectBlocks)
{
    const LoadResult serial = load(withThreads(1, false));
    // Small blocks on 2, 3 and 8 threads (cuts every few events, more threads than
    // blocks at the end), and the default sizes on 2.
    std::vector<std::pair<unsigned, bool>> runs = {{3, true}, {2, false}};
    if (!kSanitized)
        runs.insert(runs.end(), {{2, true}, {8, true}});
    for (const auto& [threads, small] : runs) {
        {
            const LoadResult parallel = load(withThreads(threads, small));
            const QString where = QStringLiteral("%1 threads%2: ")
                                      .arg(threads)
                                      .arg(small ? QStringLiteral(", small blocks") : QString());
            if (parallel.status != serial.status || parallel.message != serial.message ||
                parallel.errorOffset != serial.errorOffset)
                return where + QString::fromStdString("status \"" + parallel.message + "\" vs \"" +
                                                      serial.message + "\"");
            if (!serial.model || !parallel.model) {
                if (serial.model || parallel.model)
                    return where + QStringLiteral("one of them has no model");
                continue;
            }
            if (const std::string difference = firstDifference(*serial.model, *parallel.model);
                !difference.empty())
                return where + QString::fromStdString(difference);
            if (serial.model->stats().blocksOnThreads != 0)
                return QStringLiteral("the serial read used blocks");
            if (expectBlocks && small && parallel.model->stats().blocksOnThreads < 2)
                return where + QStringLiteral("the events were not read in blocks");
        }
    }
    return {};
}

}  // namespace

class TestParallelIngest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void everySharedTraceReadsTheSameOnAnyThreadCount_data()
    {
        QTest::addColumn<QString>("file");
        const auto root = kinetoscope::test::sharedTracesDir();
        int count = 0;
        for (const auto& path : kinetoscope::test::sharedTraceFiles()) {
            const std::string relative = std::filesystem::relative(path, root).string();
            QTest::newRow(relative.c_str()) << QString::fromStdString(relative);
            ++count;
        }
        QVERIFY2(count >= 40, "shared/traces is missing beside the repository");
    }

    void everySharedTraceReadsTheSameOnAnyThreadCount()
    {
        QFETCH(QString, file);
        const auto path = sharedTrace(file.toStdString());
        // Traces of a few events fit in one block; the others must be cut into several.
        const bool expectBlocks =
            readText(path).size() > 0 && std::filesystem::file_size(path) > 64 * 1024;
        const QString difference = compareThreadCounts(
            [&](const LoadOptions& options) { return loadTraceFile(path, options); }, expectBlocks);
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
    }

    void aGeneratedTraceReadsTheSameOnAnyThreadCount()
    {
        // Memory samples, flows, input shapes, copies and kernels of every kind.
        const std::string text = generatedTrace(6 << 20);
        const QString difference = compareThreadCounts(
            [&](const LoadOptions& options) { return loadTraceText(text, options); }, true);
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
        // The default sizes cut 6 MB into two blocks at least.
        const LoadResult parallel = loadTraceText(text, withThreads(2, false));
        QVERIFY(parallel.model->stats().blocksOnThreads >= 1);
    }

    void aCorruptEventGivesTheSameLineAndKeepsTheRest()
    {
        // A byte broken in the middle of the trace: the block holding it is read one event
        // at a time; its line names the same byte, and every other event is kept.
        std::string text = generatedTrace(1 << 20);
        const size_t at = text.find("\"ts\": ", text.size() / 2);
        QVERIFY(at != std::string::npos);
        text[at + 4] = ' ';  // "ts" 123: a missing ':'
        const QString difference = compareThreadCounts(
            [&](const LoadOptions& options) { return loadTraceText(text, options); }, true);
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
        const LoadResult parallel = loadTraceText(text, withThreads(2, true));
        QCOMPARE(parallel.status, LoadStatus::Malformed);
        QVERIFY2(parallel.message.find("at byte " + std::to_string(parallel.errorOffset)) !=
                     std::string::npos,
                 parallel.message.c_str());
        QVERIFY(parallel.errorOffset > at - 2000 && parallel.errorOffset <= at);
        QVERIFY(parallel.model->stats().entries > 1000);
    }

    void aCutTraceKeepsTheSameEvents()
    {
        const std::string text = generatedTrace(1 << 20);
        const std::string cut = text.substr(0, text.size() * 2 / 3);
        const QString difference = compareThreadCounts(
            [&](const LoadOptions& options) { return loadTraceText(cut, options); }, true);
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
        QCOMPARE(loadTraceText(cut, withThreads(3, true)).status, LoadStatus::Truncated);
    }

    void arraysOfObjectsAfterTheEventsAreNotReadAsEvents()
    {
        // "}, {" after the event array (deviceProperties written last) looks like an event
        // boundary: a block or batch cut there must not end the array early or late.
        std::string text = "{\"traceEvents\": [";
        for (int i = 0; i < 400; ++i)
            text += (i ? ", " : "") + std::string("{\"ph\": \"X\", \"name\": \"op") +
                    std::to_string(i % 7) +
                    "\", \"pid\": 1, \"tid\": 2, \"ts\": " + std::to_string(i * 10) +
                    ", \"dur\": 5}";
        text += "], \"deviceProperties\": [";
        for (int i = 0; i < 60; ++i)
            text += (i ? ", " : "") + std::string("{\"id\": ") + std::to_string(i) +
                    ", \"name\": \"GPU\", \"totalGlobalMem\": 1024}";
        text += "]}";
        for (const unsigned threads : {1u, 2u}) {
            const LoadResult result = loadTraceText(text, withThreads(threads, true));
            QVERIFY2(result.ok(), result.message.c_str());
            QCOMPARE(result.model->events().size(), size_t(400));
            QCOMPARE(result.model->metadata().devices.size(), size_t(60));
        }
    }

    void cancellingStopsEveryThreadPromptly()
    {
        // Cancelled at the first progress call after 8 MB: the load returns without the
        // rest of the 64 MB being parsed, and nothing is kept.
        const std::string text = generatedTrace(64 << 20);
        for (const unsigned threads : {1u, 2u, 4u}) {
            LoadOptions options = withThreads(threads, false);
            std::chrono::steady_clock::time_point cancelledAt;
            options.progress = [&](uint64_t bytes) {
                if (bytes < (8u << 20))
                    return true;
                if (cancelledAt == std::chrono::steady_clock::time_point{})
                    cancelledAt = std::chrono::steady_clock::now();
                return false;
            };
            const LoadResult result = loadTraceText(text, options);
            const auto returned = std::chrono::steady_clock::now();
            QCOMPARE(result.status, LoadStatus::Cancelled);
            QVERIFY(!result.model);
            const double ms =
                std::chrono::duration<double, std::milli>(returned - cancelledAt).count();
            qInfo("%u thread(s): returned %.1f ms after the cancel", threads, ms);
            // Generous against a loaded CI machine; a load that ran on would take seconds.
            if (!kSanitized)
                QVERIFY2(ms < 1000, qPrintable(QStringLiteral("%1 ms after the cancel").arg(ms)));
        }
    }
};

QTEST_GUILESS_MAIN(TestParallelIngest)
#include "test_parallel_ingest.moc"
