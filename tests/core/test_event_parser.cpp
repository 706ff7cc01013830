// One event object -> ParsedEvent: the field variants torch.profiler has written.
#include "core/trace/event_array_scan.h"
#include "core/trace/event_parser.h"
#include "core/trace/event_parser_backend.h"
#include "core/trace/json_scan.h"
#include "tests/support/test_support.h"

#include <QtTest>
#include <filesystem>

using namespace kinetoscope::trace;

namespace {

// How the common-shape scanner and the simdjson backends read one array of events.
struct ArrayReadings
{
    bool scanned = false;  // the scanner accepted it
    bool parsed = false;   // both simdjson backends accepted it
    QString difference;    // where an accepted reading differs from simdjson's
    size_t events = 0;
};

ArrayReadings readArrayBothWays(std::string_view array)
{
    std::string padded(array);
    padded.append(kPaddingBytes, ' ');
    const std::string_view text(padded.data(), array.size());
    ArrayReadings readings;
    std::vector<BatchEvent> scanned;
    readings.scanned = scanCommonEventArray(text, scanned);
    readings.parsed = true;
    for (const auto choice : {ParserBackendChoice::Generic, ParserBackendChoice::Avx2}) {
        std::vector<BatchEvent> parsed;  // views into the backend's buffers: keep it
        const auto backend = makeEventParserBackend(choice);
        const bool ok = backend->parseArray(text.data(), text.size(), padded.size(), parsed) == 0;
        readings.parsed = readings.parsed && ok;
        if (!readings.scanned || !ok)
            continue;
        readings.events = parsed.size();
        if (scanned.size() != parsed.size()) {
            readings.difference =
                QString("%1 events scanned, %2 parsed").arg(scanned.size()).arg(parsed.size());
            return readings;
        }
        for (size_t i = 0; i < parsed.size(); ++i)
            if (!(scanned[i].event == parsed[i].event) || scanned[i].offset != parsed[i].offset ||
                scanned[i].isObject != parsed[i].isObject) {
                const size_t at = parsed[i].offset;
                readings.difference =
                    QString("event %1 read differently: %2")
                        .arg(i)
                        .arg(QString::fromUtf8(text.substr(at, 300).data(),
                                               qsizetype(text.substr(at, 300).size())));
                return readings;
            }
    }
    return readings;
}
// Parses `json` with the padding simdjson needs, the way the loader does.
EventParser::Result parse(EventParser& parser, const std::string& json, ParsedEvent& out)
{
    std::string padded = json;
    padded.append(64, ' ');
    return parser.parse(std::string_view(padded.data(), json.size()), 64, out);
}
}  // namespace

class TestEventParser : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void convertsMicrosecondsExactly_data()
    {
        QTest::addColumn<QString>("token");
        QTest::addColumn<qint64>("nanoseconds");
        QTest::newRow("integer epoch us") << "1623142623460111" << qint64(1623142623460111000);
        QTest::newRow("float relative us") << "88511388202.765" << qint64(88511388202765);
        QTest::newRow("three decimals") << "67.32" << qint64(67320);
        QTest::newRow("rounds the 4th decimal") << "0.0015" << qint64(2);
        QTest::newRow("truncates below half") << "0.0014" << qint64(1);
        QTest::newRow("negative") << "-5.5" << qint64(-5500);
        QTest::newRow("exponent") << "1.5e3" << qint64(1500000);
        QTest::newRow("zero") << "0" << qint64(0);
        QTest::newRow("a point, no decimals") << "5." << qint64(5000);
        QTest::newRow("fifteen whole digits")
            << "999999999999999.999" << qint64(999999999999999999);
        QTest::newRow("sixteen whole digits")
            << "-9200000000000000" << qint64(-9200000000000000000);
    }
    void convertsMicrosecondsExactly()
    {
        QFETCH(QString, token);
        QFETCH(qint64, nanoseconds);
        int64_t ns = 0;
        QVERIFY(microsecondsToNanoseconds(token.toStdString(), ns));
        QCOMPARE(qint64(ns), nanoseconds);
    }

    void rejectsNonNumbers()
    {
        int64_t ns = 0;
        QVERIFY(!microsecondsToNanoseconds("abc", ns));
        QVERIFY(!microsecondsToNanoseconds("", ns));
        QVERIFY(!microsecondsToNanoseconds("99999999999999999999999", ns));
    }

    void readsAKernelWithItsLaunchConfiguration()
    {
        EventParser parser;
        ParsedEvent e;
        const std::string json = R"j({"ph": "X", "cat": "Kernel", "name": "volta_sgemm", "pid": 0,
            "tid": "stream 7", "ts": 1623142623531639, "dur": 605, "args": {"queued": 0,
            "device": 0, "stream": 7, "correlation": 34442, "external id": 544,
            "registers per thread": 128, "shared memory": 16384, "blocks per SM": 39.2,
            "warps per SM": 156.8, "grid": [3136, 1, 1], "block": [128, 1, 1],
            "est. achieved occupancy %": 25}})j";
        QCOMPARE(parse(parser, json, e), EventParser::Result::Ok);
        QCOMPARE(e.phase, 'X');
        QCOMPARE(QString::fromUtf8(e.name.data(), qsizetype(e.name.size())),
                 QString("volta_sgemm"));
        QVERIFY(e.tid.streamPrefix);
        QCOMPARE(e.tid.number, int64_t(7));
        QCOMPARE(e.tsNs, int64_t(1623142623531639000));
        QCOMPARE(e.durNs, int64_t(605000));
        QCOMPARE(e.correlation, int64_t(34442));
        QCOMPARE(e.externalId, int64_t(544));
        QCOMPARE(e.kernel.grid[0], 3136);
        QCOMPARE(e.kernel.block[0], 128);
        QCOMPARE(e.kernel.registersPerThread, 128);
        QCOMPARE(e.kernel.sharedMemoryBytes, 16384);
        QCOMPARE(e.kernel.blocksPerSm, 39.2f);
        QCOMPARE(e.kernel.occupancyPercent, 25.0f);
    }

    void readsStringPidsAndLabels()
    {
        EventParser parser;
        ParsedEvent e;
        QCOMPARE(
            parse(
                parser,
                R"j({"ph":"X","pid":"Spans","tid":"PyTorch Profiler","ts":1,"dur":2,"name":"n"})j",
                e),
            EventParser::Result::Ok);
        QCOMPARE(QString::fromUtf8(e.pid.label.data(), qsizetype(e.pid.label.size())),
                 QString("Spans"));
        QVERIFY(!e.hasCat);
        QCOMPARE(
            parse(parser, R"j({"ph":"X","pid":25738,"tid":"25738","ts":1,"dur":2,"name":"n"})j", e),
            EventParser::Result::Ok);
        QVERIFY(e.tid.label.empty());
        QCOMPARE(e.tid.number, int64_t(25738));
    }

    void keepsFlowIdsAbove2To63()
    {
        EventParser parser;
        ParsedEvent e;
        QCOMPARE(
            parse(
                parser,
                R"j({"ph":"s","id":10159970886766084423,"pid":1,"tid":1,"ts":5,"cat":"ac2g","name":"ac2g"})j",
                e),
            EventParser::Result::Ok);
        QVERIFY(e.hasFlowId);
        QCOMPARE(e.flowId, uint64_t(10159970886766084423ULL));
    }

    void readsMemoryEvents()
    {
        EventParser parser;
        ParsedEvent e;
        QCOMPARE(
            parse(
                parser,
                R"j({"ph":"i","cat":"cpu_instant_event","s":"t","name":"[memory]","pid":1,"tid":2,"ts":10,
            "args":{"Device Type":1,"Device Id":1,"Addr":139926520725504,"Bytes":-5242880,
            "Total Allocated":5435638784,"Total Reserved":12782141440}})j",
                e),
            EventParser::Result::Ok);
        QVERIFY(e.hasMemBytes);
        QCOMPARE(e.memBytes, int64_t(-5242880));
        QCOMPARE(e.totalAllocated, int64_t(5435638784));
        QCOMPARE(e.totalReserved, int64_t(12782141440));
        QCOMPARE(e.address, uint64_t(139926520725504));
        QCOMPARE(e.deviceId, int64_t(1));
    }

    void repairsUnescapedControlCharacters()
    {
        EventParser parser;
        ParsedEvent e;
        const std::string json =
            "{\"ph\":\"X\",\"name\":\"bad\tname\x01\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}";
        QCOMPARE(parse(parser, json, e), EventParser::Result::Repaired);
        QCOMPARE(QString::fromUtf8(e.name.data(), qsizetype(e.name.size())), QString("bad name "));
    }

    void matchesKeysExactly_data()
    {
        QTest::addColumn<int>("backend");
        QTest::newRow("generic") << int(ParserBackendChoice::Generic);
        QTest::newRow("avx2") << int(ParserBackendChoice::Avx2);
    }

    void matchesKeysExactly()
    {
        // After the real keys, near misses with other values: a prefix, a longer key,
        // another case, an escaped spelling. Any of them read would overwrite a field.
        QFETCH(int, backend);
        EventParser parser(static_cast<ParserBackendChoice>(backend));
        ParsedEvent e;
        const std::string json = R"j({"ph": "X", "ts": 1, "name": "n", "args": {"cid": 5},
            "p": "B", "phase": "B", "Ph": "B", "p\u0068": "B", "t": 9, "tsx": 9,
            "name2": "m", "a": {"cid": 6}, "args\u0000": {"cid": 7},
            "args": {"ci": 2, "cidx": 3, "Correlation": 4, "External i": 5, "Input Dim": [1],
                     "Device": 9, "Bytes ": 7, "c\u0069d": 8, "": 1, "g": [1, 1, 1]},
            "i": 3})j";
        QCOMPARE(parse(parser, json, e), EventParser::Result::Ok);
        QCOMPARE(e.phase, 'X');
        QCOMPARE(e.tsNs, int64_t(1000));
        QCOMPARE(QString::fromUtf8(e.name.data(), qsizetype(e.name.size())), QString("n"));
        QCOMPARE(e.correlation, int64_t(5));  // the first args' value; the second has none
        QCOMPARE(e.externalId, int64_t(-1));
        QVERIFY(e.inputDims.empty());
        QCOMPARE(e.deviceId, int64_t(-1));
        QVERIFY(!e.hasMemBytes);
        QVERIFY(!e.hasFlowId);
        QCOMPARE(e.kernel.grid[0], ParsedEvent{}.kernel.grid[0]);  // unset
    }

    void readsIntegersWrittenAnyWay()
    {
        // A plain integer, a numeric string, a float (rounded), an exponent, one above
        // INT64_MAX (its bits kept) and one that is not a number (left unset).
        EventParser parser;
        ParsedEvent e;
        QCOMPARE(parse(parser,
                       R"j({"ph": "X", "ts": 1, "args": {"correlation": 7.6,
                           "External id": "544", "Device Id": 1e1, "Device Type": true,
                           "Addr": 18446744073709551615, "Bytes": -3}})j",
                       e),
                 EventParser::Result::Ok);
        QCOMPARE(e.correlation, int64_t(8));
        QCOMPARE(e.externalId, int64_t(544));
        QCOMPARE(e.deviceId, int64_t(10));
        QCOMPARE(e.deviceType, int64_t(0));
        QCOMPARE(e.address, UINT64_MAX);
        QVERIFY(e.hasMemBytes);
        QCOMPARE(e.memBytes, int64_t(-3));
    }

    void keepsATimeInvalidWhateverFollows()
    {
        // `ts: true` is not a time; a null `dur` after it must not clear that.
        EventParser parser;
        ParsedEvent e;
        QCOMPARE(parse(parser, R"j({"ph": "X", "ts": true, "dur": null})j", e),
                 EventParser::Result::Ok);
        QVERIFY(e.invalidTime);
        QVERIFY(!e.hasTs);
    }

    void reportsMalformedObjects()
    {
        EventParser parser;
        ParsedEvent e;
        QCOMPARE(parse(parser, R"j({"ph":"X","ts":1,"dur":})j", e), EventParser::Result::Malformed);
        QVERIFY(!parser.lastError().empty());
    }

    // The scanner ahead of simdjson reads every batch of every shared trace, and reads it
    // as simdjson does: batches of about 64 KiB, cut where the loader cuts them.
    void scansEverySharedTraceAsSimdjsonReadsIt()
    {
        int traces = 0;
        size_t batches = 0;
        size_t events = 0;
        for (const auto& path : kinetoscope::test::sharedTraceFiles()) {
            const std::string name = path.filename().string();
            ++traces;
            const std::string text = kinetoscope::test::readDecompressed(path);
            const size_t key = text.find("\"traceEvents\"");
            const size_t open = key == std::string::npos ? key : text.find('[', key);
            if (open == std::string::npos)
                continue;  // a trace of another shape (a bare array is read the same way)
            const auto whole = json_scan::scanValue(std::string_view(text).substr(open));
            QVERIFY2(whole.status == json_scan::Scan::Complete, name.c_str());
            const size_t close = open + whole.length - 1;  // the array's ']'
            size_t from = text.find('{', open);
            while (from < close) {
                constexpr size_t kBatch = 64 * 1024;
                size_t end = close;
                if (from + kBatch < close) {
                    end = json_scan::lastElementEnd(std::string_view(text).substr(0, from + kBatch),
                                                    from, kBatch);
                    if (end == std::string_view::npos)
                        end = close;
                }
                const std::string array = "[" + text.substr(from, end - from) + "]";
                const ArrayReadings readings = readArrayBothWays(array);
                const std::string where = name + " at byte " + std::to_string(from);
                QVERIFY2(readings.parsed, where.c_str());
                QVERIFY2(readings.scanned, ("declined: " + where).c_str());
                QVERIFY2(readings.difference.isEmpty(),
                         qPrintable(QString::fromStdString(where) + ": " + readings.difference));
                ++batches;
                events += readings.events;
                from = text.find('{', end);
            }
        }
        QVERIFY2(traces >= 40, "shared/traces is missing beside the repository");
        QVERIFY(batches > size_t(traces));
        QVERIFY(events > 100000);
    }

    void scansTheCommonShapeAndDeclinesTheRest_data()
    {
        // An array of events; whether the scanner reads it; whether simdjson does.
        QTest::addColumn<QString>("array");
        QTest::addColumn<bool>("scanned");
        QTest::addColumn<bool>("parsed");
        auto row = [](const char* name, const char* array, bool scanned, bool parsed) {
            QTest::newRow(name) << QString::fromUtf8(array) << scanned << parsed;
        };
        row("kernel", R"j([{"ph": "X", "cat": "kernel", "name": "volta_sgemm", "pid": 0,
            "tid": "stream 7", "ts": 1623142623531639, "dur": 605.5, "args": {"queued": 0,
            "device": 0, "stream": 7, "correlation": 34442, "external id": 544,
            "registers per thread": 128, "shared memory": 16384, "blocks per SM": 39.2,
            "warps per SM": 156.8, "grid": [3136, 1, 1, 9], "block": [128, 1.5, "1"],
            "est. achieved occupancy %": 25, "Input Dims": [[1, 2], []] }}])j",
            true, true);
        row("memory and metadata", R"j([{"ph":"i","name":"[memory]","pid":1,"tid":2,"ts":10,
            "args":{"Device Type":1,"Device Id":1,"Addr":139926520725504,"Bytes":-5242880,
            "Total Allocated":5435638784,"Total Reserved":12782141440}},
            {"name": "process_sort_index", "ph": "M", "pid": "Spans", "tid": "12ab",
             "args": {"sort_index": -3, "name": "n", "labels": "GPU 0"}}])j",
            true, true);
        row("integers written any way", R"j([{"ph": "s", "id": 10159970886766084423,
            "args": {"correlation": 7.6, "External id": "544", "Device Id": 1e1,
            "Device Type": true, "Addr": 18446744073709551615, "Bytes": "12ab",
            "sort_index": -9223372036854775808, "bytes": [1], "cid": null}}])j",
            true, true);
        row("times written any way", R"j([{"ts": "1.5", "dur": null}, {"ts": true, "dur": {}},
            {"ts": 99999999999999999999999, "dur": "abc"}, {"ts": -0.0015e3, "dur": 1E2},
            {"ts": 1, "ts": 2, "ph": "", "cat": 5, "name": [], "bp": "e"}])j",
            true, true);
        row("args not an object, keys repeated", R"j([{"args": [1, {"a": [true, false]}],
            "args": {"cid": 1}, "args": {"cid": 2, "cid": "x"}, "": 0, "p": "B", "tsx": 1}])j",
            true, true);
        row("utf-8 text", "[{\"name\": \"\xe5\x90\x8d\xe5\x89\x8d caf\xc3\xa9\", \"ph\": \"X\"}]",
            true, true);
        row("whitespace of every kind", "[ {\t\"ph\" :\r\n\"X\" , \"args\":{ } } , {} ]\n", true,
            true);
        row("a null time after one that is not a number",
            R"j([{"ts": true, "dur": null}, {"ts": "abc", "ts": null}, {"dur": [1], "ts": null}])j",
            true, true);
        row("fractions within 19 characters", R"j([{"args": {"warps per SM": 0.0798724805981218,
            "correlation": 1234.5678901234567, "blocks per SM": 1e-0000000000000000001}}])j",
            true, true);
        // simdjson 3.0.1 reads these its own way (0, a misread, a rejection): declined.
        row("a fraction past 19 characters in an integer", R"j([{"id": 7.138234908945344589}])j",
            false, true);
        row("a zero point and 20 digits",
            R"j([{"args": {"warps per SM": 0.079872480598121814309739}}])j", false, true);
        row("an exponent of 20 digits", R"j([{"args": {"warps per SM": 1e00000000000000000001}}])j",
            false, true);
        row("an escape", "[{\"name\": \"a\\\"b\"}]", false, true);
        row("an escaped key", R"j([{"p\u0068": "X"}])j", false, true);
        row("a non-object element", R"j([{"ph": "X"}, 1])j", false, true);
        row("Input Dims not an array", R"j([{"args": {"Input Dims": 5}}])j", false, false);
        row("a float beyond double", R"j([{"args": {"blocks per SM": 1e400}}])j", false, true);
        row("an integer beyond 64 bits", R"j([{"id": 18446744073709551616}])j", false, true);
        row("deep nesting",
            "[{\"a\": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}]",
            false, true);
        row("a control character", "[{\"name\": \"a\x01b\"}]", false, false);
        row("invalid utf-8", "[{\"name\": \"a\xff\"}]", false, false);
        row("a missing comma", R"j([{"ph": "X" "ts": 1}])j", false, false);
        row("a trailing comma", R"j([{"ph": "X", }])j", false, false);
        // simdjson reads a number's or a literal's token only as far as it is asked to.
        row("a bad number", R"j([{"ts": 01}])j", false, true);
        row("a bad literal", R"j([{"ts": nul}])j", false, true);
        row("text after the array", R"j([{"ph": "X"}] {"ph": "X"})j", false, false);
        row("cut short", "[{\"ph\": \"X\", \"name\": \"ab", false, false);  // moc: no raw string
    }

    void scansTheCommonShapeAndDeclinesTheRest()
    {
        QFETCH(QString, array);
        QFETCH(bool, scanned);
        QFETCH(bool, parsed);
        const QByteArray bytes = array.toUtf8();
        // The rows with bytes that are not UTF-8 are built from Latin-1 escapes above.
        const std::string text = QTest::currentDataTag() == QByteArray("invalid utf-8")
                                     ? std::string("[{\"name\": \"a\xff\"}]")
                                     : std::string(bytes.constData(), size_t(bytes.size()));
        const ArrayReadings readings = readArrayBothWays(text);
        QCOMPARE(readings.scanned, scanned);
        QCOMPARE(readings.parsed, parsed);
        QVERIFY2(readings.difference.isEmpty(), qPrintable(readings.difference));
    }

    void usesTheFastestKernelsTheCpuHas()
    {
        EventParser parser;
        const QString name = QString::fromUtf8(parser.implementation());
        QVERIFY2(!name.isEmpty(), "no simdjson implementation name");
#if defined(__x86_64__)
        if (__builtin_cpu_supports("avx2"))
            QCOMPARE(name, QString("haswell"));
#endif
    }
};

QTEST_GUILESS_MAIN(TestEventParser)
#include "test_event_parser.moc"
