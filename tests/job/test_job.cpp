// A job of several ranks (core/job): ranks from distributedInfo or file names, steps
// aligned by number, own work against exposed communication, and the straggler with its
// cause: on a planted job (one rank slowed by a known amount of data loading) and on the
// real multi-rank traces of ../shared/traces.
#ifndef Q_MOC_RUN
#include "core/job/job.h"
#include "core/job/job_rules.h"
#include "core/job/job_text.h"
#include "tests/support/scenario_trace.h"
#include "tests/support/test_support.h"
#endif

#include <QtTest>
#include <algorithm>
#include <cmath>
#include <filesystem>

using namespace kinetoscope;

namespace {

std::optional<job::Job> openFolder(const std::string& folder)
{
    std::string error;
    const auto files = job::jobFiles({folder}, error);
    if (files.empty())
        return std::nullopt;
    return job::openJob(files, {}, error);
}

}  // namespace

class TestJob : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void ranksComeFromFileNames()
    {
        QCOMPARE(job::rankFromFileName("worker3_step_12.1694128201557.pt.trace.json.gz"), 3);
        QCOMPARE(job::rankFromFileName("rank-12.json"), 12);
        QCOMPARE(job::rankFromFileName("sampled_rank1.json.gz"), 1);
        QCOMPARE(job::rankFromFileName("trace.json"), -1);
        std::string error;
        QVERIFY(job::jobFiles({"/no/such/folder"}, error).empty());
        QVERIFY(error.find("/no/such/folder") != std::string::npos);
        QVERIFY(job::jobFiles({m_dir.path().toStdString()}, error).empty());
        QVERIFY(error.find("no trace") != std::string::npos);
    }

    // A folder as a user points at one (helper 48): a tensorboard_trace_handler folder of one
    // trace is that trace, not a job of one rank; torch.profiler's other outputs beside the
    // traces are left out of a job, each said; a TensorBoard log folder names its runs.
    void foldersAreReadAsWhatTheyHold()
    {
        namespace fs = std::filesystem;
        const fs::path run = test::dataFile("other_outputs/run");  // trace, ET, memory timeline
        QVERIFY(!job::isJob({run.string()}));
        const auto opened = document::open(run.string());
        QVERIFY2(opened->ok(), opened->loadMessage.c_str());
        QCOMPARE(fs::path(opened->path).filename().string(), std::string("trace.json.gz"));

        const fs::path two = fs::path(m_dir.path().toStdString()) / "two_traces";
        fs::create_directories(two);
        for (const char* file : {"trace.json.gz", "execution_trace.json", "memory_timeline.json"})
            fs::copy_file(run / file, two / file);
        fs::copy_file(run / "trace.json.gz", two / "second.json.gz");
        QVERIFY(job::isJob({two.string()}));
        std::string error;
        std::vector<std::string> skipped;
        const std::vector<std::string> files = job::jobFiles({two.string()}, error, &skipped);
        QCOMPARE(files.size(), size_t(2));  // before: 4, and the job failed on the first
        QCOMPARE(skipped.size(), size_t(2));
        QVERIFY2(skipped[0].find("skipped execution_trace.json (an execution trace") !=
                     std::string::npos,
                 skipped[0].c_str());
        const auto folderOpened = document::open(two.string());
        QVERIFY(!folderOpened->ok());
        QVERIFY2(folderOpened->loadMessage.starts_with("a folder of 2 traces (second.json.gz, "
                                                       "trace.json.gz): open one of them"),
                 folderOpened->loadMessage.c_str());

        const fs::path logs = fs::path(m_dir.path().toStdString()) / "tensorboard_logs";
        for (const char* name : {"run_a", "run_b"}) {
            fs::create_directories(logs / name);
            fs::copy_file(run / "trace.json.gz", logs / name / "host.pt.trace.json.gz");
        }
        QVERIFY(!job::isJob({logs.string()}));
        QVERIFY(job::jobFiles({logs.string()}, error).empty());
        QVERIFY2(error.ends_with("no trace here, but in the folders below it: run_a, run_b (a "
                                 "TensorBoard log folder: open a run's folder)"),
                 error.c_str());
        QVERIFY(document::open(logs.string())->loadMessage.starts_with("no trace here"));

        // kinetoscope profile's own folder (its session beside its trace) is that run, not a
        // job of the two (helper 49).
        const fs::path profiled = test::dataFile("h100_runs/cnn32");
        QVERIFY(!job::isJob({profiled.string()}));
        const auto profiledRun = document::open(profiled.string());
        QVERIFY2(profiledRun->ok() && profiledRun->session, profiledRun->loadMessage.c_str());
    }

    // Rank 2 loads data 3 ms longer per step; the other three wait that long in the
    // all-reduce. The straggler, its cause and the wait, within 5 %.
    void findsThePlantedStraggler()
    {
        constexpr int64_t kDelayUs = 3000;
        const std::filesystem::path dir =
            std::filesystem::path(m_dir.path().toStdString()) / "planted";
        std::filesystem::create_directories(dir);
        const auto traces = test::plantedJob(4, 2, kDelayUs);
        for (size_t r = 0; r < traces.size(); ++r)
            test::writeFile(dir / ("worker" + std::to_string(r) + ".pt.trace.json"), traces[r]);
        const auto job = openFolder(dir.string());
        QVERIFY(job);
        QCOMPARE(job->ranks.size(), size_t{4});
        QCOMPARE(job->worldSize, 4);
        QCOMPARE(std::string(job->ranks[0].rankSource), std::string("distributedInfo"));
        QVERIFY(job->commonSteps.size() >= 6);
        QCOMPARE(job->straggler, std::optional<int>(2));
        const double delayNs = kDelayUs * 1000.0;
        QVERIFY2(std::fabs(job->stragglerExcessNs - delayNs) <= 0.05 * delayNs,
                 std::to_string(job->stragglerExcessNs).c_str());
        QCOMPARE(job->stragglerCause, std::string("dataloader"));
        // The others' wait: their exposed communication beyond the straggler's.
        for (int r : {0, 1, 3}) {
            const double wait = job->meanCommunicationNs.at(r) - job->meanCommunicationNs.at(2);
            QVERIFY2(std::fabs(wait - delayNs) <= 0.05 * delayNs, std::to_string(wait).c_str());
        }

        // Collectives: one all-reduce per step on every rank, matched in order; the
        // transfer is the 500 us the slowest rank sees, the others wait the delay on top,
        // and rank 2 is the last to arrive at every one of them, although rank 3's clock
        // runs 2 s ahead (aligned on the collectives' ends).
        const job::CollectiveMatch& c = job->collectives;
        QCOMPARE(c.matched.size(), job->ranks[0].collectives.size());
        QVERIFY(c.matched.size() >= job->commonSteps.size());
        QCOMPARE(c.unmatched, size_t{0});
        QCOMPARE(c.sizeMismatches, size_t{0});
        QVERIFY2(std::fabs(c.clockOffsetNs[3] - 2e9) < 1e5,
                 std::to_string(c.clockOffsetNs[3]).c_str());
        QVERIFY(std::fabs(c.clockOffsetNs[1]) < 1e5);
        QCOMPARE(c.lastToArriveCount[2], int(c.matched.size()));
        for (const job::MatchedCollective& m : c.matched) {
            QCOMPARE(m.kind, job::CollectiveKind::AllReduce);
            QCOMPARE(m.bytes, int64_t{16} << 20);
            QCOMPARE(m.groupSize, 4);
            QVERIFY2(std::fabs(double(m.transferNs) - 500e3) <= 0.05 * 500e3,
                     std::to_string(m.transferNs).c_str());
            QVERIFY(std::fabs(double(m.waitNs[0]) - delayNs) <= 0.05 * delayNs);
            QCOMPARE(m.waitNs[2], int64_t{0});
            // nccl-tests: 16 MiB over 500 us, times 2 (n - 1) / n for an all-reduce of 4.
            const double bus = double(16 << 20) / (double(m.transferNs) * 1e-9) * 1.5;
            QVERIFY(std::fabs(m.busBytesPerS - bus) < 1e-6 * bus);
        }
        // Overlap: nothing hides the all-reduce at the step's end.
        const job::RankStep& step = job->ranks[0].steps.at(job->commonSteps.front());
        QVERIFY(step.collectiveNs > 0);
        QVERIFY(step.hiddenNs() < 0.02 * double(step.collectiveNs));

        // The diagnosis: the straggler first, its gain the planted delay within 5 %; the
        // transfer no rank hides; and the all-reduce at 17 % of A100 NVLink's bus bandwidth.
        const auto findings = job::diagnoseJob(*job);
        QVERIFY(!findings.empty());
        QCOMPARE(findings.front().id, std::string("straggler-rank"));
        QVERIFY2(std::fabs(findings.front().estimatedGainNs - delayNs) <= 0.05 * delayNs,
                 std::to_string(findings.front().estimatedGainNs).c_str());
        QVERIFY(findings.front().title.find("rank 2") != std::string::npos);
        QVERIFY(findings.front().title.find("data loading") != std::string::npos);
        const auto exposed = std::find_if(findings.begin(), findings.end(), [](const auto& f) {
            return f.id == "exposed-communication";
        });
        QVERIFY(exposed != findings.end());
        QVERIFY2(std::fabs(exposed->estimatedGainNs - 500e3) <= 0.1 * 500e3,
                 std::to_string(exposed->estimatedGainNs).c_str());
        QVERIFY(std::none_of(findings.begin(), findings.end(),
                             [](const auto& f) { return f.id == "load-imbalance"; }));
        QVERIFY(std::any_of(findings.begin(), findings.end(),
                            [](const auto& f) { return f.id == "slow-collective"; }));
        // A link this job never reaches past: no slow collective when told it is 40 GB/s.
        job::JobRuleOptions slowLink;
        slowLink.linkBytesPerS = 40e9;
        const auto onSlowLink = job::diagnoseJob(*job, slowLink);
        QVERIFY(std::none_of(onSlowLink.begin(), onSlowLink.end(),
                             [](const auto& f) { return f.id == "slow-collective"; }));
    }

    void collectiveNamesAndSizes()
    {
        QCOMPARE(job::collectiveKindOf("nccl:all_reduce"), job::CollectiveKind::AllReduce);
        QCOMPARE(job::collectiveKindOf("nccl:_all_gather_base"), job::CollectiveKind::AllGather);
        QCOMPARE(job::collectiveKindOf("nccl:_reduce_scatter_base"),
                 job::CollectiveKind::ReduceScatter);
        QCOMPARE(job::collectiveKindOf("gloo:all_reduce"), job::CollectiveKind::AllReduce);
        QCOMPARE(job::collectiveKindOf("nccl:all_to_all"), job::CollectiveKind::AllToAll);
        QCOMPARE(job::collectiveKindOf("ncclDevKernel_SendRecv(ncclDevComm*)"),
                 job::CollectiveKind::SendRecv);
        QCOMPARE(job::collectiveKindOf("nccl:recv 0<-1"), job::CollectiveKind::SendRecv);
        QCOMPARE(job::collectiveKindOf("nccl:broadcast"), job::CollectiveKind::Broadcast);
        QCOMPARE(job::dtypeBytes("c10::BFloat16"), 2);
        QCOMPARE(job::dtypeBytes("float"), 4);
        QCOMPARE(job::dtypeBytes("long"), 8);
        QCOMPARE(job::dtypeBytes("signed char"), 1);
        QCOMPARE(job::dtypeBytes("complex"), 0);
        QCOMPARE(job::busBandwidthFactor(job::CollectiveKind::AllReduce, 8), 1.75);
        QCOMPARE(job::busBandwidthFactor(job::CollectiveKind::AllGather, 8), 0.875);
        QCOMPARE(job::busBandwidthFactor(job::CollectiveKind::SendRecv, 8), 1.0);
        QCOMPARE(job::nvlinkBytesPerS("NVIDIA A100-SXM4-80GB", 8), 300e9);
        QCOMPARE(job::nvlinkBytesPerS("NVIDIA A100-SXM4-80GB", 16), 0.0);  // beyond one node
        QCOMPARE(job::nvlinkBytesPerS("NVIDIA A100-PCIE-40GB", 4), 0.0);
    }

    // PARAM's DLRM on 8 ranks: one step (#10) each; own work 7.2-11.2 ms. Ranks 5 and 4
    // are within 0.2 ms of each other at the top: an imbalance, not one straggler.
    void dlrmEightRanks()
    {
        const auto job = openFolder(test::sharedTrace("param/dlrm_8_ranks").string());
        QVERIFY(job);
        QCOMPARE(job->ranks.size(), size_t{8});
        QCOMPARE(job->worldSize, 8);
        for (int r = 0; r < 8; ++r)
            QCOMPARE(job->ranks[size_t(r)].rank, r);
        QCOMPARE(job->commonSteps, std::vector<int64_t>{10});
        QVERIFY(!job->straggler);
        QVERIFY(job::rankFindingsNote(*job).empty());  // no straggler: nothing to warn of
        QCOMPARE(job->byOwnWork.front(), 5);
        QCOMPARE(job->byOwnWork[1], 4);
        QVERIFY(std::fabs(job->meanOwnNs.at(5) - 11.2e6) < 0.1e6);
        QVERIFY(job->startSpreadNs > 0);
        // Collectives: 5 all-to-alls (SendRecv kernels under nccl:all_to_all) and 3
        // all-reduces on every rank, matched in order with the same sizes; one host clock
        // (ends agree within microseconds) although the step starts are 6 ms apart.
        const job::CollectiveMatch& c = job->collectives;
        QCOMPARE(c.matched.size(), size_t{8});
        QCOMPARE(c.unmatched, size_t{0});
        QCOMPARE(c.sizeMismatches, size_t{0});
        QCOMPARE(
            std::count_if(c.matched.begin(), c.matched.end(),
                          [](const auto& m) { return m.kind == job::CollectiveKind::AllToAll; }),
            std::ptrdiff_t{5});
        QVERIFY(c.clockSpreadNs < 10'000);
        QCOMPARE(c.matched.front().bytes, int64_t{6144 * 4});  // Input Dims [[6144]] of float
        // Latency-bound messages (under 2 MiB) and waits that move from rank to rank:
        // an imbalance of own work, not a transfer to hide nor a link to blame.
        const auto findings = job::diagnoseJob(*job);
        QVERIFY(!findings.empty());
        QCOMPARE(findings.front().id, std::string("load-imbalance"));
        QVERIFY(std::fabs(findings.front().estimatedGainNs - 1.62e6) < 0.05e6);
        for (const auto& f : findings)
            QVERIFY(f.id != "exposed-communication" && f.id != "slow-collective" &&
                    f.id != "straggler-rank");
    }

    // A real DDP job made here (tests/data/make_ddp_job.py): 4 CPU ranks on gloo, rank 2's
    // DataLoader sleeping 30 ms per batch. Two ranks per core on a 2-core machine: the
    // timings are noisy, the bounds wide; what must hold is who and why.
    void realGlooJob()
    {
        const auto job = openFolder(
            (std::filesystem::path(KINETOSCOPE_SOURCE_DIR) / "tests/data/ddp_gloo_4ranks")
                .string());
        QVERIFY(job);
        QCOMPARE(job->ranks.size(), size_t{4});
        QCOMPARE(job->commonSteps, (std::vector<int64_t>{2, 3, 4, 5}));
        QCOMPARE(job->straggler, std::optional<int>(2));
        QCOMPARE(job->stragglerCause, std::string("dataloader"));
        // Beside each rank's own first finding: its wait for rank 2 counts as communication there.
        QVERIFY(job::rankFindingsNote(*job).find("wait for rank 2") != std::string::npos);
        QVERIFY2(job->stragglerCauseExcessNs > 20e6 && job->stragglerCauseExcessNs < 40e6,
                 std::to_string(job->stragglerCauseExcessNs).c_str());
        // Two DDP buckets per step (1,574,400 and 525,312 floats), all-reduced on gloo's
        // threads: 8 on every rank, matched with equal sizes; rank 2 last at most of them.
        const job::CollectiveMatch& c = job->collectives;
        QCOMPARE(c.matched.size(), size_t{8});
        QCOMPARE(c.sizeMismatches, size_t{0});
        QCOMPARE(c.matched[0].bytes, int64_t{1574400 * 4});
        QCOMPARE(c.matched[1].bytes, int64_t{525312 * 4});
        QVERIFY(c.lastToArriveCount[2] >= 6);
        const auto findings = job::diagnoseJob(*job);
        QVERIFY(!findings.empty());
        QCOMPARE(findings.front().id, std::string("straggler-rank"));
    }

    // The job's threads are one budget: min(threads, ranks) ranks open at once, each with
    // its share; 1 opens them one after another on one thread. The job reads the same.
    void theRanksShareTheThreads()
    {
        std::string error;
        const auto files =
            job::jobFiles({KINETOSCOPE_SOURCE_DIR "/tests/data/ddp_gloo_4ranks"}, error);
        QCOMPARE(files.size(), size_t{4});
        std::optional<job::Job> serial, shared, wide;
        for (auto [threads, into] :
             {std::pair{1u, &serial}, std::pair{2u, &shared}, std::pair{8u, &wide}}) {
            document::OpenOptions options;
            options.threads = threads;
            *into = job::openJob(files, options, error);
            QVERIFY2(*into, error.c_str());
        }
        for (const job::Rank& r : serial->ranks)
            QCOMPARE(r.doc->threads, 1u);
        for (const job::Rank& r : shared->ranks)
            QCOMPARE(r.doc->threads, 1u);  // two ranks at once, one thread each
        for (const job::Rank& r : wide->ranks)
            QCOMPARE(r.doc->threads, 2u);  // four at once, two each
        for (const std::optional<job::Job>* other : {&shared, &wide}) {
            QCOMPARE((*other)->straggler, serial->straggler);
            QCOMPARE((*other)->collectives.matched.size(), serial->collectives.matched.size());
            QCOMPARE((*other)->commonSteps, serial->commonSteps);
            QCOMPARE(job::stragglerLine(**other), job::stragglerLine(*serial));
        }
    }

    // Two runs of one program (num_workers 0, then 4), written a day apart: not two ranks
    // (issue 29: a 2-rank job with a 69,765 s clock skew and a straggler).
    void twoRunsAreNotAJob()
    {
        std::string error;
        const auto job = job::openJob(
            {test::sharedTrace("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz").string(),
             test::sharedTrace("kineto/resnet50_v100_workers4_2021.pt.trace.json.gz").string()},
            {}, error);
        QVERIFY2(job, error.c_str());
        const std::optional<std::string> why = job::whyNotOneJob(*job);
        QVERIFY(why);
        QVERIFY2(why->starts_with("not ranks of one job: no distributedInfo names them ranks of "
                                  "one world, no collective "
                                  "matches across them, and they start "),
                 why->c_str());
        // Three significant digits in hours, not "69765 s" (issue 50).
        QVERIFY2(why->ends_with(", and they start 19.4 h apart"), why->c_str());
        for (const char* folder : {"param/dlrm_8_ranks"}) {
            const auto real = openFolder(test::sharedTrace(folder).string());
            QVERIFY(real);
            QVERIFY2(!job::whyNotOneJob(*real), folder);
        }
        const auto gloo = openFolder(KINETOSCOPE_SOURCE_DIR "/tests/data/ddp_gloo_4ranks");
        QVERIFY(gloo);
        QVERIFY(!job::whyNotOneJob(*gloo));
    }

    void htaSampledRanks()
    {
        std::string error;
        const auto job = job::openJob({test::sharedTrace("hta/sampled_rank1.json.gz").string(),
                                       test::sharedTrace("hta/sampled_rank0.json.gz").string()},
                                      {}, error);
        QVERIFY(job);
        QCOMPARE(job->ranks.size(), size_t{2});
        QCOMPARE(job->ranks[0].rank, 0);  // sorted by rank, whatever the order given
        QCOMPARE(job->commonSteps, (std::vector<int64_t>{551, 552}));
        QVERIFY(!job->straggler);
        // 2 of 128 ranks: 10 collectives each, matched; the all-to-alls' splits differ.
        QCOMPARE(job->collectives.matched.size(), size_t{10});
        QCOMPARE(job->collectives.unmatched, size_t{0});
        QCOMPARE(job->collectives.sizeMismatches, size_t{6});
        QVERIFY(job->collectives.clockSpreadNs < 1e6);
        QVERIFY(!job::whyNotOneJob(*job));  // distributedInfo and matched collectives: one job
        std::string bad;
        QVERIFY(!job::openJob(
            {test::sharedTrace("hta/sampled_rank0.json.gz").string(), "/no/such.json"}, {}, bad));
        QVERIFY(bad.find("/no/such.json") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestJob)
#include "test_job.moc"
