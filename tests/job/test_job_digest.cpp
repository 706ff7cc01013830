// A job read from its ranks' digests (core/job/digest.h), on the real multi-rank traces: the
// same job as from the traces (straggler, common steps, collectives matched, findings, the
// CLI's text), a profiled job's rank folders with a failed rank, a stale, corrupt or too new
// digest falling back to its trace in one line, digests alone without their traces, and a
// 512-rank job of digests made from real ranks.
#ifndef Q_MOC_RUN
#include "app/cli/cli_main.h"
#include "app/cli/job_report.h"
#include "bench/job_digest_gen.h"
#include "core/job/digest.h"
#include "core/job/job_rules.h"
#include "core/job/job_text.h"
#include "core/session/session.h"
#include "core/trace/event_args.h"
#include "tests/support/test_support.h"
#endif

#include <QtTest>
#include <chrono>
#include <filesystem>
#include <sstream>

using namespace kinetoscope;
namespace fs = std::filesystem;

namespace {

const fs::path kGlooJob = fs::path(KINETOSCOPE_SOURCE_DIR) / "tests/data/ddp_gloo_4ranks";

// The traces of `from` (a folder, or files) copied into `into`, sorted by name.
std::vector<std::string> copyTraces(const std::vector<fs::path>& from, const fs::path& into)
{
    fs::create_directories(into);
    std::vector<std::string> copies;
    for (const fs::path& path : from) {
        std::vector<fs::path> files;
        if (fs::is_directory(path)) {
            for (const auto& entry : fs::directory_iterator(path))
                files.push_back(entry.path());
        } else {
            files.push_back(path);
        }
        for (const fs::path& file : files) {
            fs::copy_file(file, into / file.filename(), fs::copy_options::overwrite_existing);
            copies.push_back((into / file.filename()).string());
        }
    }
    std::sort(copies.begin(), copies.end());
    return copies;
}

std::optional<job::Job> open(const std::vector<std::string>& files, bool digests,
                             document::OpenOptions options = {})
{
    job::JobOptions how;
    how.digests = digests;
    std::string error;
    auto opened = job::openJob(files, options, error, how);
    if (!opened)
        qWarning("%s", error.c_str());
    return opened;
}

void writeDigests(const std::vector<std::string>& files)
{
    for (const std::string& file : files) {
        std::string error;
        const auto written = job::writeRankDigest(file, error, 1);
        QVERIFY2(written, error.c_str());
        QCOMPARE(*written, job::digestPathFor(file));
    }
}

#define SAME(what)                                                                                 \
    if (!((a.what) == (b.what)))                                                                   \
    return std::string(#what) + " differs"

std::string rankDifferences(const job::Rank& a, const job::Rank& b)
{
    SAME(rank);
    if (std::string_view(a.rankSource) != b.rankSource)
        return "rankSource differs";
    SAME(distributedRank);
    SAME(distributedWorldSize);
    SAME(device);
    SAME(traceBeginNs);
    SAME(failure);
    SAME(stoppedByAnother);
    SAME(sessionSteps);
    SAME(stepRanges.hostRanges);
    SAME(stepRanges.numbers);
    SAME(steps.size());
    for (const auto& [n, s] : a.steps) {
        const job::RankStep& t = b.steps.at(n);
        if (s.categories.ns != t.categories.ns || s.categories.totalNs != t.categories.totalNs ||
            s.beginNs != t.beginNs || s.endNs != t.endNs || s.durationNs != t.durationNs ||
            s.communicationNs != t.communicationNs || s.collectiveNs != t.collectiveNs)
            return "step " + std::to_string(n) + " differs";
    }
    SAME(collectives.size());
    for (size_t i = 0; i < a.collectives.size(); ++i) {
        const job::RankCollective &c = a.collectives[i], &d = b.collectives[i];
        if (c.kind != d.kind || c.group != d.group || c.groupSize != d.groupSize ||
            c.startNs != d.startNs || c.durationNs != d.durationNs || c.hostNs != d.hostNs ||
            c.bytes != d.bytes || c.onDevice != d.onDevice)
            return "collective " + std::to_string(i) + " differs";
    }
    SAME(findings.size());
    for (size_t i = 0; i < a.findings.size(); ++i) {
        const analysis::Finding &f = a.findings[i], &g = b.findings[i];
        if (f.id != g.id || f.title != g.title || f.severity != g.severity || f.basis != g.basis ||
            f.estimatedGainNs != g.estimatedGainNs || f.aboutWindow != g.aboutWindow ||
            f.measured != g.measured)
            return "finding " + f.id + " differs";
    }
    return {};
}

// What a job reads of its ranks, everything it computes from them, and its diagnosis: the
// first difference, or empty.
std::string jobDifferences(const job::Job& a, const job::Job& b)
{
    SAME(ranks.size());
    for (size_t r = 0; r < a.ranks.size(); ++r)
        if (std::string d = rankDifferences(a.ranks[r], b.ranks[r]); !d.empty())
            return "rank " + std::to_string(a.ranks[r].rank) + ": " + d;
    SAME(commonSteps);
    SAME(worldSize);
    SAME(meanStepNs);
    SAME(meanOwnNs);
    SAME(meanCommunicationNs);
    SAME(byOwnWork);
    SAME(medianOwnNs);
    SAME(straggler);
    SAME(stragglerExcessNs);
    SAME(stragglerCause);
    SAME(stragglerCauseExcessNs);
    SAME(startSpreadNs);
    SAME(collectives.matched.size());
    SAME(collectives.countPerRank);
    SAME(collectives.unmatched);
    SAME(collectives.sizeMismatches);
    SAME(collectives.clockOffsetNs);
    SAME(collectives.clockSpreadNs);
    SAME(collectives.lastToArriveCount);
    for (size_t i = 0; i < a.collectives.matched.size(); ++i) {
        const job::MatchedCollective &m = a.collectives.matched[i], &n = b.collectives.matched[i];
        if (m.kind != n.kind || m.group != n.group || m.ordinal != n.ordinal ||
            m.groupSize != n.groupSize || m.bytes != n.bytes || m.sizesAgree != n.sizesAgree ||
            m.transferNs != n.transferNs || m.waitNs != n.waitNs ||
            m.lastToArrive != n.lastToArrive || m.busBytesPerS != n.busBytesPerS ||
            m.step != n.step)
            return "matched collective " + std::to_string(i) + " differs";
    }
    if (job::whyNotOneJob(a) != job::whyNotOneJob(b))
        return "whyNotOneJob differs";
    if (job::stragglerLine(a) != job::stragglerLine(b))
        return "the straggler line differs";
    const auto fa = job::diagnoseJob(a), fb = job::diagnoseJob(b);
    if (fa.size() != fb.size())
        return "the job's findings differ in number";
    for (size_t i = 0; i < fa.size(); ++i)
        if (fa[i].id != fb[i].id || fa[i].title != fb[i].title ||
            fa[i].explanation != fb[i].explanation ||
            fa[i].estimatedGainNs != fb[i].estimatedGainNs || fa[i].severity != fb[i].severity)
            return "job finding " + fa[i].id + " differs";
    return {};
}
#undef SAME

std::pair<int, std::string> runCli(const std::vector<std::string>& args, std::string* out = nullptr)
{
    std::ostringstream o, e;
    const int code = cli::run(args, o, e);
    if (out)
        *out = o.str();
    return {code, e.str()};
}

}  // namespace

class TestJobDigest : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    fs::path dir(const std::string& name) const
    {
        return fs::path(m_dir.path().toStdString()) / name;
    }

private Q_SLOTS:
    void fromDigestsAsFromTraces_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QStringList>("sources");
        QTest::newRow("dlrm_8_ranks")  // NCCL all-to-all and all-reduce, one step, imbalance
            << QStringLiteral("dlrm")
            << QStringList{QString::fromStdString(test::sharedTrace("param/dlrm_8_ranks"))};
        QTest::newRow("ddp_gloo_4ranks")  // gloo, four steps, rank 2 the straggler
            << QStringLiteral("gloo") << QStringList{QString::fromStdString(kGlooJob.string())};
        QTest::newRow("hta_sampled")  // 2 of 128 ranks, all-to-all sizes that differ
            << QStringLiteral("sampled")
            << QStringList{QString::fromStdString(test::sharedTrace("hta/sampled_rank0.json.gz")),
                           QString::fromStdString(test::sharedTrace("hta/sampled_rank1.json.gz"))};
    }

    // The same job, whether each rank is read from its trace or from its digest: every
    // figure, the collectives matched, the findings, and the CLI's summary and diagnosis.
    void fromDigestsAsFromTraces()
    {
        QFETCH(QString, name);
        QFETCH(QStringList, sources);
        std::vector<fs::path> from;
        for (const QString& s : sources)
            from.emplace_back(s.toStdString());
        const std::vector<std::string> files = copyTraces(from, dir(name.toStdString()));
        const auto traces = open(files, false);
        QVERIFY(traces);
        writeDigests(files);
        const auto digests = open(files, true);
        QVERIFY(digests);
        QCOMPARE(digests->ranksFromDigests, files.size());
        QCOMPARE(traces->ranksFromDigests, size_t{0});
        QVERIFY(digests->notes.empty());
        for (const job::Rank& r : digests->ranks) {
            QVERIFY(r.fromDigest);
            QVERIFY(!r.doc);
        }
        const std::string differences = jobDifferences(*traces, *digests);
        QVERIFY2(differences.empty(), differences.c_str());
        QCOMPARE(cli::jobText(*digests), cli::jobText(*traces));
        const auto findings = job::diagnoseJob(*traces);
        QCOMPARE(cli::jobDiagnosisText(*digests, job::diagnoseJob(*digests)),
                 cli::jobDiagnosisText(*traces, findings));
        // A rank's own pages: its trace, read when asked for.
        const auto doc = job::rankDocument(digests->ranks.back());
        QVERIFY(doc->model);
        QCOMPARE(doc->path, digests->ranks.back().path);
    }

    // A profiled job's folder: OUT/rank-K/ with each rank's session and trace; rank 2 failed
    // and rank 3 was stopped because of it. `summary OUT --digest` writes each rank's
    // digest.kinetoscope.json; `summary OUT/rank-1 --digest` one rank's, as srun on a node.
    void profiledJobFolder()
    {
        const fs::path out = dir("profiled");
        std::vector<std::string> traces;
        for (const auto& entry : fs::directory_iterator(kGlooJob))
            traces.push_back(entry.path().string());
        std::sort(traces.begin(), traces.end());
        for (size_t k = 0; k < traces.size(); ++k) {
            const fs::path rank = out / ("rank-" + std::to_string(k));
            fs::create_directories(rank);
            fs::copy_file(traces[k], rank / "trace.json");
            session::Session s;
            s.tracePath = "trace.json";
            s.steps.resize(5);
            if (k == 2) {
                s.interrupted = "rank 2 failed: ValueError at step 5";
                s.config["rank_end"] = "failed";
            } else if (k == 3) {
                s.interrupted = "rank 3 was stopped by the launcher after rank 2 failed";
                s.config["rank_end"] = "stopped by another";
            }
            std::string error;
            QVERIFY2(session::saveSession(s, rank / "session.kinetoscope.json", error),
                     error.c_str());
        }
        std::string error;
        const std::vector<std::string> files = job::jobFiles({out.string()}, error);
        QCOMPARE(files.size(), size_t{4});
        QVERIFY(files[0].ends_with("rank-0/session.kinetoscope.json"));
        const auto fromTraces = open(files, false);
        QVERIFY(fromTraces);
        QCOMPARE(fromTraces->ranks[2].failure, std::string("rank 2 failed: ValueError at step 5"));

        std::string written;
        auto [code, err] = runCli({"summary", (out / "rank-1").string(), "--digest"}, &written);
        QCOMPARE(code, 0);
        QCOMPARE(written, (out / "rank-1" / job::kRankDigestName).string() + "\n");
        std::tie(code, err) =
            runCli({"summary", out.string(), "--digest", "--threads", "1"}, &written);
        QVERIFY2(code == 0, err.c_str());
        for (int k = 0; k < 4; ++k)
            QVERIFY(
                fs::is_regular_file(out / ("rank-" + std::to_string(k)) / job::kRankDigestName));
        QCOMPARE(std::count(written.begin(), written.end(), '\n'), std::ptrdiff_t{4});

        const auto fromDigests = open(files, true);
        QVERIFY(fromDigests);
        QCOMPARE(fromDigests->ranksFromDigests, size_t{4});
        const std::string differences = jobDifferences(*fromTraces, *fromDigests);
        QVERIFY2(differences.empty(), differences.c_str());
        QVERIFY(fromDigests->ranks[3].stoppedByAnother);
        QCOMPARE(fromDigests->ranks[2].sessionSteps, size_t{5});
        const auto findings = job::diagnoseJob(*fromDigests);
        QVERIFY(!findings.empty());
        QCOMPARE(findings.front().id, std::string("rank-failed"));
        // The CLI reads the digests too, and says nothing about them when all are fresh.
        std::string json;
        std::tie(code, err) = runCli({"diagnose", out.string(), "--json"}, &json);
        QCOMPARE(code, 0);
        QVERIFY2(err.empty(), err.c_str());
        QVERIFY(json.find("\"read_from\": \"digest\"") != std::string::npos);
        QVERIFY(json.find("\"stopped_by_another\": true") != std::string::npos);
    }

    // A digest that no longer describes its trace, one that cannot be read and one of a newer
    // major version: each rank read from its trace instead, one line each; the job the same.
    void staleCorruptOrNewerFallBack()
    {
        const std::vector<std::string> files = copyTraces({kGlooJob}, dir("fallback"));
        const auto fromTraces = open(files, false);
        QVERIFY(fromTraces);
        writeDigests(files);
        // Rank 1's trace written again after its digest (same bytes, a later time).
        fs::last_write_time(files[1], fs::last_write_time(files[1]) + std::chrono::seconds(2));
        // Rank 2's digest cut short; rank 3's says it is format 2.0.
        const std::string cut = test::readBytes(job::digestPathFor(files[2]));
        test::writeFile(job::digestPathFor(files[2]), cut.substr(0, cut.size() / 2));
        std::string text = test::readBytes(job::digestPathFor(files[3]));
        const std::string from = "kinetoscope-rank-digest/1.0";
        QVERIFY(text.find(from) != std::string::npos);
        text.replace(text.find(from), from.size(), "kinetoscope-rank-digest/2.0");
        test::writeFile(job::digestPathFor(files[3]), text);

        const auto job = open(files, true);
        QVERIFY(job);
        QCOMPARE(job->ranksFromDigests, size_t{1});
        QCOMPARE(job->notes.size(), size_t{3});
        for (const std::string& note : job->notes) {
            QVERIFY2(note.find('\n') == std::string::npos, note.c_str());
            QVERIFY2(note.ends_with(": read from its trace"), note.c_str());
        }
        QVERIFY2(job->notes[0].starts_with(files[1] + ": its digest is stale (") &&
                     job->notes[0].find("changed since the digest was written") !=
                         std::string::npos,
                 job->notes[0].c_str());
        QVERIFY2(job->notes[1].find("malformed digest") != std::string::npos ||
                     job->notes[1].find("not a digest") != std::string::npos,
                 job->notes[1].c_str());
        QVERIFY2(job->notes[2].find("digest format 2.0 is newer than this Kinetoscope reads "
                                    "(1.x)") != std::string::npos,
                 job->notes[2].c_str());
        const std::string differences = jobDifferences(*fromTraces, *job);
        QVERIFY2(differences.empty(), differences.c_str());
        // The CLI says each on standard error, then the job.
        std::string out;
        const auto [code, err] = runCli({"summary", dir("fallback").string()}, &out);
        QCOMPARE(code, 0);
        QCOMPARE(std::count(err.begin(), err.end(), '\n'), std::ptrdiff_t{3});
        QVERIFY2(err.starts_with("kinetoscope: " + files[1] + ": its digest is stale"),
                 err.c_str());
        QCOMPARE(out, cli::jobText(*fromTraces));

        // A newer minor version is read (fields it adds are not needed); a newer major is
        // refused in one line.
        std::string error;
        std::string minor = text;
        minor.replace(minor.find("/2.0"), 4, "/1.9");
        QVERIFY2(job::parseDigest(minor, "d.json", error), error.c_str());
        QVERIFY(!job::parseDigest(text, "d.json", error));
        QCOMPARE(error, std::string("digest format 2.0 is newer than this Kinetoscope reads "
                                    "(1.x): d.json"));
        QVERIFY(!job::parseDigest("{\"format\": \"something else\"}", "d.json", error));
        QVERIFY2(error.starts_with("not a digest: d.json"), error.c_str());
    }

    // The collectives' args are read in one pass through the file (what a digest's sizes and
    // groups come from): the same args as read one event at a time, on a gzip trace of 2,020
    // NCCL all-reduces and on the DLRM and gloo ranks (sizes from Input Dims and from
    // record_param_comms).
    void collectiveArgsInOnePass_data()
    {
        QTest::addColumn<QString>("trace");
        QTest::newRow("allreduce") << QString::fromStdString(
            test::sharedTrace("hta/allreduce_memory_rank1.json.gz").string());
        QTest::newRow("dlrm") << QString::fromStdString(
            (test::sharedTrace("param/dlrm_8_ranks") /
             "worker0_step_12.1694128201545.pt.trace.json.gz")
                .string());
        QTest::newRow("gloo") << QString::fromStdString(
            (kGlooJob / "worker2.1795443960916389330.pt.trace.json.gz").string());
    }
    void collectiveArgsInOnePass()
    {
        QFETCH(QString, trace);
        const auto doc = document::open(trace.toStdString());
        QVERIFY(doc->model);
        const trace::TraceModel& model = *doc->model;
        std::vector<trace::EventId> ids;
        for (const job::RankCollective& c : job::rankCollectives(model))
            if (c.launch.valid()) {
                ids.push_back(c.launch);
                if (const trace::EventId parent = model.event(c.launch).parent; parent.valid())
                    ids.push_back(parent);
            }
        QVERIFY(!ids.empty());
        const auto inOnePass = trace::readArgsOf(model, ids);
        // One at a time re-inflates from an access point each: every 40th of them.
        for (size_t i = 0; i < ids.size(); i += std::max<size_t>(1, ids.size() / 40)) {
            const auto alone = trace::readArgs(model, ids[i]);
            QCOMPARE(bool(inOnePass[i]), bool(alone));
            if (!alone)
                continue;
            QCOMPARE(inOnePass[i]->size(), alone->size());
            for (size_t a = 0; a < alone->size(); ++a) {
                QCOMPARE((*inOnePass[i])[a].key, (*alone)[a].key);
                QCOMPARE(trace::argText((*inOnePass[i])[a].value),
                         trace::argText((*alone)[a].value));
            }
        }
    }

    // A step marker or threshold of one's own: the digests hold the default reading, so
    // every rank is read from its trace, said once.
    void ownReadingReadsTraces()
    {
        const std::vector<std::string> files = copyTraces({kGlooJob}, dir("thresholds"));
        writeDigests(files);
        document::OpenOptions options;
        QVERIFY(options.thresholds.set("dataloader_share", 0.2));
        const auto job = open(files, true, options);
        QVERIFY(job);
        QCOMPARE(job->ranksFromDigests, size_t{0});
        QCOMPARE(job->notes.size(), size_t{1});
        QVERIFY(job->notes[0].find("threshold") != std::string::npos);
    }

    // Only the digests, copied off the nodes without their traces: the job opens from them,
    // says so once, and a rank's own pages say its trace is not here.
    void digestsAlone()
    {
        const std::vector<std::string> files = copyTraces({kGlooJob}, dir("withTraces"));
        const auto fromTraces = open(files, false);
        QVERIFY(fromTraces);
        writeDigests(files);
        const fs::path alone = dir("alone");
        fs::create_directories(alone);
        for (const std::string& f : files)
            fs::copy_file(job::digestPathFor(f),
                          alone / fs::path(job::digestPathFor(f)).filename());
        std::string error;
        const std::vector<std::string> listed = job::jobFiles({alone.string()}, error);
        QCOMPARE(listed.size(), size_t{4});
        QVERIFY(job::isDigestPath(listed[0]));
        const auto job = open(listed, true);
        QVERIFY(job);
        QCOMPARE(job->ranksFromDigests, size_t{4});
        QCOMPARE(job->notes.size(), size_t{1});
        QVERIFY2(job->notes[0].starts_with("4 ranks read from the digest alone"),
                 job->notes[0].c_str());
        QCOMPARE(job->straggler, fromTraces->straggler);
        QCOMPARE(job->stragglerCause, fromTraces->stragglerCause);
        QCOMPARE(job->collectives.matched.size(), fromTraces->collectives.matched.size());
        QCOMPARE(job::stragglerLine(*job), job::stragglerLine(*fromTraces));
        fs::remove_all(dir("withTraces"));
        const auto doc = job::rankDocument(job->ranks[0]);
        QVERIFY(!doc->model);
        QVERIFY(!doc->loadMessage.empty());
    }

    // 512 ranks of digests made from the real gloo job's ranks 0, 1 and 3 (rank 300 loads
    // data 30 ms longer per step): the job opens from the digests alone, within seconds, and
    // names rank 300 the straggler with data loading as its cause.
    void fiveHundredTwelveRanks()
    {
        std::vector<std::string> bases;
        for (const auto& entry : fs::directory_iterator(kGlooJob))
            bases.push_back(entry.path().string());
        std::sort(bases.begin(), bases.end());
        bases.erase(bases.begin() + 2);  // rank 2, the real straggler
        bench::DigestJobSpec spec;
        spec.ranks = 512;
        spec.straggler = 300;
        spec.stragglerDelayNs = 30'000'000;
        std::string error;
        QVERIFY2(bench::writeDigestJob(bases, dir("ranks512"), spec, error), error.c_str());

        const auto start = std::chrono::steady_clock::now();
        job::JobOptions how;
        how.keepDocumentsUpTo = cli::kJobDocumentsKept;
        const auto job = job::openJobPaths({dir("ranks512").string()}, {}, error, how);
        QVERIFY2(job, error.c_str());
        const auto findings = job::diagnoseJob(*job);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        qInfo("512 ranks of digests opened and diagnosed in %.2f s", seconds);
        QVERIFY2(seconds < 60, std::to_string(seconds).c_str());  // the bench holds 5 s
        QCOMPARE(job->ranks.size(), size_t{512});
        QCOMPARE(job->ranksFromDigests, size_t{512});
        QVERIFY(job->notes.empty());
        QCOMPARE(job->worldSize, 512);
        QCOMPARE(job->ranks[511].rank, 511);
        QCOMPARE(job->commonSteps, (std::vector<int64_t>{2, 3, 4, 5}));
        QVERIFY(!job::whyNotOneJob(*job));
        QCOMPARE(job->straggler, std::optional<int>(300));
        QCOMPARE(job->stragglerCause, std::string("dataloader"));
        QCOMPARE(job->collectives.matched.size(), size_t{8});
        QCOMPARE(job->collectives.unmatched, size_t{0});
        QCOMPARE(job->collectives.lastToArriveCount[300], 8);  // last at every one
        QVERIFY(!findings.empty());
        QCOMPARE(findings.front().id, std::string("straggler-rank"));
        QVERIFY(findings.front().title.find("rank 300") != std::string::npos);
        // Its own pages: the real trace behind it.
        QVERIFY(job::rankDocument(job->ranks[300])->model);
    }
};

QTEST_GUILESS_MAIN(TestJobDigest)
#include "test_job_digest.moc"
