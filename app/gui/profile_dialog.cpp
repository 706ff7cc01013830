#include "app/gui/profile_dialog.h"

#include "core/lab/profile_job.h"
#include "widgets/eliding_label.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <algorithm>
#include <functional>
#include <utility>

namespace kinetoscope::gui {

namespace {

// The settings' keys: every field, under one group.
const char* const kGroup = "profile";

QSpinBox* spin(QWidget* parent, int value, const QString& zero, const QString& tooltip)
{
    auto* box = new QSpinBox(parent);
    box->setRange(0, 1000000);
    box->setValue(value);
    box->setSpecialValueText(zero);
    box->setToolTip(tooltip);
    return box;
}

// An edit with a Browse… button beside it; `browse` returns the path chosen (empty: none).
QWidget* withBrowse(QLineEdit* edit, QWidget* parent, const std::function<QString()>& browse)
{
    auto* row = new QWidget(parent);
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(edit, 1);
    auto* choose = new QPushButton(QObject::tr("Browse…"), row);
    layout->addWidget(choose);
    QObject::connect(choose, &QPushButton::clicked, edit, [edit, browse] {
        const QString path = browse();
        if (!path.isEmpty()) {
            edit->setText(path);
            Q_EMIT edit->textEdited(path);  // the user's choice, as if typed
        }
    });
    return row;
}

bool isPlainWord(const QString& word)
{
    if (word.isEmpty())
        return false;
    for (const QChar c : word)
        if (!c.isLetterOrNumber() && !QStringLiteral("_-./:=,+@%").contains(c))
            return false;
    return true;
}

// "steps 5-7", "step 5".
QString stepRange(int64_t first, int64_t last)
{
    return first == last ? QObject::tr("step %1").arg(first)
                         : QObject::tr("steps %1–%2").arg(first).arg(last);
}

}  // namespace

QString stepPlan(int64_t skip, int64_t active, int64_t steps)
{
    QStringList parts;
    if (skip > 0)
        parts << QObject::tr("%1: warm-up").arg(stepRange(0, skip - 1));
    parts << (active > 0
                  ? QObject::tr("%1: profiled (trace.json)").arg(stepRange(skip, skip + active - 1))
                  : QObject::tr("no profiler window (no trace)"));
    const int64_t from = skip + active;
    parts << (steps > 0 ? QObject::tr("%1: measured, then the script is stopped")
                              .arg(stepRange(from, from + steps - 1))
                        : QObject::tr("from step %1 on: measured, to the script's end").arg(from));
    QString plan = parts.join(QStringLiteral("; ")) + QLatin1Char('.');
    plan[0] = plan[0].toUpper();
    return plan;
}

std::optional<QStringList> splitArguments(const QString& line, QString* error)
{
    enum class Quote
    {
        None,
        Single,
        Double
    };
    QStringList words;
    QString word;
    bool inWord = false;  // a word has begun, even an empty one ("" or '')
    Quote quote = Quote::None;
    for (qsizetype i = 0; i < line.size(); ++i) {
        const QChar c = line[i];
        if (quote == Quote::Single) {
            if (c == QLatin1Char('\''))
                quote = Quote::None;
            else
                word += c;
            continue;
        }
        if (quote == Quote::Double) {
            // Inside "…" a backslash stands for the next character only before one of these
            // (a shell's rule); anywhere else it is itself.
            if (c == QLatin1Char('"'))
                quote = Quote::None;
            else if (c == QLatin1Char('\\') && i + 1 < line.size() &&
                     QStringLiteral("\"\\$`").contains(line[i + 1]))
                word += line[++i];
            else
                word += c;
            continue;
        }
        if (c.isSpace()) {
            if (inWord)
                words << word;
            word.clear();
            inWord = false;
            continue;
        }
        inWord = true;
        if (c == QLatin1Char('\'')) {
            quote = Quote::Single;
        } else if (c == QLatin1Char('"')) {
            quote = Quote::Double;
        } else if (c == QLatin1Char('\\')) {
            if (i + 1 == line.size()) {
                if (error)
                    *error = QObject::tr("the arguments end with a lone backslash");
                return std::nullopt;
            }
            word += line[++i];
        } else {
            word += c;
        }
    }
    if (quote != Quote::None) {
        if (error)
            *error = quote == Quote::Single
                         ? QObject::tr("a single quote (') in the arguments is not closed")
                         : QObject::tr("a double quote (\") in the arguments is not closed");
        return std::nullopt;
    }
    if (inWord)
        words << word;
    return words;
}

QString joinArguments(const QStringList& words)
{
    QStringList quoted;
    for (const QString& word : words) {
        if (isPlainWord(word))
            quoted << word;
        else
            quoted << QLatin1Char('\'') +
                          QString(word).replace(QLatin1Char('\''), QStringLiteral("'\\''")) +
                          QLatin1Char('\'');
    }
    return quoted.join(QLatin1Char(' '));
}

QList<Interpreter> findInterpreters(const QProcessEnvironment& environment)
{
    QList<Interpreter> found;
    QStringList keys;  // one per interpreter found: its folder and the file its path leads to
    auto add = [&](const QString& path, const QString& source) {
        const QFileInfo info(path);
        if (!info.isFile() || !info.isExecutable())
            return;
        // One folder, one file: one environment (a venv's python and python3 both lead to
        // its base interpreter, and both run in the venv, found beside them).
        const QString key = info.absolutePath() + QLatin1Char('\n') + info.canonicalFilePath();
        if (const qsizetype at = keys.indexOf(key); at >= 0) {
            found[at].source += QStringLiteral(", ") + source;
            return;
        }
        keys << key;
        found << Interpreter{QDir::cleanPath(info.absoluteFilePath()), source};
    };
    const QStringList path =
        environment.value(QStringLiteral("PATH")).split(QLatin1Char(':'), Qt::SkipEmptyParts);
    for (const QString& name : {QStringLiteral("python3"), QStringLiteral("python")})
        for (const QString& folder : path) {
            const QFileInfo candidate(QDir(folder).filePath(name));
            if (candidate.isFile() && candidate.isExecutable()) {
                add(candidate.absoluteFilePath(), QObject::tr("%1 in PATH").arg(name));
                break;  // the one a shell would run
            }
        }
    for (const QString& variable : {QStringLiteral("VIRTUAL_ENV"), QStringLiteral("CONDA_PREFIX")})
        if (const QString prefix = environment.value(variable); !prefix.isEmpty())
            add(QDir(prefix).filePath(QStringLiteral("bin/python")), QLatin1Char('$') + variable);
    return found;
}

ProfileDialog::ProfileDialog(QWidget* parent)
    : QDialog(parent), m_useScript(new QRadioButton(tr("Script"), this)),
      m_useModule(new QRadioButton(tr("Module (-m)"), this)), m_script(new QLineEdit(this)),
      m_module(new QLineEdit(this)), m_arguments(new QLineEdit(this)),
      m_interpreter(new QComboBox(this)), m_workingDirectory(new QLineEdit(this)),
      m_outDir(new QLineEdit(this)), m_stepMarker(new QLineEdit(this)),
      m_lab(new QCheckBox(tr("Run the lab: fp32, bf16, bf16 + torch.compile"), this)),
      m_workersSweep(new QLineEdit(this)), m_plan(new QLabel(this)),
      m_command(new widgets::ElidingLabel(this)), m_problem(new QLabel(this))
{
    setWindowTitle(tr("Profile a script"));
    m_runsFolder = QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation) +
                   QStringLiteral("/runs");
    m_script->setObjectName(QStringLiteral("script"));
    m_module->setObjectName(QStringLiteral("module"));
    m_arguments->setObjectName(QStringLiteral("arguments"));
    m_interpreter->setObjectName(QStringLiteral("interpreter"));
    m_workingDirectory->setObjectName(QStringLiteral("workingDirectory"));
    m_outDir->setObjectName(QStringLiteral("outDir"));
    m_stepMarker->setObjectName(QStringLiteral("stepMarker"));
    m_useScript->setChecked(true);
    m_script->setPlaceholderText(tr("train.py"));
    m_module->setPlaceholderText(tr("package.train"));
    m_arguments->setPlaceholderText(tr("--epochs 1 --lr 0.01 (quoted as in a shell)"));
    m_stepMarker->setPlaceholderText(tr("the optimizer's step (optional)"));
    m_stepMarker->setToolTip(
        tr("A step is one exit of this record_function label, or one call of this function "
           "(train_step in the script, package.module:function); empty: the optimizer's step, "
           "or the outermost module's forward without one"));
    // Long paths are cut in the box, not allowed to widen the dialog past a laptop's screen.
    m_interpreter->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_interpreter->setMinimumContentsLength(32);
    for (const Interpreter& found : findInterpreters()) {
        m_interpreter->addItem(QStringLiteral("%1   (%2)").arg(found.path, found.source),
                               found.path);
        m_interpreter->setItemData(m_interpreter->count() - 1, found.path, Qt::ToolTipRole);
    }
    m_interpreter->addItem(tr("Choose…"));
    m_interpreter->setToolTip(
        tr("The Python that runs the script, with its packages (torch among them)"));
    m_skip = spin(this, 5, QString(),
                  tr("Steps 0 to N-1: compilation and the first iterations, neither measured nor "
                     "profiled"));
    m_active = spin(this, 3, tr("none (no trace)"),
                    tr("The steps after the warm-up recorded by torch.profiler (OUT/trace.json)"));
    m_steps = spin(this, 0, tr("to its end"),
                   tr("Measured steps after the profiler window; the script is then stopped "
                      "cleanly. 0: it runs to its end"));
    m_processes = new QSpinBox(this);
    m_processes->setRange(1, 256);
    m_processes->setObjectName(QStringLiteral("processes"));
    m_processes->setToolTip(
        tr("1: the script alone. More: that many processes on this machine through the "
           "interpreter's torch.distributed.run (torchrun), each rank measured in OUT/rank-K, "
           "the job opened as a job at its end"));
    m_skip->setObjectName(QStringLiteral("skip"));
    m_active->setObjectName(QStringLiteral("active"));
    m_steps->setObjectName(QStringLiteral("steps"));

    auto* what = new QGroupBox(tr("What to run"), this);
    auto* whatForm = new QFormLayout(what);
    whatForm->addRow(m_useScript, withBrowse(m_script, this, [this] {
                         return QFileDialog::getOpenFileName(
                             this, tr("Choose the training script"), m_script->text(),
                             tr("Python scripts (*.py);;All files (*)"));
                     }));
    whatForm->addRow(m_useModule, m_module);
    whatForm->addRow(tr("Arguments"), m_arguments);
    whatForm->addRow(tr("Interpreter"), m_interpreter);
    whatForm->addRow(tr("Processes"), m_processes);
    whatForm->addRow(tr("Working folder"), withBrowse(m_workingDirectory, this, [this] {
                         return QFileDialog::getExistingDirectory(this, tr("Run the script in"),
                                                                  m_workingDirectory->text());
                     }));

    auto* steps = new QGroupBox(tr("Steps"), this);
    auto* stepsForm = new QFormLayout(steps);
    auto* counts = new QHBoxLayout;
    for (const auto& [label, box] :
         {std::pair{tr("Warm-up"), m_skip}, std::pair{tr("Profiler window"), m_active},
          std::pair{tr("Measured"), m_steps}}) {
        auto* name = new QLabel(label, this);
        name->setBuddy(box);
        counts->addWidget(name);
        box->setMinimumWidth(box->fontMetrics().horizontalAdvance(QStringLiteral("to its end")) +
                             40);  // the arrows beside the widest text
        counts->addWidget(box);
        counts->addSpacing(12);
    }
    counts->addStretch(1);
    stepsForm->addRow(counts);
    m_plan->setObjectName(QStringLiteral("plan"));
    m_plan->setWordWrap(true);
    m_plan->setStyleSheet(QStringLiteral("color: #616161"));
    stepsForm->addRow(m_plan);
    stepsForm->addRow(tr("Step marker"), m_stepMarker);

    auto* labBox = new QGroupBox(tr("Lab"), this);
    auto* labForm = new QFormLayout(labBox);
    m_lab->setObjectName(QStringLiteral("lab"));
    m_lab->setToolTip(tr("The method's three runs, same seed and data: fp32 as written, bf16 "
                         "autocast on the model's forward and loss, and bf16 with the model "
                         "compiled by torch.compile (its compilation timed apart)"));
    labForm->addRow(m_lab);
    m_workersSweep->setObjectName(QStringLiteral("workersSweep"));
    m_workersSweep->setPlaceholderText(tr("e.g. 0,2,4 (empty: no sweep)"));
    m_workersSweep->setToolTip(tr("One run per value of the script's DataLoader num_workers, "
                                  "set at its construction"));
    labForm->addRow(tr("Workers sweep"), m_workersSweep);
    auto* labNote = new QLabel(tr("The script runs once per arm and sweep point (warm-up, then the "
                                  "measured steps: 20 when Measured says to its end); files it "
                                  "writes are written each time."),
                               this);
    labNote->setWordWrap(true);
    labNote->setStyleSheet(QStringLiteral("color: #616161"));
    labForm->addRow(labNote);

    auto* output = new QGroupBox(tr("Output"), this);
    auto* outputForm = new QFormLayout(output);
    outputForm->addRow(tr("Output folder"), withBrowse(m_outDir, this, [this] {
                           return QFileDialog::getExistingDirectory(
                               this, tr("Save the session in (a new or empty folder)"),
                               QFileInfo(m_outDir->text()).path());
                       }));
    auto* outNote = new QLabel(tr("The session, the trace and the script's output (output.log) go "
                                  "there; a run never overwrites an earlier one."),
                               this);
    outNote->setWordWrap(true);
    outNote->setStyleSheet(QStringLiteral("color: #616161"));
    outputForm->addRow(outNote);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(what);
    layout->addWidget(steps);
    layout->addWidget(labBox);
    layout->addWidget(output);
    m_command->setObjectName(QStringLiteral("command"));
    layout->addWidget(m_command);
    m_problem->setObjectName(QStringLiteral("problem"));
    m_problem->setStyleSheet(QStringLiteral("color: #c62828"));
    m_problem->setWordWrap(true);
    // A long path in the message wraps where it can and never widens the dialog.
    m_problem->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    layout->addWidget(m_problem);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_ok = buttons->button(QDialogButtonBox::Ok);
    m_ok->setText(tr("Profile"));
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        revalidate();  // a file may have come or gone since the last edit
        if (!m_problemText.isEmpty())
            return;
        remember();
        accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    restore();
    m_lastInterpreter = m_interpreter->currentIndex();
    connect(m_lab, &QCheckBox::toggled, this, &ProfileDialog::revalidate);
    for (QLineEdit* edit :
         {m_module, m_arguments, m_workingDirectory, m_outDir, m_stepMarker, m_workersSweep})
        connect(edit, &QLineEdit::textChanged, this, &ProfileDialog::revalidate);
    connect(m_script, &QLineEdit::textChanged, this, &ProfileDialog::scriptChanged);
    connect(m_workingDirectory, &QLineEdit::textEdited, this,
            [this] { m_workingDirectoryFollows = false; });
    connect(m_outDir, &QLineEdit::textEdited, this, [this] { m_outDirFollows = false; });
    connect(m_module, &QLineEdit::textChanged, this, [this] {
        if (m_outDirFollows)
            m_outDir->setText(proposedOutDir());
    });
    connect(m_useScript, &QRadioButton::toggled, this, &ProfileDialog::scriptChanged);
    for (QSpinBox* box : {m_skip, m_active, m_steps, m_processes})
        connect(box, &QSpinBox::valueChanged, this, &ProfileDialog::revalidate);
    connect(m_interpreter, &QComboBox::currentIndexChanged, this, &ProfileDialog::revalidate);
    connect(m_interpreter, &QComboBox::activated, this, &ProfileDialog::interpreterActivated);
    scriptChanged();
    // Wide enough for a usual path in each field, well inside a laptop's screen.
    // The notes wrap: the height is the one they take at that width.
    const int width = std::max(sizeHint().width(), 760);
    resize(width,
           layout->hasHeightForWidth() ? layout->totalHeightForWidth(width) : sizeHint().height());
}

void ProfileDialog::scriptChanged()
{
    const bool script = m_useScript->isChecked();
    m_script->parentWidget()->setEnabled(script);
    m_module->setEnabled(!script);
    const QFileInfo file(m_script->text().trimmed());
    if (script && m_workingDirectoryFollows && file.isFile())
        m_workingDirectory->setText(file.absolutePath());
    if (m_outDirFollows)
        m_outDir->setText(proposedOutDir());
    revalidate();
}

QString ProfileDialog::proposedOutDir() const
{
    QString stem = QStringLiteral("script");
    if (m_useScript->isChecked() && !m_script->text().trimmed().isEmpty())
        stem = QFileInfo(m_script->text().trimmed()).completeBaseName();
    else if (!m_useScript->isChecked() && !m_module->text().trimmed().isEmpty())
        stem = m_module->text().trimmed().section(QLatin1Char('.'), -1);
    const QString base =
        QDir(m_runsFolder)
            .filePath(stem + QLatin1Char('-') +
                      QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")));
    QString folder = base;
    for (int n = 2; QFileInfo::exists(folder); ++n)  // never an earlier run's
        folder = base + QLatin1Char('-') + QString::number(n);
    return folder;
}

QString ProfileDialog::interpreterPath() const
{
    return m_interpreter->currentData().toString();
}

void ProfileDialog::setInterpreter(const QString& path, const QString& source)
{
    const QString clean = QDir::cleanPath(QFileInfo(path).absoluteFilePath());
    int index = m_interpreter->findData(clean);
    if (index < 0) {
        index = m_interpreter->count() - 1;  // before "Choose…"
        m_interpreter->insertItem(
            index, QStringLiteral("%1   (%2)").arg(clean, source.isEmpty() ? tr("chosen") : source),
            clean);
        m_interpreter->setItemData(index, clean, Qt::ToolTipRole);
    }
    m_interpreter->setCurrentIndex(index);
    m_lastInterpreter = index;
}

void ProfileDialog::interpreterActivated(int index)
{
    if (index != m_interpreter->count() - 1) {
        m_lastInterpreter = index;
        return;
    }
    const QString path = QFileDialog::getOpenFileName(this, tr("Choose a Python interpreter"),
                                                      QFileInfo(interpreterPath()).path());
    if (path.isEmpty())
        m_interpreter->setCurrentIndex(m_lastInterpreter);  // cancelled: as it was
    else
        setInterpreter(path);
}

lab::ProfileConfig ProfileDialog::config() const
{
    lab::ProfileConfig c;
    c.fromTerminal = false;  // from the app: a group of its own, output in OUT/output.log
    c.command.push_back(interpreterPath().toStdString());
    if (m_useScript->isChecked()) {
        const QString script = m_script->text().trimmed();
        c.command.push_back(script.isEmpty() ? std::string()
                                             : QFileInfo(script).absoluteFilePath().toStdString());
    } else {
        c.command.emplace_back("-m");
        c.command.push_back(m_module->text().trimmed().toStdString());
    }
    if (const std::optional<QStringList> arguments = splitArguments(m_arguments->text()))
        for (const QString& argument : *arguments)
            c.command.push_back(argument.toStdString());
    c.workingDirectory = m_workingDirectory->text().trimmed().toStdString();
    c.outDir = m_outDir->text().trimmed().toStdString();
    c.skip = m_skip->value();
    c.active = m_active->value();
    c.steps = m_steps->value();
    c.stepMarker = m_stepMarker->text().trimmed().toStdString();
    if (m_processes->value() > 1)
        c.nproc = m_processes->value();
    return c;
}

std::optional<lab::ScriptLabConfig> ProfileDialog::labConfig() const
{
    const QString sweep = m_workersSweep->text().trimmed();
    if (!m_lab->isChecked() && sweep.isEmpty())
        return std::nullopt;
    lab::ScriptLabConfig l;
    l.script = config();
    if (l.script.steps == 0)
        l.script.steps = 20;  // a lab's runs are bounded, as `kinetoscope profile --lab`'s
    l.script.seed = 0;
    if (!m_lab->isChecked())
        l.arms.clear();
    for (const QString& word : sweep.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const int workers = word.trimmed().toInt(&ok);
        l.workers.push_back(ok ? workers : -1);  // refused by validateScriptLab
    }
    return l;
}

void ProfileDialog::revalidate()
{
    const lab::ProfileConfig c = config();
    const QString interpreter = interpreterPath();
    const QString script = m_script->text().trimmed();
    QString problem;
    if (m_useScript->isChecked() && script.isEmpty())
        problem = tr("Choose the training script (a .py file).");
    else if (m_useScript->isChecked() && !QFileInfo(script).isFile())
        problem = tr("There is no script %1.").arg(script);
    else if (!m_useScript->isChecked() && m_module->text().trimmed().isEmpty())
        problem = tr("Name the module to run, as in python -m package.train.");
    else if (QString error; !splitArguments(m_arguments->text(), &error))
        problem = tr("The arguments cannot be read: %1.").arg(error);
    else if (interpreter.isEmpty())
        problem = tr("Choose the Python interpreter that runs the script.");
    else if (const QFileInfo file(interpreter); !file.isFile() || !file.isExecutable())
        problem = tr("The interpreter %1 is not a program this machine can run.").arg(interpreter);
    else if (c.workingDirectory.empty())
        problem = tr("Choose the folder the script runs in.");
    else if (const std::string invalid = lab::validateProfileConfig(c); !invalid.empty())
        problem = QString::fromStdString(invalid);
    else if (c.nproc > 0 && labConfig())
        problem = tr("The lab runs the script as one process: set Processes to 1, or clear the "
                     "lab.");
    else if (const std::optional<lab::ScriptLabConfig> l = labConfig())
        problem = QString::fromStdString(lab::validateScriptLab(*l))
                      .replace(QStringLiteral("--sweep workers="), tr("The workers sweep"));
    m_plan->setText(stepPlan(c.skip, c.active, c.steps));
    m_problemText = problem;
    m_problem->setText(problem);
    m_problem->setVisible(!problem.isEmpty());
    m_ok->setEnabled(problem.isEmpty());
    QStringList command;
    for (const std::string& word :
         c.nproc > 0 ? lab::distributedCommand(c.command, c.nproc) : c.command)
        command << QString::fromStdString(word);
    m_command->setText(problem.isEmpty() ? tr("Runs: %1").arg(joinArguments(command)) : QString());
}

void ProfileDialog::remember() const
{
    QSettings settings;
    settings.beginGroup(QLatin1String(kGroup));
    settings.setValue(QStringLiteral("module"), !m_useScript->isChecked());
    settings.setValue(QStringLiteral("script"), m_script->text().trimmed());
    settings.setValue(QStringLiteral("moduleName"), m_module->text().trimmed());
    settings.setValue(QStringLiteral("arguments"), m_arguments->text());
    settings.setValue(QStringLiteral("interpreter"), interpreterPath());
    settings.setValue(QStringLiteral("workingDirectory"), m_workingDirectory->text().trimmed());
    settings.setValue(QStringLiteral("workingDirectoryFollows"), m_workingDirectoryFollows);
    // The folder this run's went under: the next run's goes there too, in a new folder.
    settings.setValue(QStringLiteral("runsFolder"),
                      QFileInfo(m_outDir->text().trimmed()).absolutePath());
    settings.setValue(QStringLiteral("skip"), m_skip->value());
    settings.setValue(QStringLiteral("active"), m_active->value());
    settings.setValue(QStringLiteral("steps"), m_steps->value());
    settings.setValue(QStringLiteral("processes"), m_processes->value());
    settings.setValue(QStringLiteral("stepMarker"), m_stepMarker->text().trimmed());
    settings.setValue(QStringLiteral("lab"), m_lab->isChecked());
    settings.setValue(QStringLiteral("workersSweep"), m_workersSweep->text().trimmed());
}

void ProfileDialog::restore()
{
    QSettings settings;
    settings.beginGroup(QLatin1String(kGroup));
    auto value = [&](const char* key) { return settings.value(QLatin1String(key)); };
    m_useModule->setChecked(value("module").toBool());
    m_script->setText(value("script").toString());
    m_module->setText(value("moduleName").toString());
    m_arguments->setText(value("arguments").toString());
    if (const QString interpreter = value("interpreter").toString(); !interpreter.isEmpty())
        setInterpreter(interpreter, tr("used last time"));
    m_workingDirectory->setText(value("workingDirectory").toString());
    m_workingDirectoryFollows = value("workingDirectoryFollows").toBool() ||
                                !settings.contains(QStringLiteral("workingDirectoryFollows"));
    if (const QString runs = value("runsFolder").toString(); !runs.isEmpty())
        m_runsFolder = runs;
    m_skip->setValue(settings.value(QStringLiteral("skip"), 5).toInt());
    m_active->setValue(settings.value(QStringLiteral("active"), 3).toInt());
    m_steps->setValue(settings.value(QStringLiteral("steps"), 0).toInt());
    m_processes->setValue(settings.value(QStringLiteral("processes"), 1).toInt());
    m_stepMarker->setText(value("stepMarker").toString());
    m_lab->setChecked(value("lab").toBool());
    m_workersSweep->setText(value("workersSweep").toString());
}

}  // namespace kinetoscope::gui
