// The real binary, as a person runs it: under Xvfb, open a trace, wait for the overview,
// grab the window; `kinetoscope report` headless; a bad file in the window.
#include "tests/support/image_checks.h"
#include "tests/support/test_support.h"

#include <QDir>
#include <QImage>
#include <QProcess>
#include <QStandardPaths>
#include <QtTest>

namespace {

QString binary()
{
    return QStringLiteral(KINETOSCOPE_BINARY);
}

}  // namespace

class TestApp : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void showsTheOverviewUnderXvfb()
    {
        const QString xvfbRun = QStandardPaths::findExecutable(QStringLiteral("xvfb-run"));
        QVERIFY2(!xvfbRun.isEmpty(), "xvfb-run is missing: scripts/setup.sh installs xvfb");
        const QString shot = m_dir.path() + QStringLiteral("/window.png");
        QProcess app;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("QT_QPA_PLATFORM"));  // a real X server this time
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_dir.path());
        app.setProcessEnvironment(env);
        app.start(xvfbRun,
                  {QStringLiteral("-a"), QStringLiteral("-s"),
                   QStringLiteral("-screen 0 1400x1000x24"), binary(),
                   QString::fromStdString(kinetoscope::test::sharedTrace(
                                              "kineto/resnet50_v100_workers0_2021.pt.trace.json.gz")
                                              .string()),
                   QStringLiteral("--screenshot"), shot});
        QVERIFY(app.waitForFinished(120'000));
        QVERIFY2(app.exitCode() == 0, app.readAllStandardError().constData());
        const QImage image(shot);
        QVERIFY(!image.isNull());
        QVERIFY(image.width() >= 800);
        QVERIFY(kinetoscope::test::distinctColours(image) > 50);
    }

    void writesAReportHeadless()
    {
        for (const char* format : {"pdf", "png", "html"}) {
            const QString out = m_dir.path() + QStringLiteral("/report.") + QLatin1String(format);
            QProcess report;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.remove(QStringLiteral("DISPLAY"));
            env.remove(QStringLiteral("QT_QPA_PLATFORM"));  // it must choose offscreen itself
            report.setProcessEnvironment(env);
            report.start(binary(),
                         {QStringLiteral("report"),
                          QString::fromStdString(
                              kinetoscope::test::sharedTrace("hta/sampled_rank0.json.gz").string()),
                          QStringLiteral("--out"), out});
            QVERIFY(report.waitForFinished(120'000));
            QVERIFY2(report.exitCode() == 0, report.readAllStandardError().constData());
            QVERIFY(QFileInfo(out).size() > 10'000);
        }
        QFile pdf(m_dir.path() + QStringLiteral("/report.pdf"));
        QVERIFY(pdf.open(QIODevice::ReadOnly));
        QCOMPARE(pdf.read(5), QByteArray("%PDF-"));
        QVERIFY(kinetoscope::test::distinctColours(
                    QImage(m_dir.path() + QStringLiteral("/report.png"))) > 50);
    }

    // A job of four CPU ranks (gloo, rank 2 slowed in its data loading): one report of
    // the whole job, self-contained HTML with the heatmap inside; a folder with no trace
    // in it is one line and no file.
    void writesAJobReportHeadless()
    {
        const QString folder = QStringLiteral(KINETOSCOPE_SOURCE_DIR "/tests/data/ddp_gloo_4ranks");
        for (const char* format : {"md", "html"}) {
            QProcess report;
            report.start(binary(),
                         {QStringLiteral("report"), folder, QStringLiteral("--out"),
                          m_dir.path() + QStringLiteral("/job.") + QLatin1String(format)});
            QVERIFY(report.waitForFinished(120'000));
            QVERIFY2(report.exitCode() == 0, report.readAllStandardError().constData());
        }
        QFile md(m_dir.path() + QStringLiteral("/job.md"));
        QVERIFY(md.open(QIODevice::ReadOnly));
        const QByteArray text = md.readAll();
        QVERIFY(text.startsWith("# Why is this job slow? — ddp_gloo_4ranks"));
        QVERIFY2(text.contains("Straggler: rank 2"), text.constData());
        QVERIFY(text.contains("straggler-rank"));
        QVERIFY(text.contains("| 2 (straggler) |"));
        QVERIFY(text.contains("## Collectives"));
        QVERIFY(text.contains("counts its wait for rank 2 as communication"));
        QFile html(m_dir.path() + QStringLiteral("/job.html"));
        QVERIFY(html.open(QIODevice::ReadOnly));
        const QByteArray page = html.readAll();
        QVERIFY(page.contains("Straggler: rank 2"));
        QVERIFY(page.contains("src=\"data:image/png;base64,"));  // the heatmap travels inside

        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("no_ranks")));
        QProcess empty;
        empty.start(binary(),
                    {QStringLiteral("report"), m_dir.path() + QStringLiteral("/no_ranks"),
                     QStringLiteral("--out"), m_dir.path() + QStringLiteral("/none.pdf")});
        QVERIFY(empty.waitForFinished(60'000));
        QCOMPARE(empty.exitCode(), 2);
        const QByteArray err = empty.readAllStandardError();
        QVERIFY2(err.contains("no_ranks: no trace"), err.constData());
        // One line of ours (Qt may add its own notes, about XDG_RUNTIME_DIR say).
        QCOMPARE(err.count("kinetoscope"), 1);
        QVERIFY(err.endsWith("in this folder\n"));
        QVERIFY(!QFileInfo::exists(m_dir.path() + QStringLiteral("/none.pdf")));
    }

    void opensASessionLikeATrace()
    {
        // A lab session pointing at a real trace: the window opens it, and so does report.
        const QString sessionPath = m_dir.path() + QStringLiteral("/lab.kinetoscope.json");
        QFile session(sessionPath);
        QVERIFY(session.open(QIODevice::WriteOnly));
        session.write(QStringLiteral("{\"kinetoscope_session\": 1, \"trace\": \"%1\", \"lab\": ["
                                     "{\"name\": \"fp32\", \"ran\": true, \"mean_step_ms\": 100},"
                                     "{\"name\": \"bf16\", \"ran\": true, \"mean_step_ms\": 97}]}")
                          .arg(QString::fromStdString(
                              kinetoscope::test::sharedTrace("hta/sampled_rank1.json.gz").string()))
                          .toUtf8());
        session.close();
        QProcess report;
        report.start(binary(), {QStringLiteral("report"), sessionPath, QStringLiteral("--out"),
                                m_dir.path() + QStringLiteral("/session.html")});
        QVERIFY(report.waitForFinished(120'000));
        QVERIFY2(report.exitCode() == 0, report.readAllStandardError().constData());
        QFile html(m_dir.path() + QStringLiteral("/session.html"));
        QVERIFY(html.open(QIODevice::ReadOnly));
        QVERIFY(html.readAll().contains("not-precision-bound"));  // from the session's lab arms

        QProcess app;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_dir.path());
        app.setProcessEnvironment(env);  // offscreen, from the test's environment
        app.start(binary(), {sessionPath, QStringLiteral("--screenshot"),
                             m_dir.path() + QStringLiteral("/session.png"),
                             QStringLiteral("--view"), QStringLiteral("diagnosis")});
        QVERIFY(app.waitForFinished(120'000));
        QVERIFY2(app.exitCode() == 0, app.readAllStandardError().constData());
        QVERIFY(kinetoscope::test::distinctColours(
                    QImage(m_dir.path() + QStringLiteral("/session.png"))) > 20);
    }

    void reportsABadFileInOneLine()
    {
        QProcess report;
        report.start(binary(), {QStringLiteral("report"), QStringLiteral("/no/such/trace.json"),
                                QStringLiteral("--out"), m_dir.path() + QStringLiteral("/x.pdf")});
        QVERIFY(report.waitForFinished(60'000));
        QCOMPARE(report.exitCode(), 2);
        const QByteArray err = report.readAllStandardError();
        QVERIFY(err.contains("no such file"));
        QVERIFY(!QFileInfo::exists(m_dir.path() + QStringLiteral("/x.pdf")));
    }
};

QTEST_GUILESS_MAIN(TestApp)
#include "test_app.moc"
