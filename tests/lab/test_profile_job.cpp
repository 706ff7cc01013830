// `kinetoscope profile` on a real DDP job (issue 53): tests/probe/train_ddp.py under the
// venv's own torch.distributed.run, gloo on this CPU, the probe riding into every rank
// through the environment. Each rank's folder holds its session and trace; the job's reading
// names a data-starved rank as the straggler with its cause and matches the collectives; a
// rank that fails is marked as the one that failed, the rank the launcher stopped because of
// it as stopped, and both sessions open; a scaling study at two world sizes.
#include "core/scaling/scaling.h"
#include "core/session/session.h"
#include "tests/support/cli_runner.h"
#include "tests/support/profile_runner.h"

#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>

using namespace kinetoscope;
using test::profile;
using test::Ran;

namespace {

const QString kPython = QStringLiteral(KINETOSCOPE_PYTHON);
const QString kScript = QStringLiteral(KINETOSCOPE_SOURCE_DIR "/tests/probe/train_ddp.py");

session::Session rankSession(const QString& job, int rank)
{
    std::string error;
    const auto s = session::loadSession(
        QStringLiteral("%1/rank-%2/session.kinetoscope.json").arg(job).arg(rank).toStdString(),
        error);
    if (!s)
        qWarning("%s", error.c_str());
    return s.value_or(session::Session{});
}

nlohmann::json jobDiagnosis(const QString& job)
{
    const test::CliRun d = test::runCli({"diagnose", job.toStdString(), "--json"});
    const nlohmann::json j = nlohmann::json::parse(d.out, nullptr, false);
    return j.is_discarded() || !j.contains("job") ? nlohmann::json() : j["job"];
}

// The job's first finding that is not about the window (a failed rank is).
nlohmann::json leadingFinding(const nlohmann::json& job, bool aboutWindow)
{
    for (const nlohmann::json& f : job.value("findings", nlohmann::json::array()))
        if (f.value("about_window", false) == aboutWindow)
            return f;
    return {};
}

}  // namespace

class TestProfileJob : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    // --nproc N: the script through the interpreter's own torch.distributed.run; one rank's
    // Dataset sleeps 1 ms a sample (16 ms a batch, several times the others' step), and the
    // job names it, with data loading as the cause, at 2 and at 4 ranks.
    void aStarvedRankIsTheStraggler_data()
    {
        QTest::addColumn<int>("ranks");
        QTest::addColumn<int>("slow");
        QTest::addColumn<bool>("torchrun");  // the launcher as the user writes it
        QTest::newRow("2 ranks") << 2 << 1 << false;
        QTest::newRow("4 ranks") << 4 << 2 << false;
        QTest::newRow("torchrun, 2 ranks") << 2 << 1 << true;
    }
    void aStarvedRankIsTheStraggler()
    {
        QFETCH(int, ranks);
        QFETCH(int, slow);
        QFETCH(bool, torchrun);
        const QString job =
            m_dir.path() +
            QStringLiteral("/starved-%1%2").arg(ranks).arg(torchrun ? "-torchrun" : "");
        const QStringList script = {
            kScript, "--steps", "100", "--slow-rank", QString::number(slow), "--slow-ms", "1"};
        const Ran run =
            torchrun
                ? profile({"--steps", "6", "--out", job},
                          QStringList{QFileInfo(kPython).absolutePath() + "/torchrun",
                                      "--standalone", "--nproc-per-node", QString::number(ranks)} +
                              script)
                : profile({"--nproc", QString::number(ranks), "--steps", "6", "--out", job},
                          QStringList{kPython} + script);
        QVERIFY2(run.code == 0, run.err.constData());
        QVERIFY2(run.err.contains(torchrun ? "torchrun --standalone --nproc-per-node"
                                           : "torch.distributed.run --standalone --nproc-per-node"),
                 run.err.constData());
        for (int rank = 0; rank < ranks; ++rank) {
            const session::Session s = rankSession(job, rank);
            QCOMPARE(s.config.at("rank"), std::to_string(rank));
            QCOMPARE(s.config.at("world_size"), std::to_string(ranks));
            QCOMPARE(s.steps.size(), size_t(6));
            QVERIFY(s.interrupted.empty());
            QVERIFY(QFileInfo::exists(QStringLiteral("%1/rank-%2/trace.json").arg(job).arg(rank)));
            // Its digest, written where its trace was: the job opens from the digests.
            QVERIFY(QFileInfo::exists(
                QStringLiteral("%1/rank-%2/digest.kinetoscope.json").arg(job).arg(rank)));
        }
        // The starved rank measured its own wait for data.
        const auto slowWait = rankSession(job, slow).dataLoaderMs;
        const auto otherWait = rankSession(job, slow == 0 ? 1 : 0).dataLoaderMs;
        QVERIFY(slowWait && otherWait);
        QVERIFY2(*slowWait > 4 * *otherWait,
                 qPrintable(QStringLiteral("%1 against %2 ms").arg(*slowWait).arg(*otherWait)));

        const nlohmann::json diagnosis = jobDiagnosis(job);
        QCOMPARE(diagnosis.value("ranks", 0), ranks);
        QCOMPARE(diagnosis.value("world_size", 0), ranks);
        const nlohmann::json lead = leadingFinding(diagnosis, false);
        QCOMPARE(lead.value("id", ""), std::string("straggler-rank"));
        QCOMPARE(lead["evidence"]["figures"].value("straggler_rank", -1.0), double(slow));
        QVERIFY2(lead.value("title", "").find("data loading") != std::string::npos,
                 lead.value("title", "").c_str());
        // One all-reduce a step (DDP's one bucket), matched on every rank.
        QVERIFY(diagnosis["collectives"].value("matched", 0) >= 2);
        QCOMPARE(diagnosis["collectives"].value("unmatched", -1), 0);
        QCOMPARE(lead["evidence"]["figures"].value("last_to_arrive_share", 0.0), 1.0);
        // One world size: the efficiency estimated from the ranks' own work, the step beyond it
        // split; most of the wait is for the starved rank.
        const nlohmann::json estimate = diagnosis["scaling_estimate"];
        QVERIFY2(estimate.is_object(), diagnosis.dump().c_str());
        const double step = estimate.value("step_ms", 0.0),
                     own = estimate.value("own_work_ms", 0.0);
        QVERIFY(step > 0 && own > 0 && own < step);
        QCOMPARE(estimate.value("efficiency", 0.0), own / step);
        const double parts = estimate.value("exposed_communication_ms", 0.0) +
                             estimate.value("straggler_wait_ms", 0.0) +
                             estimate.value("imbalance_ms", 0.0);
        QVERIFY2(std::abs(parts - (step - own)) < 1e-6 * step, estimate.dump().c_str());
        QVERIFY(estimate.value("straggler_wait_ms", 0.0) > estimate.value("imbalance_ms", 0.0));
    }

    // The launcher as the user writes it (torchrun), and a rank that raises mid-run: the
    // command's exit code is torchrun's; the rank that raised is the one that failed, with its
    // error; the other, whose all-reduce lost that peer, is marked as stopped by it; both
    // sessions keep their steps and traces and open as a job.
    void aFailedRankIsMarkedAndTheOthersKept()
    {
        const QString job = m_dir.path() + QStringLiteral("/crash");
        const QString torchrun = QFileInfo(kPython).absolutePath() + QStringLiteral("/torchrun");
        const Ran run = profile({"--steps", "20", "--out", job},
                                {torchrun, "--standalone", "--nproc-per-node", "2", kScript,
                                 "--steps", "100", "--crash-rank", "1", "--crash-step", "12"});
        QCOMPARE(run.code, 1);
        QVERIFY2(run.err.contains("rank 1 failed at step 12"), run.err.constData());
        QVERIFY2(run.err.contains("planted failure"), run.err.constData());

        const session::Session failed = rankSession(job, 1);
        QCOMPARE(failed.config.at("rank_end"), std::string("failed"));
        QVERIFY(failed.interrupted.find("planted failure") != std::string::npos);
        QCOMPARE(failed.steps.size(), size_t(12 - 5 - 3));
        const session::Session stopped = rankSession(job, 0);
        QCOMPARE(stopped.config.at("rank_end"), std::string("stopped by another"));
        QVERIFY2(stopped.interrupted.find("when rank 1 failed") != std::string::npos,
                 stopped.interrupted.c_str());
        QVERIFY(stopped.steps.size() >= size_t(12 - 5 - 3));
        QVERIFY(!stopped.tracePath.empty());

        const nlohmann::json diagnosis = jobDiagnosis(job);
        const nlohmann::json lead = leadingFinding(diagnosis, true);
        QCOMPARE(lead.value("id", ""), std::string("rank-failed"));
        QCOMPARE(lead["evidence"]["figures"].value("failed_rank", -1.0), 1.0);
        QCOMPARE(diagnosis.value("findings", nlohmann::json::array()).front().value("id", ""),
                 std::string("rank-failed"));
        QVERIFY(diagnosis["per_rank"][0]["failure"].value("stopped_by_another", false));
        QVERIFY(!diagnosis["per_rank"][1]["failure"].value("stopped_by_another", true));
    }

    // A rank that fails before its profiler window (step 2 of a 5-step warm-up) has no
    // trace: the job is not read as one (it is read from the windows); each rank's session
    // is kept, with what it measured and why it stopped, and the line says how to read it.
    void aRankThatStopsBeforeItsWindowIsReadAlone()
    {
        const QString job = m_dir.path() + QStringLiteral("/early");
        const Ran run =
            profile({"--nproc", "2", "--steps", "6", "--out", job},
                    {kPython, kScript, "--steps", "100", "--crash-rank", "0", "--crash-step", "2"});
        QCOMPARE(run.code, 1);
        QVERIFY2(run.err.contains("rank 0 ended before its profiler window"), run.err.constData());
        QVERIFY2(!run.err.contains("not a rank's trace"), run.err.constData());
        const session::Session failed = rankSession(job, 0);
        QCOMPARE(failed.config.at("rank_end"), std::string("failed"));
        QVERIFY(failed.tracePath.empty());
        QVERIFY(!QFileInfo::exists(job + "/rank-0/digest.kinetoscope.json"));
    }

    // --scaling 1,2: the script as a job of one rank, then of two; the study keeps each
    // world size's samples/s, its ideal (twice the one rank's), the efficiency, and the lost
    // time per step split from the two ranks' traces, adding up to the step over the ideal.
    void aScalingStudyAtTwoWorldSizes()
    {
        const QString out = m_dir.path() + QStringLiteral("/scaling");
        const Ran run = profile({"--scaling", "1,2", "--steps", "8", "--out", out},
                                {kPython, kScript, "--steps", "200"});
        QVERIFY2(run.code == 0, run.err.constData());
        QVERIFY2(run.out.contains("Weak scaling"), run.out.constData());
        for (const char* job : {"/world-1/rank-0", "/world-2/rank-0", "/world-2/rank-1"})
            QVERIFY2(QFileInfo::exists(out + job + "/session.kinetoscope.json"), job);
        std::string error;
        const auto study =
            scaling::loadStudy((out + "/scaling.kinetoscope.json").toStdString(), error);
        QVERIFY2(study, error.c_str());
        QVERIFY(!study->strong);
        QCOMPARE(study->points.size(), size_t(2));
        const scaling::Point& one = study->points[0];
        const scaling::Point& two = study->points[1];
        QVERIFY(one.measured() && two.measured());
        QCOMPARE(one.worldSize, 1);
        QCOMPARE(two.worldSize, 2);
        QCOMPARE(one.perRankBatch, int64_t(16));  // the script's own DataLoader
        QCOMPARE(two.perRankBatch, int64_t(16));
        QCOMPARE(one.efficiency, 1.0);
        QVERIFY(qFuzzyCompare(two.idealSamplesPerSecond, 2 * one.samplesPerSecond));
        QVERIFY(qFuzzyCompare(two.samplesPerSecond, 2 * 16 * 1000.0 / two.stepMs));
        QVERIFY(two.efficiency > 0 && two.efficiency < 1.5);
        // The lost time is the step over the ideal step, and gloo's all-reduce is part of it.
        const double lost = std::max(0.0, two.stepMs - two.idealStepMs);
        QVERIFY2(std::abs(two.lost.totalMs() - lost) < 1e-6 * std::max(1.0, lost),
                 qPrintable(QStringLiteral("%1 against %2").arg(two.lost.totalMs()).arg(lost)));
        if (lost > 0)
            QVERIFY(two.lost.exposedCommunicationMs > 0);
    }

    // Nothing is overwritten: a job folder that holds a run is refused before anything runs.
    void anEarlierJobIsNeverOverwritten()
    {
        const QString job = m_dir.path() + QStringLiteral("/starved-2");
        QVERIFY(QFileInfo::exists(job + "/rank-0/session.kinetoscope.json"));
        const Ran run = profile({"--nproc", "2", "--out", job}, {kPython, kScript});
        QCOMPARE(run.code, 2);
        QVERIFY2(run.err.contains("already holds files"), run.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestProfileJob)
#include "test_profile_job.moc"
