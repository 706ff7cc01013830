// core/format: one convention for every number people read (format.h states it).
#ifndef Q_MOC_RUN  // moc cannot parse <concepts>
#include "core/format/csv.h"
#include "core/format/format.h"
#include "core/format/number_text.h"
#endif

#include <QtTest>
#include <clocale>
#include <cmath>
#include <limits>
#include <optional>

using namespace kinetoscope;

class TestFormat : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void changesCarryTheirSign()
    {
        QCOMPARE(format::durationChange(-59.04e6), std::string("\u221259.0 ms"));
        QCOMPARE(format::durationChange(1234), std::string("+1.23 µs"));
        QCOMPARE(format::durationChange(0.2), std::string("0 ns"));  // reads zero: no sign
        QCOMPARE(format::percentChange(-0.3333), std::string("\u221233.3 %"));
        QCOMPARE(format::percentChange(0.0), std::string("0.0 %"));
        QCOMPARE(format::countChange(4096), std::string("+4,096"));
        QCOMPARE(format::countChange(-4.5), std::string("\u22124.50"));
    }

    // A change to ten times the before and more reads as the ratio of after to before
    // (issue 50: "+10574.0 %", "+70547.7 %" in diff's causes).
    void largeChangesReadAsRatios()
    {
        QCOMPARE(format::percentChange(105.74), std::string("107×"));
        QCOMPARE(format::percentChange(705.477), std::string("706×"));
        QCOMPARE(format::percentChange(3838.667), std::string("3,840×"));
        QCOMPARE(format::percentChange(9.0), std::string("10.0×"));
        QCOMPARE(format::percentChange(8.99), std::string("+899.0 %"));
        QCOMPARE(format::percentChange(2.673), std::string("+267.3 %"));
        QCOMPARE(format::percentChange(-0.9991), std::string("\u221299.9 %"));
        QCOMPARE(format::percentChange(std::numeric_limits<double>::infinity()),
                 std::string("n/a"));
    }

    void durationsScaleAfterRounding()
    {
        QCOMPARE(format::duration(0), std::string("0 ns"));
        QCOMPARE(format::duration(812), std::string("812 ns"));
        QCOMPARE(format::duration(999.6), std::string("1.00 µs"));
        QCOMPARE(format::duration(1234), std::string("1.23 µs"));
        QCOMPARE(format::duration(45.6e6), std::string("45.6 ms"));
        QCOMPARE(format::duration(999.96e3), std::string("1.00 ms"));
        QCOMPARE(format::duration(177.59e6), std::string("178 ms"));
        QCOMPARE(format::duration(8.3e9), std::string("8.30 s"));
        QCOMPARE(format::duration(999e9), std::string("999 s"));
        QCOMPARE(format::duration(-1.5e6), std::string("-1.50 ms"));
        QCOMPARE(format::seconds(0.25), std::string("250 ms"));
        QCOMPARE(format::duration(std::nan("")), std::string("n/a"));
        QCOMPARE(format::durationIn(1.5e6, format::TimeUnit::Milliseconds, 2), std::string("1.50"));
        QCOMPARE(format::durationIn(2500, format::TimeUnit::Microseconds, 1, true),
                 std::string("2.5 µs"));
        QCOMPARE(format::durationIn(-0.001, format::TimeUnit::Milliseconds, 2),
                 std::string("0.00"));
    }

    // Three significant digits past the second too: minutes from 1000 s, hours, days
    // (issue 50: two traces "start 69765 s apart").
    void longDurationsScaleToMinutesHoursDays()
    {
        QCOMPARE(format::duration(999.6e9), std::string("16.7 min"));  // after rounding
        QCOMPARE(format::duration(1000e9), std::string("16.7 min"));
        QCOMPARE(format::duration(2712e9), std::string("45.2 min"));
        QCOMPARE(format::duration(4512e9), std::string("1.25 h"));
        QCOMPARE(format::duration(3597.6e9), std::string("1.00 h"));
        QCOMPARE(format::seconds(69765), std::string("19.4 h"));
        QCOMPARE(format::seconds(86400 * 3.5), std::string("3.50 d"));
        QCOMPARE(format::seconds(1.6e9), std::string("18,519 d"));
        QCOMPARE(format::durationChange(-69765e9), std::string("\u221219.4 h"));
    }

    void bytesAreBinary()
    {
        QCOMPARE(format::bytes(0), std::string("0 B"));
        QCOMPARE(format::bytes(512), std::string("512 B"));
        QCOMPARE(format::bytes(1023.9), std::string("1.00 KiB"));
        QCOMPARE(format::bytes(812 * 1024.0), std::string("812 KiB"));
        // From 1000 of a unit, the next one: never four digits (issue 50: "1016 KiB").
        QCOMPARE(format::bytes(999), std::string("999 B"));
        QCOMPARE(format::bytes(1000), std::string("0.977 KiB"));
        QCOMPARE(format::bytes(999.6), std::string("0.976 KiB"));  // after rounding
        QCOMPARE(format::bytes(1016 * 1024.0), std::string("0.992 MiB"));
        QCOMPARE(format::bytes(1019 * 1024.0), std::string("0.995 MiB"));
        QCOMPARE(format::bytes(1023.6 * 1024.0), std::string("1.00 MiB"));
        QCOMPARE(format::bytes(1001 * 1024.0 * 1024), std::string("0.978 GiB"));
        QCOMPARE(format::bytes(5000 * 1024 * format::kGiB), std::string("5,000 TiB"));
        QCOMPARE(format::byteRate(1010 * 1024.0 * 1024), std::string("0.986 GiB/s"));
        QCOMPARE(format::bytes(1.5 * format::kGiB), std::string("1.50 GiB"));
        QCOMPARE(format::bytes(80 * format::kGiB), std::string("80.0 GiB"));
        QCOMPARE(format::bytes(3.0 * 1024 * format::kGiB), std::string("3.00 TiB"));
        QCOMPARE(format::bytes(-1), std::string("n/a"));  // the "not available" sentinel
        QCOMPARE(format::byteRate(12.3 * format::kGiB), std::string("12.3 GiB/s"));
    }

    void sharesRatiosCountsRates()
    {
        QCOMPARE(format::percent(0.3333), std::string("33.3 %"));
        QCOMPARE(format::percent(1), std::string("100.0 %"));
        QCOMPARE(format::ratio(1.849), std::string("1.85×"));
        QCOMPARE(format::ratio(12.34), std::string("12.3×"));
        QCOMPARE(format::count(uint64_t(1234567)), std::string("1,234,567"));
        QCOMPARE(format::count(uint64_t(999)), std::string("999"));
        QCOMPARE(format::count(int64_t(-1234)), std::string("-1,234"));
        QCOMPARE(format::count(12345), std::string("12,345"));  // int
        QCOMPARE(format::count(size_t(1000)), std::string("1,000"));
        QCOMPARE(format::count(4.5), std::string("4.50"));
        QCOMPARE(format::count(12.0), std::string("12"));
        QCOMPARE(format::rate(1234.6, "samples"), std::string("1,235 samples/s"));
        QCOMPARE(format::number(0.012345), std::string("0.0123"));
        QCOMPARE(format::number(4.567), std::string("4.57"));
        QCOMPARE(format::number(789.4), std::string("789"));
        QCOMPARE(format::number(12345.6), std::string("12,346"));
        QCOMPARE(format::number(-2.5e-7), std::string("-0.000000250"));
        QCOMPARE(format::number(std::numeric_limits<double>::infinity()), std::string("n/a"));
        QCOMPARE(format::number(1e300).size() < 420, true);  // no crash, no overflow of a buffer
    }

    // Text columns count characters, not bytes: µ, × and − are one column each.
    void columnsCountCharactersNotBytes()
    {
        QCOMPARE(format::displayWidth("1.23 µs"), size_t(7));
        QCOMPARE(std::string("1.23 µs").size(), size_t(8));
        QCOMPARE(format::padLeft("1.23 µs", 10), std::string("   1.23 µs"));
        QCOMPARE(format::padLeft("1.23 ms", 10), std::string("   1.23 ms"));
        QCOMPARE(format::displayWidth(format::padLeft("−5.0 %", 9)), size_t(9));
        QCOMPARE(format::padRight("2.0×", 6), std::string("2.0×  "));
        QCOMPARE(format::padLeft("toolong", 3), std::string("toolong"));  // never cut
        QCOMPARE(format::clip("aµbµc", 3), std::string("aµb"));           // never half a character
        QCOMPARE(format::clip("abc", 5), std::string("abc"));
    }

    void countsAgreeWithTheirNoun()
    {
        QCOMPARE(format::counted(1, "call"), std::string("1 call"));
        QCOMPARE(format::counted(0, "call"), std::string("0 calls"));
        QCOMPARE(format::counted(1234, "rank"), std::string("1,234 ranks"));
        QCOMPARE(format::counted(1, "device activity", "device activities"),
                 std::string("1 device activity"));
        QCOMPARE(format::counted(2, "device activity", "device activities"),
                 std::string("2 device activities"));
    }

    // The GUI runs under the user's locale: a comma locale must not change the text.
    void theLocaleNeverChangesTheText()
    {
        const char* previous = std::setlocale(LC_NUMERIC, nullptr);
        const std::string saved = previous ? previous : "C";
        if (!std::setlocale(LC_NUMERIC, "de_DE.UTF-8") &&
            !std::setlocale(LC_NUMERIC, "fr_FR.UTF-8"))
            QSKIP("no locale with a decimal comma installed");
        const std::string text = format::duration(1.5e6);
        std::setlocale(LC_NUMERIC, saved.c_str());
        QCOMPARE(text, std::string("1.50 ms"));
    }

    // CSV as RFC 4180 reads it: quoted only where needed, quotes doubled, CRLF records;
    // numbers raw and exact whatever the locale; TSV cells never break a line.
    void csvIsRfc4180WithRawNumbers()
    {
        using format::CsvCell;
        QCOMPARE(format::csvField("aten::mm"), std::string("aten::mm"));
        QCOMPARE(format::csvField("[[8, 3], [3, 4]]"), std::string("\"[[8, 3], [3, 4]]\""));
        QCOMPARE(format::csvField("say \"hi\""), std::string("\"say \"\"hi\"\"\""));
        QCOMPARE(format::csvField("two\nlines"), std::string("\"two\nlines\""));
        QCOMPARE(format::csvNumber(1234567890123.0), std::string("1234567890123"));
        QCOMPARE(format::csvNumber(0.25), std::string("0.25"));
        QCOMPARE(format::csvNumber(-3.0), std::string("-3"));
        QCOMPARE(format::csvNumber(1.0 / 3.0), std::string("0.3333333333333333"));
        QCOMPARE(format::csvNumber(std::nan("")), std::string());
        std::setlocale(LC_ALL, "de_DE.UTF-8");  // a decimal comma must not leak in
        QCOMPARE(format::csvRecord({CsvCell{std::string("a,b")}, CsvCell{1.5}, CsvCell{2.0}}),
                 std::string("\"a,b\",1.5,2\r\n"));
        std::setlocale(LC_ALL, "C");
        QCOMPARE(format::tsvRecord({CsvCell{std::string("a\tb\nc")}, CsvCell{7.0}}),
                 std::string("a b c\t7\n"));
        QCOMPARE(format::csvHeader("Self CPU", "ns"), std::string("Self CPU (ns)"));
        QCOMPARE(format::csvHeader("Name", ""), std::string("Name"));
    }

    // A session's values read back whole, or not at all: atoll and atof read "12abc" as 12
    // and "" as 0, and std::atof gives NaN and infinity as numbers.
    void numbersAreReadWholeOrNotAtAll()
    {
        QCOMPARE(format::integerIn("42"), std::optional<int64_t>(42));
        QCOMPARE(format::integerIn("-3"), std::optional<int64_t>(-3));
        QCOMPARE(format::integerIn("12abc"), std::optional<int64_t>());
        QCOMPARE(format::integerIn(""), std::optional<int64_t>());
        QCOMPARE(format::integerIn(" 7"), std::optional<int64_t>());
        QCOMPARE(format::integerIn("2.0"), std::optional<int64_t>());
        QCOMPARE(format::integerIn("99999999999999999999"), std::optional<int64_t>());
        QCOMPARE(format::numberIn("12.25"), std::optional<double>(12.25));
        QCOMPARE(format::numberIn("1e3"), std::optional<double>(1000.0));
        QCOMPARE(format::numberIn("nan"), std::optional<double>());
        QCOMPARE(format::numberIn("inf"), std::optional<double>());
        QCOMPARE(format::numberIn("1e400"), std::optional<double>());
        QCOMPARE(format::numberIn("3.5 s"), std::optional<double>());
        std::setlocale(LC_ALL, "de_DE.UTF-8");  // a decimal comma must not be wanted
        QCOMPARE(format::numberIn("0.5"), std::optional<double>(0.5));
        std::setlocale(LC_ALL, "C");
    }
};

QTEST_GUILESS_MAIN(TestFormat)
#include "test_format.moc"
