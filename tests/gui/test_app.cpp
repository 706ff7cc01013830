// The real binary, as a person runs it: under Xvfb, open a trace, wait for the overview,
// grab the window; `kinetoscope report` headless; a bad file in the window.
#include "tests/support/image_checks.h"
#include "tests/support/test_support.h"

#include <QDir>
#include <QImage>
#include <QProcess>
#include <QStandardPaths>
#include <QtTest>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace {

QString binary()
{
    return QStringLiteral(KINETOSCOPE_BINARY);
}

QString sampleTrace()
{
    return QStringLiteral(KINETOSCOPE_SOURCE_DIR "/resources/sample.pt.trace.json.gz");
}

// The app on `display`, a real X server this time, its settings in `config`.
QProcessEnvironment displayEnvironment(const QString& display, const QString& config)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("QT_QPA_PLATFORM"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    env.insert(QStringLiteral("DISPLAY"), display);
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), config);
    return env;
}

// The next connection to `listener`, or -1 after `timeoutMs`.
int acceptWithin(int listener, int timeoutMs)
{
    pollfd p{listener, POLLIN, 0};
    if (::poll(&p, 1, timeoutMs) != 1)
        return -1;
    return ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
}

// Listens where a client looks first for display :N (libxcb: the abstract socket
// "@/tmp/.X11-unix/XN"), at the first N from 240 that no X server holds; -1 if none.
int listenAsADisplay(int& number)
{
    for (number = 240; number < 340; ++number) {
        const std::string path = "/tmp/.X11-unix/X" + std::to_string(number);
        if (QFileInfo::exists(QStringLiteral("/tmp/.X%1-lock").arg(number)) ||
            QFileInfo::exists(QString::fromStdString(path)))
            continue;
        const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::memcpy(address.sun_path + 1, path.data(), path.size());
        const auto length = socklen_t(offsetof(sockaddr_un, sun_path) + 1 + path.size());
        if (::bind(fd, reinterpret_cast<const sockaddr*>(&address), length) == 0 &&
            ::listen(fd, 8) == 0)
            return fd;
        ::close(fd);
    }
    return -1;
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

    // The app asks whether DISPLAY answers before Qt connects, and holds that connection
    // until Qt's own is made. An X server resets when its last client leaves (Xvfb as
    // xvfb-run starts it, without -noreset; X.Org 21.1 counts a client that never began
    // its handshake), and the reset drops the connections it accepted meanwhile: a probe
    // that closed before Qt connected made `xvfb-run -a kinetoscope ...` abort now and then
    // ("could not connect to display", exit 134). Here the display is a listener of the
    // test's that never answers the handshake, so the order is certain: when Qt's
    // connection arrives, the probe's must still be open.
    void holdsTheDisplayProbeUntilQtConnects()
    {
        int number = 0;
        const int listener = listenAsADisplay(number);
        QVERIFY2(listener >= 0, "no free display number from 240 to 339");
        QProcess app;
        app.setProcessEnvironment(
            displayEnvironment(QStringLiteral(":%1").arg(number), m_dir.path()));
        app.start(binary(), {sampleTrace(), QStringLiteral("--print-latency")});
        const int probe = acceptWithin(listener, 60'000);
        const int qt = probe >= 0 ? acceptWithin(listener, 60'000) : -1;
        char first = 0;
        pollfd handshake{qt, POLLIN, 0};
        const bool xcb = qt >= 0 && ::poll(&handshake, 1, 30'000) == 1 &&
                         ::recv(qt, &first, 1, MSG_PEEK) == 1 && (first == 'l' || first == 'B');
        char byte = 0;
        const ssize_t peeked = probe >= 0 ? ::recv(probe, &byte, 1, MSG_PEEK | MSG_DONTWAIT) : 0;
        const bool probeOpen = peeked < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
        app.kill();  // blocked in Qt's handshake, which never gets its answer
        app.waitForFinished(30'000);
        for (const int fd : {qt, probe, listener})
            if (fd >= 0)
                ::close(fd);
        QVERIFY2(probe >= 0, "the app never asked whether the display answers");
        QVERIFY2(xcb, "no X handshake from Qt after the probe");
        QVERIFY2(probeOpen, "the probe's connection was closed before Qt connected: an X "
                            "server without -noreset resets in between");
    }

    // The same end to end: a private Xvfb that resets whenever its last client leaves,
    // launch after launch; every one exits 0 and the server is still there (were it gone,
    // --print-latency would have drawn offscreen and exited 0 all the same). The race
    // itself is too rare here to be caught in a few launches (about 3 in 100 under
    // xvfb-run): the test above is the one that fails without the held probe.
    void neverAbortsUnderAnXvfbThatResets()
    {
        const QString xvfbPath = QStandardPaths::findExecutable(QStringLiteral("Xvfb"));
        QVERIFY2(!xvfbPath.isEmpty(), "Xvfb is missing: scripts/setup.sh installs xvfb");
        QProcess xvfb;
        // -displayfd: the server picks a free display and writes its number once it listens.
        xvfb.start(xvfbPath,
                   {QStringLiteral("-displayfd"), QStringLiteral("1"), QStringLiteral("-screen"),
                    QStringLiteral("0"), QStringLiteral("1280x1024x24"),
                    QStringLiteral("-nolisten"), QStringLiteral("tcp")});
        QVERIFY(xvfb.waitForStarted(30'000));
        QByteArray number;
        while (!number.endsWith('\n') && xvfb.waitForReadyRead(30'000))
            number += xvfb.readAllStandardOutput();
        bool isNumber = false;
        const int displayNumber = number.trimmed().toInt(&isNumber);
        QVERIFY2(isNumber, xvfb.readAllStandardError().constData());
        const QString display = QStringLiteral(":%1").arg(displayNumber);
        for (int launch = 0; launch < 10; ++launch) {
            QProcess app;
            app.setProcessEnvironment(displayEnvironment(display, m_dir.path()));
            app.start(binary(), {sampleTrace(), QStringLiteral("--print-latency")});
            QVERIFY(app.waitForFinished(60'000));
            const QByteArray err = app.readAllStandardError();
            QVERIFY2(
                app.exitStatus() == QProcess::NormalExit && app.exitCode() == 0,
                qPrintable(
                    QStringLiteral("launch %1: %2").arg(launch).arg(QString::fromLocal8Bit(err))));
            QVERIFY2(xvfb.state() == QProcess::Running,
                     qPrintable(QStringLiteral("Xvfb left after launch %1").arg(launch)));
        }
        xvfb.terminate();
        xvfb.waitForFinished(30'000);
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
