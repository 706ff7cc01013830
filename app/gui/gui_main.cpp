#include "app/gui/gui_main.h"

#include "app/cli/threads_option.h"
#include "app/gui/display_probe.h"
#include "app/gui/job_export.h"
#include "app/gui/main_window.h"
#include "app/gui/single_instance.h"
#include "core/document/document.h"
#include "core/format/format.h"
#include "core/job/job_rules.h"
#include "core/lab/run_options.h"
#include "core/session/session.h"
#include "widgets/compare_view.h"
#include "widgets/document_view.h"
#include "widgets/job_view.h"
#include "widgets/report.h"
#include "widgets/scaling/scaling_view.h"
#include "widgets/session_view.h"
#include "widgets/snapshot/snapshot_view.h"
#include "widgets/timeline/timeline_page.h"
#include "widgets/timeline/timeline_view.h"

#include <QApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QIcon>
#include <QLineEdit>
#include <QStandardPaths>
#include <QTimer>
#include <QWindow>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>

namespace kinetoscope::gui {

namespace {

void useOffscreenWithoutDisplay()
{
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM") && !qEnvironmentVariableIsSet("DISPLAY") &&
        !qEnvironmentVariableIsSet("WAYLAND_DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
}

// Without XDG_RUNTIME_DIR (a headless shell, cron, CI) Qt warns on every start and uses a
// folder of its own: nothing a report's user can act on. That one line is dropped; every
// other message goes where it went.
QtMessageHandler g_previousHandler = nullptr;

void dropRuntimeDirWarning()
{
    g_previousHandler = qInstallMessageHandler(
        [](QtMsgType type, const QMessageLogContext& context, const QString& text) {
            if (type == QtWarningMsg &&
                text.startsWith(QLatin1String("QStandardPaths: XDG_RUNTIME_DIR not set")))
                return;
            if (g_previousHandler)
                g_previousHandler(type, context, text);
        });
}

void setIdentity()
{
    QCoreApplication::setOrganizationName(QStringLiteral("Kinetoscope"));
    QCoreApplication::setApplicationName(QStringLiteral("Kinetoscope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(KINETOSCOPE_VERSION));
    // The desktop entry the package installs (packaging/): a window is matched to it, and
    // so to its name and icon, by this id.
    QGuiApplication::setDesktopFileName(QStringLiteral("io.github.kinetoscope.Kinetoscope"));
    QIcon icon;
    for (const char* size : {"32", "64", "256"})
        icon.addFile(QStringLiteral(":/icons/kinetoscope-%1.png").arg(QLatin1String(size)));
    QApplication::setWindowIcon(icon);
}

}  // namespace

int runGui(int argc, char** argv)
{
    // Without a display the window cannot open (Qt would abort): a picture or a latency
    // figure is still drawn offscreen; anything else says so in one line.
    // A DISPLAY that nothing answers on (a lost ssh X forward) would abort inside Qt just
    // the same: it is asked first, and the connection that asked is held until Qt has its
    // own (display_probe.h: the server must not reset between the two).
    std::string noDisplay;
    std::optional<DisplayProbe> probe;
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM") &&
        qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")) {
        const std::string display = qEnvironmentVariable("DISPLAY").toStdString();
        if (display.empty())
            noDisplay = "DISPLAY and WAYLAND_DISPLAY are unset";
        else if (!probe.emplace(display).unreachable().empty())
            noDisplay = "DISPLAY=" + display + " does not answer: " + probe->unreachable();
    }
    if (!noDisplay.empty()) {
        bool headlessOption = false;
        for (int i = 1; i < argc; ++i)
            headlessOption |= std::strcmp(argv[i], "--screenshot") == 0 ||
                              std::strcmp(argv[i], "--print-latency") == 0;
        if (!headlessOption) {
            std::fprintf(stderr,
                         "kinetoscope: no display to open the app on (%s); without one use info, "
                         "summary, diagnose, "
                         "diff, report, run or memory (kinetoscope help)\n",
                         noDisplay.c_str());
            return 2;
        }
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    dropRuntimeDirWarning();
    QApplication app(argc, argv);
    if (probe)  // Qt's connection is made (or the app is offscreen)
        probe->release();
    setIdentity();
    QStringList files;
    QString screenshot, view = QStringLiteral("overview");
    QString find;       // timeline: search for this and select the first match
    double zoom = 1.0;  // timeline: then zoom out (> 1) or in around the centre
    bool printLatency = false;
    bool newWindow = false;  // --new-window: not handed to (nor answering for) a running app
    bool lab = false;
    QStringList compare;  // --compare BEFORE AFTER: a Compare tab
    QStringList job;      // --job DIR|FILE...: a Job tab (every path up to the next option)
    std::vector<std::string> labOptions;  // everything after --lab: `kinetoscope run`'s options
    const QStringList args = QCoreApplication::arguments().mid(1);
    // The value after an option that takes one, or a one-line complaint.
    auto value = [&](int& i, QString& into) {
        if (i + 1 >= args.size() || args[i + 1].startsWith(QLatin1String("--"))) {
            std::fprintf(stderr, "kinetoscope %s: a value is needed (try 'kinetoscope help')\n",
                         qPrintable(args[i]));
            return false;
        }
        into = args[++i];
        return true;
    };
    QString zoomText;
    std::optional<unsigned>
        launchThreads;  // --threads N: this launch's, over the Preferences setting
    // The options that take a value, and where it goes.
    const std::map<QString, QString*> valued{{QStringLiteral("--screenshot"), &screenshot},
                                             {QStringLiteral("--view"), &view},
                                             {QStringLiteral("--find"), &find},
                                             {QStringLiteral("--zoom"), &zoomText}};
    for (int i = 0; i < args.size(); ++i) {
        if (lab)
            labOptions.push_back(args[i].toStdString());
        else if (args[i] == QLatin1String("--lab"))
            lab = true;
        else if (args[i] == QLatin1String("--job")) {
            while (i + 1 < args.size() && !args[i + 1].startsWith(QLatin1String("--")))
                job << args[++i];
            if (job.isEmpty()) {
                std::fprintf(
                    stderr, "kinetoscope --job: a folder (or the traces of the ranks) is needed\n");
                return 2;
            }
        } else if (args[i] == QLatin1String("--compare")) {
            if (i + 2 >= args.size()) {
                std::fprintf(
                    stderr,
                    "kinetoscope --compare: two files are needed: --compare BEFORE AFTER\n");
                return 2;
            }
            compare = {args[i + 1], args[i + 2]};
            i += 2;
        } else if (args[i] == QLatin1String("--threads")) {
            QString given;
            if (!value(i, given))
                return 2;
            const std::string text = given.toStdString();
            launchThreads = cli::parseThreads(text);
            if (!launchThreads) {
                std::fprintf(stderr, "kinetoscope: %s\n", cli::threadsProblem(&text).c_str());
                return 2;
            }
        } else if (const auto option = valued.find(args[i]); option != valued.end()) {
            if (!value(i, *option->second))
                return 2;
        } else if (args[i] == QLatin1String("--print-latency"))
            printLatency = true;
        else if (args[i] == QLatin1String("--new-window"))
            newWindow = true;
        else if (args[i].startsWith(QLatin1String("--"))) {
            std::fprintf(stderr, "kinetoscope: unknown option '%s' (try 'kinetoscope help')\n",
                         qPrintable(args[i]));
            return 2;
        } else
            files << args[i];
    }
    if (!zoomText.isEmpty())
        zoom = zoomText.toDouble();
    // A screenshot or a latency figure is of something opened: never wait for nothing. The
    // latency probe times the loading of files.
    const bool somethingToOpen = !files.isEmpty() || !compare.isEmpty() || !job.isEmpty() || lab;
    if ((!screenshot.isEmpty() && !somethingToOpen) || (printLatency && files.isEmpty())) {
        std::fprintf(stderr, "kinetoscope %s: a file to open is needed: kinetoscope FILE %s\n",
                     screenshot.isEmpty() ? "--print-latency" : "--screenshot",
                     screenshot.isEmpty() ? "--print-latency" : "--screenshot PNG");
        return 2;
    }
    // Files opened from the file manager reach the app already running, as new tabs. A
    // screenshot, a latency probe, a comparison, a job or a lab is this process's own, and
    // so are files given --threads (the running app would open them with its own).
    const bool plainOpen = screenshot.isEmpty() && !printLatency && compare.isEmpty() &&
                           job.isEmpty() && !lab && !newWindow && !launchThreads;
    if (plainOpen && !files.isEmpty() && handToRunningApp(files))
        return 0;
    MainWindow window;
    window.setLaunchThreads(launchThreads);
    InstanceServer instance;
    if (plainOpen && instance.listen())
        openHandedFiles(instance, window);
    window.show();
    bool failed = false;  // a file given could not be opened
    bool shot = false;    // the screenshot is on its way
    // The screenshot, once, of the first thing opened; the exit says whether every file opened.
    auto screenshotSoon = [&] {
        if (screenshot.isEmpty() || shot)
            return;
        shot = true;
        QTimer::singleShot(400, &window, [&] {
            QCoreApplication::exit(window.grab().save(screenshot) && !failed ? 0 : 2);
        });
    };
    auto printLatencyNow = [&] {
        if (printLatency)
            std::fprintf(stderr, "max event-loop latency while loading: %s\n",
                         format::duration(window.lastLoadMaxLatencyMs() * 1e6).c_str());
    };
    if ((!screenshot.isEmpty() && !lab) || printLatency) {
        static const QStringList views{QStringLiteral("overview"),  QStringLiteral("diagnosis"),
                                       QStringLiteral("operators"), QStringLiteral("kernels"),
                                       QStringLiteral("memory"),    QStringLiteral("modules"),
                                       QStringLiteral("timeline"),  QStringLiteral("lab")};
        QObject::connect(
            &window, &MainWindow::documentOpened, &window, [&](widgets::DocumentView* doc) {
                printLatencyNow();
                if (screenshot.isEmpty() || shot)
                    return;
                doc->setCurrentIndex(std::max<qsizetype>(0, views.indexOf(view.toLower())));
                if (!find.isEmpty()) {
                    doc->setCurrentIndex(widgets::DocumentView::Timeline);
                    doc->timeline()->searchField()->setText(find);
                    doc->timeline()->search(find);
                    doc->timeline()->nextMatch(true);
                }
                if (zoom > 0 && zoom != 1.0) {
                    widgets::TimelineView* timeline = doc->timeline()->view();
                    timeline->zoomAroundX(timeline->timeAreaWidth() / 2.0, zoom);
                }
                screenshotSoon();
            });
        // A lab session recorded without a trace opens as its measurements: the same picture.
        QObject::connect(&window, &MainWindow::sessionOpened, &window,
                         [&](widgets::SessionView* session) {
                             printLatencyNow();
                             if (view.toLower() == QLatin1String("lab"))
                                 session->setCurrentPage(widgets::SessionView::Lab);
                             screenshotSoon();
                         });
        // A memory snapshot: its pages by name (--view timeline|peak|leaks|segments|diagnosis).
        QObject::connect(
            &window, &MainWindow::snapshotOpened, &window, [&](widgets::SnapshotView* snapshot) {
                printLatencyNow();
                static const QStringList pages{QStringLiteral("timeline"), QStringLiteral("peak"),
                                               QStringLiteral("leaks"), QStringLiteral("segments"),
                                               QStringLiteral("diagnosis")};
                snapshot->setCurrentPage(widgets::SnapshotView::Page(
                    std::max<qsizetype>(0, pages.indexOf(view.toLower()))));
                screenshotSoon();
            });
        // A scaling study: its one page.
        QObject::connect(&window, &MainWindow::scalingOpened, &window, [&] { screenshotSoon(); });
        // The window says what failed (on standard error too, and kept in sight).
        QObject::connect(&window, &MainWindow::loadFailed, &window, [&] {
            failed = true;
            if (!screenshot.isEmpty() && files.isEmpty())
                QCoreApplication::exit(
                    2);  // the comparison or job it was to show could not be made
        });
        // Every file tried: the latency probe is done; a screenshot of nothing is a failure.
        QObject::connect(&window, &MainWindow::idle, &window, [&] {
            if (!screenshot.isEmpty() && !shot)
                QCoreApplication::exit(2);
            else if (printLatency && screenshot.isEmpty())
                QCoreApplication::exit(failed ? 2 : 0);
        });
    }
    // The window is drawn once before anything loads: its first paint is the app starting, not
    // a load blocking the event loop, and the user sees the window at once. An X server says
    // it is exposed after a round trip: that is waited for, 200 ms at most.
    QElapsedTimer exposing;
    exposing.start();
    while (window.windowHandle() && !window.windowHandle()->isExposed() && exposing.elapsed() < 200)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
    QCoreApplication::processEvents();  // its first paint
    if (!files.isEmpty())
        window.openFiles(files);
    if (!compare.isEmpty()) {
        if (!screenshot.isEmpty())
            QObject::connect(&window, &MainWindow::comparisonOpened, &window,
                             [&](widgets::CompareView* comparison) {
                                 static const QStringList pages{
                                     QStringLiteral("overview"), QStringLiteral("changes"),
                                     QStringLiteral("kernels"),  QStringLiteral("operators"),
                                     QStringLiteral("copies"),   QStringLiteral("memory"),
                                     QStringLiteral("findings"), QStringLiteral("timelines"),
                                     QStringLiteral("compiled")};  // CompareView::Page's order
                                 comparison->setCurrentIndex(
                                     std::max<qsizetype>(0, pages.indexOf(view.toLower())));
                                 QTimer::singleShot(600, &window, [&] {
                                     QCoreApplication::exit(window.grab().save(screenshot) ? 0 : 2);
                                 });
                             });
        window.compareFiles(compare[0], compare[1]);
    }
    if (!job.isEmpty()) {
        if (!screenshot.isEmpty())
            QObject::connect(
                &window, &MainWindow::jobOpened, &window, [&](widgets::JobView* opened) {
                    static const QStringList pages{
                        QStringLiteral("overview"), QStringLiteral("heatmap"),
                        QStringLiteral("collectives"), QStringLiteral("timelines")};
                    opened->setCurrentIndex(std::max<qsizetype>(0, pages.indexOf(view.toLower())));
                    QTimer::singleShot(800, &window, [&] {
                        QCoreApplication::exit(window.grab().save(screenshot) ? 0 : 2);
                    });
                });
        window.openJob(job);
    }
    if (lab) {
        lab::RunConfig config;
        config.outDir = (QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation) +
                         QStringLiteral("/runs/") +
                         QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")))
                            .toStdString();
        std::string error;
        if (!lab::parseRunOptions(labOptions, config, error)) {
            std::fprintf(stderr, "kinetoscope --lab: %s\n", error.c_str());
            return 2;
        }
        window.startLab(config);
        if (!screenshot.isEmpty())  // the live view as the run ends; a run that failed exits 2
            QObject::connect(&window, &MainWindow::labFinished, &window, [&](bool ok) {
                QTimer::singleShot(400, &window, [&, ok] {
                    QCoreApplication::exit(window.grab().save(screenshot) && ok ? 0 : 2);
                });
            });
    }
    return QApplication::exec();
}

int runReport(int argc, char** argv)
{
    useOffscreenWithoutDisplay();
    dropRuntimeDirWarning();
    QApplication app(argc, argv);
    setIdentity();
    const QStringList args = QCoreApplication::arguments().mid(2);
    std::vector<std::string> inputs;  // one trace or session; several, or a folder, make a job
    QString out;
    document::OpenOptions options;
    for (int i = 0; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--out") && i + 1 < args.size())
            out = args[++i];
        else if (args[i] == QLatin1String("--threads")) {
            const bool given = i + 1 < args.size();
            const std::string value = given ? args[++i].toStdString() : std::string();
            const std::optional<unsigned> threads = cli::parseThreads(value);
            if (!threads) {
                std::fprintf(stderr, "kinetoscope report: %s\n",
                             cli::threadsProblem(given ? &value : nullptr).c_str());
                return 2;
            }
            options.threads = *threads;
        } else if (!args[i].startsWith(QLatin1Char('-')))
            inputs.push_back(args[i].toStdString());
        else {
            std::fprintf(stderr, "kinetoscope report: unexpected argument '%s'\n",
                         qPrintable(args[i]));
            return 2;
        }
    }
    if (inputs.empty() || out.isEmpty()) {
        std::fprintf(stderr, "kinetoscope report: usage: kinetoscope report TRACE|SESSION --out "
                             "FILE.{pdf,png,html}, "
                             "or DIR|TRACE TRACE... --out FILE.{pdf,png,html,md} for a job\n");
        return 2;
    }
    QString error;
    if (job::isJob(inputs)) {
        std::string openError;
        job::JobOptions reading;
        reading.keepDocumentsUpTo = 0;  // the report draws no timeline
        std::optional<job::Job> opened = job::openJobPaths(inputs, options, openError, reading);
        if (!opened) {
            std::fprintf(stderr, "kinetoscope: %s\n", openError.c_str());
            return 2;
        }
        for (const std::string& note : opened->notes)
            std::fprintf(stderr, "kinetoscope: %s\n", note.c_str());
        if (const std::optional<std::string> notOneJob = job::whyNotOneJob(*opened)) {
            std::fprintf(stderr,
                         "kinetoscope report: these %zu traces are %s: report them one at a time\n",
                         opened->ranks.size(), notOneJob->c_str());
            return 2;
        }
        std::vector<analysis::Finding> findings = job::diagnoseJob(*opened, {});
        const widgets::JobView view(std::move(*opened), std::move(findings));
        if (!writeJobReport(view, out, &error)) {
            std::fprintf(stderr, "kinetoscope report: %s\n", qPrintable(error));
            return 2;
        }
        return 0;
    }
    const QString trace = QString::fromStdString(inputs.front());
    const auto analysed = document::open(inputs.front(), options);
    if (!analysed->model && !analysed->ok()) {
        std::fprintf(stderr, "kinetoscope: %s: %s\n", qPrintable(trace),
                     analysed->loadMessage.c_str());
        return 2;
    }
    if (!widgets::writeReport(*analysed, out, &error)) {
        std::fprintf(stderr, "kinetoscope report: %s\n", qPrintable(error));
        return 2;
    }
    if (analysed->loadStatus != trace::LoadStatus::Ok) {
        std::fprintf(stderr, "kinetoscope: %s: %s\n", qPrintable(trace),
                     analysed->loadMessage.c_str());
        return 2;
    }
    return 0;
}

}  // namespace kinetoscope::gui
