// The README followed as a new user follows it: the real `kinetoscope` binary, run with the
// arguments a person types, the wrong ones too (issue 29). A failed run leaves what was
// saved as it was; every command answers --help; a session recorded without a trace
// opens; a slowdown is called one; files that are not ranks of one job are not merged;
// runs on different hardware say so; failures are one line each, none of them lost.
#include "tests/support/test_support.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QtTest>

namespace {

struct Ran
{
    int code = -1;
    QString out, err;
};

// The binary, to its end (or the timeout: a command that never returns fails the test).
Ran run(const QStringList& args, int timeoutMs = 180'000,
        const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment())
{
    QProcess process;
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(KINETOSCOPE_BINARY), args);
    Ran ran;
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        ran.err = QStringLiteral("did not finish within %1 ms").arg(timeoutMs);
        return ran;
    }
    ran.code = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    ran.out = QString::fromUtf8(process.readAllStandardOutput());
    ran.err = QString::fromUtf8(process.readAllStandardError());
    return ran;
}

QString trace(const char* relative)
{
    return QString::fromStdString(kinetoscope::test::sharedTrace(relative).string());
}

QByteArray digest(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(file.readAll(), QCryptographicHash::Sha256);
}

bool engineBuilt()
{
    return QFileInfo::exists(QFileInfo(QStringLiteral(KINETOSCOPE_BINARY))
                                 .dir()
                                 .filePath(QStringLiteral("kinetoscope-engine")));
}

// A lab run that takes seconds on a CPU: the mlp, small, few steps.
QStringList smallRun(const QString& out)
{
    return {QStringLiteral("run"),
            QStringLiteral("--model"),
            QStringLiteral("mlp"),
            QStringLiteral("--device"),
            QStringLiteral("cpu"),
            QStringLiteral("--steps"),
            QStringLiteral("3"),
            QStringLiteral("--warmup"),
            QStringLiteral("1"),
            QStringLiteral("--batch-size"),
            QStringLiteral("16"),
            QStringLiteral("--input-features"),
            QStringLiteral("32"),
            QStringLiteral("--hidden"),
            QStringLiteral("64"),
            QStringLiteral("--out"),
            out};
}

// IDX files of `count` 28x28 images and their labels, as MNIST publishes them.
void writeMnist(const QString& folder, uint32_t count)
{
    QDir().mkpath(folder);
    auto bigEndian = [](QByteArray& bytes, uint32_t value) {
        for (int shift = 24; shift >= 0; shift -= 8)
            bytes.append(char((value >> shift) & 0xff));
    };
    QByteArray images, labels;
    for (uint32_t v : {0x803u, count, 28u, 28u})
        bigEndian(images, v);
    images.append(QByteArray(int(count * 28 * 28), char(7)));
    for (uint32_t v : {0x801u, count})
        bigEndian(labels, v);
    for (uint32_t i = 0; i < count; ++i)
        labels.append(char(i % 10));
    for (const auto& [name, bytes] : {std::pair{"/train-images-idx3-ubyte", images},
                                      std::pair{"/train-labels-idx1-ubyte", labels}}) {
        QFile file(folder + QLatin1String(name));
        file.open(QIODevice::WriteOnly);
        file.write(bytes);
    }
}

int lineCount(const QString& text)
{
    return int(text.trimmed().split(QLatin1Char('\n'), Qt::SkipEmptyParts).size());
}

}  // namespace

class TestNewUser : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

    // The app without a display, its settings in the test's folder.
    QProcessEnvironment appEnvironment() const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_dir.path() + QStringLiteral("/config"));
        return env;
    }

private Q_SLOTS:
    // 1. A run that cannot start leaves the session (and everything else in the folder)
    // as it was, and announces no session.
    void aFailedRunLeavesTheSavedSessionAsItWas()
    {
        if (!engineBuilt())
            QSKIP("built without the engine");
        const QString out = m_dir.path() + QStringLiteral("/runs/good");
        const Ran good = run(smallRun(out));
        QVERIFY2(good.code == 0, qPrintable(good.err));
        const QString session = out + QStringLiteral("/session.kinetoscope.json");
        const QByteArray saved = digest(session), log = digest(out + QStringLiteral("/engine.log"));
        QVERIFY(!saved.isEmpty());
        QVERIFY(!log.isEmpty());
        const QStringList entries = QDir(out).entryList(QDir::Files);

        const QString notAFolder = m_dir.path() + QStringLiteral("/mnist.bin");
        QFile(notAFolder).open(QIODevice::WriteOnly);
        const QList<QStringList> bad = {
            {QStringLiteral("--model"), QStringLiteral("foo")},
            {QStringLiteral("--steps"), QStringLiteral("0")},
            {QStringLiteral("--batch-size"), QStringLiteral("0")},
            {QStringLiteral("--dataset"), QStringLiteral("imagenet")},
            {QStringLiteral("--dataset"), QStringLiteral("mnist"), QStringLiteral("--data"),
             QStringLiteral("/no/such/folder")},
            {QStringLiteral("--dataset"), QStringLiteral("mnist"), QStringLiteral("--data"),
             notAFolder},
            {QStringLiteral("--dataset"), QStringLiteral("mnist"), QStringLiteral("--data"),
             m_dir.path()},  // no MNIST files
        };
        QList<QStringList> cases = bad;
        if (!QFileInfo::exists(QStringLiteral("/dev/nvidia0")))
            cases.push_back({QStringLiteral("--device"), QStringLiteral("cuda")});
        for (const QStringList& wrong : cases) {
            const Ran failed = run(QStringList{QStringLiteral("run")} + wrong +
                                   QStringList{QStringLiteral("--out"), out});
            const QString what = wrong.join(QLatin1Char(' '));
            QVERIFY2(failed.code == 2,
                     qPrintable(what + QStringLiteral(": exit ") + QString::number(failed.code)));
            QVERIFY2(lineCount(failed.err) == 1,
                     qPrintable(what + QStringLiteral(": ") + failed.err));
            QVERIFY2(!failed.out.contains(QStringLiteral("session:")),
                     qPrintable(what + QStringLiteral(": ") + failed.out));
            QVERIFY2(digest(session) == saved,
                     qPrintable(what + QStringLiteral(": the session changed")));
            QVERIFY2(digest(out + QStringLiteral("/engine.log")) == log,
                     qPrintable(what + QStringLiteral(": the log changed")));
            QCOMPARE(QDir(out).entryList(QDir::Files), entries);
        }
        // Wrong in a way only the run itself finds out (its loader, at its first batch):
        // MNIST files of 10 images, and a batch of 64. Still nothing touched.
        const QString tiny = m_dir.path() + QStringLiteral("/tiny-mnist");
        writeMnist(tiny, 10);
        const Ran tooFew =
            run({QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("mnist"),
                 QStringLiteral("--data"), tiny, QStringLiteral("--device"), QStringLiteral("cpu"),
                 QStringLiteral("--out"), out});
        QCOMPARE(tooFew.code, 2);
        QVERIFY2(tooFew.err.contains(QStringLiteral("fewer than one batch")),
                 qPrintable(tooFew.err));
        QVERIFY(!tooFew.out.contains(QStringLiteral("session:")));
        QVERIFY(digest(session) == saved);
        QVERIFY(digest(out + QStringLiteral("/engine.log")) == log);
        // The same files with a batch they hold: the run starts, and writes.
        const Ran fits =
            run({QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("mnist"),
                 QStringLiteral("--data"), tiny, QStringLiteral("--device"), QStringLiteral("cpu"),
                 QStringLiteral("--batch-size"), QStringLiteral("2"), QStringLiteral("--steps"),
                 QStringLiteral("2"), QStringLiteral("--out"),
                 m_dir.path() + QStringLiteral("/runs/tiny")});
        QVERIFY2(fits.code == 0, qPrintable(fits.err));
        // A folder that did not exist is not made for a run that cannot start.
        const QString fresh = m_dir.path() + QStringLiteral("/runs/never");
        QCOMPARE(run({QStringLiteral("run"), QStringLiteral("--model"), QStringLiteral("foo"),
                      QStringLiteral("--out"), fresh})
                     .code,
                 2);
        QVERIFY(!QFileInfo::exists(fresh));
    }

    // 2. Every command has --help (exit 0, nothing run), and there is --version.
    void everyCommandAnswersHelpAndVersion()
    {
        for (const char* command : {"info", "summary", "diagnose", "diff", "run", "report"}) {
            for (const char* flag : {"--help", "-h"}) {
                const Ran help = run({QLatin1String(command), QLatin1String(flag)}, 30'000);
                QVERIFY2(help.code == 0,
                         qPrintable(QLatin1String(command) + QStringLiteral(": ") + help.err));
                QVERIFY2(help.out.startsWith(QStringLiteral("usage: kinetoscope ") +
                                             QLatin1String(command)),
                         qPrintable(help.out.left(200)));
                QVERIFY(help.err.isEmpty());
            }
            // Beside a file, --help still answers instead of running.
            const Ran beside = run({QLatin1String(command), trace("hta/sampled_rank0.json.gz"),
                                    QStringLiteral("--help")},
                                   30'000);
            QCOMPARE(beside.code, 0);
            QVERIFY(beside.out.startsWith(QStringLiteral("usage: kinetoscope ")));
        }
        const Ran help = run({QStringLiteral("help"), QStringLiteral("diagnose")}, 30'000);
        QCOMPARE(help.code, 0);
        QVERIFY(help.out.contains(QStringLiteral("--fail-on")));
        QCOMPARE(run({QStringLiteral("help"), QStringLiteral("frobnicate")}, 30'000).code, 2);
        for (const char* version : {"--version", "version"}) {
            const Ran v = run({QLatin1String(version)}, 30'000);
            QCOMPARE(v.code, 0);
            QVERIFY2(v.out.startsWith(QStringLiteral("kinetoscope 0.")), qPrintable(v.out));
        }
        QCOMPARE(run({QStringLiteral("help"), QStringLiteral("--help")}, 30'000).code, 0);
        const Ran overview = run({QStringLiteral("--help")}, 30'000);
        QCOMPARE(overview.code, 0);
        for (const char* command :
             {"info", "summary", "diagnose", "diff", "run", "report", "version"})
            QVERIFY2(overview.out.contains(QStringLiteral("  ") + QLatin1String(command)), command);
    }

    // 2. The app's measuring options never wait for nothing.
    void screenshotAndLatencyOptionsAlwaysReturn()
    {
        const QProcessEnvironment env = appEnvironment();
        const Ran noFile = run(
            {QStringLiteral("--screenshot"), m_dir.path() + QStringLiteral("/x.png")}, 30'000, env);
        QCOMPARE(noFile.code, 2);
        QVERIFY(noFile.err.contains(QStringLiteral("a file to open is needed")));
        QCOMPARE(run({QStringLiteral("--print-latency")}, 30'000, env).code, 2);
        QCOMPARE(run({QStringLiteral("--screenshot")}, 30'000, env).code, 2);  // no value
        QCOMPARE(run({QStringLiteral("--frobnicate")}, 30'000, env).code, 2);
        // The latency probe times files loading: with a comparison alone it would wait for ever.
        const Ran compared =
            run({QStringLiteral("--compare"), trace("hta/sampled_rank0.json.gz"),
                 trace("hta/sampled_rank1.json.gz"), QStringLiteral("--print-latency")},
                30'000, env);
        QCOMPARE(compared.code, 2);
        QVERIFY(compared.err.contains(QStringLiteral("a file to open is needed")));
        const Ran latency = run(
            {trace("hta/sampled_rank0.json.gz"), QStringLiteral("--print-latency")}, 120'000, env);
        QVERIFY2(latency.code == 0, qPrintable(latency.err));
        QVERIFY(latency.err.contains(QStringLiteral("max event-loop latency while loading")));
        // Without any display the app says so in one line and names the headless commands
        // (Qt would abort); a screenshot is still drawn offscreen.
        QProcessEnvironment headless = QProcessEnvironment::systemEnvironment();
        for (const char* name : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"})
            headless.remove(QLatin1String(name));
        headless.insert(QStringLiteral("XDG_CONFIG_HOME"),
                        m_dir.path() + QStringLiteral("/config"));
        const Ran noDisplay = run({trace("hta/sampled_rank0.json.gz")}, 30'000, headless);
        QCOMPARE(noDisplay.code, 2);
        QVERIFY2(noDisplay.err.startsWith(QStringLiteral("kinetoscope: no display")) &&
                     noDisplay.err.count('\n') == 1,
                 qPrintable(noDisplay.err));
        QVERIFY(noDisplay.err.contains(QStringLiteral("diagnose")));
        // A DISPLAY that nothing answers on (a lost ssh X forward) would abort inside Qt
        // (exit 134): the same one line, exit 2.
        for (const char* lost : {":4242", "localhost:4242"}) {
            QProcessEnvironment forwarded = headless;
            forwarded.insert(QStringLiteral("DISPLAY"), QLatin1String(lost));
            const Ran gone = run({trace("hta/sampled_rank0.json.gz")}, 30'000, forwarded);
            QCOMPARE(gone.code, 2);
            QVERIFY2(gone.err.startsWith(QStringLiteral("kinetoscope: no display")) &&
                         gone.err.count('\n') == 1 && gone.err.contains(QLatin1String(lost)) &&
                         gone.err.contains(QStringLiteral("summary")),
                     qPrintable(gone.err));
        }
        // A mistyped command is not a file for the app: "unknown command", the closest one,
        // every command; exit 2, display or not.
        for (const QProcessEnvironment& where : {headless, env}) {
            const Ran typo =
                run({QStringLiteral("summry"), trace("hta/sampled_rank0.json.gz")}, 30'000, where);
            QCOMPARE(typo.code, 2);
            QVERIFY2(typo.err.startsWith(QStringLiteral(
                         "kinetoscope: unknown command 'summry' (did you mean 'summary'?)")) &&
                         typo.err.count('\n') == 1 && typo.err.contains(QStringLiteral("diagnose")),
                     qPrintable(typo.err));
        }
        const Ran stranger = run({QStringLiteral("frobnicate")}, 30'000, env);
        QCOMPARE(stranger.code, 2);
        QVERIFY(
            stranger.err.startsWith(QStringLiteral("kinetoscope: unknown command 'frobnicate';")));
        // `memory` is a command: a missing file is its own complaint.
        const Ran memory = run({QStringLiteral("memory"), QStringLiteral("X")}, 30'000, env);
        QCOMPARE(memory.code, 2);
        QVERIFY(memory.err.contains(QStringLiteral("no such file")));
        const QString picture = m_dir.path() + QStringLiteral("/headless.png");
        const Ran shot =
            run({trace("hta/sampled_rank0.json.gz"), QStringLiteral("--screenshot"), picture},
                60'000, headless);
        QVERIFY2(shot.code == 0, qPrintable(shot.err));
        QVERIFY(QFileInfo(picture).size() > 0);
    }

    // 3. A session recorded without --profile opens everywhere with what it measured.
    void aSessionWithoutATraceOpensWithWhatItMeasured()
    {
        if (!engineBuilt())
            QSKIP("built without the engine");
        const QString out = m_dir.path() + QStringLiteral("/runs/traceless");
        QStringList args = smallRun(out);
        args << QStringLiteral("--lab") << QStringLiteral("--split");
        const Ran lab = run(args);
        QVERIFY2(lab.code == 0, qPrintable(lab.err));
        const QString session = out + QStringLiteral("/session.kinetoscope.json");

        const Ran diagnosed = run({QStringLiteral("diagnose"), session});
        QVERIFY2(diagnosed.code == 0, qPrintable(diagnosed.err));
        QVERIFY(diagnosed.out.contains(QStringLiteral("recorded without a trace")));
        QVERIFY2(diagnosed.out.contains(QStringLiteral("(measured)")) ||
                     diagnosed.out.contains(QStringLiteral("measured in the lab")),
                 qPrintable(diagnosed.out));
        const Ran json = run({QStringLiteral("diagnose"), session, QStringLiteral("--json")});
        QCOMPARE(json.code, 0);
        const QJsonObject d = QJsonDocument::fromJson(json.out.toUtf8()).object();
        QCOMPARE(d.value(QStringLiteral("trace")).toBool(true), false);
        QVERIFY(!d.value(QStringLiteral("findings")).toArray().isEmpty());

        const Ran summary = run({QStringLiteral("summary"), session});
        QVERIFY2(summary.code == 0, qPrintable(summary.err));
        for (const char* figure :
             {"fp32", "bf16", "phase (fp32)", "DataLoader", "memory after each phase"})
            QVERIFY2(summary.out.contains(QLatin1String(figure)), figure);

        const Ran info = run({QStringLiteral("info"), session});
        QCOMPARE(info.code, 0);
        QVERIFY(info.out.contains(QStringLiteral("without a trace")));

        const QString png = m_dir.path() + QStringLiteral("/traceless-report.png");
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("XDG_RUNTIME_DIR"));
        const Ran report =
            run({QStringLiteral("report"), session, QStringLiteral("--out"), png}, 180'000, env);
        QVERIFY2(report.code == 0, qPrintable(report.err));
        QVERIFY2(report.err.isEmpty(), qPrintable(report.err));  // no Qt chatter either
        QVERIFY(QImage(png).height() > 300);

        const Ran diff = run({QStringLiteral("diff"), session, session});
        QVERIFY2(diff.code == 0, qPrintable(diff.err));
        QVERIFY(diff.out.contains(QStringLiteral("measured steps")));
        // Against a trace it cannot be compared: one line that says why.
        const Ran mixed =
            run({QStringLiteral("diff"), trace("hta/sampled_rank0.json.gz"), session});
        QCOMPARE(mixed.code, 2);
        QVERIFY(mixed.err.contains(QStringLiteral("without a trace")));
    }

    // 4, 8, 9. On the CPU: a bf16 slowdown is called one; progress names the time left;
    // the memory table shows what the CPU measured, one line for what it cannot.
    void aCpuLabReadsAsItRan()
    {
        if (!engineBuilt())
            QSKIP("built without the engine");
        const QString out = m_dir.path() + QStringLiteral("/runs/cpu-lab");
        QStringList args = smallRun(out);
        args[args.indexOf(QStringLiteral("--steps")) + 1] = QStringLiteral("12");
        args << QStringLiteral("--lab");
        const Ran lab = run(args);
        QVERIFY2(lab.code == 0, qPrintable(lab.err));
        QVERIFY2(lab.err.contains(QStringLiteral("left")),
                 qPrintable(lab.err));  // "fp32: step 3 of 13, about 1.2 s left"
        // One line for what needs a GPU (the graph arm), none in the memory table.
        QVERIFY2(lab.out.count(QStringLiteral("needs a GPU")) == 1, qPrintable(lab.out));
        QVERIFY(lab.out.contains(QStringLiteral("bf16+cuda-graph    not run: needs a GPU")));
        QVERIFY(lab.out.contains(QStringLiteral("reserved: the CPU has no caching allocator")));
        QVERIFY(!lab.out.contains(QStringLiteral("activations not measured")));
        // The reading and the finding agree with the arms: below 0.9x is a slowdown.
        const QRegularExpression arms(
            QStringLiteral("fp32 -> bf16 is a (\\w+) jump|fp32 -> bf16 is a slowdown"));
        QVERIFY2(arms.match(lab.out).hasMatch(), qPrintable(lab.out));
        // (not "a slowdown within this run's noise": 0.9x to 1x, read by not-precision-bound)
        const bool slowdown = lab.out.contains(QStringLiteral("fp32 -> bf16 is a slowdown ("));
        const Ran diagnosed =
            run({QStringLiteral("diagnose"), out + QStringLiteral("/session.kinetoscope.json")});
        QCOMPARE(diagnosed.code, 0);
        QVERIFY(!diagnosed.out.contains(QStringLiteral("speeds the step up only 0.0")));
        if (slowdown) {
            QVERIFY(!lab.out.contains(QStringLiteral("small jump (0.")));
            QVERIFY2(diagnosed.out.contains(QStringLiteral("(bf16-slowdown)")),
                     qPrintable(diagnosed.out));
        }
    }

    // 5. Every file that fails says so on standard error, one line each; a cut trace too.
    void everyFailedFileIsReported()
    {
        const QString notATrace = m_dir.path() + QStringLiteral("/notatrace.json");
        QFile file(notATrace);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{\"hello\": 1}");
        file.close();
        const std::string whole = kinetoscope::test::readDecompressed(
            kinetoscope::test::sharedTrace("hta/sampled_rank0.json.gz"));
        const QString cut = m_dir.path() + QStringLiteral("/cut.json");
        kinetoscope::test::writeFile(cut.toStdString(), whole.substr(0, whole.size() / 3));
        const QProcessEnvironment env = appEnvironment();
        const Ran app =
            run({trace("hta/sampled_rank0.json.gz"), QStringLiteral("/nonexistent.json"), notATrace,
                 QDir::tempPath(), cut, QStringLiteral("--print-latency")},
                180'000, env);
        QCOMPARE(app.code, 2);  // something failed
        for (const QString& name :
             {QStringLiteral("nonexistent.json"), QStringLiteral("notatrace.json"),
              QFileInfo(QDir::tempPath()).fileName()})
            QVERIFY2(app.err.contains(QStringLiteral("kinetoscope: ") + name), qPrintable(app.err));
        QVERIFY2(app.err.contains(QStringLiteral("cut.json: partly read")), qPrintable(app.err));
    }

    // 7. Two runs are not two ranks; two machines are said to be two.
    void separateRunsAreNotMergedIntoAJob()
    {
        const QString before = trace("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz");
        const QString after = trace("kineto/resnet50_v100_workers4_2021.pt.trace.json.gz");
        const Ran summary = run({QStringLiteral("summary"), before, after});
        QVERIFY2(summary.code == 0, qPrintable(summary.err));
        QVERIFY2(summary.err.contains(QStringLiteral("not ranks of one job")),
                 qPrintable(summary.err));
        QVERIFY(!summary.out.contains(QStringLiteral("straggler")));
        QVERIFY(!summary.out.contains(QStringLiteral("job of")));
        QCOMPARE(summary.out.count(QStringLiteral("Step-time breakdown")), 2);
        const Ran diagnosis = run({QStringLiteral("diagnose"), before, after});
        QCOMPARE(diagnosis.code, 0);
        QVERIFY(diagnosis.err.contains(QStringLiteral("not ranks of one job")));
        QCOMPARE(diagnosis.out.count(QStringLiteral("dataloader-bound")) >= 1, true);
        QVERIFY(!diagnosis.out.contains(QStringLiteral("keep pace")));
        // A real job (four gloo ranks) is still one.
        const Ran job = run({QStringLiteral("summary"),
                             QStringLiteral(KINETOSCOPE_SOURCE_DIR "/tests/data/ddp_gloo_4ranks")});
        QCOMPARE(job.code, 0);
        QVERIFY(job.out.contains(QStringLiteral("job of 4 ranks")));
        QVERIFY(!job.err.contains(QStringLiteral("not ranks")));
    }

    void aDiffAcrossHardwareSaysSoFirst()
    {
        if (!engineBuilt())
            QSKIP("built without the engine");
        const QString out = m_dir.path() + QStringLiteral("/runs/cpu-profiled");
        QStringList args = smallRun(out);
        args << QStringLiteral("--profile");
        QVERIFY(run(args).code == 0);
        const Ran diff = run({QStringLiteral("diff"),
                              trace("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz"),
                              out + QStringLiteral("/session.kinetoscope.json")});
        QVERIFY2(diff.code == 0, qPrintable(diff.err));
        const QString verdict = diff.out.section(QLatin1Char('\n'), 1, 1);
        QVERIFY2(verdict.startsWith(QStringLiteral("Different hardware (Tesla V100")) &&
                     verdict.contains(QStringLiteral("→ CPU")),
                 qPrintable(diff.out.left(400)));
        QVERIFY2(verdict.contains(QStringLiteral("The two share only")), qPrintable(verdict));
    }

    // 11. --threads where the binary itself parses it: `report` (drawn with Qt) and the
    // app's own command line. A good value runs, a bad one is one line and exit 2.
    void reportAndTheAppTakeThreads()
    {
        const QProcessEnvironment env = appEnvironment();
        const QString sampled = trace("hta/sampled_rank0.json.gz");
        const QString html = m_dir.path() + QStringLiteral("/threads-report.html");
        const Ran report = run({QStringLiteral("report"), sampled, QStringLiteral("--threads"),
                                QStringLiteral("1"), QStringLiteral("--out"), html},
                               180'000, env);
        QVERIFY2(report.code == 0, qPrintable(report.err));
        QVERIFY(QFileInfo(html).size() > 1000);
        for (const QStringList& bad :
             {QStringList{QStringLiteral("report"), sampled, QStringLiteral("--out"), html,
                          QStringLiteral("--threads"), QStringLiteral("lots")},
              QStringList{QStringLiteral("report"), sampled, QStringLiteral("--out"), html,
                          QStringLiteral("--threads")}}) {
            const Ran refused = run(bad, 30'000, env);
            QCOMPARE(refused.code, 2);
            QVERIFY2(refused.err.startsWith(QStringLiteral("kinetoscope report: --threads ")) &&
                         refused.err.count('\n') == 1,
                     qPrintable(refused.err));
        }
        // The app: this launch's threads, over the setting; a bad value never opens a window.
        const Ran opened = run({sampled, QStringLiteral("--threads"), QStringLiteral("1"),
                                QStringLiteral("--print-latency")},
                               120'000, env);
        QVERIFY2(opened.code == 0, qPrintable(opened.err));
        for (const char* bad : {"-1", "half", "2000"}) {
            const Ran refused =
                run({sampled, QStringLiteral("--threads"), QLatin1String(bad)}, 30'000, env);
            QCOMPARE(refused.code, 2);
            QVERIFY2(refused.err.startsWith(
                         QStringLiteral("kinetoscope: --threads takes 0 (every core)")) &&
                         refused.err.count('\n') == 1,
                     qPrintable(refused.err));
        }
        // `run` has its own options (the engine's): --threads is not one of them.
        const Ran lab =
            run({QStringLiteral("run"), QStringLiteral("--threads"), QStringLiteral("2"),
                 QStringLiteral("--out"), m_dir.path() + QStringLiteral("/runs/threads")},
                30'000, env);
        QCOMPARE(lab.code, 2);
        QVERIFY(lab.err.contains(QStringLiteral("--threads")));
        QVERIFY(!QFileInfo::exists(m_dir.path() + QStringLiteral("/runs/threads")));
    }

    // 10. Small things, seen by a new user.
    void theSmallThings()
    {
        // Columns stay aligned when a value holds µ: the percentages of the breakdown line up.
        const Ran summary = run({QStringLiteral("summary"), trace("hta/sampled_rank0.json.gz")});
        QCOMPARE(summary.code, 0);
        const QString breakdown =
            summary.out.section(QStringLiteral("Step-time breakdown (average per step)\n"), 1)
                .section(QStringLiteral("\n\n"), 0, 0);
        QList<qsizetype> ends;
        for (const QString& line : breakdown.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
            ends << line.size();  // characters, as a terminal shows them
        QVERIFY(ends.size() >= 6);
        QVERIFY2(
            std::all_of(ends.begin(), ends.end(), [&](qsizetype e) { return e == ends.front(); }),
            qPrintable(breakdown));
        QVERIFY(!summary.out.contains(QStringLiteral(" 1 calls")));
        // --series without --json says it changes nothing.
        const Ran series = run({QStringLiteral("summary"), trace("hta/sampled_rank0.json.gz"),
                                QStringLiteral("--series")});
        QCOMPARE(series.code, 0);
        QVERIFY(series.err.contains(QStringLiteral("without --json")));
        // A marker the user named is named as such.
        const Ran marked = run({QStringLiteral("diagnose"),
                                trace("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz"),
                                QStringLiteral("--step-marker"), QStringLiteral("aten::conv2d")});
        QCOMPARE(marked.code, 0);
        QVERIFY2(marked.out.contains(QStringLiteral("'aten::conv2d' markers")),
                 qPrintable(marked.out.left(300)));
        QVERIFY(!marked.out.contains(QStringLiteral("ProfilerStep markers")));
    }
};

QTEST_GUILESS_MAIN(TestNewUser)
#include "test_new_user.moc"
