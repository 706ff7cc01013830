// `kinetoscope diagnose TRACE [--json|--markdown] [--fail-on SEVERITY]`.
#include "core/session/memory_reading.h"
#include "core/session/session.h"
#include "tests/support/cli_runner.h"
#include "tests/support/scenario_trace.h"
#include "tests/support/test_support.h"

#include <QRegularExpression>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

using kinetoscope::test::sharedTrace;
using nlohmann::json;

namespace {
using Run = kinetoscope::test::CliRun;
using kinetoscope::test::runCli;
}  // namespace

class TestCliDiagnose : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void printsFindingsAsJson()
    {
        const Run run =
            runCli({"diagnose", sharedTrace("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz"),
                    "--json"});
        QCOMPARE(run.code, 0);
        const json d = json::parse(run.out);
        QVERIFY(d["findings"].size() >= 2);
        const json& first = d["findings"][0];
        QCOMPARE(first["id"].get<std::string>(), std::string("dataloader-bound"));
        QCOMPARE(first["severity"].get<std::string>(), std::string("high"));
        for (const char* key : {"id", "severity", "title", "evidence", "estimated_gain_us", "fix"})
            QVERIFY2(first.contains(key), key);
        // The causal gain lies between the GPU idle inside the DataLoader (59.3 ms, the
        // plugin's figure) and the DataLoader's whole host time (69.3 ms): without it the
        // host-bound rest of the step also starts earlier.
        const double gain = first["estimated_gain_us"].get<double>();
        QVERIFY2(gain > 59261.0 && gain < 69400.0, std::to_string(gain).c_str());
        QVERIFY(first["evidence"]["figures"].contains("dataloader_share_of_step"));
    }

    // Sessions the engine wrote on an H100 (scripts/gpu-check.sh, tests/data/h100_runs),
    // their traces gzipped after the run: each is read as the seeds read the run.
    void aRealGpuRunIsReadAsTheSeedsTellIt()
    {
        const std::filesystem::path runs = KINETOSCOPE_SOURCE_DIR "/tests/data/h100_runs";
        auto diagnose = [&](const char* run) {
            const Run r =
                runCli({"diagnose", (runs / run / "session.kinetoscope.json").string(), "--json"});
            if (r.code != 0)
                qWarning("%s", r.err.c_str());
            return r.code == 0 ? json::parse(r.out) : json();
        };
        auto loadSession = [&](const char* run) {
            std::string error;
            const auto s =
                kinetoscope::session::loadSession(runs / run / "session.kinetoscope.json", error);
            if (!s)
                qWarning("%s", error.c_str());
            return s;
        };

        // Per-sample CPU work and no workers starve the GPU: the measured wait leads, the
        // trace's idle agrees (one wait, one finding: the window's figures are the measured
        // finding's), and the worker sweep shows the fix.
        const json starved = diagnose("starved");
        QVERIFY(starved["diagnosable"].get<bool>());
        const json& wait = starved["findings"][0];
        QCOMPARE(wait["id"].get<std::string>(), std::string("dataloader-bound-measured"));
        QCOMPARE(wait["severity"].get<std::string>(), std::string("high"));
        QVERIFY(wait["evidence"]["figures"]["window_dataloader_share_of_step"].get<double>() > 0.5);
        for (const json& f : starved["findings"])
            QVERIFY(f["id"].get<std::string>() != "dataloader-bound");
        const auto starvedSession = loadSession("starved");
        QVERIFY(starvedSession && starvedSession->sweep.size() == 5);
        const kinetoscope::session::SweepPoint& none = starvedSession->sweep.front();
        const kinetoscope::session::SweepPoint& twelve = starvedSession->sweep.back();
        QVERIFY(none.value == 0 && twelve.value == 12);
        QVERIFY2(twelve.samplesPerSecond > 10 * none.samplesPerSecond,
                 "12 workers feed the GPU 10x faster");
        QVERIFY(twelve.dataWaitMs < none.dataWaitMs / 20);

        // The transformer is bound by fp32 arithmetic: bf16's measured saving leads, then
        // the graph's; a 3.5 GiB peak on an 80 GiB device is no more than a note.
        const json transformer = diagnose("transformer");
        const json& bf16 = transformer["findings"][0];
        QCOMPARE(bf16["id"].get<std::string>(), std::string("bf16-measured"));
        const double fp32Us = bf16["evidence"]["figures"]["fp32_step_us"].get<double>();
        const double bf16Us = bf16["evidence"]["figures"]["bf16_step_us"].get<double>();
        QVERIFY(std::abs(bf16["estimated_gain_us"].get<double>() - (fp32Us - bf16Us)) < 1.0);
        QVERIFY(fp32Us > 2.5 * bf16Us);
        QCOMPARE(transformer["findings"][1]["id"].get<std::string>(),
                 std::string("cuda-graph-measured"));
        bool peakNoted = false;
        for (const json& f : transformer["findings"]) {
            if (f["id"] != "activation-peak")
                continue;
            peakNoted = true;
            QCOMPARE(f["severity"].get<std::string>(), std::string("low"));
            QVERIFY(f["evidence"]["figures"]["peak_share_of_available_memory"].get<double>() < 0.1);
        }
        QVERIFY(peakNoted);

        // The cnn at 32x32 is launch-bound: replaying the step as a graph is the measured win.
        const json cnn32 = diagnose("cnn32");
        QCOMPARE(cnn32["findings"][0]["id"].get<std::string>(), std::string("cuda-graph-measured"));
        // At 224x224 the GPU computes 97 % of the step, and bf16 (measured) does not make it
        // faster: neither precision nor bandwidth limits it. Its batch norms run at a tenth of
        // the bandwidth, chained with the ReLUs and adds: a
        // compiled, fused kernel streams them at half of it. Then the fp32 convolutions, at
        // about a sixth of their roof with cuDNN transposing NCHW to NHWC around them.
        const json cnn224 = diagnose("cnn224");
        const json& fusion = cnn224["findings"][0];
        QCOMPARE(fusion["id"].get<std::string>(), std::string("unfused-elementwise"));
        QVERIFY(fusion["gain_method"].get<std::string>().find("roofline") != std::string::npos);
        const json& roof = cnn224["findings"][1];
        QCOMPARE(roof["id"].get<std::string>(), std::string("below-roofline"));
        QVERIFY(roof["fix"].get<std::string>().find("channels_last") != std::string::npos);
        QVERIFY(roof["explanation"].get<std::string>().find("NHWC") != std::string::npos);
        QVERIFY(roof["evidence"]["figures"]["share_of_roof"].get<double>() < 0.25);
        QVERIFY(fusion["estimated_gain_us"].get<double>() +
                    roof["estimated_gain_us"].get<double>() <
                cnn224["step_time_us"].get<double>());

        // The batch size that fits under 4 GiB, without and with checkpointing every block.
        const auto checkpoint = loadSession("checkpoint");
        QVERIFY(checkpoint);
        const kinetoscope::session::BatchFit plain =
            kinetoscope::session::readBatchFit(*checkpoint);
        QVERIFY(plain.largestFits && plain.firstOutOfMemory);
        QCOMPARE(*plain.largestFits, int64_t(64));
        QCOMPARE(*plain.firstOutOfMemory, int64_t(128));
        const kinetoscope::session::BatchFit checkpointed =
            kinetoscope::session::readBatchFit(*checkpoint, 1);
        QVERIFY(checkpointed.largestFits && checkpointed.firstOutOfMemory);
        QCOMPARE(*checkpointed.largestFits, int64_t(128));
        QCOMPARE(*checkpointed.firstOutOfMemory, int64_t(256));
        const auto trade = kinetoscope::session::readCheckpointTrade(*checkpoint);
        QVERIFY(trade && trade->batchSize == 64);
        QVERIFY(trade->peakWithBytes < trade->peakWithoutBytes / 2 &&
                trade->stepWithMs > trade->stepWithoutMs);
    }

    void failsOnASeverityForCi()
    {
        const std::string trace =
            sharedTrace("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz");
        QCOMPARE(runCli({"diagnose", trace, "--fail-on", "high"}).code, 1);
        const auto healthy = std::filesystem::path(m_dir.path().toStdString()) / "healthy.json";
        kinetoscope::test::writeFile(
            healthy, kinetoscope::test::scenarioTrace(kinetoscope::test::Pathology::None));
        const Run ok = runCli({"diagnose", healthy.string(), "--fail-on", "low"});
        QCOMPARE(ok.code, 0);
        QVERIFY(ok.out.find("No finding") != std::string::npos);
        QCOMPARE(runCli({"diagnose", trace, "--fail-on", "severe"}).code, 2);
    }

    void writesMarkdownForReports()
    {
        const Run run =
            runCli({"diagnose", sharedTrace("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz"),
                    "--markdown"});
        QCOMPARE(run.code, 0);
        QVERIFY(run.out.starts_with("# Diagnosis of"));
        QVERIFY(run.out.find("| # | Severity | Finding | Estimated gain |") != std::string::npos);
        QVERIFY(run.out.find("```python") != std::string::npos);
        QVERIFY(run.out.find("num_workers") != std::string::npos);
    }

    // --threads reaches the reading and the analysis; the findings are the same whatever
    // the number, and a bad number is one line, exit 2.
    void theFindingsAreTheSameWhateverTheThreads()
    {
        const std::string trace =
            sharedTrace("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz");
        const Run serial = runCli({"diagnose", trace, "--json", "--threads", "1"});
        const Run parallel = runCli({"diagnose", trace, "--json", "--threads", "2"});
        QCOMPARE(serial.code, 0);
        QCOMPARE(parallel.code, 0);
        QCOMPARE(serial.out, parallel.out);
        QCOMPARE(json::parse(serial.out)["findings"][0]["id"].get<std::string>(),
                 std::string("dataloader-bound"));
        const Run bad = runCli({"diagnose", trace, "--threads", "many"});
        QCOMPARE(bad.code, 2);
        QVERIFY(bad.out.empty());
        QCOMPARE(bad.err, std::string("kinetoscope diagnose: --threads takes 0 (every core) or a "
                                      "number of threads from 1 "
                                      "to 1024, not 'many'\n"));
    }

    // Every command that reads traces lists --threads in its help; `run` (whose options are
    // the engine's: there it would read as torch's threads) and the overview's own commands
    // do not take it, and the overview says which do.
    void everyCommandThatReadsTracesListsThreads()
    {
        for (const char* command : {"info", "summary", "diagnose", "diff", "report", "memory"}) {
            const Run help = runCli({command, "--help"});
            QCOMPARE(help.code, 0);
            QVERIFY2(help.out.find("\n  --threads N ") != std::string::npos, command);
            QVERIFY2(help.out.find("0 every core") != std::string::npos, command);
        }
        // A bad value, on each of them: one line naming the command, exit 2, before any file is
        // read.
        for (const char* command : {"info", "summary", "diagnose", "diff", "memory"}) {
            const Run bad = runCli({command, "/no/such/trace.json", "--threads", "abc"});
            QCOMPARE(bad.code, 2);
            QVERIFY(bad.out.empty());
            QCOMPARE(std::count(bad.err.begin(), bad.err.end(), '\n'), 1L);
            QVERIFY2(
                bad.err.starts_with(std::string("kinetoscope ") + command + ": --threads takes "),
                bad.err.c_str());
        }
        const Run run = runCli({"run", "--help"});
        QCOMPARE(run.code, 0);
        QVERIFY(run.out.find("--threads") == std::string::npos);
        const Run overview = runCli({"help"});
        QVERIFY(
            overview.out.find(
                "every command that reads traces (info, summary, diagnose, diff, report, memory "
                "--trace):\n  --threads N ") != std::string::npos);
        QVERIFY(overview.out.find("this launch only") != std::string::npos);  // the app's --threads
    }

    // Issue 50: every command the overview lists answers --help with an example of itself,
    // and every file of the repository its help names (README.md, docs/..., resources/...)
    // exists.
    void everyCommandsHelpHasAnExampleAndNamesOnlyFilesThatExist()
    {
        const Run overview = runCli({"help"});
        QCOMPARE(overview.code, 0);
        // The commands: the overview's lines "  NAME ARGS...", up to its help and version.
        std::vector<std::string> commands;
        std::istringstream lines(overview.out);
        for (std::string line; std::getline(lines, line);) {
            if (!line.starts_with("  ") || line.size() < 3 || line[2] < 'a' || line[2] > 'z')
                continue;
            const std::string name = line.substr(2, line.find(' ', 2) - 2);
            if (name == "help" || name == "version")
                break;
            if (std::find(commands.begin(), commands.end(), name) == commands.end())
                commands.push_back(name);
        }
        QVERIFY2(commands.size() >= 7, overview.out.c_str());
        // std::regex is avoided: GCC 12 warns inside <regex> under the sanitizers' -O1.
        static const QRegularExpression repositoryFile(
            R"(\b(?:docs|resources|scripts|tests)/[\w./-]*\w|\bREADME\.md)");
        for (const std::string& command : commands) {
            const Run help = runCli({command, "--help"});
            QCOMPARE(help.code, 0);
            const size_t example = help.out.find("\nexample:\n  kinetoscope " + command + " ");
            QVERIFY2(example != std::string::npos, (command + ":\n" + help.out).c_str());
            auto matches = repositoryFile.globalMatch(QString::fromStdString(help.out));
            while (matches.hasNext()) {
                const std::string named = matches.next().captured().toStdString();
                QVERIFY2(
                    std::filesystem::exists(std::filesystem::path(KINETOSCOPE_SOURCE_DIR) / named),
                    (command + " --help names " + named + ", which does not exist").c_str());
            }
        }
    }

    void overridesThresholdsAndRejectsBadInput()
    {
        const std::string trace =
            sharedTrace("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz");
        const Run raised =
            runCli({"diagnose", trace, "--json", "--threshold", "dataloader_share=0.5"});
        QCOMPARE(raised.code, 0);
        QVERIFY(raised.out.find("dataloader-bound") == std::string::npos);
        QCOMPARE(runCli({"diagnose", trace, "--threshold", "nonsense=1"}).code, 2);
        QCOMPARE(runCli({"diagnose", trace, "--threshold", "dataloader_share"}).code, 2);
        QCOMPARE(runCli({"diagnose", "/no/such/trace.json"}).code, 2);
        QCOMPARE(runCli({"diagnose"}).code, 2);
    }

    // Issue #19: `diagnose SESSION` leads with what the lab measured. A session of a
    // GPU-like run (written here, its trace a real one copied beside it) whose bf16 arm is
    // a large jump, whose peak is set by activations and whose peak grows from step 2.
    void aSessionLeadsWithWhatTheLabMeasured()
    {
        namespace fs = std::filesystem;
        using namespace kinetoscope::session;
        const fs::path dir = fs::path(m_dir.path().toStdString()) / "lab";
        fs::create_directories(dir);
        fs::copy_file(sharedTrace("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz"),
                      dir / "trace.pt.trace.json.gz", fs::copy_options::overwrite_existing);
        const int64_t gib = int64_t(1) << 30, mib = int64_t(1) << 20;
        Session s;
        s.config = {
            {"model", "cnn"}, {"dataset", "synthetic"}, {"device", "cuda"}, {"batch_size", "64"}};
        s.environment = {{"device", "NVIDIA H100"}};
        auto arm = [](ArmKind kind, double samplesPerSecond, double meanStepMs, int64_t peak) {
            LabArm a;
            a.kind = kind;
            a.ran = true;
            a.samplesPerSecond = samplesPerSecond;
            a.meanStepMs = meanStepMs;
            a.peakAllocatedBytes = peak;
            return a;
        };
        s.lab = {arm(ArmKind::Fp32, 640.0, 100.0, 3 * gib),
                 arm(ArmKind::Bf16, 640.0 * 100.0 / 43.7, 43.7, 2 * gib)};
        MemoryTriage memory;
        memory.steadyStep = {{"start", gib, 5 * gib, gib},
                             {"batch to device", gib + 10 * mib, 5 * gib, gib + 10 * mib},
                             {"forward", 2 * gib + 800 * mib, 5 * gib, 3 * gib},
                             {"loss", 2 * gib + 800 * mib, 5 * gib, 3 * gib},
                             {"backward", 2 * gib, 5 * gib, 3 * gib},
                             {"optimizer step", gib + 500 * mib, 5 * gib, 3 * gib},
                             {"zero_grad", gib, 5 * gib, 3 * gib}};
        memory.peakPerStep = {3 * gib + 300 * mib, 3 * gib,           3 * gib, 3 * gib + 10 * mib,
                              3 * gib + 20 * mib,  3 * gib + 30 * mib};
        memory.split = {11'000'000, 60, 44 * mib, 44 * mib, 88 * mib, gib + 790 * mib};
        s.memory = memory;
        s.tracePath = "trace.pt.trace.json.gz";  // beside the session
        const fs::path file = dir / "cnn.kinetoscope.json";
        std::string error;
        QVERIFY2(saveSession(s, file, error), error.c_str());

        const Run run = runCli({"diagnose", file.string(), "--json"});
        QCOMPARE(run.code, 0);
        const json d = json::parse(run.out);
        const json& findings = d["findings"];
        QVERIFY(!findings.empty());
        const json& first = findings[0];
        QCOMPARE(first["id"].get<std::string>(), std::string("bf16-measured"));
        QCOMPARE(first["measured"].get<bool>(), true);
        QVERIFY(std::abs(first["estimated_gain_us"].get<double>() - 56300.0) < 1e-3);
        QVERIFY(first["gain_method"].get<std::string>().starts_with("measured in the lab"));
        auto findingOf = [&](const std::string& id) -> const json* {
            for (const json& f : findings)
                if (f["id"] == id)
                    return &f;
            return nullptr;
        };
        // The trace leads with its DataLoader (~60 ms, more than the lab's 56.3 ms):
        // bf16-measured is first for being measured, not for its size.
        const json* dataloader = findingOf("dataloader-bound");
        QVERIFY(dataloader);
        QCOMPARE((*dataloader)["measured"].get<bool>(), false);
        QVERIFY((*dataloader)["estimated_gain_us"].get<double>() > 56300.0);

        const json* activations = findingOf("activation-peak");
        QVERIFY(activations);
        QCOMPARE((*activations)["measured"].get<bool>(), true);
        QCOMPARE((*activations)["severity"].get<std::string>(), std::string("medium"));
        QVERIFY((*activations)["fix"].get<std::string>().find("1.00 GiB lower") !=
                std::string::npos);
        QCOMPARE((*activations)["evidence"]["figures"]["bf16_saving_bytes"].get<double>(),
                 double(gib));
        const json* growth = findingOf("memory-growth-measured");
        QVERIFY(growth);
        QCOMPARE((*growth)["severity"].get<std::string>(), std::string("high"));
        QCOMPARE((*growth)["evidence"]["steps"], json::array({"ProfilerStep#2"}));
        QCOMPARE((*growth)["evidence"]["figures"]["growth_bytes_per_step"].get<double>(),
                 double(10 * mib));
        const json* held = findingOf("allocator-holds-freed");  // 5 GiB reserved over a 3 GiB peak
        QVERIFY(held);
        QVERIFY(!findingOf("not-precision-bound"));

        // The text and Markdown say which gains were measured.
        const Run text = runCli({"diagnose", file.string()});
        QCOMPARE(text.code, 0);
        QVERIFY2(text.out.find("measured gain 56.3 ms per step") != std::string::npos,
                 text.out.c_str());
        QVERIFY(text.out.find("estimated gain ~") !=
                std::string::npos);  // the trace's own findings
        const Run markdown = runCli({"diagnose", file.string(), "--markdown"});
        QVERIFY(markdown.out.find("· measured gain 56.3 ms per step") != std::string::npos);
        QCOMPARE(runCli({"diagnose", file.string(), "--fail-on", "high"}).code, 1);
    }
};

QTEST_GUILESS_MAIN(TestCliDiagnose)
#include "test_cli_diagnose.moc"
