// One event object -> ParsedEvent: the field variants torch.profiler has written.
#include "core/trace/event_parser.h"

#include <QtTest>

using namespace kinetoscope::trace;

namespace {
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

    void reportsMalformedObjects()
    {
        EventParser parser;
        ParsedEvent e;
        QCOMPARE(parse(parser, R"j({"ph":"X","ts":1,"dur":})j", e), EventParser::Result::Malformed);
        QVERIFY(!parser.lastError().empty());
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
