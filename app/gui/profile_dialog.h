#pragma once
// File > Profile a script…: the knobs of `kinetoscope profile -- python train.py ARGS` as a
// form. The user's own script (or `-m package.train`) in the interpreter they choose, its
// arguments on one line split as a shell would, where it runs and where its session goes,
// and which steps are warm-up, profiled and measured. Every field is remembered (QSettings,
// "profile/…") once a run is started; the output folder as the folder a new run goes under,
// never a folder an earlier run filled.
#include "core/lab/probe_process.h"
#include "core/lab/script_lab.h"

#include <QDialog>
#include <QList>
#include <QProcessEnvironment>
#include <QStringList>
#include <cstdint>
#include <optional>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QRadioButton;
class QSpinBox;

namespace kinetoscope::gui {

// A line of arguments split into words as a POSIX shell would, without expanding anything:
// blanks separate words; '…' keeps everything inside as it is; "…" keeps everything but a
// backslash before " or \ (which stands for that character); outside quotes a backslash
// keeps the next character. "" and '' are empty words. nullopt, with `error` set to one
// line, when a quote is left open or the line ends with a lone backslash.
std::optional<QStringList> splitArguments(const QString& line, QString* error = nullptr);

// Words joined into a line that splitArguments reads back as the same words: plain words
// as they are, others in single quotes. For showing a command.
QString joinArguments(const QStringList& words);

// The steps the counts make, in one sentence (0-based, as the probe counts them): "Steps 0–4:
// warm-up; steps 5–7: profiled (trace.json); from step 8 on: measured, to the script's end."
QString stepPlan(int64_t skip, int64_t active, int64_t steps);

// A Python interpreter the dialog offers. `path` is absolute but not resolved through its
// symbolic links: a virtual environment's python is a link to its base interpreter, and only
// the link's own path runs it in the environment.
struct Interpreter
{
    QString path;
    QString source;  // where it was found, in words: "python3 in PATH, $VIRTUAL_ENV"
};

// python3 and python from PATH, $VIRTUAL_ENV/bin/python, $CONDA_PREFIX/bin/python, in that
// order, each executable one once: two paths in one folder that lead to one file are one
// interpreter (one environment), and its sources are joined.
QList<Interpreter>
findInterpreters(const QProcessEnvironment& environment = QProcessEnvironment::systemEnvironment());

class ProfileDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ProfileDialog(QWidget* parent = nullptr);

    // The run the fields describe, from the app (config.fromTerminal is false).
    lab::ProfileConfig config() const;
    // The lab the Lab box asks for (the arms, a workers sweep), with config() as its runs'
    // script (its measured steps 20 when Measured says "to its end"); nullopt for one run.
    std::optional<lab::ScriptLabConfig> labConfig() const;
    // Why it cannot run as filled, in one line (the dialog's own checks, then
    // lab::validateProfileConfig's); empty when it can. Shown in the dialog; Profile is
    // enabled only while it is empty.
    QString problem() const { return m_problemText; }

    // The interpreter to use: selected if offered, else added (its source in words: "chosen"
    // when empty) and selected.
    void setInterpreter(const QString& path, const QString& source = QString());

private:
    void revalidate();
    void scriptChanged();
    void interpreterActivated(int index);
    void remember() const;
    void restore();
    QString interpreterPath() const;
    QString proposedOutDir() const;  // a new folder under the runs folder, named for the script

    QRadioButton* m_useScript;
    QRadioButton* m_useModule;
    QLineEdit* m_script;
    QLineEdit* m_module;
    QLineEdit* m_arguments;
    QComboBox* m_interpreter;
    QLineEdit* m_workingDirectory;
    QLineEdit* m_outDir;
    QSpinBox* m_skip;
    QSpinBox* m_active;
    QSpinBox* m_steps;
    QSpinBox* m_processes;  // 1: the script alone; more: that many ranks (torch.distributed.run)
    QLineEdit* m_stepMarker;
    QCheckBox* m_lab;           // the three arms, one run of the script each
    QLineEdit* m_workersSweep;  // "0,2,4": one run per num_workers
    QLabel* m_plan;             // the steps the counts make, in words
    QLabel* m_command;          // the command as it will run
    QLabel* m_problem;
    QPushButton* m_ok;
    QString m_problemText;
    QString m_runsFolder;  // where a new output folder is proposed
    // Until the user edits them, the working folder follows the script's folder and the
    // output folder the script's name.
    bool m_workingDirectoryFollows = true;
    bool m_outDirFollows = true;
    int m_lastInterpreter = 0;  // selected before "Choose…", to go back to when cancelled
};

}  // namespace kinetoscope::gui
