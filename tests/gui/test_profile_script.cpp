// File > Profile a script… (issue 51): the dialog reads its arguments as a shell would, offers
// the interpreters it finds once each, builds the run its fields describe, refuses what cannot
// run and remembers what ran; the runner profiles a real training script (tests/probe/
// train_mlp.py, in the venv's torch) with live views, and its session then opens as a
// finished lab's does, a failed script's too.
#include "app/gui/main_window.h"
#include "app/gui/profile_dialog.h"
#include "app/gui/profile_run.h"
#include "core/lab/run_progress.h"
#include "widgets/document_view.h"
#include "widgets/job_view.h"
#include "widgets/live_job_view.h"
#include "widgets/live_run_view.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>

using namespace kinetoscope;

namespace {

const QString kScript = QStringLiteral(KINETOSCOPE_SOURCE_DIR "/tests/probe/train_mlp.py");

// The interpreter the dialog tests name: the venv's (with torch) where the build has one.
QString somePython()
{
#ifdef KINETOSCOPE_PYTHON
    return QStringLiteral(KINETOSCOPE_PYTHON);
#else
    return QStandardPaths::findExecutable(QStringLiteral("python3"));
#endif
}

QStringList words(const std::vector<std::string>& command)
{
    QStringList list;
    for (const std::string& word : command)
        list << QString::fromStdString(word);
    return list;
}

// A run as the app starts one: the script's own process group, its output in OUT/output.log.
[[maybe_unused]] lab::ProfileConfig fromTheApp(std::vector<std::string> command,
                                               const QString& outDir, int64_t skip, int64_t active)
{
    lab::ProfileConfig c;
    c.command = std::move(command);
    c.skip = skip;
    c.active = active;
    c.outDir = outDir.toStdString();
    c.fromTerminal = false;
    return c;
}

void makeExecutable(const QString& path)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("#!/bin/sh\n");
    file.close();
    QVERIFY(file.setPermissions(file.permissions() | QFileDevice::ExeOwner));
}

}  // namespace

class TestProfileScript : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);  // QSettings away from the user's
        QSettings().remove(QStringLiteral("profile"));
        qRegisterMetaType<widgets::DocumentView*>("widgets::DocumentView*");
    }

    void theArgumentsSplitAsAShellWould_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("nothing") << QString() << QStringList{};
        QTest::newRow("blanks") << QStringLiteral("  --lr\t0.1  ")
                                << QStringList{QStringLiteral("--lr"), QStringLiteral("0.1")};
        QTest::newRow("double quotes")
            << QStringLiteral("--name \"my run\"")
            << QStringList{QStringLiteral("--name"), QStringLiteral("my run")};
        QTest::newRow("single quotes keep backslashes")
            << QStringLiteral("'a\\b \"c\"'") << QStringList{QStringLiteral("a\\b \"c\"")};
        QTest::newRow("a quote inside single quotes")
            << QStringLiteral("'it'\\''s'") << QStringList{QStringLiteral("it's")};
        QTest::newRow("escaped blank")
            << QStringLiteral("a\\ b c") << QStringList{QStringLiteral("a b"), QStringLiteral("c")};
        QTest::newRow("escapes inside double quotes")
            << QStringLiteral("\"a\\\"b\\\\c\\$d\\n\"")
            << QStringList{QStringLiteral("a\"b\\c$d\\n")};
        QTest::newRow("empty words") << QStringLiteral("\"\" '' x")
                                     << QStringList{QString(), QString(), QStringLiteral("x")};
        QTest::newRow("quotes join one word")
            << QStringLiteral("--x=a\"b c\"'d'") << QStringList{QStringLiteral("--x=ab cd")};
        QTest::newRow("no expansion")
            << QStringLiteral("$HOME ~ *.py")
            << QStringList{QStringLiteral("$HOME"), QStringLiteral("~"), QStringLiteral("*.py")};
    }

    void theArgumentsSplitAsAShellWould()
    {
        QFETCH(QString, line);
        QFETCH(QStringList, expected);
        QString error;
        const std::optional<QStringList> split = gui::splitArguments(line, &error);
        QVERIFY2(split, qPrintable(error));
        QCOMPARE(*split, expected);
        // And joined for showing, they read back as the same words.
        QCOMPARE(gui::splitArguments(gui::joinArguments(expected)).value_or(QStringList{}),
                 expected);
    }

    void anOpenQuoteOrALoneBackslashIsRefused()
    {
        for (const QString& line : {QStringLiteral("--name \"my run"),
                                    QStringLiteral("--name 'my run"), QStringLiteral("a b\\")}) {
            QString error;
            QVERIFY2(!gui::splitArguments(line, &error), qPrintable(line));
            QVERIFY2(error.contains(QStringLiteral("not closed")) ||
                         error.contains(QStringLiteral("backslash")),
                     qPrintable(error));
        }
    }

    // PATH's python3 and python, $VIRTUAL_ENV's and $CONDA_PREFIX's: one entry per
    // interpreter, two names for one file in one folder joined, a venv's link kept apart from
    // the file it leads to (only its own path runs it in the venv).
    void theInterpretersAreOfferedOnceEach()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("bin")));
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("venv/bin")));
        const QString python3 = dir.filePath(QStringLiteral("bin/python3"));
        makeExecutable(python3);
        QVERIFY(QFile::link(python3, dir.filePath(QStringLiteral("bin/python"))));
        const QString venv = dir.filePath(QStringLiteral("venv/bin/python"));
        QVERIFY(QFile::link(python3, venv));
        QProcessEnvironment environment;
        environment.insert(QStringLiteral("PATH"), dir.filePath(QStringLiteral("none")) +
                                                       QStringLiteral(":") +
                                                       dir.filePath(QStringLiteral("bin")));
        environment.insert(QStringLiteral("VIRTUAL_ENV"), dir.filePath(QStringLiteral("venv")));
        environment.insert(QStringLiteral("CONDA_PREFIX"),
                           dir.filePath(QStringLiteral("venv/bin/..")));
        const QList<gui::Interpreter> found = gui::findInterpreters(environment);
        QCOMPARE(found.size(), 2);
        QCOMPARE(found[0].path, python3);
        QCOMPARE(found[0].source, QStringLiteral("python3 in PATH, python in PATH"));
        QCOMPARE(found[1].path, venv);
        QCOMPARE(found[1].source, QStringLiteral("$VIRTUAL_ENV, $CONDA_PREFIX"));
    }

    void theDialogBuildsTheRunItsFieldsDescribe()
    {
        const QString python = somePython();
        if (python.isEmpty())
            QSKIP("no python3 in PATH");
        QSettings().remove(QStringLiteral("profile"));
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("run"));
        {
            gui::ProfileDialog dialog;
            auto* ok = dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
            QVERIFY(!ok->isEnabled());  // nothing chosen yet
            QVERIFY(dialog.problem().contains(QStringLiteral("script")));
            QCOMPARE(dialog.findChild<QSpinBox*>(QStringLiteral("skip"))->value(), 5);
            QCOMPARE(dialog.findChild<QSpinBox*>(QStringLiteral("active"))->value(), 3);
            auto* steps = dialog.findChild<QSpinBox*>(QStringLiteral("steps"));
            QCOMPARE(steps->value(), 0);
            QCOMPARE(steps->text(), QStringLiteral("to its end"));

            dialog.findChild<QLineEdit*>(QStringLiteral("script"))->setText(kScript);
            // The working folder follows the script; the output folder is a new one named
            // for it, under the runs folder.
            auto* workingDirectory =
                dialog.findChild<QLineEdit*>(QStringLiteral("workingDirectory"));
            QCOMPARE(workingDirectory->text(), QFileInfo(kScript).absolutePath());
            auto* outDir = dialog.findChild<QLineEdit*>(QStringLiteral("outDir"));
            QVERIFY2(QFileInfo(outDir->text()).fileName().startsWith(QStringLiteral("train_mlp-")),
                     qPrintable(outDir->text()));
            QVERIFY(!QFileInfo::exists(outDir->text()));
            dialog.setInterpreter(python);
            auto* arguments = dialog.findChild<QLineEdit*>(QStringLiteral("arguments"));
            QTest::keyClicks(arguments, QStringLiteral("--steps-total 30 --name \"a b"));
            QVERIFY(!ok->isEnabled());
            QVERIFY2(dialog.problem().contains(QStringLiteral("not closed")),
                     qPrintable(dialog.problem()));
            QTest::keyClick(arguments, '"');
            outDir->clear();
            QTest::keyClicks(outDir, out);
            dialog.findChild<QSpinBox*>(QStringLiteral("steps"))->setValue(12);
            QVERIFY2(dialog.problem().isEmpty(), qPrintable(dialog.problem()));
            QVERIFY(ok->isEnabled());
            lab::ProfileConfig c = dialog.config();
            QCOMPARE(
                words(c.command),
                (QStringList{python, kScript, QStringLiteral("--steps-total"), QStringLiteral("30"),
                             QStringLiteral("--name"), QStringLiteral("a b")}));
            QCOMPARE(QString::fromStdString(c.workingDirectory), QFileInfo(kScript).absolutePath());
            QCOMPARE(QString::fromStdString(c.outDir), out);
            QCOMPARE(c.skip, int64_t(5));
            QCOMPARE(c.active, int64_t(3));
            QCOMPARE(c.steps, int64_t(12));
            QVERIFY(!c.fromTerminal);
            QVERIFY(dialog.findChild<QLabel*>(QStringLiteral("command"))
                        ->text()
                        .contains(QStringLiteral("'a b'")));

            // A module instead: -m and its name, the same arguments.
            for (QRadioButton* radio : dialog.findChildren<QRadioButton*>())
                if (radio->text().startsWith(QStringLiteral("Module")))
                    radio->setChecked(true);
            QVERIFY(!ok->isEnabled());  // no module named yet
            dialog.findChild<QLineEdit*>(QStringLiteral("module"))
                ->setText(QStringLiteral("pkg.train"));
            QVERIFY2(dialog.problem().isEmpty(), qPrintable(dialog.problem()));
            c = dialog.config();
            QCOMPARE(words(c.command).mid(0, 4),
                     (QStringList{python, QStringLiteral("-m"), QStringLiteral("pkg.train"),
                                  QStringLiteral("--steps-total")}));

            // An output folder that holds an earlier run's files is refused, in
            // validateProfileConfig's words.
            QFile earlier(dir.filePath(QStringLiteral("earlier.txt")));
            QVERIFY(earlier.open(QIODevice::WriteOnly));
            earlier.close();
            outDir->setText(dir.path());
            QVERIFY(!ok->isEnabled());
            QVERIFY2(dialog.problem().contains(QStringLiteral("already holds files")),
                     qPrintable(dialog.problem()));
            outDir->setText(out);
            QVERIFY(ok->isEnabled());

            // The Lab box: no lab until asked; the arms and a workers sweep, seeded, its runs
            // bounded; a sweep that is not counts is refused.
            QVERIFY(!dialog.labConfig());
            auto* labBox = dialog.findChild<QCheckBox*>(QStringLiteral("lab"));
            auto* sweep = dialog.findChild<QLineEdit*>(QStringLiteral("workersSweep"));
            labBox->setChecked(true);
            sweep->setText(QStringLiteral("0,2"));
            std::optional<lab::ScriptLabConfig> l = dialog.labConfig();
            QVERIFY(l);
            QCOMPARE(l->arms, (std::vector<std::string>{"fp32", "bf16", "bf16+compile"}));
            QCOMPARE(l->workers, (std::vector<int64_t>{0, 2}));
            QCOMPARE(l->script.steps, int64_t(12));
            QCOMPARE(l->script.seed, int64_t(0));
            sweep->setText(QStringLiteral("0,two"));
            QVERIFY(!ok->isEnabled());
            QVERIFY2(dialog.problem().startsWith(QStringLiteral("The workers sweep")),
                     qPrintable(dialog.problem()));
            sweep->setText(QStringLiteral("0,2"));
            QVERIFY(ok->isEnabled());
            QTest::mouseClick(ok, Qt::LeftButton);
            QCOMPARE(dialog.result(), int(QDialog::Accepted));
        }
        // Remembered: every field as it was, and a new output folder beside the last one.
        gui::ProfileDialog again;
        QCOMPARE(again.findChild<QLineEdit*>(QStringLiteral("module"))->text(),
                 QStringLiteral("pkg.train"));
        QCOMPARE(again.findChild<QLineEdit*>(QStringLiteral("script"))->text(), kScript);
        QCOMPARE(again.findChild<QLineEdit*>(QStringLiteral("arguments"))->text(),
                 QStringLiteral("--steps-total 30 --name \"a b\""));
        QCOMPARE(again.findChild<QSpinBox*>(QStringLiteral("steps"))->value(), 12);
        QVERIFY(again.findChild<QCheckBox*>(QStringLiteral("lab"))->isChecked());
        QCOMPARE(again.findChild<QLineEdit*>(QStringLiteral("workersSweep"))->text(),
                 QStringLiteral("0,2"));
        QCOMPARE(words(again.config().command).value(0), python);
        const QString next = again.findChild<QLineEdit*>(QStringLiteral("outDir"))->text();
        QCOMPARE(QFileInfo(next).absolutePath(), dir.path());
        QVERIFY(QFileInfo(next).fileName().startsWith(QStringLiteral("train-")));
        QVERIFY2(again.problem().isEmpty(), qPrintable(again.problem()));
        QSettings().remove(QStringLiteral("profile"));
    }

    void theStepCountsAreSaidInWords()
    {
        QCOMPARE(gui::stepPlan(5, 3, 0),
                 QStringLiteral("Steps 0–4: warm-up; steps 5–7: profiled (trace.json); from step 8 "
                                "on: measured, to the script's end."));
        QCOMPARE(gui::stepPlan(1, 0, 10),
                 QStringLiteral("Step 0: warm-up; no profiler window (no trace); steps 1–10: "
                                "measured, then the script is stopped."));
        QCOMPARE(gui::stepPlan(0, 1, 1),
                 QStringLiteral("Step 0: profiled (trace.json); step 1: measured, then the script "
                                "is stopped."));
    }

    void eachStageCountsItsOwnSteps()
    {
        lab::ProfileConfig c;
        c.skip = 5;
        c.active = 3;
        c.steps = 30;
        QCOMPARE(gui::ProfileRun::stageLine(c, {"warm-up", 0.0, 1, 38}),
                 QStringLiteral("warm-up step 2 of 5"));
        QCOMPARE(gui::ProfileRun::stageLine(c, {"profiler window", 0.1, 5, 38}),
                 QStringLiteral("profiler window step 1 of 3"));
        QCOMPARE(gui::ProfileRun::stageLine(c, {"measured", 0.5, 19, 38}),
                 QStringLiteral("measured step 12 of 30"));
        c.steps = 0;  // to its end
        QCOMPARE(gui::ProfileRun::stageLine(c, {"measured", 0.0, 19, 0}),
                 QStringLiteral("measured step 12"));
        c.steps = 20;  // a lab's run names itself first
        QCOMPARE(gui::ProfileRun::stageLine(c, {"bf16: measured", 0.0, 10, 0}),
                 QStringLiteral("bf16: measured step 3 of 20"));
    }

    // The real script in the venv's torch, through the runner: steps and samples live, then
    // its session opens as a document on its diagnosis, holding the steps shown live.
    void aScriptRunsLiveThenOpensItsDiagnosis()
    {
#ifndef KINETOSCOPE_PYTHON
        QSKIP("built without the engine's Python (KINETOSCOPE_PYTHON)");
#else
        QVERIFY(gui::MainWindow::profileAvailable());
        QTemporaryDir dir;
        lab::ProfileConfig c;
        c.command = {KINETOSCOPE_PYTHON, kScript.toStdString(), "--steps-total", "30"};
        c.outDir = dir.filePath(QStringLiteral("run")).toStdString();
        c.fromTerminal = false;
        gui::MainWindow window;
        QSignalSpy finished(&window, &gui::MainWindow::profileFinished);
        QSignalSpy opened(&window, &gui::MainWindow::documentOpened);
        widgets::LiveRunView* live = window.startProfile(c);
        QVERIFY(live && live->isRunning());
        const QString log = dir.filePath(QStringLiteral("run/output.log"));
        QVERIFY2(live->scriptText().contains(log) &&
                     live->scriptText().contains(QStringLiteral("train_mlp.py --steps-total 30")),
                 qPrintable(live->scriptText()));
        // KINETOSCOPE_SCREENSHOTS=DIR: the live view as the run goes, for a person to look at.
        if (const QString shots = qEnvironmentVariable("KINETOSCOPE_SCREENSHOTS");
            !shots.isEmpty()) {
            window.resize(1366, 768);
            window.show();
            QTRY_VERIFY_WITH_TIMEOUT(live->stepBars() >= 12 || finished.count() > 0, 60'000);
            QTest::qWait(300);  // the plots replot on a 100 ms timer
            QVERIFY(window.grab().save(QDir(shots).filePath(QStringLiteral("profile_live.png"))));
        }
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60'000);
        QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(finished.at(0).at(1).toString()));
        // 30 steps: 5 of warm-up, 3 in the profiler window, 22 measured, each one a bar.
        QCOMPARE(live->stepBars(), 22);
        QVERIFY(live->sampleCount() > 0);
        QVERIFY(!live->isRunning());
        QVERIFY2(live->readingText().startsWith(QStringLiteral("22 steps measured")),
                 qPrintable(live->readingText()));
        QVERIFY(live->labTable()->isHidden());  // a script has no arms
        // Its output went to the file the view names, not to the app's terminal.
        QFile output(log);
        QVERIFY(output.open(QIODevice::ReadOnly));
        QVERIFY(output.readAll().contains("trained 30 steps"));
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 30'000);
        auto* doc = opened.at(0).at(0).value<widgets::DocumentView*>();
        QVERIFY(doc && doc->trace().model && doc->trace().session);
        QCOMPARE(doc->trace().session->steps.size(), size_t(22));
        QCOMPARE(doc->currentIndex(), int(widgets::DocumentView::Diagnosis));
#endif
    }

    // A job from the app (Processes 2): torch.distributed.run with the DDP script, one live
    // view per rank behind the rank selector, each with its own step bars and samples; at its
    // end the job opens as a Job tab of its two ranks.
    void aJobRunsLivePerRankThenOpensAsAJob()
    {
#ifndef KINETOSCOPE_PYTHON
        QSKIP("built without the engine's Python (KINETOSCOPE_PYTHON)");
#else
        QTemporaryDir dir;
        lab::ProfileConfig c;
        c.command = {KINETOSCOPE_PYTHON, KINETOSCOPE_SOURCE_DIR "/tests/probe/train_ddp.py",
                     "--steps", "100"};
        c.nproc = 2;
        c.steps = 6;
        c.outDir = dir.filePath(QStringLiteral("job")).toStdString();
        qRegisterMetaType<widgets::JobView*>("widgets::JobView*");
        gui::MainWindow window;
        QSignalSpy finished(&window, &gui::MainWindow::profileFinished);
        QSignalSpy opened(&window, &gui::MainWindow::jobOpened);
        widgets::LiveJobView* live = window.startProfileJob(c);
        QVERIFY(live);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120'000);
        QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(finished.at(0).at(1).toString()));
        QCOMPARE(live->rankCount(), 2);
        QCOMPARE(live->selector()->count(), 2);
        for (int rank = 0; rank < 2; ++rank) {
            widgets::LiveRunView* view = live->rankView(rank);
            QCOMPARE(view->stepBars(), 6);
            QVERIFY(view->sampleCount() > 0);
            QVERIFY(!view->isRunning());
        }
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 60'000);
        QVERIFY(opened.at(0).at(0).value<widgets::JobView*>());
        // The job's folder opens as the job again (File > Open, drag and drop, the command line).
        window.openFiles({QString::fromStdString(c.outDir)});
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 2, 60'000);
#endif
    }

    // The lab on the script from the app: two arms, each its own run, in the arms table as
    // they end; the live steps are the fp32 run's; the lab's session opens on its diagnosis.
    void aLabOnTheScriptFillsTheArmsTable()
    {
#ifndef KINETOSCOPE_PYTHON
        QSKIP("built without the engine's Python (KINETOSCOPE_PYTHON)");
#else
        QTemporaryDir dir;
        lab::ProfileConfig c =
            fromTheApp({KINETOSCOPE_PYTHON, kScript.toStdString(), "--steps-total", "200"},
                       dir.filePath(QStringLiteral("lab")), 2, 1);
        lab::ScriptLabConfig l;
        l.arms = {"fp32", "bf16"};
        l.script = c;
        l.script.steps = 10;
        l.script.seed = 0;
        c.steps = 10;
        gui::MainWindow window;
        QSignalSpy finished(&window, &gui::MainWindow::profileFinished);
        widgets::LiveRunView* live = window.startProfile(c, l);
        QVERIFY(live);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120'000);
        QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(finished.at(0).at(1).toString()));
        QVERIFY(!live->labTable()->isHidden());
        QCOMPARE(live->labTable()->rowCount(), 2);
        QCOMPARE(live->labTable()->item(1, 0)->text(), QStringLiteral("bf16"));
        // (tests running beside it may make it "measured; other processes used 0.950 cores")
        QVERIFY2(live->labTable()->item(1, 4)->text().startsWith(QStringLiteral("measured")),
                 qPrintable(live->labTable()->item(1, 4)->text()));
        QCOMPARE(live->stepBars(), 10);  // the fp32 run's
        QVERIFY2(live->readingText().contains(QStringLiteral("fp32 -> bf16 is a")),
                 qPrintable(live->readingText()));
        QVERIFY(QFileInfo::exists(dir.filePath(QStringLiteral("lab/runs/bf16/output.log"))));
#endif
    }

    // A validation pass under no_grad before training: its forwards were counted as
    // inference steps until the optimizer first stepped; the launcher drops them and so does
    // the live view, which ends with the training steps alone.
    void aValidationPassLeavesNoBarsBehind()
    {
#ifndef KINETOSCOPE_PYTHON
        QSKIP("built without the engine's Python (KINETOSCOPE_PYTHON)");
#else
        QTemporaryDir dir;
        const lab::ProfileConfig c =
            fromTheApp({KINETOSCOPE_PYTHON,
                        QStringLiteral(KINETOSCOPE_SOURCE_DIR "/tests/probe/validate_then_train.py")
                            .toStdString()},
                       dir.filePath(QStringLiteral("run")), 2, 1);
        gui::MainWindow window;
        QSignalSpy finished(&window, &gui::MainWindow::profileFinished);
        widgets::LiveRunView* live = window.startProfile(c);
        QVERIFY(live);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60'000);
        QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(finished.at(0).at(1).toString()));
        QCOMPARE(live->stepBars(), 20 - 3);  // the training steps the session holds
#endif
    }

    // A script that raises: the view says why in one line, and what it measured before
    // opens all the same.
    void aFailedScriptKeepsItsStepsAndTheyOpen()
    {
#ifndef KINETOSCOPE_PYTHON
        QSKIP("built without the engine's Python (KINETOSCOPE_PYTHON)");
#else
        QTemporaryDir dir;
        const lab::ProfileConfig c = fromTheApp({KINETOSCOPE_PYTHON, kScript.toStdString(),
                                                 "--steps-total", "40", "--raise-at-step", "12"},
                                                dir.filePath(QStringLiteral("run")), 2, 2);
        gui::MainWindow window;
        QSignalSpy finished(&window, &gui::MainWindow::profileFinished);
        QSignalSpy opened(&window, &gui::MainWindow::documentOpened);
        widgets::LiveRunView* live = window.startProfile(c);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60'000);
        QVERIFY(!finished.at(0).at(0).toBool());
        const QString error = finished.at(0).at(1).toString();
        QVERIFY2(error.contains(QStringLiteral("the script failed")), qPrintable(error));
        QVERIFY(!error.contains(QLatin1Char('\n')));
        QVERIFY2(live->statusText().startsWith(QStringLiteral("Stopped: the script failed")),
                 qPrintable(live->statusText()));
        QVERIFY(live->stepBars() > 0);
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 30'000);
        auto* doc = opened.at(0).at(0).value<widgets::DocumentView*>();
        QVERIFY(doc && doc->trace().session);
        QCOMPARE(int(doc->trace().session->steps.size()), live->stepBars());
        QVERIFY(!window.problems().isEmpty());  // the failure is told, not only in the tab
#endif
    }

    // Cancel stops the script after its step in flight: what it measured is kept and opens,
    // and the view says who stopped it. Closing a running tab kills the script at once.
    void cancelKeepsTheStepsAndClosingKillsTheScript()
    {
#ifndef KINETOSCOPE_PYTHON
        QSKIP("built without the engine's Python (KINETOSCOPE_PYTHON)");
#else
        QTemporaryDir dir;
        lab::ProfileConfig c;
        c.command = {KINETOSCOPE_PYTHON, kScript.toStdString(), "--steps-total",
                     "1000000",          "--sample-delay-ms",   "0.2"};
        c.skip = 2;
        c.active = 1;
        c.outDir = dir.filePath(QStringLiteral("cancelled")).toStdString();
        gui::MainWindow window;
        QSignalSpy finished(&window, &gui::MainWindow::profileFinished);
        QSignalSpy opened(&window, &gui::MainWindow::documentOpened);
        widgets::LiveRunView* live = window.startProfile(c);
        QTRY_VERIFY_WITH_TIMEOUT(live->stepBars() >= 3, 60'000);
        QVERIFY(live->statusText().contains(QStringLiteral("measured step")));
        QPushButton* cancel = nullptr;
        for (QPushButton* button : live->findChildren<QPushButton*>())
            if (button->text() == QLatin1String("Cancel"))
                cancel = button;
        QVERIFY(cancel);
        QTest::mouseClick(cancel, Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30'000);
        QVERIFY2(live->readingText().contains(QStringLiteral("the app's Cancel button")),
                 qPrintable(live->readingText()));
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 30'000);
        auto* doc = opened.at(0).at(0).value<widgets::DocumentView*>();
        QCOMPARE(int(doc->trace().session->steps.size()), live->stepBars());

        c.outDir = dir.filePath(QStringLiteral("closed")).toStdString();
        int pid = 0;
        {
            gui::MainWindow closing;
            widgets::LiveRunView* running = closing.startProfile(c);
            QTRY_VERIFY_WITH_TIMEOUT(running->stepBars() >= 1, 60'000);
            pid = running->findChild<gui::ProfileRun*>()->scriptPid();
            QVERIFY(pid > 0);
        }  // the window, its tab and the run go: the script is killed, the thread joined
        QVERIFY(::kill(pid, 0) != 0);  // reaped: no such process
#endif
    }
};

QTEST_MAIN(TestProfileScript)
#include "test_profile_script.moc"
