// Bad input never crashes, always says what happened in one line, and keeps what could
// be read: cut and corrupted copies of real traces, missing, empty and foreign files.
#include "core/trace/event_args.h"
#include "core/trace/other_outputs.h"
#include "core/trace/trace_loader.h"
#include "tests/support/test_support.h"

#include <QtTest>
#include <fstream>
#include <malloc.h>
#include <random>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace kinetoscope::trace;
using namespace kinetoscope::test;
namespace fs = std::filesystem;

namespace {

// A trace of `count` cpu_op events, one per line, with their start offsets.
std::string syntheticTrace(int count, std::vector<size_t>& eventOffsets)
{
    std::string text = "{\"schemaVersion\": 1, \"traceEvents\": [\n";
    for (int i = 0; i < count; ++i) {
        eventOffsets.push_back(text.size());
        text += "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op" + std::to_string(i) +
                "\", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(1000 + 10 * i) +
                ", \"dur\": 5, \"args\": {\"External id\": " + std::to_string(i + 1) + "}}";
        text += i + 1 < count ? ",\n" : "\n";
    }
    text += "], \"traceName\": \"synthetic\"}\n";
    return text;
}

// This process's address space (virtual size), from /proc/self/statm. (Unused in a
// sanitizer build, where the test that needs it is skipped.)
[[maybe_unused]] uint64_t addressSpaceBytes()
{
    std::ifstream statm("/proc/self/statm");
    uint64_t pages = 0;
    statm >> pages;
    return pages * uint64_t(sysconf(_SC_PAGESIZE));
}

// Bytes malloc holds free, mapped and ready for reuse (0 where glibc cannot say).
[[maybe_unused]] uint64_t freeHeldByMalloc()
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
    return uint64_t(mallinfo2().fordblks);
#else
    return 0;
#endif
}

// In a child process whose address space may grow by only `headroom` bytes: loads
// `big` (which needs far more), then `small`. Returns what the child saw, one line per
// load: "status|message" (the big one), "status|events" (the small one).
[[maybe_unused]] QStringList loadUnderAMemoryLimit(std::string big, std::string small,
                                                   uint64_t headroom, unsigned threads)
{
    LoadOptions options;
    options.threads = threads;
    int pipeEnds[2];
    if (pipe(pipeEnds) != 0)
        return {"pipe failed"};
    const pid_t child = fork();
    if (child == 0) {
        close(pipeEnds[0]);
        // The room is `headroom` in all: the free memory malloc already holds (the earlier
        // tests' freed blocks, still mapped) counts in it, or the load could fit there.
        const uint64_t held = freeHeldByMalloc();
        const uint64_t limitBytes = addressSpaceBytes() + (headroom > held ? headroom - held : 0);
        const rlimit limit{limitBytes, limitBytes};
        setrlimit(RLIMIT_AS, &limit);
        std::string report;
        {
            const LoadResult result = loadTraceText(std::move(big), options);
            report += std::string(loadStatusName(result.status)) + "|" + result.message + "|" +
                      (result.model ? "model" : "no model") + "\n";
        }
        const LoadResult after = loadTraceText(std::move(small), options);
        report += std::string(loadStatusName(after.status)) + "|" +
                  std::to_string(after.model ? after.model->events().size() : 0) + "\n";
        [[maybe_unused]] const ssize_t written = write(pipeEnds[1], report.data(), report.size());
        _exit(0);
    }
    close(pipeEnds[1]);
    std::string report;
    char buffer[4096];
    for (ssize_t got; (got = read(pipeEnds[0], buffer, sizeof buffer)) > 0;)
        report.append(buffer, size_t(got));
    close(pipeEnds[0]);
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status))
        return {"the child died"};
    return QString::fromStdString(report).trimmed().split('\n');
}

bool isOneLine(const std::string& message)
{
    return !message.empty() && message.find('\n') == std::string::npos;
}

}  // namespace

class TestBadInput : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

    fs::path temp(const std::string& name) const
    {
        return fs::path(m_dir.path().toStdString()) / name;
    }

private Q_SLOTS:
    void recoversEveryEventBeforeACut()
    {
        std::vector<size_t> offsets;
        const std::string text = syntheticTrace(1000, offsets);
        // Cut inside event 600 (0-based): events 0..599 are complete.
        const size_t cut = offsets[600] + 25;
        writeFile(temp("cut.json"), text.substr(0, cut));
        const LoadResult result = loadTraceFile(temp("cut.json"));
        QCOMPARE(result.status, LoadStatus::Truncated);
        QVERIFY(result.model);
        QCOMPARE(result.model->stats().entries, uint64_t(600));
        QCOMPARE(result.model->events().size(), size_t(600));
        QCOMPARE(result.errorOffset, uint64_t(cut));
        QVERIFY(isOneLine(result.message));
        QVERIFY2(result.message.find("byte " + std::to_string(cut)) != std::string::npos,
                 result.message.c_str());
        QVERIFY2(result.message.find("recovered 600 events") != std::string::npos,
                 result.message.c_str());
        // The recovered events are whole, args included.
        const auto args = readArgs(*result.model, EventId{599});
        QVERIFY(args && argsText(*args).find("600") != std::string::npos);
    }

    void cutsOfRealTracesAreTruncatedNotFatal_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<double>("fraction");
        for (const char* file :
             {"kineto/resnet50_v100_workers0_2021.pt.trace.json.gz",
              "kineto/resnet50_bare_array_2020.pt.trace.json.gz",
              "hta/nccl_collectives_rank0.json.gz", "kineto/cuda_sync_after_fix.json"}) {
            for (double fraction : {0.01, 0.37, 0.5, 0.93, 0.9999}) {
                const std::string name = std::string(file) + " @" + std::to_string(fraction);
                QTest::newRow(name.c_str()) << QString(file) << fraction;
            }
        }
    }
    void cutsOfRealTracesAreTruncatedNotFatal()
    {
        QFETCH(QString, file);
        QFETCH(double, fraction);
        const std::string text = readDecompressed(sharedTrace(file.toStdString()));
        const LoadResult whole = loadTraceText(text);
        QVERIFY(whole.ok());
        const size_t cut = static_cast<size_t>(static_cast<double>(text.size()) * fraction);

        // A plain file cut short, and the same cut gzip-compressed.
        writeFile(temp("cut.json"), text.substr(0, cut));
        writeGzip(temp("cut.json.gz"), text.substr(0, cut));
        for (const char* name : {"cut.json", "cut.json.gz"}) {
            const LoadResult result = loadTraceFile(temp(name));
            QVERIFY2(result.status == LoadStatus::Truncated ||
                         result.status == LoadStatus::Malformed,
                     result.message.c_str());
            QVERIFY(isOneLine(result.message));
            QVERIFY(result.model);
            const uint64_t recovered = result.model->stats().entries;
            QVERIFY(recovered <= whole.model->stats().entries);
            if (fraction > 0.3)
                QVERIFY(recovered > 0);
        }
    }

    void aCutGzipStreamIsTruncated()
    {
        // Cut the compressed bytes themselves, as a killed process leaves them.
        std::string bytes = readBytes(sharedTrace("hta/nccl_collectives_rank0.json.gz"));
        writeFile(temp("cut.gz"), bytes.substr(0, bytes.size() / 2));
        const LoadResult result = loadTraceFile(temp("cut.gz"));
        QCOMPARE(result.status, LoadStatus::Truncated);
        QVERIFY(isOneLine(result.message));
        QVERIFY(result.model);
        QVERIFY(result.model->stats().entries > 1000);
        QVERIFY2(result.message.find("gzip") != std::string::npos, result.message.c_str());
    }

    void corruptGzipDataIsAReadErrorThatKeepsEarlierEvents()
    {
        std::string bytes = readBytes(sharedTrace("hta/nccl_collectives_rank0.json.gz"));
        for (size_t i = bytes.size() / 2; i < bytes.size() / 2 + 64; ++i)
            bytes[i] = static_cast<char>(bytes[i] ^ 0x5a);
        writeFile(temp("corrupt.gz"), bytes);
        const LoadResult result = loadTraceFile(temp("corrupt.gz"));
        QVERIFY2(result.status == LoadStatus::ReadError || result.status == LoadStatus::Malformed ||
                     result.status == LoadStatus::Truncated,
                 result.message.c_str());
        QVERIFY(isOneLine(result.message));
        QVERIFY(result.model);
        QVERIFY(result.model->stats().entries > 1000);
    }

    void aMalformedEventIsSkippedAndReported()
    {
        std::vector<size_t> offsets;
        std::string text = syntheticTrace(100, offsets);
        // Break event 40's args (a missing ':'): the object is still delimited, its JSON
        // is not.
        const size_t args = text.find("\"External id\": ", offsets[40]);
        text.replace(args, 15, "\"External id\" ");
        const LoadResult result = loadTraceText(text);
        QCOMPARE(result.status, LoadStatus::Malformed);
        QVERIFY(isOneLine(result.message));
        QCOMPARE(result.errorOffset, uint64_t(offsets[40] + 2));  // past the indentation
        QVERIFY(result.model);
        QCOMPARE(result.model->events().size(), size_t(99));
        QCOMPARE(result.model->stats().skipped.at("malformed event JSON"), uint64_t(1));
    }

    void aNonNumericTimestampIsSkippedWithItsReason()
    {
        std::vector<size_t> offsets;
        std::string text = syntheticTrace(10, offsets);
        const size_t dur = text.find("\"dur\": 5", offsets[4]);
        text.replace(dur, 8, "\"dur\": 5x");
        const LoadResult result = loadTraceText(text);
        QVERIFY(result.ok());
        QCOMPARE(result.model->events().size(), size_t(9));
        QCOMPARE(result.model->stats().skipped.at("ts or dur is not a number"), uint64_t(1));
    }

    void brokenStructureLosesOneEventNotTheRest()
    {
        std::vector<size_t> offsets;
        std::string text = syntheticTrace(100, offsets);
        text.replace(offsets[70] - 2, 1, ";");  // the comma before event 70
        const LoadResult result = loadTraceText(text);
        QCOMPARE(result.status, LoadStatus::Malformed);
        QVERIFY(isOneLine(result.message));
        QCOMPARE(result.errorOffset, uint64_t(offsets[70] - 2));
        QVERIFY(result.model);
        // Event 70 goes with the bad byte before it; the reader resumes at event 71.
        QCOMPARE(result.model->events().size(), size_t(99));
        QCOMPARE(result.model->stats().entries, uint64_t(100));
        QCOMPARE(result.model->stats().skipped.at("malformed event JSON"), uint64_t(1));
        QVERIFY2(result.message.find("1 malformed event(s) skipped") != std::string::npos,
                 result.message.c_str());
    }

    void aStringWhoseQuotesCannotBeMendedLosesOnlyItsEvent_data()
    {
        QTest::addColumn<size_t>("maxEventBytes");
        QTest::addColumn<size_t>("windowBytes");
        QTest::newRow("default limits")
            << ReaderLimits{}.maxEventBytes << ReaderLimits{}.windowBytes;
        // The quotes turned inside out make the event look 4 KiB long and more: the reader
        // gives up on it there, across window refills, and finds the next event.
        QTest::newRow("4 KiB events, 1 KiB window") << size_t(4096) << size_t(1024);
    }
    void aStringWhoseQuotesCannotBeMendedLosesOnlyItsEvent()
    {
        QFETCH(size_t, maxEventBytes);
        QFETCH(size_t, windowBytes);
        std::vector<size_t> offsets;
        std::string text = syntheticTrace(1000, offsets);
        // A quote left in a name, where no mending can tell it from the name's end: every
        // string after it reads inside out to a scan that counts quotes.
        const size_t name = text.find("\"op40\"", offsets[40]);
        text.replace(name, 6, "\"op\", 40\"");
        LoadOptions options;
        options.limits.maxEventBytes = maxEventBytes;
        options.limits.windowBytes = windowBytes;
        options.threads = 1;
        const LoadResult result = loadTraceText(text, options);
        QCOMPARE(result.status, LoadStatus::Malformed);
        QVERIFY(isOneLine(result.message));
        QCOMPARE(result.errorOffset, uint64_t(offsets[40] + 2));
        QCOMPARE(result.model->events().size(), size_t(999));
        QCOMPARE(result.model->stats().skipped.at("malformed event JSON"), uint64_t(1));
        QCOMPARE(QString::fromStdString(
                     std::string(result.model->strings().view(result.model->events().back().name))),
                 QString("op999"));
    }

    // Helper 45's cases: whatever the broken event, the events around it are all read, the
    // repair says so, and nothing after it is lost without a word (1 thread or several).
    void brokenEventsCostOnlyThemselves_data()
    {
        QTest::addColumn<QString>("edit");
        QTest::addColumn<int>("repaired");
        QTest::newRow("two names with their quotes") << "two names" << 2;
        QTest::newRow("a quote in the last event") << "last" << 1;
        QTest::newRow("objects in an array after the quote") << "nested" << 1;
        QTest::newRow("a lost ','") << "comma" << 1;
    }
    void brokenEventsCostOnlyThemselves()
    {
        QFETCH(QString, edit);
        QFETCH(int, repaired);
        std::vector<size_t> offsets;
        std::string text = syntheticTrace(100, offsets);
        auto renameEvent = [&](int i, const std::string& name) {
            const std::string old = "\"op" + std::to_string(i) + "\"";
            text.replace(text.find(old, offsets[size_t(i)]), old.size(), "\"" + name + "\"");
        };
        // Edited from the back, so the offsets before stay true.
        if (edit == "two names") {
            renameEvent(50, "v.py(0):     \"\"\"");
            renameEvent(10, "v.py(0):     \"\"\"");
        } else if (edit == "last") {
            renameEvent(99, "bad\"name");
        } else if (edit == "nested") {
            const size_t args = text.find("{\"External id\"", offsets[10]);
            text.insert(args + 1, "\"l\": [{\"a\": 1}, {\"b\": 2}], ");
            renameEvent(10, "op\"10");
        } else {
            text.erase(offsets[30] - 2, 1);  // the ',' before event 30
        }
        for (const unsigned threads : {1u, 4u}) {
            LoadOptions options;
            options.threads = threads;
            const LoadResult result = loadTraceText(text, options);
            QVERIFY2(result.ok(), result.message.c_str());
            QCOMPARE(result.model->events().size(), size_t(100));
            QCOMPARE(result.model->stats().repairedEvents, uint64_t(repaired));
            QCOMPARE(result.model->stats().skippedTotal(), uint64_t(0));
            QCOMPARE(result.model->metadata().traceName, std::string("synthetic"));
        }
    }

    void aQuoteTorchLeftUnescapedIsMended()
    {
        // An excerpt of a real cold torch.compile trace (torch 2.x on this machine's CPU,
        // tests/data/compiled/make_traces.sh), bytes as torch wrote them: a Python frame
        // named `torch/fx/experimental/validator.py(0):     """`, its quotes not escaped.
        // Before, the load stopped there and lost the 1,000 events after it.
        const LoadResult result =
            loadTraceFile(dataFile("compiled/cold_compile_unescaped_quote.json.gz"));
        QVERIFY2(result.ok(), result.message.c_str());
        QCOMPARE(result.model->stats().entries, uint64_t(2009));
        QCOMPARE(result.model->stats().repairedEvents, uint64_t(1));
        QCOMPARE(result.model->stats().skippedTotal(), uint64_t(0));
        const auto& events = result.model->events();
        const auto mended = std::find_if(events.begin(), events.end(), [&](const auto& e) {
            return result.model->strings().view(e.name).starts_with(
                "torch/fx/experimental/validator.py(0)");
        });
        QVERIFY(mended != events.end());
        QCOMPARE(QString::fromStdString(std::string(result.model->strings().view(mended->name))),
                 QString("torch/fx/experimental/validator.py(0):     \"\"\""));
    }

    void nestedArraysOfObjectsDoNotConfuseBatchParsing()
    {
        // `}, {` inside an event (an array of objects in args) looks like a boundary
        // between events; the batch parser must notice and read such events one by one.
        std::string text = "{\"traceEvents\": [";
        for (int i = 0; i < 20000; ++i) {
            text += (i ? ",\n" : "\n");
            text += "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op}, {" + std::to_string(i) +
                    "\", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(i * 10) +
                    ", \"dur\": 5, \"args\": {\"groups\": [{\"rank\": 0}, {\"rank\": 1}]}}";
        }
        text += "\n]}";
        const LoadResult result = loadTraceText(text);
        QVERIFY2(result.ok(), result.message.c_str());
        QCOMPARE(result.model->events().size(), size_t(20000));
        QCOMPARE(result.model->stats().entries, uint64_t(20000));
        const auto args = readArgs(*result.model, EventId{19999});
        QVERIFY(args);
        QCOMPARE(QString::fromStdString(argsText(*args)),
                 QString("{\"groups\": [{\"rank\": 0}, {\"rank\": 1}]}"));
    }

    void randomCorruptionOfARealTraceNeverCrashes()
    {
        const std::string text = readDecompressed(sharedTrace("hta/sampled_rank1.json.gz"));
        std::mt19937 random(20261121);
        const char garbage[] = {'"', '{', '}', '[', ']', ',', ':', '\\', '\0', '\x01', 'x', '\xff'};
        for (int round = 0; round < 40; ++round) {
            std::string copy = text;
            for (int hit = 0; hit < 1 + round % 4; ++hit)
                copy[random() % copy.size()] = garbage[random() % sizeof garbage];
            const LoadResult result = loadTraceText(copy);
            if (!result.ok()) {
                QVERIFY2(isOneLine(result.message), result.message.c_str());
            }
            if (result.model) {
                QVERIFY(result.model->stats().entries <= 4720 + 10);
            }
        }
    }

    void repairsControlCharactersInNames()
    {
        std::string text = readDecompressed(sharedTrace("hta/sampled_rank0.json.gz"));
        const size_t name = text.find("\"name\": \"", text.find("\"cpu_op\""));
        QVERIFY(name != std::string::npos);
        text.insert(name + 9, "\t\x01");  // unescaped control characters (pytorch/pytorch#130622)
        const LoadResult result = loadTraceText(text);
        QVERIFY2(result.ok(), result.message.c_str());
        QCOMPARE(result.model->stats().entries, uint64_t(4855));
        QCOMPARE(result.model->stats().repairedEvents, uint64_t(1));
    }

    void missingEmptyAndForeignFiles()
    {
        const LoadResult missing = loadTraceFile(temp("nope.json"));
        QCOMPARE(missing.status, LoadStatus::NotFound);
        QVERIFY(isOneLine(missing.message));
        QVERIFY(!missing.model);

        const LoadResult directory = loadTraceFile(m_dir.path().toStdString());
        QCOMPARE(directory.status, LoadStatus::NotFound);
        QVERIFY(directory.message.find("directory") != std::string::npos);

        writeFile(temp("empty.json"), "");
        const LoadResult empty = loadTraceFile(temp("empty.json"));
        QCOMPARE(empty.status, LoadStatus::Empty);
        QCOMPARE(QString::fromStdString(empty.message), QString("empty file"));

        writeGzip(temp("empty.json.gz"), "");
        QCOMPARE(loadTraceFile(temp("empty.json.gz")).status, LoadStatus::Empty);

        writeFile(temp("blank.json"), " \n\t ");
        QCOMPARE(loadTraceFile(temp("blank.json")).status, LoadStatus::Empty);

        writeFile(temp("config.json"), R"j({"lr": 0.1, "layers": [1, 2, 3]})j");
        const LoadResult config = loadTraceFile(temp("config.json"));
        QCOMPARE(config.status, LoadStatus::NotATrace);
        QVERIFY(config.message.find("traceEvents") != std::string::npos);

        writeFile(temp("numbers.json"), "[1, 2, 3]");
        const LoadResult numbers = loadTraceFile(temp("numbers.json"));
        QCOMPARE(numbers.status, LoadStatus::NotATrace);
        QVERIFY(isOneLine(numbers.message));

        writeFile(temp("image.png"), std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16));
        const LoadResult image = loadTraceFile(temp("image.png"));
        QCOMPARE(image.status, LoadStatus::NotATrace);
        QVERIFY(isOneLine(image.message));

        writeFile(temp("notes.txt"), "hello, world\n");
        QCOMPARE(loadTraceFile(temp("notes.txt")).status, LoadStatus::NotATrace);
    }

    // An event array with nothing in it is no trace to read (before, it opened as a healthy
    // run of 0 events and "no finding").
    void anEmptyEventArrayIsNoTrace()
    {
        for (const char* text : {R"j({"schemaVersion": 1, "traceEvents": []})j", "[ ]"}) {
            const LoadResult result = loadTraceText(text);
            QCOMPARE(result.status, LoadStatus::Empty);
            QCOMPARE(QString::fromStdString(result.message),
                     QString("no events: the trace's event array is empty"));
        }
    }

    // Two traces written into one file (helper 48: the second's 780 KiB went unread, with
    // "skipped none"): the first is read whole, and the rest is said, as Python's json
    // says "Extra data". Whitespace after a trace is nothing.
    void aFileThatGoesOnAfterItsTraceSaysSo()
    {
        const std::string trace = readDecompressed(dataFile("other_outputs/run/trace.json.gz"));
        const LoadResult alone = loadTraceText(trace + "\n\n");
        QVERIFY2(alone.ok(), alone.message.c_str());
        // NUL padding (a preallocated file, one cut on a file system that pads it) is nothing.
        const LoadResult padded = loadTraceText(trace + "\n" + std::string(10'000, '\0'));
        QVERIFY2(padded.ok(), padded.message.c_str());
        for (const unsigned threads : {1u, 2u}) {
            LoadOptions options;
            options.threads = threads;
            const LoadResult twice = loadTraceText(trace + "\n" + trace, options);
            QCOMPARE(twice.status, LoadStatus::Malformed);
            QVERIFY(isOneLine(twice.message));
            QVERIFY2(twice.message.find("the file goes on after the trace's end (two traces in one "
                                        "file?)") != std::string::npos,
                     twice.message.c_str());
            QVERIFY(twice.model);
            QCOMPARE(twice.model->events().size(), alone.model->events().size());
        }
    }

    // What torch.profiler writes besides a trace, written by this machine's torch
    // (tests/data/make_other_outputs.py): each is named, with what to open instead. Before,
    // "the JSON object has no traceEvents array", "none of the 2 elements of the event array
    // is a trace event", "the data starts with 'm'".
    void torchsOtherOutputsAreNamed()
    {
        const std::pair<const char*, const char*> outputs[] = {
            {"other_outputs/run/execution_trace.json", "an execution trace (torch.profiler."
                                                       "ExecutionTraceObserver"},
            {"other_outputs/run/memory_timeline.json",
             "a memory timeline's data (prof.export_memory_timeline"},
            {"other_outputs/stacks.txt", "a stacks file (prof.export_stacks"}};
        for (const auto& [file, what] : outputs) {
            const LoadResult result = loadTraceFile(dataFile(file));
            QCOMPARE(result.status, LoadStatus::NotATrace);
            QVERIFY(isOneLine(result.message));
            QVERIFY2(result.message.starts_with(std::string("not a trace: ") + what),
                     result.message.c_str());
            QVERIFY2(result.message.ends_with(std::string(kOpenTheTraceInstead)),
                     result.message.c_str());
        }
        // Its plot, an HTML page (torch writes it with matplotlib, not installed here).
        writeFile(temp("memory.html"), "<html>\n<head><meta charset=\"utf-8\" /><title>GPU Memory "
                                       "Timeline HTML</title></head>\n<body></body></html>\n");
        QVERIFY(
            loadTraceFile(temp("memory.html")).message.starts_with("not a trace: an HTML page"));
        // A trace is none of them; nor is a JSON file of no known kind.
        QVERIFY(otherTorchOutput(fileHead(dataFile("other_outputs/run/trace.json.gz"))).empty());
        QVERIFY(otherTorchOutput(R"j({"lr": 0.1, "layers": [1, 2, 3]})j").empty());
    }

    void runningOutOfMemoryIsOneLineAndFreesWhatWasBuilt()
    {
#if defined(__SANITIZE_ADDRESS__)
        QSKIP("AddressSanitizer reserves terabytes of address space: a limit on it cannot be "
              "tested here");
#else
        // 1.2 M events (~160 MB of JSON) with room for 160 MB more: parsing gets under way,
        // then the model outgrows the room. On one thread, and on two: there the limit can
        // be met while the first blocks are still being parsed (each worker's malloc arena
        // and stack take address space too), before any event is in the model, so the
        // count of events read is only required on one thread.
        for (const unsigned threads : {1u, 2u}) {
            std::vector<size_t> offsets;
            std::string big = syntheticTrace(1200000, offsets);
            offsets = {};
            std::vector<size_t> smallOffsets;
            const QStringList lines = loadUnderAMemoryLimit(
                std::move(big), syntheticTrace(100, smallOffsets), 160u << 20, threads);
            QVERIFY2(lines.size() == 2, qPrintable(lines.join(" / ")));
            qInfo() << "under the limit," << threads << "threads:" << lines;
            const QStringList bigLoad = lines[0].split('|');
            QCOMPARE(bigLoad[0], QString("out-of-memory"));
            QVERIFY2(bigLoad[1].startsWith("out of memory after reading"), qPrintable(bigLoad[1]));
            const qsizetype count = bigLoad[1].indexOf(QStringLiteral(" events)"));
            const qsizetype open = bigLoad[1].lastIndexOf('(', count);
            QVERIFY2(count > 0 && open > 0, qPrintable(bigLoad[1]));
            // The count grouped and the bytes in binary units, as every figure:
            // "out of memory after reading 87.3 MiB of the trace (652,288 events)".
            if (threads == 1)
                QVERIFY2(bigLoad[1].mid(open + 1, count - open - 1).remove(',').toLongLong() > 0,
                         "it failed before any event was read");
            QVERIFY2(bigLoad[1].contains(QRegularExpression(
                         "^out of memory after reading [0-9.]+ (B|KiB|MiB|GiB) of the trace")),
                     qPrintable(bigLoad[1]));
            QVERIFY2(!bigLoad[1].contains('\n'), qPrintable(bigLoad[1]));
            QCOMPARE(bigLoad[2], QString("no model"));
            // The same process, under the same limit, then loads a small trace: what the
            // failed load built was freed, and loading still works.
            QCOMPARE(lines[1], QString("ok|100"));
        }
#endif
    }

    void loadingCanBeCancelled()
    {
        LoadOptions options;
        options.progress = [](uint64_t) { return false; };
        const LoadResult result =
            loadTraceFile(sharedTrace("hta/allreduce_memory_rank1.json.gz"), options);
        QCOMPARE(result.status, LoadStatus::Cancelled);
        QVERIFY(!result.model);
    }
};

QTEST_GUILESS_MAIN(TestBadInput)
#include "test_bad_input.moc"
