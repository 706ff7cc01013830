// The engine's models and datasets on the CPU: the transformer, a TorchScript model
// written by Python's torch.jit.save, MNIST and CIFAR-10 files in their original binary
// formats and a torch.save file of tensors, all generated here (tiny); and one-line
// reasons for files that cannot be read.
#include "core/engine/lab_runner.h"
#include "tests/support/python_script.h"

#include <QtTest>
#include <fstream>
#include <random>

using namespace kinetoscope;

namespace {

void writeBytes(const QString& path, const std::vector<uint8_t>& bytes)
{
    std::ofstream out(path.toStdString(), std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

void putBigEndian(std::vector<uint8_t>& bytes, uint32_t value)
{
    for (int shift = 24; shift >= 0; shift -= 8)
        bytes.push_back(uint8_t(value >> shift));
}

// IDX files as MNIST ships them: magic, count, rows, cols, then bytes.
void writeMnist(const QString& dir, uint32_t count)
{
    std::mt19937 random(1);
    std::vector<uint8_t> images, labels;
    putBigEndian(images, 0x803);
    putBigEndian(images, count);
    putBigEndian(images, 28);
    putBigEndian(images, 28);
    putBigEndian(labels, 0x801);
    putBigEndian(labels, count);
    for (uint32_t i = 0; i < count; ++i) {
        for (int p = 0; p < 28 * 28; ++p)
            images.push_back(uint8_t(random()));
        labels.push_back(uint8_t(i % 10));
    }
    writeBytes(dir + "/train-images-idx3-ubyte", images);
    writeBytes(dir + "/train-labels-idx1-ubyte", labels);
}

// CIFAR-10 binary version: records of label byte + 3072 pixel bytes.
void writeCifarBatch(const QString& path, uint32_t records, size_t dropBytes = 0)
{
    std::mt19937 random(2);
    std::vector<uint8_t> bytes;
    for (uint32_t i = 0; i < records; ++i) {
        bytes.push_back(uint8_t(i % 10));
        for (int p = 0; p < 3072; ++p)
            bytes.push_back(uint8_t(random()));
    }
    bytes.resize(bytes.size() - dropBytes);
    writeBytes(path, bytes);
}

// Runs the venv's Python (the torch the engine links) on a script, from a file:
// torch.jit.script reads the source of the classes it compiles.
}  // namespace

class TestEngineData : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

    engine::RunConfig small(const char* out) const
    {
        engine::RunConfig c;
        c.device = "cpu";
        c.steps = 4;
        c.warmup = 1;
        c.batchSize = 16;
        c.hidden = 64;
        c.layers = 2;
        c.liveSamples = false;
        c.outDir = (m_dir.path() + QLatin1Char('/') + QLatin1String(out)).toStdString();
        return c;
    }

    static void verifyRan(const engine::RunResult& r, size_t arms = 1)
    {
        QVERIFY2(r.ok, r.error.c_str());
        QCOMPARE(r.session.lab.size(), arms);
        for (size_t i = 0; i < std::min<size_t>(arms, 2); ++i)
            QVERIFY2(r.session.lab[i].ran && r.session.lab[i].samplesPerSecond > 0,
                     r.session.lab[i].name());
        QVERIFY(!r.session.steps.empty());
        for (const session::StepTiming& t : r.session.steps)
            QVERIFY(std::isfinite(t.loss) && t.forwardMs > 0 && t.backwardMs > 0);
    }

private Q_SLOTS:
    void transformerTrainsOnSyntheticTokensInBothPrecisions()
    {
        engine::RunConfig c = small("transformer");
        c.model = "transformer";
        c.heads = 4;
        c.sequenceLength = 16;
        c.vocabulary = 50;
        c.lab = true;
        const engine::RunResult r = engine::runLab(c);
        verifyRan(r, 3);
        QCOMPARE(QString::fromStdString(r.session.lab[2].skippedReason), QString("needs a GPU"));
    }

    void mnistIdxFilesFeedTheMlpAndTheTransformer()
    {
        const QString dir = m_dir.path() + "/mnist";
        QDir().mkpath(dir);
        writeMnist(dir, 100);  // 6 batches of 16 per epoch: 5 steps cross an epoch
        engine::RunConfig c = small("mnist-mlp");
        c.model = "mlp";
        c.dataset = "mnist";
        c.dataPath = dir.toStdString();
        verifyRan(engine::runLab(c));
        c.model = "transformer";  // 28 rows of 28 pixels as tokens
        c.outDir += "-transformer";
        c.dropLast = false;  // the epoch's last batch holds 4 samples
        c.steps = 7;
        verifyRan(engine::runLab(c));
    }

    void cifarBinaryBatchesFeedTheCnn()
    {
        const QString dir = m_dir.path() + "/cifar/cifar-10-batches-bin";
        QDir().mkpath(dir);
        writeCifarBatch(dir + "/data_batch_1.bin", 40);
        writeCifarBatch(dir + "/data_batch_2.bin", 40);
        engine::RunConfig c = small("cifar");
        c.model = "cnn";
        c.dataset = "cifar10";
        c.dataPath = (m_dir.path() + "/cifar").toStdString();
        c.workers = 2;
        verifyRan(engine::runLab(c));

        writeCifarBatch(dir + "/data_batch_3.bin", 3, 7);  // truncated
        const engine::RunResult bad = engine::runLab(c);
        QVERIFY(!bad.ok);
        QVERIFY2(bad.error.find("truncated") != std::string::npos, bad.error.c_str());
        QVERIFY(bad.error.find('\n') == std::string::npos);
    }

    void pythonFilesTrainInCpp_data()
    {
        // Written by Python's torch: a TorchScript model (torch.jit.save) and a tensors file.
        const QString model = m_dir.path() + "/scripted.pt", tensors = m_dir.path() + "/tensors.pt";
        const QString script =
            QStringLiteral("import torch\n"
                           "class Net(torch.nn.Module):\n"
                           "    def __init__(self):\n"
                           "        super().__init__()\n"
                           "        self.body = torch.nn.Sequential(torch.nn.Flatten(), "
                           "torch.nn.Linear(48, 32),\n"
                           "                                        torch.nn.ReLU(), "
                           "torch.nn.Linear(32, 10))\n"
                           "    def forward(self, x):\n"
                           "        return self.body(x)\n"
                           "torch.jit.save(torch.jit.script(Net()), '%1')\n"
                           "g = torch.Generator().manual_seed(0)\n"
                           "torch.save((torch.randn(64, 3, 4, 4, generator=g), torch.randint(0, "
                           "10, (64,), generator=g)), '%2')\n")
                .arg(model, tensors);
        QTest::addColumn<QString>("modelName");
        QTest::addColumn<QString>("dataset");
        QString error;
        QVERIFY2(test::runPythonScript(QStringLiteral(KINETOSCOPE_PYTHON), script,
                                       m_dir.path() + "/make_files.py", error),
                 qPrintable(error));
        QTest::newRow("torchscript on synthetic") << model << "synthetic";
        QTest::newRow("torchscript on tensors") << model << "tensors";
        QTest::newRow("mlp on tensors") << "mlp"
                                        << "tensors";
    }

    void pythonFilesTrainInCpp()
    {
        QFETCH(QString, modelName);
        QFETCH(QString, dataset);
        engine::RunConfig c = small("python-files");
        c.model = modelName.toStdString();
        c.dataset = dataset.toStdString();
        if (c.dataset != "synthetic")  // nothing reads it there (and run refuses it)
            c.dataPath = (m_dir.path() + "/tensors.pt").toStdString();
        c.inputShape = {3, 4, 4};
        c.outDir += "-" + dataset.toStdString();
        verifyRan(engine::runLab(c));
    }

    // Issue 50: a TorchScript model's forward and backward graphs run in torch's interpreter,
    // which rethrows what it met as a std::runtime_error of several lines, an out-of-memory
    // too. It is one still: the batch sweep stops at it and the run goes on, instead of
    // ending on "The following operation failed in the TorchScript interpreter.". Under a
    // 52 MiB limit, batch 2048's forward fits (about 45 MiB) and its backward does not.
    void anOutOfMemoryInsideATorchScriptModelStopsTheBatchSweep()
    {
        const QString model = m_dir.path() + "/wide.pt";
        const QString script =
            QStringLiteral(
                "import torch\n"
                "net = torch.nn.Sequential(torch.nn.Linear(20, 1024), torch.nn.ReLU(),\n"
                "                          torch.nn.Linear(1024, 1024), torch.nn.ReLU(),\n"
                "                          torch.nn.Linear(1024, 5))\n"
                "torch.jit.save(torch.jit.script(net), '%1')\n")
                .arg(model);
        QString error;
        QVERIFY2(test::runPythonScript(QStringLiteral(KINETOSCOPE_PYTHON), script,
                                       m_dir.path() + "/wide.py", error),
                 qPrintable(error));
        engine::RunConfig c = small("script-out-of-memory");
        c.model = model.toStdString();
        c.inputShape = {20};
        c.classes = 5;
        c.steps = 1;
        c.memoryLimitMb = 52;
        c.sweepBatchSizes = {8, 2048, 65536};
        const engine::RunResult r = engine::runLab(c);
        QVERIFY2(r.ok, r.error.c_str());
        QCOMPARE(r.session.sweep.size(), size_t(3));
        QVERIFY2(r.session.sweep[0].error.empty(), r.session.sweep[0].error.c_str());
        QCOMPARE(QString::fromStdString(r.session.sweep[1].error),
                 QStringLiteral("out of memory at batch size 2048"));
        QCOMPARE(QString::fromStdString(r.session.sweep[2].error),
                 QStringLiteral("not run: batch size 2048 ran out of memory"));
    }

    void unreadableModelsAndDatasetsGiveOneLine_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("dataset");
        QTest::addColumn<QString>("data");
        QTest::addColumn<QString>("reason");
        const QString garbage = m_dir.path() + "/garbage.pt";
        writeBytes(garbage, {'n', 'o', 't', ' ', 'a', ' ', 'z', 'i', 'p'});
        QTest::newRow("not TorchScript") << garbage << "synthetic"
                                         << ""
                                         << "cannot load the TorchScript model";
        QTest::newRow("missing model") << m_dir.path() + "/none.pt"
                                       << "synthetic"
                                       << ""
                                       << "no such file";
        QTest::newRow("unknown dataset") << "mlp"
                                         << "imagenet"
                                         << ""
                                         << "not 'imagenet'";
        QTest::newRow("no data path") << "mlp"
                                      << "mnist"
                                      << ""
                                      << "needs --data";
        QTest::newRow("empty mnist dir") << "mlp"
                                         << "mnist" << m_dir.path() << "no train-images-idx3-ubyte";
        QTest::newRow("not a torch.save file") << "mlp"
                                               << "tensors" << garbage << "not a torch.save file";
    }

    void unreadableModelsAndDatasetsGiveOneLine()
    {
        QFETCH(QString, model);
        QFETCH(QString, dataset);
        QFETCH(QString, data);
        QFETCH(QString, reason);
        engine::RunConfig c = small("bad-input");
        c.model = model.toStdString();
        c.dataset = dataset.toStdString();
        c.dataPath = data.toStdString();
        const engine::RunResult r = engine::runLab(c);
        QVERIFY(!r.ok);
        QVERIFY2(r.error.find(reason.toStdString()) != std::string::npos, r.error.c_str());
        QVERIFY(r.error.find('\n') == std::string::npos);
        // A run that could not start writes nothing: a session there before stays as it was.
        QVERIFY(r.sessionPath.empty());
        QVERIFY(!QFileInfo::exists(QString::fromStdString(c.outDir + "/session.kinetoscope.json")));
    }
};

QTEST_GUILESS_MAIN(TestEngineData)
#include "test_engine_data.moc"
