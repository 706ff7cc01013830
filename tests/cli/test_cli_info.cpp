// `kinetoscope info TRACE [--json]`: the contract of DESIGN.md and issue #2.
#include "tests/support/cli_runner.h"
#include "tests/support/test_support.h"

#include <QtTest>
#include <nlohmann/json.hpp>
#include <sstream>

using kinetoscope::test::sharedTrace;

namespace {
using Run = kinetoscope::test::CliRun;
using kinetoscope::test::runCli;
}  // namespace

class TestCliInfo : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void printsJsonWithTheContractedKeys()
    {
        const std::string path = sharedTrace("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz");
        const Run run = runCli({"info", path, "--json"});
        QCOMPARE(run.code, 0);
        QVERIFY(run.err.empty());
        const auto info = nlohmann::json::parse(run.out);
        QCOMPARE(info["events"]["total"].get<uint64_t>(), uint64_t(75718));
        QCOMPARE(info["events"]["by_category"]["Operator"].get<uint64_t>(), uint64_t(23646));
        QCOMPARE(info["events"]["by_category"][""].get<uint64_t>(), uint64_t(12860));
        QVERIFY(info["events"]["skipped"].is_object());
        QVERIFY(info["events"]["skipped"].empty());
        QCOMPARE(info["steps"].get<int>(), 6);
        QCOMPARE(info["devices"].size(), size_t(4));
        QCOMPARE(info["devices"][0]["compute_capability"].get<std::string>(), std::string("7.0"));
        QVERIFY(info["load_seconds"].get<double>() > 0.0);
        QVERIFY(info["megabytes_per_second"].get<double>() > 0.0);
        QCOMPARE(info["status"].get<std::string>(), std::string("ok"));
        QVERIFY(info["format"].get<std::string>().find("1.8-1.10") != std::string::npos);
    }

    void printsReadableText()
    {
        const Run run = runCli({"info", sharedTrace("hta/allreduce_memory_rank1.json.gz")});
        QCOMPARE(run.code, 0);
        QVERIFY(run.out.find("216,092 entries") != std::string::npos);
        QVERIFY(run.out.find("rank 1 of 2 (nccl)") != std::string::npos);
        QVERIFY(run.out.find("5 ProfilerStep markers") != std::string::npos);
        QVERIFY(run.out.find("MiB/s of 51.2 MiB JSON") !=
                std::string::npos);  // binary units (core/format)
    }

    // Without markers, the iterations the summary and the diagnosis judge (helper 48: info
    // said "analysed as one window" where summary read 24 steps).
    void saysHowStepsAreFoundWithoutMarkers()
    {
        const Run loop = runCli(
            {"info",
             kinetoscope::test::dataFile("cpu_traces/hand_loop_no_markers.json.gz").string()});
        QVERIFY2(loop.out.find("no ProfilerStep markers: 24 iterations found from the repeating "
                               "calls (each starts at aten::randn)") != std::string::npos,
                 loop.out.c_str());
        const Run empty = runCli(
            {"info", kinetoscope::test::dataFile("other_outputs/empty_profile.json.gz").string()});
        QVERIFY(empty.out.find("no ProfilerStep markers: analysed as one window") !=
                std::string::npos);
    }

    void reportsBadInputInOneLineWithExitCode2()
    {
        const Run missing = runCli({"info", "/no/such/trace.json"});
        QCOMPARE(missing.code, 2);
        QVERIFY(missing.out.empty());
        QCOMPARE(std::count(missing.err.begin(), missing.err.end(), '\n'), 1L);
        QVERIFY(missing.err.find("no such file") != std::string::npos);

        QTemporaryDir dir;
        const std::filesystem::path notTrace =
            std::filesystem::path(dir.path().toStdString()) / "config.json";
        kinetoscope::test::writeFile(notTrace, R"j({"learning_rate": 0.1})j");
        const Run wrong = runCli({"info", notTrace.string(), "--json"});
        QCOMPARE(wrong.code, 2);
        QVERIFY(wrong.err.find("not a trace") != std::string::npos);
        QCOMPARE(std::count(wrong.err.begin(), wrong.err.end(), '\n'), 1L);
    }

    void stillPrintsWhatATruncatedTraceHeld()
    {
        QTemporaryDir dir;
        const std::string text =
            kinetoscope::test::readDecompressed(sharedTrace("hta/sampled_rank0.json.gz"));
        const auto path = std::filesystem::path(dir.path().toStdString()) / "cut.json";
        kinetoscope::test::writeFile(path, text.substr(0, text.size() / 2));
        const Run run = runCli({"info", path.string(), "--json"});
        QCOMPARE(run.code, 2);
        const auto info = nlohmann::json::parse(run.out);
        QCOMPARE(info["status"].get<std::string>(), std::string("truncated"));
        QVERIFY(info["events"]["total"].get<uint64_t>() > 1000);
        QVERIFY(run.err.find("truncated") != std::string::npos);
    }

    // --threads 1 reads on one thread, 2 on two: the same trace comes out. What may differ
    // is how long it took and the memory the model's arrays were given, nothing read.
    void readsTheSameWhateverTheThreads()
    {
        const std::string path = sharedTrace("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz");
        auto read = [](const Run& run) {
            nlohmann::json info = nlohmann::json::parse(run.out);
            for (const char* varies :
                 {"load_seconds", "megabytes_per_second", "model_bytes", "model_bytes_per_event"})
                info.erase(varies);
            return info;
        };
        const Run serial = runCli({"info", path, "--json", "--threads", "1"});
        const Run parallel = runCli({"info", "--threads", "2", path, "--json"});
        QCOMPARE(serial.code, 0);
        QCOMPARE(parallel.code, 0);
        QVERIFY2(read(serial) == read(parallel),
                 "info --json differs between --threads 1 and --threads 2");
        QCOMPARE(read(serial)["events"]["total"].get<uint64_t>(), uint64_t(75718));
        // The text too, but for its "load" line (time, rate, model size).
        auto withoutLoad = [](const std::string& text) {
            return text.substr(0, text.find("\n  load "));
        };
        const Run serialText = runCli({"info", path, "--threads", "1"});
        const Run parallelText = runCli({"info", path, "--threads", "2"});
        QCOMPARE(serialText.code, 0);
        QVERIFY(serialText.out.find("\n  load ") != std::string::npos);
        QCOMPARE(withoutLoad(serialText.out), withoutLoad(parallelText.out));
    }

    void aBadThreadCountIsOneLine()
    {
        const std::string path = sharedTrace("hta/sampled_rank0.json.gz");
        for (const std::vector<std::string>& args :
             {std::vector<std::string>{"info", path, "--threads", "-2"},
              {"info", path, "--threads", "all"},
              {"info", "--threads", "0x4", path},
              {"info", path, "--threads"}}) {
            const Run run = runCli(args);
            QCOMPARE(run.code, 2);
            QVERIFY(run.out.empty());
            QCOMPARE(std::count(run.err.begin(), run.err.end(), '\n'), 1L);
            QVERIFY2(run.err.starts_with("kinetoscope info: --threads "), run.err.c_str());
        }
        QCOMPARE(runCli({"info", path, "--threads", "0"}).code, 0);  // every core
    }

    void rejectsUsageErrors()
    {
        QCOMPARE(runCli({}).code, 2);
        QCOMPARE(runCli({"info"}).code, 2);
        QCOMPARE(runCli({"info", "a", "b"}).code, 2);
        QCOMPARE(runCli({"info", "--frobnicate", "a"}).code, 2);
        QCOMPARE(runCli({"frobnicate"}).code, 2);
        QCOMPARE(runCli({"help"}).code, 0);
    }
};

QTEST_GUILESS_MAIN(TestCliInfo)
#include "test_cli_info.moc"
