#include "app/gui/lab_dialog.h"

#include "core/lab/run_options.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <algorithm>
#include <functional>

namespace kinetoscope::gui {

namespace {

QSpinBox* spin(QWidget* parent, int min, int max, int value, const QString& tooltip)
{
    auto* box = new QSpinBox(parent);
    box->setRange(min, max);
    box->setValue(value);
    box->setToolTip(tooltip);
    return box;
}

// "0, 2,4" -> numbers; false on anything else. Empty is an empty list.
bool parseList(const QString& text, std::vector<int64_t>& values)
{
    values.clear();
    for (const QString& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const qlonglong value = part.trimmed().toLongLong(&ok);
        if (!ok || value < 0)
            return false;
        values.push_back(value);
    }
    return true;
}

QWidget* withBrowse(QLineEdit* edit, QWidget* parent, const std::function<bool()>& folder)
{
    auto* row = new QWidget(parent);
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(edit, 1);
    auto* browse = new QPushButton(QObject::tr("Browse…"), row);
    layout->addWidget(browse);
    QObject::connect(browse, &QPushButton::clicked, edit, [edit, folder, parent] {
        const QString path =
            folder()
                ? QFileDialog::getExistingDirectory(parent, QObject::tr("Choose a folder"),
                                                    edit->text())
                : QFileDialog::getOpenFileName(parent, QObject::tr("Choose a file"), edit->text());
        if (!path.isEmpty())
            edit->setText(path);
    });
    return row;
}

}  // namespace

LabDialog::LabDialog(QWidget* parent)
    : QDialog(parent), m_model(new QComboBox(this)), m_modelFile(new QLineEdit(this)),
      m_dataset(new QComboBox(this)), m_dataPath(new QLineEdit(this)),
      m_device(new QComboBox(this)), m_mode(new QComboBox(this)),
      m_pin(new QCheckBox(tr("pinned memory"), this)),
      m_nonBlocking(new QCheckBox(tr("non-blocking copies"), this)),
      m_shuffle(new QCheckBox(tr("shuffle"), this)),
      m_dropLast(new QCheckBox(tr("drop last"), this)),
      m_lab(new QCheckBox(tr("three-run lab"), this)),
      m_split(new QCheckBox(tr("DataLoader vs compute"), this)),
      m_profile(new QCheckBox(tr("profiler window"), this)), m_sweepWorkers(new QLineEdit(this)),
      m_sweepBatch(new QLineEdit(this)), m_outDir(new QLineEdit(this)), m_error(new QLabel(this))
{
    setWindowTitle(tr("Run a lab"));
    m_model->addItems({QStringLiteral("mlp"), QStringLiteral("cnn"), QStringLiteral("transformer"),
                       tr("TorchScript file")});
    // Placeholders short enough to show whole in the narrow fields; the detail in tooltips.
    m_modelFile->setPlaceholderText(tr("torch.jit.save file"));
    m_modelFile->setToolTip(tr("The TorchScript model to train: a file written by torch.jit.save"));
    m_dataset->addItems({QStringLiteral("synthetic"), QStringLiteral("mnist"),
                         QStringLiteral("cifar10"), QStringLiteral("tensors")});
    m_dataset->setToolTip(
        tr("mnist and cifar10 read the original binary files from a folder; tensors reads a "
           "torch.save file of (inputs, targets)"));
    m_dataPath->setPlaceholderText(tr("folder or file"));
    m_dataPath->setToolTip(tr("The dataset's folder (mnist, cifar10) or file (tensors)"));
    m_device->addItems({QStringLiteral("auto"), QStringLiteral("cpu"), QStringLiteral("cuda")});
    m_mode->addItems({QStringLiteral("train"), QStringLiteral("inference")});
    m_mode->setToolTip(tr(
        "inference: eval mode without autograd, each batch's forward timed (CUDA events on a GPU); "
        "mean, std, p50, p95 and p99 per arm and per batch size"));
    m_memoryLimitMb = spin(this, 0, 1 << 24, 0,
                           tr("Allocations past this many MiB fail as out of memory (0: no "
                              "limit); the batch-size sweep stops at the first that does"));
    m_checkpointEvery = spin(this, 0, 1024, 0,
                             tr("Activation checkpointing of every N-th block of a built-in model "
                                "while training (0: off); the batch-size sweep runs each size "
                                "without and with it"));
    m_batch = spin(this, 1, 1 << 20, 64, tr("Samples per step"));
    m_steps = spin(this, 1, 100000, 20, tr("Measured steps per arm"));
    m_warmup = spin(this, 0, 10000, 3, tr("Steps run before measuring, always"));
    m_workers = spin(this, 0, 256, 2, tr("Loader threads; 0 loads on the training thread"));
    m_prefetch = spin(this, 1, 64, 2, tr("Batches queued per worker"));
    m_seed = spin(this, 0, 1 << 30, 0, tr("Same seed and data slice for every arm"));
    m_hidden = spin(this, 8, 16384, 512, tr("mlp width, transformer model width"));
    m_layers = spin(this, 1, 256, 4, tr("mlp/transformer layers, cnn blocks"));
    m_imageSize = spin(this, 8, 512, 32, tr("cnn on synthetic images: 32 or 224"));
    m_sampleCpuUs = spin(this, 0, 1000000, 0, tr("Per-sample CPU work (µs): a heavy transform"));
    m_sampleIoUs = spin(this, 0, 1000000, 0, tr("Per-sample wait (µs): slow storage"));
    m_shuffle->setChecked(true);
    m_dropLast->setChecked(true);
    m_lab->setChecked(true);
    m_split->setChecked(true);
    m_profile->setChecked(true);
    m_sweepWorkers->setPlaceholderText(tr("e.g. 0,2,4,8 (empty: no sweep)"));
    m_sweepBatch->setPlaceholderText(tr("e.g. 32,64,128 (empty: no sweep)"));
    const QString runs = QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation) +
                         QStringLiteral("/runs/");
    m_outDir->setText(runs +
                      QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")));

    auto* what = new QGroupBox(tr("Model and data"), this);
    auto* whatForm = new QFormLayout(what);
    whatForm->addRow(tr("Model"), m_model);
    whatForm->addRow(tr("TorchScript file"), withBrowse(m_modelFile, this, [] { return false; }));
    whatForm->addRow(tr("Dataset"), m_dataset);
    whatForm->addRow(tr("Data"), withBrowse(m_dataPath, this, [this] {
                         return m_dataset->currentText() != QLatin1String("tensors");
                     }));
    whatForm->addRow(tr("Hidden width"), m_hidden);
    whatForm->addRow(tr("Layers"), m_layers);
    whatForm->addRow(tr("Image size"), m_imageSize);
    whatForm->addRow(tr("Sample CPU cost (µs)"), m_sampleCpuUs);
    whatForm->addRow(tr("Sample I/O wait (µs)"), m_sampleIoUs);

    auto* loader = new QGroupBox(tr("Loader and run"), this);
    auto* loaderForm = new QFormLayout(loader);
    loaderForm->addRow(tr("Device"), m_device);
    loaderForm->addRow(tr("Mode"), m_mode);
    loaderForm->addRow(tr("Batch size"), m_batch);
    loaderForm->addRow(tr("Measured steps"), m_steps);
    loaderForm->addRow(tr("Warm-up steps"), m_warmup);
    loaderForm->addRow(tr("Workers"), m_workers);
    loaderForm->addRow(tr("Prefetch"), m_prefetch);
    loaderForm->addRow(tr("Seed"), m_seed);
    auto* flags = new QHBoxLayout;
    for (QCheckBox* box : {m_pin, m_nonBlocking, m_shuffle, m_dropLast})
        flags->addWidget(box);
    loaderForm->addRow(flags);

    auto* measure = new QGroupBox(tr("Measurements"), this);
    // The note in a box layout, not a form row: a form gives a word-wrapped label the height
    // of its size hint, not the height its text needs at the width it gets, and cut it off.
    auto* measureColumn = new QVBoxLayout(measure);
    auto* checks = new QHBoxLayout;
    for (QCheckBox* box : {m_lab, m_split, m_profile})
        checks->addWidget(box);
    measureColumn->addLayout(checks);
    auto* graphNote = new QLabel(
        tr("The lab's third arm is bf16 with the whole step captured as one CUDA graph: the "
           "C++ counterpart of torch.compile(mode=\"reduce-overhead\"), which has no C++ "
           "API. Without a CUDA device it reports \"needs a GPU\"."),
        this);
    graphNote->setWordWrap(true);
    measureColumn->addWidget(graphNote);
    auto* measureForm = new QFormLayout;
    measureForm->setContentsMargins(0, 0, 0, 0);
    measureColumn->addLayout(measureForm);
    measureForm->addRow(tr("Sweep workers"), m_sweepWorkers);
    measureForm->addRow(tr("Sweep batch sizes"), m_sweepBatch);
    measureForm->addRow(tr("Memory limit (MiB)"), m_memoryLimitMb);
    measureForm->addRow(tr("Checkpoint every N-th block"), m_checkpointEvery);

    auto* columns = new QHBoxLayout;
    columns->addWidget(what);
    auto* right = new QVBoxLayout;
    right->addWidget(loader);
    right->addWidget(measure);
    columns->addLayout(right);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(columns);
    // The output folder across the dialog: a path is long, and shown whole.
    auto* output = new QFormLayout;
    output->addRow(tr("Output folder"), withBrowse(m_outDir, this, [] { return true; }));
    layout->addLayout(output);
    m_error->setStyleSheet(QStringLiteral("color: #c62828"));
    layout->addWidget(m_error);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Run"));
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        lab::RunConfig c;
        QString error;
        if (config(c, error))
            accept();
        else
            m_error->setText(error);
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_model, &QComboBox::currentIndexChanged, this, &LabDialog::updateEnabled);
    connect(m_dataset, &QComboBox::currentIndexChanged, this, &LabDialog::updateEnabled);
    connect(m_mode, &QComboBox::currentIndexChanged, this, &LabDialog::updateEnabled);
    updateEnabled();
}

void LabDialog::updateEnabled()
{
    m_modelFile->parentWidget()->setEnabled(m_model->currentIndex() == 3);
    m_dataPath->parentWidget()->setEnabled(m_dataset->currentText() != QLatin1String("synthetic"));
    m_imageSize->setEnabled(m_model->currentText() == QLatin1String("cnn"));
    // Checkpointing needs a built-in model's blocks and a backward pass.
    m_checkpointEvery->setEnabled(m_model->currentIndex() != 3 &&
                                  m_mode->currentText() == QLatin1String("train"));
}

bool LabDialog::config(lab::RunConfig& c, QString& error) const
{
    c = lab::RunConfig{};
    c.model = m_model->currentIndex() == 3 ? m_modelFile->text().trimmed().toStdString()
                                           : m_model->currentText().toStdString();
    if (c.model.empty()) {
        error = tr("Choose the TorchScript file to train.");
        return false;
    }
    c.dataset = m_dataset->currentText().toStdString();
    // The path field is disabled for the synthetic dataset: what it still holds is not read.
    if (c.dataset != "synthetic")
        c.dataPath = m_dataPath->text().trimmed().toStdString();
    if (c.dataset != "synthetic" && c.dataPath.empty()) {
        error = tr("The %1 dataset needs a path.").arg(m_dataset->currentText());
        return false;
    }
    c.device = m_device->currentText().toStdString();
    c.mode = m_mode->currentText().toStdString();
    c.memoryLimitMb = m_memoryLimitMb->value();
    c.checkpointEvery = m_checkpointEvery->isEnabled() ? m_checkpointEvery->value() : 0;
    c.batchSize = m_batch->value();
    c.steps = m_steps->value();
    c.warmup = m_warmup->value();
    c.workers = m_workers->value();
    c.prefetch = m_prefetch->value();
    c.seed = uint64_t(m_seed->value());
    c.hidden = m_hidden->value();
    c.layers = m_layers->value();
    c.imageSize = m_imageSize->value();
    c.sampleCpuUs = m_sampleCpuUs->value();
    c.sampleIoUs = m_sampleIoUs->value();
    c.pinMemory = m_pin->isChecked();
    c.nonBlocking = m_nonBlocking->isChecked();
    c.shuffle = m_shuffle->isChecked();
    c.dropLast = m_dropLast->isChecked();
    c.lab = m_lab->isChecked();
    c.split = m_split->isChecked();
    c.profile = m_profile->isChecked();
    if (!parseList(m_sweepWorkers->text(), c.sweepWorkers) ||
        !parseList(m_sweepBatch->text(), c.sweepBatchSizes)) {
        error = tr("A sweep takes whole numbers separated by commas, like 0,2,4,8.");
        return false;
    }
    c.outDir = m_outDir->text().trimmed().toStdString();
    if (c.outDir.empty()) {
        error = tr("Choose an output folder for the session and the trace.");
        return false;
    }
    // The checks `kinetoscope run` makes before it starts anything (files, names, counts).
    if (std::string invalid; !lab::validateRunConfig(c, invalid)) {
        error = QString::fromStdString(invalid);
        return false;
    }
    return true;
}

void LabDialog::setConfig(const lab::RunConfig& c)
{
    const int builtIn = m_model->findText(QString::fromStdString(c.model));
    m_model->setCurrentIndex(builtIn >= 0 ? builtIn : 3);
    if (builtIn < 0)
        m_modelFile->setText(QString::fromStdString(c.model));
    m_dataset->setCurrentText(QString::fromStdString(c.dataset));
    m_dataPath->setText(QString::fromStdString(c.dataPath));
    m_device->setCurrentText(QString::fromStdString(c.device));
    m_mode->setCurrentText(QString::fromStdString(c.mode));
    m_memoryLimitMb->setValue(int(std::min<int64_t>(c.memoryLimitMb, 1 << 24)));
    m_checkpointEvery->setValue(int(std::min<int64_t>(c.checkpointEvery, 1024)));
    m_batch->setValue(int(c.batchSize));
    m_steps->setValue(int(c.steps));
    m_warmup->setValue(int(c.warmup));
    m_workers->setValue(int(c.workers));
    m_prefetch->setValue(int(c.prefetch));
    m_hidden->setValue(int(c.hidden));
    m_layers->setValue(int(c.layers));
    m_imageSize->setValue(int(c.imageSize));
    m_sampleCpuUs->setValue(int(c.sampleCpuUs));
    m_sampleIoUs->setValue(int(c.sampleIoUs));
    m_lab->setChecked(c.lab);
    m_split->setChecked(c.split);
    m_profile->setChecked(c.profile);
    auto join = [](const std::vector<int64_t>& values) {
        QStringList parts;
        for (int64_t v : values)
            parts << QString::number(v);
        return parts.join(QLatin1Char(','));
    };
    m_sweepWorkers->setText(join(c.sweepWorkers));
    m_sweepBatch->setText(join(c.sweepBatchSizes));
    m_outDir->setText(QString::fromStdString(c.outDir));
    updateEnabled();
}

}  // namespace kinetoscope::gui
