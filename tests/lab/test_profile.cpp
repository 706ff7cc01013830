// `kinetoscope profile -- python SCRIPT` end to end: the real binary, the real probe
// (python/, as the build copies it beside bin/), the venv's torch and the training scripts
// of tests/probe/. What a user's script prints, returns and does stays its own; what it
// measured is kept however it ends; the diagnosis reads the DataLoader from the steps.
// `profile --lab`: the script once per arm (the real torch.compile, inductor's C++ backend
// on this CPU) and per sweep point, read as the method reads them.
#include "core/document/document.h"
#include "core/lab/probe_process.h"
#include "core/lab/python_children.h"
#include "core/lab/python_command.h"
#include "core/session/session.h"
#include "tests/support/cli_runner.h"
#include "tests/support/profile_runner.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <csignal>
#include <nlohmann/json.hpp>

using namespace kinetoscope;
using test::profile;
using test::Ran;
using test::runProcess;

namespace {

const QString kPython = QStringLiteral(KINETOSCOPE_PYTHON);

QString script(const char* name)
{
    return QStringLiteral(KINETOSCOPE_SOURCE_DIR "/tests/probe/") + QString::fromUtf8(name);
}

session::Session loaded(const QString& folder)
{
    std::string error;
    const auto s =
        session::loadSession((folder + "/session.kinetoscope.json").toStdString(), error);
    if (!s)
        qWarning("%s", error.c_str());
    return s.value_or(session::Session{});
}

// The id of the diagnosis's first finding that is not about the window itself (what the
// trace is, a run that did not finish).
// The first finding not about the window: its id, or with `title`, "id: title".
std::string leadingFinding(const QString& folder, bool title = false)
{
    const test::CliRun d =
        test::runCli({"diagnose", (folder + "/session.kinetoscope.json").toStdString(), "--json"});
    const nlohmann::json j = nlohmann::json::parse(d.out, nullptr, false);
    if (j.is_discarded())
        return "(diagnose failed: " + d.err + ")";
    for (const nlohmann::json& f : j.value("findings", nlohmann::json::array()))
        if (!f.value("about_window", false))
            return f.value("id", "") + (title ? ": " + f.value("title", "") : std::string());
    return {};
}

// The diagnosis's findings about the loop's wait for data: the trace's and the lab's.
std::vector<nlohmann::json> dataLoaderFindings(const QString& folder)
{
    const test::CliRun d =
        test::runCli({"diagnose", (folder + "/session.kinetoscope.json").toStdString(), "--json"});
    const nlohmann::json j = nlohmann::json::parse(d.out, nullptr, false);
    std::vector<nlohmann::json> found;
    if (!j.is_discarded())
        for (const nlohmann::json& f : j.value("findings", nlohmann::json::array()))
            if (f.value("id", "").starts_with("dataloader-bound"))
                found.push_back(f);
    return found;
}

}  // namespace

class TestProfile : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

    QString folder(const char* name) const { return m_dir.path() + "/" + name; }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    // The method's first lesson on a real script: 0.5 ms per sample on the training thread
    // makes the loop wait for data, and the diagnosis leads with it, measured; four worker
    // processes hide the wait, and it no longer leads. The model computes about 0.25 ms per
    // sample (one thread: CTest sets OMP_NUM_THREADS=1), half the serial wait and twice what
    // four workers take per sample: the widest margin both ways.
    void theDataLoaderLeadsOnlyWithoutWorkers()
    {
        const QStringList slow = {kPython,
                                  script("train_mlp.py"),
                                  "--sample-delay-ms",
                                  "0.5",
                                  "--hidden",
                                  "640",
                                  "--steps-total",
                                  "30"};
        const Ran serial =
            profile({"--out", folder("serial")}, slow + QStringList{"--workers", "0"});
        QVERIFY2(serial.code == 0, serial.err.constData());
        const session::Session s = loaded(folder("serial"));
        QCOMPARE(s.config.at("kind"), std::string("script"));
        QCOMPARE(s.config.at("steps_from"), std::string("optimizer"));
        QCOMPARE(s.steps.size(), size_t(30 - 5 - 3));
        QCOMPARE(s.steps.front().step, int64_t(8));
        QVERIFY(s.dataLoaderMs && s.computeMs);
        QVERIFY2(*s.dataLoaderMs > 12.0, std::to_string(*s.dataLoaderMs).c_str());  // 32 x 0.5 ms
        QVERIFY(!s.tracePath.empty());
        QVERIFY(!s.samples.empty());
        QVERIFY(std::all_of(s.samples.begin(), s.samples.end(),
                            [](const session::LiveSample& l) { return l.residentBytes > 0; }));
        const std::string serialLead = leadingFinding(folder("serial"));
        QVERIFY2(serialLead.starts_with("dataloader"), serialLead.c_str());
        // The measured wait, per step, is in what the command printed.
        QVERIFY2(serial.err.contains("waits") && serial.err.contains("per step for the next batch"),
                 serial.err.constData());
        // One wait, one finding: the trace's window read the same wait (it said "waits for
        // data 24.8 % of each step (383 µs)" beside the measured "229 µs per step, 30.0 %"),
        // and the measured finding carries the window's figures.
        const std::vector<nlohmann::json> waits = dataLoaderFindings(folder("serial"));
        QCOMPARE(waits.size(), size_t(1));
        QVERIFY2(waits.front().value("id", "") == "dataloader-bound-measured" &&
                     waits.front().dump().find("window_dataloader_wait_per_step_us") !=
                         std::string::npos,
                 waits.front().dump().c_str());

        const Ran workers = profile({"--out", folder("workers")},
                                    slow + QStringList{"--workers", "4", "--steps-total", "40"});
        QVERIFY2(workers.code == 0, workers.err.constData());
        const session::Session w = loaded(folder("workers"));
        QVERIFY(w.dataLoaderMs && w.computeMs);
        QVERIFY2(*w.dataLoaderMs < *w.computeMs, std::to_string(*w.dataLoaderMs).c_str());
        // The measured wait is no longer over the compute. Four workers on two shared cores
        // can still leave a share of each step waiting, which is said as that share, never as
        // a wait over the compute. (The three profiled steps right after the warm-up can
        // still catch the workers behind: the trace's own reading is not asserted here.)
        const std::string workersLead = leadingFinding(folder("workers"), true);
        QVERIFY2(!workersLead.starts_with("dataloader-bound-measured") ||
                     (workersLead.find("more than its compute") == std::string::npos &&
                      workersLead.find(" of the step (measured)") != std::string::npos),
                 workersLead.c_str());
    }

    // No optimizer: the steps are the model's forward calls under inference mode.
    void anInferenceLoopCountsForwardCalls()
    {
        const Ran r = profile({"--out", folder("inference"), "--skip", "2", "--active", "2"},
                              {kPython, script("infer_cnn.py")});
        QVERIFY2(r.code == 0, r.err.constData());
        const session::Session s = loaded(folder("inference"));
        QCOMPARE(s.config.at("mode"), std::string("inference"));
        QCOMPARE(s.config.at("steps_from"), std::string("forward"));
        QVERIFY(s.steps.size() >= 5);
        QVERIFY(s.steps.front().forwardMs > 0);
        QVERIFY(!s.tracePath.empty());
    }

    // A validation pass under no_grad before training: its forwards counted as inference
    // until the optimizer first steps, then dropped; the run's steps are the optimizer's.
    void aValidationPassBeforeTrainingIsNotTheRun()
    {
        const Ran r = profile({"--out", folder("validate"), "--skip", "2", "--active", "1"},
                              {kPython, script("validate_then_train.py")});
        QVERIFY2(r.code == 0, r.err.constData());
        const session::Session s = loaded(folder("validate"));
        QCOMPARE(s.config.at("mode"), std::string("train"));
        QCOMPARE(s.config.at("steps_from"), std::string("optimizer"));
        QCOMPARE(s.steps.size(), size_t(20 - 3));
        QCOMPARE(s.steps.front().step, int64_t(3));
    }

    // A script that raises at step 7: its exit code, its traceback's last line in one line
    // of ours, and the steps it had finished are kept in a session that opens.
    void aScriptThatRaisesKeepsItsSteps()
    {
        const Ran r = profile({"--out", folder("raises"), "--skip", "2", "--active", "0"},
                              {kPython, script("train_mlp.py"), "--raise-at-step", "7"});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("kinetoscope profile: the script failed at step 7"),
                 r.err.constData());
        QVERIFY2(r.err.contains("RuntimeError: planted failure at step 7 (train_mlp.py, line "),
                 r.err.constData());
        QVERIFY(r.err.contains("kept: 5 steps in "));
        // The script's own traceback is on its standard error, untouched.
        QVERIFY(r.err.contains("Traceback (most recent call last):"));
        const session::Session s = loaded(folder("raises"));
        QCOMPARE(s.steps.size(), size_t(5));  // steps 2..6
        QVERIFY(s.interrupted.find("planted failure at step 7") != std::string::npos);
        QCOMPARE(test::runCli(
                     {"summary", (folder("raises") + "/session.kinetoscope.json").toStdString()})
                     .code,
                 0);
    }

    // SIGKILL mid-run: the command ends as the script did (killed by SIGKILL itself, so that
    // its caller sees what it would have seen without us) and the session saved along the
    // way, completed with what came after, opens.
    void aKilledScriptLeavesASessionThatOpens()
    {
        QProcess cli;
        cli.start(QStringLiteral(KINETOSCOPE_BINARY),
                  {"profile", "--out", folder("killed"), "--skip", "2", "--active", "0", "--",
                   kPython, script("train_mlp.py"), "--steps-total", "100000", "--sample-delay-ms",
                   "0.2"});
        QVERIFY(cli.waitForStarted());
        const QString sessionFile = folder("killed") + "/session.kinetoscope.json";
        QElapsedTimer clock;
        clock.start();
        while (!QFile::exists(sessionFile) && clock.elapsed() < 90'000)
            cli.waitForFinished(200);
        QVERIFY(QFile::exists(sessionFile));
        QFile children(QStringLiteral("/proc/%1/task/%1/children").arg(cli.processId()));
        QVERIFY(children.open(QIODevice::ReadOnly));
        const qint64 python = children.readAll().trimmed().split(' ').front().toLongLong();
        QVERIFY(python > 0);
        QCOMPARE(::kill(pid_t(python), SIGKILL), 0);
        QVERIFY(cli.waitForFinished(30'000));
        QCOMPARE(cli.exitStatus(), QProcess::CrashExit);  // ended by a signal
        QCOMPARE(cli.exitCode(), SIGKILL);
        const QByteArray err = cli.readAllStandardError();
        QVERIFY2(err.contains("the script was killed by SIGKILL at step "), err.constData());
        const session::Session s = loaded(folder("killed"));
        QVERIFY(!s.steps.empty());
        QVERIFY(s.interrupted.find("SIGKILL") != std::string::npos);
        QCOMPARE(test::runCli({"diagnose", sessionFile.toStdString()}).code, 0);
    }

    // The script's standard output is byte for byte what it prints alone, its exit code is
    // its own (sys.exit, os._exit), and the launcher's report is on its standard error.
    void theScriptsOutputAndExitCodeAreItsOwn()
    {
        const QStringList command = {kPython, script("train_mlp.py"), "--steps-total",
                                     "12",    "--exit-code",          "3"};
        const Ran alone = runProcess(kPython, command.mid(1));
        QCOMPARE(alone.code, 3);
        const Ran probed =
            profile({"--out", folder("exit3"), "--skip", "2", "--active", "2"}, command);
        QCOMPARE(probed.code, 3);
        QCOMPARE(probed.out, alone.out);  // (the launcher's report is on standard error)
        QVERIFY2(probed.err.contains("\nkinetoscope profile: "), probed.err.constData());
        QVERIFY(probed.err.contains("the script exited with status 3"));
        // Its own status after its last step (helper 47): every step it ran measured, the
        // status kept, and read as the script's own end (MEDIUM), not "The run did not
        // finish" (HIGH): the probe cannot tell a last step from a check that stopped it.
        const session::Session exited = loaded(folder("exit3"));
        QCOMPARE(exited.config.at("exit_status"), std::string("3"));
        QCOMPARE(exited.steps.size(), size_t(8));  // 12, less --skip 2 and --active 2
        const auto read =
            document::open((folder("exit3") + "/session.kinetoscope.json").toStdString());
        const auto ended = std::find_if(read->findings.begin(), read->findings.end(),
                                        [](const auto& f) { return f.id == "run-interrupted"; });
        QVERIFY(ended != read->findings.end());
        QCOMPARE(ended->severity, analysis::Severity::Medium);
        QVERIFY2(ended->title.starts_with("The script ended itself: the script exited with "
                                          "status 3") &&
                     ended->title.ends_with(", by its own sys.exit"),
                 ended->title.c_str());

        const Ran osExit =
            profile({"--out", folder("os_exit"), "--skip", "2", "--active", "0"},
                    {kPython, script("train_mlp.py"), "--steps-total", "12", "--os-exit"});
        QCOMPARE(osExit.code, 3);
        QVERIFY2(osExit.err.contains("os._exit"), osExit.err.constData());
        QCOMPARE(loaded(folder("os_exit")).steps.size(), size_t(10));
    }

    // A script that closes every inherited descriptor (os.closerange) mid-run: the probe
    // stops at once, writes nothing into the sockets the script opens next (one takes the
    // probe's number), and the launcher says the probe went quiet, not that no step ran.
    // Its signals (a Python handler, every step) go on without the wakeup fd the probe set:
    // no write to a closed descriptor (reported on stderr) or to the script's sockets.
    void aScriptThatClosesTheProbesSocket()
    {
        const Ran run = profile({"--out", folder("close_fds"), "--skip", "2", "--active", "2"},
                                {kPython, script("close_fds.py"), "--steps", "20", "--close-at",
                                 "6", "--signal-each-step"});
        QCOMPARE(run.code, 0);
        QVERIFY2(run.out.contains("signals handled: 20"), run.out.constData());
        QVERIFY2(!run.err.contains("wakeup fd"), run.err.constData());
        QVERIFY2(run.out.contains(", 0 with bytes not the script's"), run.out.constData());
        QVERIFY2(run.err.contains("kinetoscope probe: disabled (the script closed the launcher's "
                                  "socket"),
                 run.err.constData());
        QVERIFY2(run.err.contains("the probe's last message never came"), run.err.constData());
        QVERIFY(!run.err.contains("no step was seen"));
        QVERIFY(loaded(folder("close_fds")).steps.size() <= 6);
    }

    // `python -m package.module` from another folder (--cwd), stopped cleanly by --steps
    // after that many measured steps; a script that changes directory (to a folder whose
    // name, an argument, has spaces) with spawned DataLoader workers.
    void modulesFoldersSpacesSpawnAndSteps()
    {
        const QString out = folder("module with space");
        const Ran r =
            profile({"--out", out, "--cwd", QStringLiteral(KINETOSCOPE_SOURCE_DIR "/tests/probe"),
                     "--skip", "2", "--active", "1", "--steps", "4"},
                    {kPython, "-m", "pkg.train", "--steps", "30"});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY2(r.err.contains("stopped the script after 4 measured steps (--steps 4)"),
                 r.err.constData());
        QCOMPARE(loaded(out).steps.size(), size_t(4));

        const QString elsewhere = m_dir.path() + "/a folder with spaces";
        QVERIFY(QDir().mkpath(elsewhere));
        const Ran spawned =
            profile({"--out", folder("spawn"), "--skip", "2", "--active", "1"},
                    {kPython, script("train_mlp.py"), "--steps-total", "12", "--chdir", elsewhere,
                     "--workers", "2", "--multiprocessing-context", "spawn"});
        QVERIFY2(spawned.code == 0, spawned.err.constData());
        const session::Session s = loaded(folder("spawn"));
        QCOMPARE(s.steps.size(), size_t(12 - 3));
        QCOMPARE(s.config.at("workers"), std::string("2"));
        QVERIFY(!s.tracePath.empty());  // in the session's folder, whatever the script's cwd
        QVERIFY(QDir(elsewhere).isEmpty());
    }

    // The launcher's own usage errors are 2 with one line; options after -- are the
    // script's (its --help runs); a folder with files is never written into; an
    // interpreter that ignores PYTHONPATH runs the script unmeasured and says so.
    // Two arms of the lab, each its own run of the script, seeded alike: measured from the
    // steps' wall time; the lab's session holds the fp32 run's steps and trace. bf16 on a CPU
    // without bf16 units runs slower, and a slower arm is read as a slowdown, never a jump.
    void aLabRunsTheScriptOncePerArm()
    {
        const Ran r =
            profile({"--out", folder("lab"), "--arms", "fp32,bf16", "--skip", "2", "--active", "1",
                     "--steps", "12"},
                    {kPython, script("train_mlp.py"), "--hidden", "512", "--steps-total", "200"});
        QVERIFY2(r.code == 0, (r.err + r.out).constData());
        const session::Session s = loaded(folder("lab"));
        QCOMPARE(s.config.at("lab"), std::string("script"));
        QCOMPARE(s.config.at("kind"), std::string("script"));
        QCOMPARE(s.lab.size(), size_t(2));
        for (const session::LabArm& arm : s.lab) {
            QVERIFY2(arm.ran, arm.skippedReason.c_str());
            QVERIFY(arm.samplesPerSecond > 0 && arm.meanStepMs > 0);
        }
        QVERIFY(s.lab[1].kind == session::ArmKind::Bf16);
        QCOMPARE(s.steps.size(), size_t(12));
        QVERIFY(s.steps.front().wallMs > 0);
        QVERIFY(!s.tracePath.empty());
        QVERIFY(QFile::exists(folder("lab") + "/" + QString::fromStdString(s.tracePath)));
        const session::Session bf16 = loaded(folder("lab") + "/runs/bf16");
        QCOMPARE(bf16.config.at("arm"), std::string("bf16"));
        QVERIFY(bf16.tracePath.empty());  // one trace: the fp32 run's
        QCOMPARE(bf16.config.at("seed"), std::string("0"));
        const double ratio = s.lab[1].samplesPerSecond / s.lab[0].samplesPerSecond;
        const QByteArray said = ratio < 1.0 ? "fp32 -> bf16 is a slowdown" : "fp32 -> bf16 is a";
        QVERIFY2(r.out.contains(said), r.out.constData());
        if (ratio < 1.0)
            QVERIFY(!r.out.contains("fp32 -> bf16 is a small jump"));
    }

    // The real torch.compile as the third arm: compiled in the warm-up, its seconds said
    // apart and never in the steady step.
    void theCompileArmCountsCompilationApart()
    {
        const Ran r = profile({"--out", folder("compile"), "--arms", "bf16+compile", "--skip", "3",
                               "--active", "0", "--steps", "10"},
                              {kPython, script("train_mlp.py"), "--steps-total", "200"});
        QVERIFY2(r.code == 0, (r.err + r.out).constData());
        const session::Session s = loaded(folder("compile"));
        QCOMPARE(s.lab.size(), size_t(1));
        const session::LabArm& arm = s.lab.front();
        QVERIFY2(arm.ran, arm.skippedReason.c_str());
        QVERIFY(arm.kind == session::ArmKind::Bf16Compile);
        QVERIFY2(arm.compileSeconds > 0, std::to_string(arm.compileSeconds).c_str());
        QVERIFY(arm.compileSeconds * 1000 > 20 * arm.meanStepMs);
        QVERIFY(arm.graphBreaks >= 0);
        QVERIFY2(r.out.contains("Compiling took"), r.out.constData());
    }

    // The workers sweep on a data-bound script (images decoded in its Dataset, one worker
    // thread each side: CTest sets OMP_NUM_THREADS=1): each point is the script with its
    // DataLoader's num_workers set at construction, reported as overridden; workers take the
    // wait off the loop, and the diagnosis's DataLoader finding cites what the sweep measured.
    void aWorkersSweepMeasuresTheDataLoadersFix()
    {
        const Ran r = profile(
            {"--out", folder("sweep"), "--sweep", "workers=0,2", "--skip", "3", "--steps", "12"},
            {kPython, script("train_images.py"), "--epochs", "1000", "--log-every", "0"});
        QVERIFY2(r.code == 0, (r.err + r.out).constData());
        const session::Session s = loaded(folder("sweep"));
        QVERIFY(s.lab.empty());
        QCOMPARE(s.sweep.size(), size_t(2));
        for (const session::SweepPoint& p : s.sweep) {
            QCOMPARE(p.knob, std::string("workers"));
            QVERIFY2(p.error.empty() && p.samplesPerSecond > 0, p.error.c_str());
        }
        QVERIFY2(
            s.sweep[1].dataWaitMs < 0.5 * s.sweep[0].dataWaitMs,
            (std::to_string(s.sweep[0].dataWaitMs) + " -> " + std::to_string(s.sweep[1].dataWaitMs))
                .c_str());
        const session::Session two = loaded(folder("sweep") + "/runs/workers-2");
        QCOMPARE(two.config.at("workers"), std::string("2"));
        QVERIFY2(two.config.at("loader_overrides").starts_with("num_workers=2 (script: 0)"),
                 two.config.at("loader_overrides").c_str());
        QVERIFY(!s.steps.empty() && !s.tracePath.empty());  // the first point's, workers=0
        // Its first measured step follows its profiler window (3 steps): writing the trace is
        // not the step's time.
        std::vector<double> walls;
        for (const session::StepTiming& t : s.steps)
            walls.push_back(t.wallMs);
        std::sort(walls.begin(), walls.end());
        QVERIFY2(s.steps.front().wallMs < 3 * walls[walls.size() / 2],
                 (std::to_string(s.steps.front().wallMs) + " ms against a median of " +
                  std::to_string(walls[walls.size() / 2]))
                     .c_str());
        QVERIFY2(r.out.contains("Sweep of workers: best at workers = "), r.out.constData());
        // The DataLoader finding (the split's wait above its compute) cites what the sweep
        // measured. (On a loaded machine the compute can outgrow the wait: no finding then.)
        if (s.sweep[1].samplesPerSecond > s.sweep[0].samplesPerSecond &&
            r.out.contains("data-bound, the loader sets the pace"))
            QVERIFY2(r.out.contains("The workers sweep measured it: num_workers=2"),
                     r.out.constData());
    }

    // Python's options as CPython reads them: grouped flags, and -c, -m, -W, -X taking a
    // value (where -I is the script's argument, not the interpreter's).
    void thePythonFlagsThatShutOutTheProbe()
    {
        using lab::flagThatShutsOutTheProbe;
        QCOMPARE(flagThatShutsOutTheProbe({"python3", "-uI", "train.py"}), std::string("-I"));
        QCOMPARE(flagThatShutsOutTheProbe({"/usr/bin/python3.11", "-X", "dev", "-E", "t.py"}),
                 std::string("-E"));
        QCOMPARE(flagThatShutsOutTheProbe({"python", "-W", "ignore", "-S", "t.py"}),
                 std::string("-S"));
        QCOMPARE(flagThatShutsOutTheProbe({"python", "-Wignore", "train.py", "-I"}), std::string());
        QCOMPARE(flagThatShutsOutTheProbe({"python", "-c", "pass", "-I"}), std::string());
        QCOMPARE(flagThatShutsOutTheProbe({"python", "-m", "pkg.train", "-E"}), std::string());
        QCOMPARE(flagThatShutsOutTheProbe({"python", "-", "-I"}), std::string());
        QCOMPARE(flagThatShutsOutTheProbe({"bash", "-I", "run.sh"}), std::string());

        // What the command runs, read the same way.
        using lab::PythonCommand;
        const auto module =
            lab::readPythonCommand({"python3", "-uWignore", "-m", "pkg.train", "-I"});
        QVERIFY(module && module->runs == PythonCommand::Runs::Module);
        QCOMPARE(module->target, std::string("pkg.train"));
        QCOMPARE(module->shutOutFlag, std::string());
        const auto script = lab::readPythonCommand({"python", "-X", "dev", "--", "-t.py"});
        QVERIFY(script && script->runs == PythonCommand::Runs::Script);
        QCOMPARE(script->target, std::string("-t.py"));
        QVERIFY(!lab::readPythonCommand({"bash", "run.sh"}));
    }

    // A launcher that runs the training in a child Python (accelerate's, a wrapper's): the
    // probe rides in the launcher alone, which never steps, and the run names the child (not
    // its spawned DataLoader workers) and the command that profiles it, with the variables
    // and the folder the launcher gave it; a launcher that execs the training says so.
    void aLauncherNamesThePythonThatTrained()
    {
        // The child's command: the launcher's interpreter (sys.executable), then these.
        const QStringList training = {
            script("train_mlp.py"),      "--steps-total", "8", "--workers", "1",
            "--multiprocessing-context", "spawn"};
        const QString child = kPython + " " + training.join(' ');
        const QString elsewhere = m_dir.path() + "/launched";
        QVERIFY(QDir().mkpath(elsewhere));
        const Ran r =
            profile({"--out", folder("launcher")},
                    QStringList{kPython, script("run_in_child.py"), "--import-torch", "--env",
                                "LAUNCHER_MIXED_PRECISION=bf16", "--cwd", elsewhere} +
                        training);
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY2(r.err.contains("no step was seen"), r.err.constData());
        const QString named = "it started another Python, `" + child + "` (pid ";
        QVERIFY2(r.err.contains(named.toUtf8()), r.err.constData());
        const QString advice = "`LAUNCHER_MIXED_PRECISION=bf16 kinetoscope profile --cwd " +
                               elsewhere + " -- " + child + "`";
        QVERIFY2(r.err.contains(advice.toUtf8()), r.err.constData());

        const Ran exec =
            profile({"--out", folder("exec")},
                    QStringList{kPython, script("run_in_child.py"), "--exec"} + training);
        QVERIFY2(exec.code == 0, exec.err.constData());
        QVERIFY2(exec.err.contains(("nothing was measured: it replaced itself (exec) with `" +
                                    child + "`, and the probe does not survive an exec")
                                       .toUtf8()),
                 exec.err.constData());
    }

    // Which child is named: the deepest (a launcher's workers sit below it), a rank of a job
    // with the job's size; the interpreter's own helpers never.
    void theChildNamedAndTheHelpersLeftOut()
    {
        using lab::isInterpreterHelper;
        QVERIFY(
            isInterpreterHelper({"/usr/bin/python3", "-c",
                                 "from multiprocessing.spawn import spawn_main; spawn_main()"}));
        QVERIFY(isInterpreterHelper({"python3", "-m", "multiprocessing.forkserver"}));
        QVERIFY(isInterpreterHelper(
            {"python3", "/v/lib/torch/_inductor/compile_worker/__main__.py", "--workers=2"}));
        QVERIFY(isInterpreterHelper({"python3"}));
        QVERIFY(isInterpreterHelper({"python3", "-m", "ipykernel_launcher", "-f", "k.json"}));
        QVERIFY(isInterpreterHelper(
            {"python",
             "/env/lib/python3.11/site-packages/ray/_private/workers/default_worker.py"}));
        QVERIFY(!isInterpreterHelper({"python3", "-m", "pkg.train"}));
        QVERIFY(!isInterpreterHelper({"python3", "-u", "train.py"}));
        QVERIFY(!isInterpreterHelper({"python3", "-m", "torch.distributed.run", "train.py"}));

        auto seenAs = [](int pid, int depth, std::vector<std::string> argv,
                         std::string worldSize = {}) {
            lab::PythonChild child;
            child.pid = pid;
            child.depth = depth;
            child.argv = std::move(argv);
            child.worldSize = std::move(worldSize);
            return child;
        };
        const lab::PythonChild agent =
            seenAs(10, 1, {"python", "-m", "torch.distributed.run", "t.py"});
        lab::PythonChild rank = seenAs(11, 2, {"python", "-u", "t.py", "--lr", "1 e-3"}, "4");
        QCOMPARE(lab::pythonChildAdvice({}), std::string());
        const std::string advice = lab::pythonChildAdvice({agent, rank});
        QVERIFY2(advice.find("`python -u t.py --lr '1 e-3'` (pid 11)") != std::string::npos,
                 advice.c_str());
        QVERIFY2(advice.find("`kinetoscope profile --nproc 4 -- python -u t.py") !=
                     std::string::npos,
                 advice.c_str());
        rank.worldSize = "1";
        QVERIFY(lab::pythonChildAdvice({agent, rank}).find("--nproc") == std::string::npos);

        // What the launcher set for it (accelerate's options), where it ran, how many ran.
        lab::PythonChild first = seenAs(20, 1, {"python", "train.py"});
        first.environmentAdded = {"ACCELERATE_MIXED_PRECISION=bf16", "OMP_NUM_THREADS=1"};
        first.workingDirectory = "/runs/exp 1";
        const lab::PythonChild second = seenAs(21, 1, {"python", "train.py", "--lr", "0.1"});
        const std::string launched = lab::pythonChildAdvice({first, second});
        QVERIFY2(launched.find("(pid 20, the first of 2)") != std::string::npos, launched.c_str());
        QVERIFY2(launched.find("`ACCELERATE_MIXED_PRECISION=bf16 OMP_NUM_THREADS=1 kinetoscope "
                               "profile --cwd '/runs/exp 1' -- python train.py`") !=
                     std::string::npos,
                 launched.c_str());
        for (int more = 0; more < 9; ++more)
            first.environmentAdded.push_back("V" + std::to_string(more) + "=x");
        const std::string many = lab::pythonChildAdvice({first});
        QVERIFY2(many.ends_with("(its environment also had V6, V7, V8)"), many.c_str());

        // The script's own process exec'd the training (depth 0).
        const lab::PythonChild exec = seenAs(30, 0, {"python", "train.py"});
        QVERIFY2(lab::pythonChildAdvice({exec}).starts_with(
                     "it replaced itself (exec) with `python train.py`"),
                 lab::pythonChildAdvice({exec}).c_str());
    }

    void usageErrorsAndAProbeThatCannotStart()
    {
        QCOMPARE(profile({"--skip", "x"}, {kPython, "-c", "pass"}).code, 2);
        QCOMPARE(runProcess(QStringLiteral(KINETOSCOPE_BINARY), {"profile"}).code, 2);
        const Ran taken = profile({"--out", m_dir.path()}, {kPython, "-c", "pass"});
        QCOMPARE(taken.code, 2);
        QVERIFY(taken.err.contains("never overwrites"));
        const Ran missing = profile({"--out", folder("missing")}, {"no-such-python-here"});
        QCOMPARE(missing.code, 2);

        const Ran help =
            profile({"--out", folder("help")}, {kPython, script("train_mlp.py"), "--help"});
        QCOMPARE(help.code, 0);
        QVERIFY(help.out.contains("--sample-delay-ms"));

        // python -I ignores PYTHONPATH: the script runs as alone, nothing of ours in its
        // environment (the probe's variables were there, and a Python it started took the
        // launcher's inherited socket for its own).
        const QStringList isolatedCommand = {
            "-I", "-c",
            "import os; print(sorted(k for k in os.environ if k.startswith('KINETOSCOPE')), "
            "os.environ.get('PYTHONPATH'))"};
        const Ran isolatedAlone = runProcess(kPython, isolatedCommand);
        const Ran isolated =
            profile({"--out", folder("isolated")}, QStringList{kPython} + isolatedCommand);
        QCOMPARE(isolated.code, 0);
        QCOMPARE(isolated.out, isolatedAlone.out);
        QVERIFY2(isolated.err.contains("-I keeps the interpreter from PYTHONPATH"),
                 isolated.err.constData());

        const Ran arms = profile({"--arms", "fp32,fp16"}, {kPython, "-c", "pass"});
        QCOMPARE(arms.code, 2);
        QVERIFY2(arms.err.contains("--arms takes fp32, bf16 and bf16+compile (not fp16)"),
                 arms.err.constData());
        const Ran sweep = profile({"--sweep", "threads=1,2"}, {kPython, "-c", "pass"});
        QCOMPARE(sweep.code, 2);
        QVERIFY(sweep.err.contains("--sweep takes workers=N,N,... or batch=N,N,..."));
    }
};

QTEST_GUILESS_MAIN(TestProfile)
#include "test_profile.moc"
