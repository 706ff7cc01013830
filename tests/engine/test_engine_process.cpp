// The engine as a child process (core/lab/engine_process.h driving kinetoscope-engine):
// its stream reaches the callbacks, cancel is a message, and an engine that dies — killed
// with SIGKILL mid-run, crashed by a user's model, not the engine at all — is one line
// while the caller goes on and keeps the steps measured before. This test links no torch.
#include "app/cli/cli_main.h"
#include "core/format/format.h"
#include "core/lab/engine_process.h"
#include "core/lab/engine_protocol.h"
#include "core/lab/run_options.h"
#include "core/lab/run_progress.h"
#include "tests/support/python_script.h"
#include "tests/support/small_lab_run.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QtTest>
#include <csignal>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace kinetoscope;

namespace {

lab::RunConfig smallRun(const QTemporaryDir& dir, const char* name)
{
    lab::RunConfig c = test::smallLabRun((dir.path() + "/" + name).toStdString(), 6);
    c.sampleIoUs = 100;
    return c;
}

bool isOneLine(const std::string& text)
{
    return !text.empty() && text.find('\n') == std::string::npos;
}

// The children of a process, from /proc (the CLI test's engine).
QList<qint64> childrenOf(qint64 pid)
{
    QFile file(QStringLiteral("/proc/%1/task/%1/children").arg(pid));
    QList<qint64> children;
    if (file.open(QIODevice::ReadOnly))
        for (const QByteArray& word : file.readAll().split(' '))
            if (!word.trimmed().isEmpty())
                children << word.trimmed().toLongLong();
    return children;
}

// `kinetoscope run` (the real binary) on a run that would last minutes, once its fp32
// arm has run a few steps (the run has started: its session exists): the CLI names each
// stage on standard error when that is not a terminal, and its pace once it is known.
// Returns what it wrote on standard error so far.
QByteArray startLongCliRun(QProcess& cli, const QString& out)
{
    cli.start(QStringLiteral(KINETOSCOPE_BINARY),
              {"run", "--model", "mlp", "--device", "cpu", "--steps", "100000", "--batch-size",
               "16", "--input-features", "32", "--hidden", "64", "--sample-io-us", "100", "--out",
               out});
    QByteArray stderrText;
    if (!cli.waitForStarted())
        return stderrText;
    QElapsedTimer clock;
    clock.start();
    while (!(stderrText += cli.readAllStandardError()).contains("kinetoscope run: fp32: step ") &&
           clock.elapsed() < 60'000)
        cli.waitForReadyRead(100);
    return stderrText;
}

}  // namespace

class TestEngineProcess : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    std::string error_;  // a decoding error, unused where the message is good

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(!lab::findEngine().empty(), "kinetoscope-engine is not beside the test");
    }

    void optionsRoundTripThroughTheCommandLine()
    {
        lab::RunConfig c = smallRun(m_dir, "options");
        const QString scripted =
            m_dir.path() + "/models/with space.pt";  // a TorchScript file must exist
        QVERIFY(QDir().mkpath(m_dir.path() + "/models"));
        QFile(scripted).open(QIODevice::WriteOnly);
        c.model = scripted.toStdString();
        c.inputShape = {3, 8, 8};
        c.sweepWorkers = {0, 2};
        c.sweepBatchSizes = {16, 32};
        c.shuffle = c.dropLast = c.liveSamples = false;
        c.pinMemory = c.lab = c.profile = true;
        c.seed = 7;
        c.samplesPerSecond = 10;
        c.poisonLossAtStep = 4;
        c.outOfMemoryInArm = "bf16";
        c.mode = "inference";
        c.memoryLimitMb = 512;
        c.plantedLatencyUs = {2000, 10000};
        lab::RunConfig back;
        std::string error;
        QVERIFY2(lab::parseRunOptions(lab::runOptionArgs(c), back, error), error.c_str());
        QCOMPARE(lab::runOptionArgs(back), lab::runOptionArgs(c));
        QCOMPARE(back.model, c.model);
        QCOMPARE(back.inputShape, c.inputShape);
        QCOMPARE(back.sweepBatchSizes, c.sweepBatchSizes);
        QCOMPARE(back.liveSamples, false);
        QCOMPARE(back.samplesPerSecond, 10);
        QCOMPARE(back.poisonLossAtStep, int64_t(4));
        QCOMPARE(back.outOfMemoryInArm, std::string("bf16"));
        QCOMPARE(back.mode, std::string("inference"));
        QCOMPARE(back.memoryLimitMb, int64_t(512));
        QCOMPARE(back.plantedLatencyUs, c.plantedLatencyUs);
        QVERIFY(!lab::parseRunOptions({"--mode", "serve"}, back, error));
        QCOMPARE(error, std::string("--mode takes train or inference, not 'serve'"));
        // Checkpointing is a training knob, carried to the engine.
        lab::RunConfig training;
        training.checkpointEvery = 2;
        QVERIFY2(lab::parseRunOptions(lab::runOptionArgs(training), back, error), error.c_str());
        QCOMPARE(back.checkpointEvery, int64_t(2));
        QVERIFY(
            !lab::parseRunOptions({"--checkpoint-every", "2", "--mode", "inference"}, back, error));
        QCOMPARE(error, std::string("--checkpoint-every applies to training: inference keeps no "
                                    "activations for backward"));
        QVERIFY(!lab::parseRunOptions({"--checkpoint-every", "-1"}, back, error));
        lab::RunConfig snapshot;
        snapshot.memorySnapshot = true;
        QVERIFY2(lab::parseRunOptions(lab::runOptionArgs(snapshot), back, error), error.c_str());
        QVERIFY(back.memorySnapshot);
    }

    // Everything that can be told without torch is told before anything runs (issue 29):
    // one line each, naming the option.
    void badOptionsAreRefusedBeforeAnythingRuns_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("reason");
        QTest::newRow("model") << QStringList{"--model", "foo"}
                               << "--model takes mlp, cnn, transformer or a TorchScript file";
        QTest::newRow("steps") << QStringList{"--steps", "0"} << "--steps needs 1 or more, not 0";
        QTest::newRow("batch") << QStringList{"--batch-size", "0"}
                               << "--batch-size needs 1 or more, not 0";
        QTest::newRow("workers") << QStringList{"--workers", "-1"}
                                 << "--workers needs 0 or more, not -1";
        QTest::newRow("dataset")
            << QStringList{"--dataset", "imagenet"}
            << "--dataset takes synthetic, mnist, cifar10 or tensors, not 'imagenet'";
        QTest::newRow("no data") << QStringList{"--dataset", "mnist"}
                                 << "the mnist dataset needs --data DIR";
        QTest::newRow("missing data") << QStringList{"--dataset", "cifar10", "--data", "/no/such"}
                                      << "--data /no/such: no such file or folder";
        QTest::newRow("data nothing reads")
            << QStringList{"--data", "/no/such"}
            << "--data /no/such is read by --dataset mnist, cifar10 or tensors";
        QTest::newRow("device") << QStringList{"--device", "tpu"}
                                << "--device takes auto, cpu or cuda, not 'tpu'";
        QTest::newRow("sweep") << QStringList{"--sweep", "batch=0,8"}
                               << "--sweep batch= takes batch sizes of 1 or more";
        QTest::newRow("memory snapshot on the CPU")
            << QStringList{"--memory-snapshot", "--device", "cpu"}
            << "--memory-snapshot records the CUDA caching allocator's history: it needs a GPU run";
    }

    void badOptionsAreRefusedBeforeAnythingRuns()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, reason);
        std::vector<std::string> options;
        for (const QString& a : args)
            options.push_back(a.toStdString());
        lab::RunConfig c;
        std::string error;
        QVERIFY(!lab::parseRunOptions(options, c, error));
        QVERIFY2(error.starts_with(reason.toStdString()), error.c_str());
        QVERIFY(error.find('\n') == std::string::npos);
    }

    // A batch sweep without --batch-size: the arms run at its smallest size.
    void theArmsOfABatchSweepRunAtItsSmallestSize()
    {
        lab::RunConfig c;
        std::string error;
        QVERIFY(lab::parseRunOptions({"--sweep", "batch=64,16,32"}, c, error));
        QCOMPARE(c.batchSize, int64_t(16));
        lab::RunConfig given;
        QVERIFY(lab::parseRunOptions({"--sweep", "batch=64,16,32", "--batch-size", "128"}, given,
                                     error));
        QCOMPARE(given.batchSize, int64_t(128));
    }

    // A stage's time left, from its pace after the first step.
    void aStageEstimatesItsTimeLeft()
    {
        using Clock = lab::StageEstimate::Clock;
        lab::StageEstimate estimate;
        const Clock::time_point t0 = Clock::now();
        estimate.update({"fp32", 0.0, 0, 11}, t0);
        QVERIFY(!estimate.secondsLeft(t0));
        estimate.update({"fp32", 0.1, 1, 11},
                        t0 + std::chrono::seconds(5));  // the first step: one-off costs
        QVERIFY(!estimate.secondsLeft(t0 + std::chrono::seconds(5)));
        estimate.update({"fp32", 0.2, 2, 11}, t0 + std::chrono::seconds(6));
        estimate.update({"fp32", 0.3, 3, 11}, t0 + std::chrono::seconds(7));
        // 1 s a step from step 1 on; steps 3..10 left, step 3 just begun: 8 s.
        QCOMPARE(*estimate.secondsLeft(t0 + std::chrono::seconds(7)), 8.0);
        QCOMPARE(QString::fromStdString(estimate.line(t0 + std::chrono::seconds(7))),
                 QStringLiteral("fp32: step 4 of 11, about 8.00 s left in this arm"));
        // A new stage starts over.
        estimate.update({"bf16", 0.5, 0, 11}, t0 + std::chrono::seconds(20));
        QVERIFY(!estimate.secondsLeft(t0 + std::chrono::seconds(20)));
        // The progress message carries the stage's step of steps.
        lab::EngineMessage m;
        m.type = lab::MessageType::Progress;
        m.progress = {"sweep batch_size=64", 0.75, 3, 23};
        const std::string line = lab::encodeMessage(m);
        const auto back =
            lab::decodeMessage(std::string_view(line).substr(0, line.size() - 1), error_);
        QVERIFY(back);
        QCOMPARE(back->progress.stage, std::string("sweep batch_size=64"));
        QCOMPARE(back->progress.step, int64_t(3));
        QCOMPARE(back->progress.steps, int64_t(23));
    }

    void messagesRoundTrip()
    {
        lab::EngineMessage m;
        m.type = lab::MessageType::Step;
        m.step = {7, 1.5, 0.25, 3.0, 6.0, 1.0, 2.302};
        const std::string line = lab::encodeMessage(m);
        QCOMPARE(std::count(line.begin(), line.end(), '\n'), 1);
        std::string error;
        const auto back =
            lab::decodeMessage(std::string_view(line).substr(0, line.size() - 1), error);
        QVERIFY2(back, error.c_str());
        QCOMPARE(back->step.step, int64_t(7));
        QCOMPARE(back->step.forwardMs, 3.0);
        QVERIFY(!lab::decodeMessage("{\"type\":\"step\",\"step\":[1,2]}", error));
        QVERIFY(error.find("malformed \"step\"") != std::string::npos);
        QVERIFY(!lab::decodeMessage("{\"type\":\"launch\"}", error));
        QVERIFY(!lab::decodeMessage("loss 2.3", error));

        // Protocol 2: the memory triage crosses whole.
        lab::EngineMessage memory;
        memory.type = lab::MessageType::Memory;
        memory.memory.steadyStep = {{"forward", 3 << 20, 8 << 20, 5 << 20}};
        memory.memory.split.optimizerStateBytes = 1234;
        memory.memory.peakPerStep = {7, 8, 9};
        const std::string memoryLine = lab::encodeMessage(memory);
        const auto memoryBack = lab::decodeMessage(
            std::string_view(memoryLine).substr(0, memoryLine.size() - 1), error);
        QVERIFY2(memoryBack && memoryBack->type == lab::MessageType::Memory, error.c_str());
        QCOMPARE(memoryBack->memory.steadyStep.at(0).peakAllocatedBytes, int64_t(5 << 20));
        QCOMPARE(memoryBack->memory.split.optimizerStateBytes, int64_t(1234));
        QCOMPARE(memoryBack->memory.peakPerStep, memory.memory.peakPerStep);
    }

    void aRunStreamsEveryMeasurementThenItsSession()
    {
        lab::RunConfig c = smallRun(m_dir, "streams");
        c.lab = c.split = true;
        int steps = 0, arms = 0, saves = 0, pid = 0;
        std::string startedPath;
        lab::RunCallbacks callbacks;
        callbacks.step = [&](const session::StepTiming&) { ++steps; };
        callbacks.arm = [&](const session::LabArm&) { ++arms; };
        callbacks.saved = [&](const std::string&) { ++saves; };
        int memories = 0;
        callbacks.memory = [&](const session::MemoryTriage&) { ++memories; };
        bool ended = false;
        callbacks.engineStarted = [&](int p) {  // its pid, then 0 once it has ended
            if (p > 0)
                pid = p;
            else
                ended = pid > 0;
        };
        callbacks.started = [&](const session::Session& header, const std::string& path) {
            QCOMPARE(header.config.at("model"), std::string("mlp"));
            startedPath = path;
        };
        const lab::RunResult r = lab::runEngine(c, callbacks);
        QVERIFY2(r.ok, r.error.c_str());
        QVERIFY(pid > 0 && ended);
        QCOMPARE(steps, 6);
        QCOMPARE(arms, 3);  // fp32, bf16, and the graph arm skipped: "needs a GPU"
        QVERIFY(saves >= 3);
        QCOMPARE(r.sessionPath, startedPath);
        QCOMPARE(r.session.steps.size(), size_t(6));
        QCOMPARE(r.session.lab.size(), size_t(3));
        QVERIFY(r.session.dataLoaderMs.has_value());
        QVERIFY(r.session.interrupted.empty());
        QCOMPARE(memories, 1);  // after the fp32 arm
        QVERIFY(r.session.memory && r.session.memory->split.parameterBytes > 0);
    }

    // SIGKILL in the middle of the fp32 arm: one line naming the signal, the arm and the
    // step; every step the callbacks saw is in the session saved for it.
    void sigkillMidRunKeepsTheStepsMeasured()
    {
        lab::RunConfig c = smallRun(m_dir, "killed");
        c.steps = 100000;  // minutes, unless killed
        int pid = 0, steps = 0;
        lab::RunCallbacks callbacks;
        callbacks.engineStarted = [&](int p) { pid = p > 0 ? p : pid; };
        callbacks.step = [&](const session::StepTiming&) {
            if (++steps == 5)
                ::kill(pid, SIGKILL);
        };
        const lab::RunResult r = lab::runEngine(c, callbacks);
        QVERIFY(!r.ok);
        QVERIFY2(isOneLine(r.error), r.error.c_str());
        QVERIFY2(r.error.find("the engine was killed by SIGKILL in the fp32 arm at step") !=
                     std::string::npos,
                 r.error.c_str());
        QVERIFY2(r.error.find("kept: " + format::counted(uint64_t(steps), "step", "steps")) !=
                     std::string::npos,
                 r.error.c_str());
        QVERIFY(steps >= 5);
        std::string error;
        const auto saved = session::loadSession(r.sessionPath, error);
        QVERIFY2(saved, error.c_str());
        QCOMPARE(saved->steps.size(), size_t(steps));
        QCOMPARE(saved->config.at("model"), std::string("mlp"));
        QCOMPARE(saved->interrupted, r.error.substr(0, r.error.find("; kept")));
    }

    // A TorchScript model that makes the engine read far outside a tensor (a view with a
    // 2^40 stride, which torch does not check) on its ninth call: a segmentation fault in
    // the engine, after the steps before it were measured.
    void aModelThatCrashesTheEngineIsOneLine()
    {
        const QString model = m_dir.path() + "/crash.pt";
        const QString script =
            QStringLiteral(
                "import torch\n"
                "class Crash(torch.nn.Module):\n"
                "    calls: int\n"
                "    def __init__(self):\n"
                "        super().__init__()\n"
                "        self.fc = torch.nn.Linear(8, 10)\n"
                "        self.calls = 0\n"
                "    def forward(self, x):\n"
                "        self.calls += 1\n"
                "        y = self.fc(x)\n"
                "        if self.calls > 8:\n"
                "            far = torch.ops.aten._reshape_alias(y.view(-1), [2], [1 << 40])\n"
                "            y = y + far.sum()\n"
                "        return y\n"
                "torch.jit.save(torch.jit.script(Crash()), '%1')\n")
                .arg(model);
        QString error;
        QVERIFY2(test::runPythonScript(QStringLiteral(KINETOSCOPE_PYTHON), script,
                                       m_dir.path() + "/crash.py", error),
                 qPrintable(error));
        lab::RunConfig c = smallRun(m_dir, "crash");
        c.model = model.toStdString();
        c.inputShape = {8};
        c.steps = 20;
        int steps = 0;
        lab::RunCallbacks callbacks;
        callbacks.step = [&](const session::StepTiming&) { ++steps; };
        const lab::RunResult r = lab::runEngine(c, callbacks);
        QVERIFY(!r.ok);
        QVERIFY2(isOneLine(r.error), r.error.c_str());
        QVERIFY2(r.error.find("the engine crashed (SIGSEGV") != std::string::npos, r.error.c_str());
        QVERIFY2(r.error.find("in the fp32 arm at step 8") != std::string::npos, r.error.c_str());
        QCOMPARE(steps, 6);  // calls 3-8 after two warm-up steps
        std::string loadError;
        const auto saved = session::loadSession(r.sessionPath, loadError);
        QVERIFY2(saved, loadError.c_str());
        QCOMPARE(saved->steps.size(), size_t(6));
        QVERIFY(saved->interrupted.find("SIGSEGV") != std::string::npos);
        // The same through `kinetoscope run`: exit 2, the reason as its last line.
        std::ostringstream out, err;
        const std::string dir = (m_dir.path() + "/crash-cli").toStdString();
        QCOMPARE(
            cli::run({"run", "--model", model.toStdString(), "--input-shape", "8", "--device",
                      "cpu", "--steps", "20", "--warmup", "2", "--batch-size", "16", "--out", dir},
                     out, err),
            2);
        const QStringList lines = QString::fromStdString(err.str()).trimmed().split('\n');
        QVERIFY2(lines.last().startsWith("kinetoscope run: the engine crashed (SIGSEGV"),
                 qPrintable(lines.last()));
        QVERIFY2(lines.last().contains("kept: 6 steps, 0 arms in " + QString::fromStdString(dir)),
                 qPrintable(lines.last()));
    }

    // Cancel goes as a message: the engine stops after the step in flight and reports it
    // itself (no signal needed), the session saved.
    void cancelIsAMessage()
    {
        lab::RunConfig c = smallRun(m_dir, "cancelled");
        c.steps = 100000;
        std::atomic<bool> cancel{false};
        int steps = 0;
        lab::RunCallbacks callbacks;
        callbacks.cancel = &cancel;
        callbacks.cancelledBy = [] { return std::string("a test"); };
        callbacks.step = [&](const session::StepTiming&) {
            if (++steps == 3)
                cancel = true;
        };
        lab::EngineOptions options;
        options.cancelGrace =
            std::chrono::milliseconds(60'000);  // a signal would come too late for the test
        QElapsedTimer clock;
        clock.start();
        const lab::RunResult r = lab::runEngine(c, callbacks, options);
        QVERIFY(clock.elapsed() < 50'000);
        // Who cancelled goes with the message; the engine keeps every step it reported (the
        // first arm had not ended) and says where it stopped.
        QVERIFY2(r.error.starts_with("cancelled by a test in the fp32 arm after step "),
                 r.error.c_str());
        QVERIFY2(r.error.ends_with("; kept: " + format::counted(uint64_t(steps), "step", "steps") +
                                   ", 0 arms in " + r.sessionPath),
                 r.error.c_str());
        QVERIFY(!r.sessionPath.empty());
        QCOMPARE(r.session.steps.size(), size_t(steps));
        QCOMPARE(r.session.interrupted, r.error.substr(0, r.error.find("; kept")));
    }

    void anEngineThatIsMissingOrSpeaksNoProtocolIsOneLine()
    {
        lab::EngineOptions missing;
        missing.executable = (m_dir.path() + "/no-engine").toStdString();
        const lab::RunResult none = lab::runEngine(smallRun(m_dir, "none"), {}, missing);
        QVERIFY(!none.ok);
        QVERIFY2(none.error.find("not installed") != std::string::npos, none.error.c_str());
        // echo prints its arguments: a line that is not a message.
        lab::EngineOptions echo;
        echo.executable = "/bin/echo";
        const lab::RunResult wrong = lab::runEngine(smallRun(m_dir, "echo"), {}, echo);
        QVERIFY(!wrong.ok);
        QVERIFY2(isOneLine(wrong.error), wrong.error.c_str());
        QVERIFY2(wrong.error.find("the engine wrote not a message: --") != std::string::npos,
                 wrong.error.c_str());
    }

    // The real engine on a machine without LibTorch where it was built (an installed
    // package): the loader's failure is one line naming the library and what to set;
    // KINETOSCOPE_LIBTORCH then starts it.
    void anEngineWithoutLibTorchSaysWhereToPointIt()
    {
        QFile original(QString::fromStdString(lab::findEngine()));
        QVERIFY(original.open(QIODevice::ReadOnly));
        QByteArray bytes = original.readAll();
        // Its RUNPATH names the torch wheel's lib folder: kept aside, then made a folder
        // that does not exist (same length, so the binary stays valid).
        const QByteArray folder = "/torch/lib";
        const qsizetype at = bytes.indexOf(folder + ':') >= 0 ? bytes.indexOf(folder + ':')
                                                              : bytes.indexOf(folder + '\0');
        QVERIFY2(at >= 0, "the engine's RUNPATH names no torch/lib folder");
        qsizetype begin = at;
        while (begin > 0 && bytes[begin - 1] != ':' && bytes[begin - 1] != '\0')
            --begin;
        const QByteArray libtorch = bytes.mid(begin, at + folder.size() - begin);
        QVERIFY(QFileInfo::exists(QString::fromUtf8(libtorch) + "/libtorch_cpu.so"));
        for (qsizetype i = bytes.indexOf(folder); i >= 0; i = bytes.indexOf(folder, i + 1))
            bytes.replace(i, folder.size(), "/torch/nil");
        const QString moved = m_dir.path() + "/installed-engine";
        QFile copy(moved);
        QVERIFY(copy.open(QIODevice::WriteOnly));
        copy.write(bytes);
        copy.close();
        QVERIFY(copy.setPermissions(copy.permissions() | QFileDevice::ExeOwner));
        lab::EngineOptions options;
        options.executable = moved.toStdString();
        qunsetenv("KINETOSCOPE_LIBTORCH");
        const lab::RunResult r = lab::runEngine(smallRun(m_dir, "no-libtorch"), {}, options);
        QVERIFY(!r.ok);
        QVERIFY2(isOneLine(r.error), r.error.c_str());
        QVERIFY2(r.error.starts_with("the engine cannot start: lib") &&
                     r.error.find("KINETOSCOPE_LIBTORCH") != std::string::npos,
                 r.error.c_str());
        qputenv("KINETOSCOPE_LIBTORCH", libtorch);
        const auto environment = lab::engineEnvironment();
        QVERIFY(std::any_of(environment.begin(), environment.end(), [&](const std::string& e) {
            return e.starts_with("LD_LIBRARY_PATH=" + libtorch.toStdString());
        }));
        const lab::RunResult started =
            lab::runEngine(smallRun(m_dir, "with-libtorch"), {}, options);
        qunsetenv("KINETOSCOPE_LIBTORCH");
        QVERIFY2(started.ok, started.error.c_str());
    }

    // A process the engine started may keep its outputs open after it exits: the caller
    // reads them for a moment, then reports the exit, instead of waiting for that process.
    void anEngineThatExitsEarlyIsOneLineEvenWithOutputsHeldOpen()
    {
        const QString script = m_dir.path() + "/exits-early.sh";
        QFile file(script);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(
            QStringLiteral("#!/bin/sh\necho "
                           "'{\"type\":\"hello\",\"protocol\":%1,\"pid\":1}'\nsleep 20 &\nexit 3\n")
                .arg(lab::kProtocolVersion)
                .toUtf8());
        file.close();
        QVERIFY(file.setPermissions(file.permissions() | QFileDevice::ExeOwner));
        lab::EngineOptions options;
        options.executable = script.toStdString();
        QElapsedTimer clock;
        clock.start();
        const lab::RunResult r = lab::runEngine(smallRun(m_dir, "early"), {}, options);
        QVERIFY2(clock.elapsed() < 10'000, qPrintable(QString::number(clock.elapsed())));
        QVERIFY2(isOneLine(r.error), r.error.c_str());
        QVERIFY2(r.error ==
                     "the engine exited with status 3 without finishing while it prepared the run",
                 r.error.c_str());
        QVERIFY(r.sessionPath.empty());  // nothing was started: nothing to keep
    }

    // Issue 50: a TorchScript MLP (20 features in, 5 classes out) that does not fit the
    // input it is given. `kinetoscope run` says why in one line, its last: torch's reason
    // (not the interpreter's opening sentence), the input shape the engine used and that
    // --input-shape sets it; with the shape right, that a 5-class model needs --classes 5
    // (not torch's "Target 7 is out of bounds"). A run that never started writes nothing.
    void aModelThatDoesNotFitItsInputSaysWhyInOneLine()
    {
        const QString model = m_dir.path() + "/net_scripted.pt";
        const QString script =
            QStringLiteral("import torch\n"
                           "net = torch.nn.Sequential(torch.nn.Linear(20, 64), torch.nn.ReLU(),\n"
                           "                          torch.nn.Linear(64, 5))\n"
                           "torch.jit.save(torch.jit.script(net), '%1')\n")
                .arg(model);
        QString error;
        QVERIFY2(test::runPythonScript(QStringLiteral(KINETOSCOPE_PYTHON), script,
                                       m_dir.path() + "/net_scripted.py", error),
                 qPrintable(error));
        // The CLI's exit code and its last line on standard error; its output folder kept or not.
        struct Said
        {
            int code;
            QString line;
            bool wroteOut;
        };
        auto run = [&](const char* name, const std::vector<std::string>& options) {
            const std::string dir = (m_dir.path() + "/" + name).toStdString();
            std::vector<std::string> args{"run", "--model", model.toStdString(), "--out", dir};
            args.insert(args.end(), {"--device", "cpu", "--steps", "2", "--warmup", "1",
                                     "--batch-size", "32", "--no-samples"});
            args.insert(args.end(), options.begin(), options.end());
            std::ostringstream out, err;
            const int code = cli::run(args, out, err);
            std::string text = err.str();
            while (!text.empty() && text.back() == '\n')
                text.pop_back();
            return Said{code, QString::fromStdString(text.substr(text.rfind('\n') + 1)),
                        QFileInfo::exists(dir.c_str())};
        };

        const Said noShape = run("net-no-shape", {});
        QCOMPARE(noShape.code, 2);
        QCOMPARE(
            noShape.line,
            QStringLiteral("kinetoscope run: the TorchScript model failed on its input: mat1 and "
                           "mat2 shapes cannot be multiplied (32x256 and 20x64); the input was "
                           "synthetic samples of shape 256 (batch 32x256), the default without "
                           "--input-shape: pass --input-shape with the shape of one sample the "
                           "model takes (--input-shape 20 fits the layer that failed)"));
        QVERIFY(!noShape.wroteOut);
        // The same in inference, where nothing else runs after the forward.
        const Said inference = run("net-inference", {"--mode", "inference"});
        QCOMPARE(inference.code, 2);
        QCOMPARE(inference.line, noShape.line);

        // An image shape that a Linear meets unflattened: torch's reason and the shape
        // used, and no guess at the features (the layer saw 3072 rows of 32, not samples).
        const Said image = run("net-image", {"--input-shape", "3x32x32"});
        QCOMPARE(image.code, 2);
        QCOMPARE(
            image.line,
            QStringLiteral("kinetoscope run: the TorchScript model failed on its input: mat1 and "
                           "mat2 shapes cannot be multiplied (3072x32 and 20x64); the input was "
                           "synthetic samples of shape 3x32x32 (batch 32x3x32x32), from "
                           "--input-shape: pass --input-shape with the shape of one sample the "
                           "model takes"));

        const Said classes = run("net-classes", {"--input-shape", "20"});
        QCOMPARE(classes.code, 2);
        QCOMPARE(
            classes.line,
            QStringLiteral("kinetoscope run: the model gives 5 classes (its output is 32x5) but "
                           "the synthetic targets have 10 (--classes, 10 by default): pass "
                           "--classes 5"));
        QVERIFY(!classes.wroteOut);

        const Said fits = run("net-fits", {"--input-shape", "20", "--classes", "5"});
        QVERIFY2(fits.code == 0, qPrintable(fits.line));
        QVERIFY(fits.wroteOut);
    }

    // `kinetoscope run` in this process, its engine a child.
    void theCliRunsAndRejectsBadOptions()
    {
        std::ostringstream out, err;
        const std::string dir = (m_dir.path() + QStringLiteral("/cli")).toStdString();
        QCOMPARE(cli::run({"run", "--model", "mlp", "--device", "cpu", "--steps", "4", "--warmup",
                           "1", "--out", dir},
                          out, err),
                 0);
        QVERIFY(out.str().find("fp32") != std::string::npos);
        QVERIFY(out.str().find("session:") != std::string::npos);
        // The memory triage: the phase table as the CPU measures it (no reserved column:
        // said once), then the split.
        QVERIFY2(
            out.str().find("memory after each phase (reserved: the CPU has no caching allocator)\n"
                           "phase               allocated  peak allocated\n") != std::string::npos,
            out.str().c_str());
        QVERIFY(out.str().find("needs a GPU") == std::string::npos);
        QVERIFY(out.str().find("  optimizer step ") != std::string::npos);
        QVERIFY(out.str().find("optimizer state ") != std::string::npos);
        std::ostringstream outInference, errInference;
        QCOMPARE(
            cli::run({"run", "--model", "mlp", "--device", "cpu", "--mode", "inference", "--steps",
                      "20", "--warmup", "2", "--sweep", "batch=8,16", "--out", dir + "-inference"},
                     outInference, errInference),
            0);
        QVERIFY2(outInference.str().find("latency mean ") != std::string::npos,
                 outInference.str().c_str());
        QVERIFY(outInference.str().find("Latency per batch, fp32: mean ") != std::string::npos);
        QVERIFY(outInference.str().find("batch_size = 16") != std::string::npos);
        QVERIFY(outInference.str().find("memory after each phase") == std::string::npos);
        std::ostringstream out2, err2;
        QCOMPARE(cli::run({"run", "--steps", "many", "--out", dir}, out2, err2), 2);
        QCOMPARE(cli::run({"run", "--model", "mlp"}, out2, err2), 2);  // no --out
        QCOMPARE(cli::run({"run", "--sweep", "threads=1,2", "--out", dir}, out2, err2), 2);
        QVERIFY(err2.str().find("--sweep takes") != std::string::npos);
        // --device auto finds no GPU here: the engine says in one line that a snapshot
        // needs the CUDA caching allocator, before measuring anything.
        std::ostringstream outSnapshot, errSnapshot;
        QCOMPARE(cli::run({"run", "--model", "mlp", "--memory-snapshot", "--steps", "2", "--out",
                           dir + "-snapshot"},
                          outSnapshot, errSnapshot),
                 2);
        QVERIFY2(errSnapshot.str().find(
                     "kinetoscope run: --memory-snapshot records the CUDA caching allocator's "
                     "history: it needs a GPU run") != std::string::npos,
                 errSnapshot.str().c_str());
        std::ostringstream out3, err3;
        QCOMPARE(
            cli::run({"run", "--model", "mlp", "--device", "cpu", "--steps", "3", "--warmup", "1",
                      "--lab", "--split", "--sweep", "workers=0,1", "--out", dir + "-lab"},
                     out3, err3),
            0);
        QVERIFY2(out3.str().find("fp32 -> bf16") != std::string::npos,
                 out3.str().c_str());  // the seeds' reading
        QVERIFY(out3.str().find("Sweep of workers") != std::string::npos);
        // No progress bar when stderr is not a terminal: a line per stage as it starts, and
        // one with its steps and the time they have left once its pace is known.
        const std::string said = err3.str();
        QVERIFY2(said.find("kinetoscope run: fp32\nkinetoscope run: fp32: step 3 of 4, ") !=
                     std::string::npos,
                 said.c_str());
        QVERIFY2(said.find(" left in this arm\nkinetoscope run: bf16\n") != std::string::npos,
                 said.c_str());
        QVERIFY(err3.str().find('\r') == std::string::npos);
    }

    // Issue 30, class 3: the README's CPU lab with a slow input pipeline and no loader
    // workers, profiled. Its trace holds no device activity, and on a CPU the wait for the
    // DataLoader is the step's waste as on a GPU: it leads, with its gain. The wait is
    // 96 ms a step (1.5 ms for each of 64 samples), several times the MLP's compute even on
    // a loaded 2-core machine: with 0.3 ms a sample (19 ms a step) the compute, slowed by
    // the other tests CI runs beside this one, overtook it once and rightly led instead.
    void aCpuLabStarvedOfDataLeadsWithTheDataLoader()
    {
        const std::string dir = (m_dir.path() + QStringLiteral("/starved")).toStdString();
        std::ostringstream out, err;
        QCOMPARE(cli::run({"run", "--model", "mlp", "--device", "cpu", "--workers", "0",
                           "--sample-io-us", "1500", "--steps", "8", "--warmup", "2", "--profile",
                           "--out", dir},
                          out, err),
                 0);
        std::ostringstream diagnosis, diagnosisErr;
        QCOMPARE(cli::run({"diagnose", dir + "/trace.json", "--json"}, diagnosis, diagnosisErr), 0);
        const nlohmann::json d = nlohmann::json::parse(diagnosis.str());
        QVERIFY2(!d["findings"].empty(), diagnosis.str().c_str());
        const nlohmann::json& top = d["findings"][0];
        QCOMPARE(QString::fromStdString(top["id"].get<std::string>()), QString("dataloader-bound"));
        // Its gain is the wait itself (a sleep per sample: it does not grow with a loaded CPU,
        // the compute does): a good part of the step whatever the machine does meanwhile.
        QVERIFY(top["estimated_gain_us"].get<double>() > 0.1 * d["step_time_us"].get<double>());
        bool note = false;
        for (const nlohmann::json& f : d["findings"])
            note |= f["id"] == "cpu-only-window";
        QVERIFY(note);
    }

    // `kinetoscope run` with --device auto on a machine without a GPU (this one, and CI's):
    // one line of ours says so; torch's and Kineto's own messages about it go to
    // OUT/engine.log, not to the terminal.
    void theCliSaysOnceThereIsNoGpuAndKeepsTorchNoiseInTheLog()
    {
        const QString out = m_dir.path() + "/cli-auto";
        QProcess cli;
        cli.start(QStringLiteral(KINETOSCOPE_BINARY),
                  {"run", "--model", "mlp", "--device", "auto", "--steps", "4", "--warmup", "1",
                   "--batch-size", "8", "--profile", "--out", out});
        QVERIFY(cli.waitForFinished(120'000));
        const QString err = QString::fromUtf8(cli.readAllStandardError());
        QVERIFY2(cli.exitCode() == 0, qPrintable(err));
        std::string error;
        const auto saved =
            session::loadSession((out + "/session.kinetoscope.json").toStdString(), error);
        QVERIFY2(saved, error.c_str());
        if (saved->environment.at("cuda_available") != "no")
            QSKIP("this machine has a CUDA GPU");
        QCOMPARE(err.count(QStringLiteral("no CUDA GPU here, running on the CPU")), 1);
        QVERIFY2(!err.contains(QStringLiteral("gpuGetDeviceCount")) &&
                     !err.contains(QStringLiteral("CPUAllocator")),
                 qPrintable(err));
        QFile log(out + "/engine.log");
        QVERIFY(log.open(QIODevice::ReadOnly));
        QVERIFY2(log.readAll().contains("gpuGetDeviceCount"),
                 "Kineto's message is kept in the log");
    }

    // Ctrl-C on `kinetoscope run` cancels the run (the engine is in a group of its own,
    // so only the CLI gets the signal): the engine saves and stops after its step. Inside
    // the first arm (issue 50 item 9), the session keeps every step measured so far and
    // says it was cancelled, by Ctrl-C, and where; `diagnose` and `summary` of it say so
    // first, never reading it as an empty run.
    void ctrlCOnTheCliCancelsTheRun()
    {
        QProcess cli;
        const QString out = m_dir.path() + "/cli-interrupted";
        QByteArray stderrText = startLongCliRun(cli, out);
        QVERIFY2(stderrText.contains("kinetoscope run: fp32: step "), stderrText.constData());
        QTest::qWait(1500);  // past the warm-up: measured steps to keep
        QCOMPARE(::kill(pid_t(cli.processId()), SIGINT), 0);
        QVERIFY(cli.waitForFinished(30'000));
        // It ends by the signal once its report is out (a shell shows 130, and a shell loop
        // around it stops), as a program that cleans up after Ctrl-C does.
        QCOMPARE(cli.exitStatus(), QProcess::CrashExit);
        stderrText += cli.readAllStandardError();
        const QString last = QString::fromUtf8(stderrText).trimmed().split('\n').last();
        QVERIFY2(last.startsWith(
                     "kinetoscope run: cancelled by Ctrl-C (SIGINT) in the fp32 arm after step "),
                 qPrintable(last));
        const std::string sessionPath = (out + "/session.kinetoscope.json").toStdString();
        std::string error;
        const auto saved = session::loadSession(sessionPath, error);
        QVERIFY2(saved, error.c_str());
        QVERIFY(!saved->steps.empty());
        QVERIFY(last.endsWith(QStringLiteral("; kept: %1, 0 arms in %2")
                                  .arg(QString::fromStdString(format::counted(
                                      uint64_t(saved->steps.size()), "step", "steps")))
                                  .arg(QString::fromStdString(sessionPath))));
        QVERIFY2(saved->interrupted.starts_with(
                     "cancelled by Ctrl-C (SIGINT) in the fp32 arm after step "),
                 saved->interrupted.c_str());
        QCOMPARE(saved->phases.size(), size_t(5));
        const std::string stopped =
            "This run did not finish: " + saved->interrupted +
            ". What it holds was measured before: " +
            format::counted(uint64_t(saved->steps.size()), "measured step", "measured steps") +
            ", no arm finished.";
        std::ostringstream diagnosed, summarised, ignored;
        QCOMPARE(cli::run({"diagnose", sessionPath}, diagnosed, ignored), 0);
        QVERIFY2(diagnosed.str().find("\n1. [HIGH] The run did not finish: " + saved->interrupted +
                                      "  (run-interrupted)") != std::string::npos,
                 diagnosed.str().c_str());
        QCOMPARE(cli::run({"summary", sessionPath}, summarised, ignored), 0);
        QVERIFY2(summarised.str().find(stopped) != std::string::npos, summarised.str().c_str());
    }

    // `kinetoscope run`, the real binary, its engine killed from outside: exit 2, the
    // reason as the last line of standard error, the session with what it measured.
    void theCliSaysItsEngineWasKilledInOneLine()
    {
        QProcess cli;
        const QString out = m_dir.path() + "/cli-killed";
        QByteArray stderrText = startLongCliRun(cli, out);
        QVERIFY2(stderrText.contains("kinetoscope run: fp32: step "), stderrText.constData());
        QTest::qWait(1500);
        const QList<qint64> children = childrenOf(cli.processId());
        QCOMPARE(children.size(), 1);
        QCOMPARE(::kill(pid_t(children.first()), SIGKILL), 0);
        QVERIFY(cli.waitForFinished(30'000));
        QCOMPARE(cli.exitCode(), 2);
        stderrText += cli.readAllStandardError();
        const QStringList lines = QString::fromUtf8(stderrText).trimmed().split('\n');
        const QString last = lines.last();
        QVERIFY2(last.startsWith(
                     "kinetoscope run: the engine was killed by SIGKILL in the fp32 arm at step"),
                 qPrintable(last));
        QVERIFY2(last.contains(" steps, 0 arms in " + out + "/session.kinetoscope.json"),
                 qPrintable(last));
        std::string error;
        const auto saved =
            session::loadSession((out + "/session.kinetoscope.json").toStdString(), error);
        QVERIFY2(saved, error.c_str());
        QVERIFY(last.contains(QString::fromStdString(
            "kept: " + format::counted(uint64_t(saved->steps.size()), "step", "steps"))));
    }
};

QTEST_GUILESS_MAIN(TestEngineProcess)
#include "test_engine_process.moc"
