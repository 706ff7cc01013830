// The live run view's cost as a long run goes on: what one redraw of its plots (the phase
// bars, the utilisation and memory curves: each QCustomPlot's replot) costs after N steps
// of 0.5 s and their samples at 20 Hz, the median of 11, the view at a laptop screen's size
// (1366 x 768). The app redraws at most every 100 ms while steps arrive, on the machine that
// trains.
//
//   QT_QPA_PLATFORM=offscreen bench_live_view [--png FILE] [STEPS...]   # default 1000 10000 100000
//
// --png: the view after the last count, as a screen would show it.
#include "widgets/live_run_view.h"

#include <QApplication>
#include <QPixmap>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <qcustomplot.h>
#include <vector>

using namespace kinetoscope;
using Clock = std::chrono::steady_clock;

namespace {

double replotMs(widgets::LiveRunView& view)
{
    std::vector<double> times;
    const QList<QCustomPlot*> plots = view.findChildren<QCustomPlot*>();
    for (int i = 0; i < 11; ++i) {
        const Clock::time_point t0 = Clock::now();
        for (QCustomPlot* plot : plots)
            if (plot->isVisible())
                plot->replot(QCustomPlot::rpImmediateRefresh);
        times.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    std::vector<long> counts;
    QString png;
    for (int i = 1; i < argc; ++i) {
        if (QString::fromUtf8(argv[i]) == QStringLiteral("--png") && i + 1 < argc)
            png = QString::fromUtf8(argv[++i]);
        else
            counts.push_back(std::atol(argv[i]));
    }
    if (counts.empty())
        counts = {1000, 10000, 100000};
    std::printf("%10s %12s %14s\n", "steps", "samples", "redraw (ms)");
    for (const long steps : counts) {
        widgets::LiveRunView view("bench");
        view.setScriptRun("python train.py", QString());
        view.resize(1366, 768);
        view.show();
        const long samples = steps * 10;  // 20 Hz over 0.5 s steps
        for (long s = 0; s < samples; ++s) {
            session::LiveSample sample;
            sample.seconds = double(s) / 20.0;
            sample.cpuPercent = 50.0 + double(s % 40);
            sample.residentBytes = (int64_t(1) << 30) + (s % 100) * 4096;
            view.addSample(sample);
        }
        for (long s = 0; s < steps; ++s) {
            session::StepTiming step;
            step.step = s + 8;
            step.dataMs = 10.0 + double(s % 7);
            step.h2dMs = s % 5000 == 4321 ? 900.0 : 2.0;  // a slow step now and then
            step.forwardMs = 150.0;
            step.backwardMs = 300.0;
            step.optimizerMs = 20.0;
            step.wallMs = 480.0 + double(s % 7);
            view.addStep(step);
        }
        QApplication::processEvents();
        std::printf("%10ld %12ld %14.1f\n", steps, samples, replotMs(view));
        if (!png.isEmpty() && steps == counts.back())
            view.grab().save(png);
    }
    return 0;
}
