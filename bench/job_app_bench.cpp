// bench_job_app DIR [--no-digests]: a job opened by the app's own path, offscreen: the main
// window's openJob (the ranks read on a worker: digests where fresh, else traces, every
// document kept), the job diagnosed, the Job tab built and drawn once (its Overview). One
// JSON line: the seconds from the call to the drawn tab, and the process's peak RSS (Qt's
// own included: bench_job_app --idle gives that baseline alone).
#include "app/gui/main_window.h"
#include "widgets/job_view.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QStandardPaths>
#include <QTimer>
#include <cstdio>
#include <sys/resource.h>

namespace {

long long peakBytes()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<long long>(usage.ru_maxrss) * 1024;
}

}  // namespace

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true);  // no settings or recent files of the user's
    const QStringList args = app.arguments().mid(1);
    if (args.isEmpty()) {
        std::fprintf(stderr, "usage: bench_job_app DIR [--no-digests] | --idle\n");
        return 2;
    }
    using kinetoscope::gui::MainWindow;
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    QCoreApplication::processEvents();
    if (args.front() == QStringLiteral("--idle")) {
        std::printf("{\"mode\": \"idle\", \"peak_rss_bytes\": %lld}\n", peakBytes());
        return 0;
    }
    QElapsedTimer clock;
    kinetoscope::widgets::JobView* view = nullptr;
    QString failure;
    QEventLoop loop;
    QObject::connect(&window, &MainWindow::jobOpened, &loop,
                     [&](kinetoscope::widgets::JobView* opened) {
                         view = opened;
                         loop.quit();
                     });
    QObject::connect(&window, &MainWindow::loadFailed, &loop, [&](const QString& message) {
        failure = message;
        loop.quit();
    });
    QTimer::singleShot(600'000, &loop, &QEventLoop::quit);
    clock.start();
    window.openJob({args.front()}, args.contains(QStringLiteral("--no-digests")));
    loop.exec();
    if (!view) {
        std::fprintf(
            stderr, "bench_job_app: %s\n",
            qPrintable(failure.isEmpty() ? QStringLiteral("no job after 10 minutes") : failure));
        return 2;
    }
    const double opened = double(clock.nsecsElapsed()) / 1e9;
    QCoreApplication::processEvents();
    const QImage drawn = view->grab().toImage();  // the Overview as the window shows it
    const double seconds = double(clock.nsecsElapsed()) / 1e9;
    std::printf("{\"mode\": \"app\", \"ranks\": %zu, \"from_digests\": %zu, \"opened_seconds\": "
                "%.3f, \"seconds\": %.3f, \"peak_rss_bytes\": %lld, \"straggler\": %d, "
                "\"drawn\": \"%dx%d\"}\n",
                view->job().ranks.size(), view->job().ranksFromDigests, opened, seconds,
                peakBytes(), view->job().straggler.value_or(-1), drawn.width(), drawn.height());
    return 0;
}
