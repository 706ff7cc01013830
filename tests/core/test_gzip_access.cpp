// Random access into gzip traces: the access points recorded while the ingest
// decompresses a file, reading from any of them as from the start, several gzip members
// and trailing bytes, and an event's args read back from deep inside a large .gz trace.
#ifndef Q_MOC_RUN
#include "core/trace/byte_source.h"
#include "core/trace/event_args.h"
#include "core/trace/other_outputs.h"
#include "core/trace/trace_loader.h"
#include "tests/support/test_support.h"
#endif

#include <QtTest>
#include <cstdint>
#include <string>
#include <zlib.h>

using namespace kinetoscope::trace;
using namespace kinetoscope::test;

namespace {

// `bytes` of JSON-like lines whose numbers vary (a linear congruential sequence), so the
// compressed stream is full of back-references into the window before each point.
std::string variedText(size_t bytes, uint64_t seed)
{
    std::string text;
    text.reserve(bytes + 128);
    uint64_t x = seed;
    while (text.size() < bytes) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        text += "{\"ph\": \"X\", \"name\": \"op_" + std::to_string(x >> 58) +
                "\", \"ts\": " + std::to_string(x >> 40) +
                ", \"dur\": " + std::to_string((x >> 20) & 0xfff) + "},\n";
    }
    text.resize(bytes);
    return text;
}

void appendGzipMember(const std::filesystem::path& path, const std::string& bytes)
{
    gzFile file = gzopen(path.c_str(), "ab6");
    QVERIFY(file);
    QCOMPARE(gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size())), int(bytes.size()));
    QCOMPARE(gzclose(file), Z_OK);
}

// Everything `source` yields, and the status it ends in.
std::string readAll(ByteSource& source)
{
    std::string all;
    std::string chunk(1 << 20, '\0');
    for (;;) {
        const size_t got = source.read(chunk.data(), chunk.size());
        all.append(chunk.data(), got);
        if (got == 0 || source.status() != ByteSource::Status::Ok)
            return all;
    }
}

std::string readFrom(const std::filesystem::path& path, uint64_t offset, size_t count,
                     const GzipIndex* index)
{
    std::string error;
    const auto source = openFileSourceAt(path, offset, index, error);
    if (!source)
        return "<" + error + ">";
    std::string bytes(count, '\0');
    size_t total = 0;
    while (total < count) {
        const size_t got = source->read(bytes.data() + total, count - total);
        if (got == 0)
            break;
        total += got;
    }
    bytes.resize(total);
    return bytes;
}

std::string argsOfEvent(int i)
{
    return "{\"index\": " + std::to_string(i) + ", \"note\": \"event " +
           std::to_string(i * 7919 % 100003) + "\"}";
}

// A trace of at least `bytes` of events, event i at i * 10 us with argsOfEvent(i).
std::string tracedEvents(size_t bytes, int& count)
{
    std::string text = "{\"traceEvents\": [";
    count = 0;
    while (text.size() < bytes) {
        if (count)
            text += ",\n";
        text += "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op\", \"pid\": 1, \"tid\": 1, "
                "\"ts\": " +
                std::to_string(count * 10) + ", \"dur\": 5, \"args\": " + argsOfEvent(count) + "}";
        ++count;
    }
    return text + "]}";
}

}  // namespace

class TestGzipAccess : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::filesystem::path temp(const char* name) const
    {
        return std::filesystem::path(m_dir.path().toStdString()) / name;
    }

private slots:
    void readingTheWholeFileRecordsAccessPoints()
    {
        const std::string text = variedText(30u << 20, 1);
        writeGzip(temp("a.gz"), text);
        std::string error;
        const auto source = openFileSource(temp("a.gz"), error);
        QVERIFY2(source, error.c_str());
        QCOMPARE(readAll(*source) == text, true);
        QCOMPARE(source->status(), ByteSource::Status::EndOfData);
        const auto index = source->gzipIndex();
        QVERIFY(index);
        // One point about every 8 MiB of output, each after the last and with a full window.
        QCOMPARE(index->size(), size_t(text.size() / GzipIndex::kSpacingBytes));
        uint64_t previous = 0;
        bool someMidByte = false;
        for (const GzipAccessPoint& p : index->points()) {
            QVERIFY(p.outputOffset >= previous + GzipIndex::kSpacingBytes);
            QCOMPARE(p.window.size(), GzipIndex::kWindowBytes);
            QVERIFY(std::equal(p.window.begin(), p.window.end(),
                               text.begin() +
                                   std::ptrdiff_t(p.outputOffset - GzipIndex::kWindowBytes)));
            QCOMPARE(index->pointAtOrBefore(p.outputOffset), &p);
            QCOMPARE(index->pointAtOrBefore(p.outputOffset - 1),
                     p.outputOffset == index->points()[0].outputOffset ? nullptr : &p - 1);
            someMidByte = someMidByte || p.bits != 0;
            previous = p.outputOffset;
        }
        // Most block ends fall inside a byte: the restart has to prime those bits.
        QVERIFY(someMidByte);
        // A plain file has no index.
        writeFile(temp("a.json"), "{}");
        QVERIFY(!openFileSource(temp("a.json"), error)->gzipIndex());
    }

    // A look at a file's head (each JSON file of a folder, other_outputs.h's fileHead) read
    // 1 MiB of the file for its first 4 KiB; it reads 16 KiB at a time now, and what it
    // decompresses is the file's content however far it reads, members and all.
    void aLookAtTheHeadReadsTheSameBytes()
    {
        const std::string text = variedText(3u << 20, 2);
        writeGzip(temp("head.gz"), text.substr(0, 1u << 20));
        appendGzipMember(temp("head.gz"), text.substr(1u << 20));
        std::string error;
        const auto head = openFileSource(temp("head.gz"), error, ReadExtent::Head);
        QVERIFY2(head, error.c_str());
        QVERIFY(!head->gzipIndex());
        QCOMPARE(readAll(*head) == text, true);
        QCOMPARE(head->status(), ByteSource::Status::EndOfData);
        QCOMPARE(fileHead(temp("head.gz"), 4096), text.substr(0, 4096));
    }

    void readingFromAnAccessPointGivesTheSameBytesAsFromTheStart()
    {
        const std::string text = variedText(30u << 20, 2);
        writeGzip(temp("b.gz"), text);
        std::string error;
        const auto source = openFileSource(temp("b.gz"), error);
        readAll(*source);
        const auto index = source->gzipIndex();
        QVERIFY(index->size() >= 3);
        std::vector<uint64_t> offsets = {0, 1, 12345, text.size() - 100, text.size() - 1};
        for (const GzipAccessPoint& p : index->points()) {
            offsets.push_back(p.outputOffset - 1);
            offsets.push_back(p.outputOffset);
            offsets.push_back(p.outputOffset + 1);
            offsets.push_back(p.outputOffset + 40000);  // past the window's reach
        }
        for (const uint64_t offset : offsets) {
            const std::string expected = text.substr(offset, 5000);
            QVERIFY2(readFrom(temp("b.gz"), offset, 5000, index.get()) == expected,
                     qPrintable(QStringLiteral("at offset %1").arg(offset)));
        }
        // Without an index, from the start: the same bytes.
        QVERIFY(readFrom(temp("b.gz"), text.size() - 100, 100, nullptr) ==
                text.substr(text.size() - 100));
        // Past the end: no source, a reason.
        QVERIFY(readFrom(temp("b.gz"), text.size() + 10, 1, index.get()).starts_with("<"));
    }

    void severalMembersAndTrailingBytesReadAsOneStream()
    {
        const std::string first = variedText(17u << 20, 3);
        const std::string second = variedText(9u << 20, 4);
        const std::string all = first + second;
        writeGzip(temp("m.gz"), first);
        appendGzipMember(temp("m.gz"), second);
        writeFile(temp("m.gz"), readBytes(temp("m.gz")) + std::string("\0\0not gzip", 10));
        std::string error;
        const auto source = openFileSource(temp("m.gz"), error);
        QCOMPARE(readAll(*source) == all, true);
        QCOMPARE(source->status(), ByteSource::Status::EndOfData);
        const auto index = source->gzipIndex();
        QCOMPARE(index->size(), size_t(3));  // two in the first member, one in the second
        // From a point in the first member across the members' boundary (its trailer and
        // the second member's header are skipped), and from the point in the second.
        const uint64_t boundary = first.size();
        QVERIFY(index->pointAtOrBefore(boundary - 10)->outputOffset < boundary);
        QVERIFY(readFrom(temp("m.gz"), boundary - 10, 100, index.get()) ==
                all.substr(boundary - 10, 100));
        QVERIFY(index->pointAtOrBefore(all.size() - 1)->outputOffset > boundary);
        QVERIFY(readFrom(temp("m.gz"), all.size() - 50, 1000, index.get()) ==
                all.substr(all.size() - 50));
    }

    void argsOfAnEventDeepInALargeGzipTraceAreReadBack()
    {
        int count = 0;
        const std::string text = tracedEvents(20u << 20, count);
        writeGzip(temp("big.json.gz"), text);
        const LoadResult result = loadTraceFile(temp("big.json.gz"));
        QCOMPARE(result.status, LoadStatus::Ok);
        QCOMPARE(result.model->events().size(), size_t(count));
        for (const int i : {0, count / 2, count - 2, count - 1}) {
            const Event& e = result.model->events()[size_t(i)];
            const auto args = readArgs(*result.model, result.model->idOf(e));
            QVERIFY(args);
            const std::string expected = argsOfEvent(int(e.startNs / 10000));
            QCOMPARE(QString::fromStdString(argsText(*args)), QString::fromStdString(expected));
            QCOMPARE(findArg(*args, "index")->integer(), std::optional<int64_t>(e.startNs / 10000));
        }
    }
};

QTEST_GUILESS_MAIN(TestGzipAccess)
#include "test_gzip_access.moc"
