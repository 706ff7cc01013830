// The fast scanner (core/trace/event_scanner.h) reads an array exactly as the simdjson
// parser does, or gives up: each case below goes through both, and every field of every
// event is compared. The shared traces are compared whole in test_parallel_ingest.
#include "core/trace/event_parser_backend.h"
#include "core/trace/event_scanner.h"

#include <QtTest>
#include <sstream>

using namespace kinetoscope::trace;

namespace {

std::string describe(const ProcessOrThread& p)
{
    std::ostringstream out;
    out << p.number << '/' << p.label << '/' << p.present << p.streamPrefix;
    return out.str();
}

// Every field of a ParsedEvent, in one line.
std::string describe(const BatchEvent& element)
{
    const ParsedEvent& e = element.event;
    std::ostringstream out;
    out << "offset " << element.offset << " object " << element.isObject << " ph " << int(e.phase)
        << " name [" << e.name << "] cat [" << e.cat << "] " << e.hasCat << " pid "
        << describe(e.pid) << " tid " << describe(e.tid) << " ts " << e.tsNs << '/' << e.hasTs
        << " dur " << e.durNs << '/' << e.hasDur << " invalid " << e.invalidTime << " range "
        << e.timeOutOfRange << " flow " << e.flowId << '/' << e.hasFlowId << '/' << e.bindEnclosing
        << " corr " << e.correlation << " ext " << e.externalId << " dims [" << e.inputDims
        << "] grid " << e.kernel.grid[0] << ',' << e.kernel.grid[1] << ',' << e.kernel.grid[2]
        << " block " << e.kernel.block[0] << ',' << e.kernel.block[1] << ',' << e.kernel.block[2]
        << " regs " << e.kernel.registersPerThread << " smem " << e.kernel.sharedMemoryBytes
        << " bpsm " << e.kernel.blocksPerSm << " wpsm " << e.kernel.warpsPerSm << " occ "
        << e.kernel.occupancyPercent << " bytes " << e.copy.bytes << " bw " << e.copy.bandwidthGBps
        << " mem " << e.memBytes << '/' << e.hasMemBytes << " alloc " << e.totalAllocated
        << " resv " << e.totalReserved << " addr " << e.address << " dev " << e.deviceId << '/'
        << e.deviceType << " meta [" << e.metaName << "] [" << e.metaLabels << "] sort "
        << e.sortIndex << '/' << e.hasSortIndex;
    return out.str();
}

struct Outcome
{
    bool scanned = false;
    QString difference;  // empty when the scanner gave up or agreed with simdjson
};

// Reads `json` with both; where the scanner reads it, simdjson must read it the same.
Outcome readBoth(const std::string& json)
{
    std::string padded = json;
    padded.append(kPaddingBytes, ' ');
    std::vector<BatchEvent> scanned;
    std::vector<BatchEvent> parsed;
    Outcome outcome;
    outcome.scanned =
        scanEventArray(std::string_view(padded.data(), json.size()), kPaddingBytes, scanned);
    const auto backend = makeEventParserBackend(ParserBackendChoice::Generic);
    const int error = backend->parseArray(padded.data(), json.size(), padded.size(), parsed);
    if (!outcome.scanned)
        return outcome;
    if (error != 0) {
        outcome.difference = QStringLiteral("scanned, but simdjson says: ") +
                             QString::fromUtf8(backend->errorMessage(error));
        return outcome;
    }
    if (scanned.size() != parsed.size())
        return {
            true,
            QStringLiteral("%1 events scanned, %2 parsed").arg(scanned.size()).arg(parsed.size())};
    for (size_t i = 0; i < scanned.size(); ++i)
        if (describe(scanned[i]) != describe(parsed[i]))
            return {true, QString::fromStdString("event " + std::to_string(i) + ":\n  scanned " +
                                                 describe(scanned[i]) + "\n  parsed  " +
                                                 describe(parsed[i]))};
    return outcome;
}

}  // namespace

class TestEventScanner : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void readsAsSimdjsonDoesOrGivesUp_data()
    {
        QTest::addColumn<QByteArray>("json");  // bytes: not all of them UTF-8
        QTest::addColumn<bool>("scanned");
        auto row = [](const char* name, const char* json, bool scanned) {
            QTest::newRow(name) << QByteArray(json) << scanned;
        };
        // The shapes torch.profiler writes.
        row("kineto events",
            R"j([{"ph": "X", "cat": "cpu_op", "name": "aten::conv2d", "pid": 41872, "tid": 41872,
                 "ts": 1016.000, "dur": 17.930, "args": {"External id": 3, "Record function id": 0,
                 "Ev Idx": 2, "Input Dims": [[32, 64, 56, 56], [64, 64, 3, 3]]}},
                {"ph": "X", "cat": "kernel", "name": "volta_sgemm", "pid": 0, "tid": "stream 7",
                 "ts": 1623142623531639, "dur": 605, "args": {"queued": 0, "device": 0,
                 "correlation": 34442, "external id": 544, "registers per thread": 128,
                 "shared memory": 16384, "blocks per SM": 39.2, "warps per SM": 156.8,
                 "grid": [3136, 1, 1], "block": [128, 1, 1], "est. achieved occupancy %": 25}},
                {"ph": "f", "id": 100001, "pid": 0, "tid": 7, "ts": 1200.028, "cat": "ac2g",
                 "name": "ac2g", "bp": "e"},
                {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1,
                 "tid": 1, "ts": 1017.2, "args": {"Total Reserved": 2034237440,
                 "Total Allocated": 2015728640, "Bytes": -15728640, "Addr": 139887084830720,
                 "Device Id": 0, "Device Type": 1}},
                {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": 7,
                 "ts": 5, "dur": 1, "args": {"bytes": 4096, "memory bandwidth (GB/s)": 12.5,
                 "cid": 9}},
                {"name": "process_name", "ph": "M", "ts": 0, "pid": 41872, "tid": 0,
                 "args": {"name": "python3"}},
                {"name": "process_sort_index", "ph": "M", "pid": 0, "args": {"sort_index": 5}},
                {"name": "process_labels", "ph": "M", "pid": 0, "args": {"labels": "GPU 0"}}])j",
            true);
        row("empty array", "[]", true);
        row("empty objects", "[{}, { }]", true);
        row("whitespace everywhere",
            "[ {\"ph\":\"X\" , \"ts\" : 1.5 ,\"args\":{ \"Input Dims\" : [[1, 2]] , \"cid\":3 } } "
            "]",
            true);
        row("input dims last, then whitespace",
            "[{\"args\": {\"Input Dims\": [[1], []] \n }}, {\"args\": {\"Input dims\": []}}]",
            true);
        // Values of an unexpected type, and the quirks the two must share.
        row("duplicate keys", R"j([{"cat": "a", "cat": 5, "name": "x", "name": null}])j", true);
        row("null time clears an invalid one", R"j([{"dur": true, "ts": null}])j", true);
        row("times of every form",
            R"j([{"ts": "12.5", "dur": -0}, {"ts": "abc"}, {"ts": 1e400}, {"ts": 2.5e3},
                {"ts": 99999999999999999999}, {"dur": 1.0000005}, {"ts": [1]}])j",
            true);
        row("pids and tids",
            R"j([{"pid": "12abc", "tid": "stream 7"}, {"pid": "stream x", "tid": ""},
                {"pid": null, "tid": {"a": 1}}, {"pid": "-3", "tid": "stream "},
                {"pid": -42, "tid": 123456789012345678}])j",
            true);
        row("flow ids", R"j([{"id": "77"}, {"id": "12abc"}, {"id": true}, {"id": -1}])j", true);
        row("grid and block",
            R"j([{"args": {"grid": [1, "2", null, 4], "block": []}},
                {"args": {"grid": "x", "block": [1, 2, 3, 4, 5]}},
                {"args": {"grid": [2147483648, -2147483648, 7]}}])j",
            true);
        row("floats", R"j([{"args": {"blocks per SM": "3", "warps per SM": -0.0,
                "est. achieved occupancy %": 100}}])j",
            true);
        row("escapes in what is skipped",
            "[{\"x\": \"a\\\\b\\u00e9\\\"\\/\\n\", \"args\": {\"y\": [\"\\t\"]}, "
            "\"n\\u0061me\": \"zz\"}]",
            true);
        row("args that are not an object", R"j([{"args": [1, 2]}, {"args": "x"}])j", true);
        row("ints at their bounds",
            R"j([{"args": {"correlation": 2147483648, "shared memory": 2147483648,
                "Addr": 999999999999999999}}])j",
            true);
        row("utf-8 in names", "[{\"name\": \"caf\xc3\xa9 \xe2\x82\xac\"}]", true);
        // Left to simdjson: valid, but outside what the scanner reads.
        row("escape in a kept string", "[{\"name\": \"a\\\"b\"}]", false);
        row("element not an object", R"j([1, {"ph": "X"}])j", false);
        row("float pid", R"j([{"pid": 1.5}])j", false);
        row("19-digit integer", R"j([{"args": {"cid": 1234567890123456789}}])j", false);
        row("exponent in a float field", R"j([{"args": {"warps per SM": 1e3}}])j", false);
        row("input dims not an array", R"j([{"args": {"Input Dims": "x"}}])j", false);
        row("deep nesting",
            (std::string("[{\"x\": ") + std::string(100, '[') + std::string(100, ']') + "}]")
                .c_str(),
            false);
        // Not JSON: the scanner gives up, and simdjson reports it.
        row("trailing comma", R"j([{"ph": "X",}])j", false);
        row("bad literal", R"j([{"a": tru}])j", false);
        row("leading zero", R"j([{"ts": 01}])j", false);
        row("bare dot", R"j([{"ts": 1.}])j", false);
        row("bad escape", R"j([{"a": "\x"}])j", false);
        row("control character", "[{\"name\": \"a\tb\"}]", false);
        row("invalid utf-8", "[{\"name\": \"a\xff\"}]", false);
        row("trailing content", "[{}] x", false);
        row("unterminated", "[{\"name\": \"abc", false);
        row("missing colon", R"j([{"name" "abc"}])j", false);
    }

    void readsAsSimdjsonDoesOrGivesUp()
    {
        QFETCH(QByteArray, json);
        QFETCH(bool, scanned);
        const Outcome outcome = readBoth(json.toStdString());
        QVERIFY2(outcome.difference.isEmpty(), qPrintable(outcome.difference));
        QCOMPARE(outcome.scanned, scanned);
    }

    void neverReadsPastTheReadableBytes()
    {
        // A string still open at the end of the text: the search for its end stops at the
        // readable bytes (ASan would see it otherwise), and the scanner gives up.
        for (size_t readable : {size_t(0), size_t(3), size_t(64)}) {
            const std::string json = "[{\"name\": \"abcdefghijklmnopqrstuvwxyz0123456789";
            std::vector<char> bytes(json.begin(), json.end());
            bytes.resize(json.size() + readable, 'x');
            std::vector<BatchEvent> out;
            QVERIFY(!scanEventArray(std::string_view(bytes.data(), json.size()), readable, out));
        }
    }
};

QTEST_GUILESS_MAIN(TestEventScanner)
#include "test_event_scanner.moc"
