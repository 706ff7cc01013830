// Structural scanning: where a value ends, without parsing it.
#include "core/trace/json_scan.h"

#include <QtTest>

using namespace kinetoscope::trace::json_scan;

class TestJsonScan : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void scansCompleteValues_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("length");
        QTest::newRow("object") << "{\"a\": 1}, {\"b\": 2}" << 8;
        QTest::newRow("nested") << "{\"a\": [1, {\"b\": [2]}]} tail" << 22;
        QTest::newRow("brace in string") << "{\"a\": \"}{][\"}, x" << 13;
        QTest::newRow("escaped quote") << "{\"a\": \"x\\\"}\"}, x" << 13;
        QTest::newRow("escaped backslash before quote") << "{\"a\": \"x\\\\\"}, x" << 12;
        QTest::newRow("string") << "\"abc\", 1" << 5;
        QTest::newRow("number") << "1234.5e3, x" << 8;
        QTest::newRow("literal") << "true]" << 4;
    }
    void scansCompleteValues()
    {
        QFETCH(QString, text);
        QFETCH(int, length);
        const std::string bytes = text.toStdString();
        const ScanResult result = scanValue(bytes);
        QCOMPARE(static_cast<int>(result.status), static_cast<int>(Scan::Complete));
        QCOMPARE(static_cast<int>(result.length), length);
    }

    void needsMoreWhenCut_data()
    {
        QTest::addColumn<QString>("text");
        QTest::newRow("open object") << "{\"a\": [1, 2";
        QTest::newRow("open string") << "{\"a\": \"abc";
        QTest::newRow("cut after backslash") << "{\"a\": \"abc\\";
        QTest::newRow("number at end") << "12345";
        QTest::newRow("empty") << "";
    }
    void needsMoreWhenCut()
    {
        QFETCH(QString, text);
        const std::string bytes = text.toStdString();
        QCOMPARE(static_cast<int>(scanValue(bytes).status), static_cast<int>(Scan::NeedMore));
    }

    void rejectsBytesThatStartNoValue()
    {
        QCOMPARE(static_cast<int>(scanValue(":x").status), static_cast<int>(Scan::Invalid));
        QCOMPARE(static_cast<int>(scanValue(",").status), static_cast<int>(Scan::Invalid));
    }

    void skipsWhitespace()
    {
        QCOMPARE(skipWhitespace(" \t\r\n x", 0), size_t(5));
        QCOMPARE(skipWhitespace("   ", 1), size_t(3));
    }

    void repairsControlCharactersAndBadEscapes()
    {
        std::string repaired;
        QVERIFY(repairStrings("{\"name\": \"a\tb\nc\"}", repaired));
        QCOMPARE(QString::fromStdString(repaired), QString("{\"name\": \"a b c\"}"));
        QVERIFY(repairStrings("{\"traceName\": \"C:\\Users\\x\\trace.json\"}", repaired));
        // \U and \x are not JSON escapes and get doubled; \t is a valid escape and stays.
        QCOMPARE(QString::fromStdString(repaired),
                 QString("{\"traceName\": \"C:\\\\Users\\\\x\\trace.json\"}"));
        QVERIFY(!repairStrings("{\"ok\": \"a\\nb \\u00e9 \\\\ \\\"\"}", repaired));
    }

    void escapesQuotesThatDoNotEndTheirString()
    {
        // As torch wrote a Python frame's name: the three quotes are the name's.
        std::string repaired;
        QVERIFY(repairStrings("{\"name\": \"v.py(0):     \"\"\"\", \"pid\": 1}", repaired));
        QCOMPARE(QString::fromStdString(repaired),
                 QString("{\"name\": \"v.py(0):     \\\"\\\"\\\"\", \"pid\": 1}"));
        // A closing quote before whitespace, ',', ':', '}' or ']' is left alone: a lost ':'
        // stays an error, not a key that swallows the next.
        QVERIFY(!repairStrings("{\"a\" : [\"b\" ], \"c\":\"d\"\n}", repaired));
        QVERIFY(!repairStrings("{\"ts\" 5, \"dur\": 1}", repaired));
    }

    void findsTheNextElementOfAnArrayOfObjects()
    {
        const std::string_view text = "[{\"a\": \"x}, {\"}, {\"b\": 1},\n  {\"c\": {}}, {}]";
        // The first boundary after 1 is inside a string: a scan that trusts no quote finds it.
        QCOMPARE(nextElementStart(text, 1), text.find("{\"}"));
        QCOMPARE(nextElementStart(text, text.find("{\"}") + 1), text.find("{\"b\""));
        QCOMPARE(nextElementStart(text, text.find("{\"b\"") + 1), text.find("{\"c\""));
        // An element with no key, or a '{' not after "},", is not one.
        QCOMPARE(nextElementStart(text, text.find("{\"c\"") + 1), std::string_view::npos);
        // With a first key: only an element that opens with it.
        QCOMPARE(nextElementStart(text, 1, "\"c\""), text.find("{\"c\""));
        QCOMPARE(firstKey(text.substr(1)), std::string_view("\"a\""));
        QCOMPARE(firstKey("{}"), std::string_view());
    }

    void findsWhereAnArrayOfObjectsEnds()
    {
        const std::string_view text =
            "{\"e\": [{\"a\": [{\"x\": 1}] x\"}, {\"b\": 2}\n], \"n\": 1}";
        // The ']' after "}]" inside the first element is followed by a letter: not the end.
        QCOMPARE(arrayEndAfter(text, 8), text.rfind(']'));
        QCOMPARE(arrayEndAfter("[{}]", 1), size_t(3));
        QCOMPARE(arrayEndAfter("[{} x]", 1), std::string_view::npos);
    }
};

QTEST_GUILESS_MAIN(TestJsonScan)
#include "test_json_scan.moc"
