#include "app/gui/preferences_dialog.h"

#include "app/cli/threads_option.h"
#include "core/parallel/thread_count.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>

namespace kinetoscope::gui {

unsigned threadsSetting()
{
    bool ok = false;
    const int threads = QSettings().value(QLatin1String(kThreadsSettingKey), 0).toInt(&ok);
    return ok && threads >= 0 && unsigned(threads) <= cli::kMaxThreads ? unsigned(threads) : 0;
}

void setThreadsSetting(unsigned threads)
{
    QSettings().setValue(QLatin1String(kThreadsSettingKey), threads);
}

PreferencesDialog::PreferencesDialog(std::optional<unsigned> launchThreads, QWidget* parent)
    : QDialog(parent), m_threads(new QSpinBox(this))
{
    setWindowTitle(tr("Preferences"));
    const unsigned cores = parallel::availableCores();
    m_threads->setRange(0, int(cli::kMaxThreads));
    m_threads->setSpecialValueText(
        tr("All cores (%1)").arg(cores));  // what 0 means on this machine
    m_threads->setValue(int(threadsSetting()));
    m_threads->setMinimumWidth(
        m_threads->fontMetrics().horizontalAdvance(QStringLiteral("All cores (000)")) + 40);
    m_threads->setToolTip(
        tr("0 uses every core of this machine; 1 reads and analyses on one thread"));

    auto* performance = new QGroupBox(tr("Performance"), this);
    auto* form = new QFormLayout(performance);
    const QString zero = cores == 1 ? tr("0 = the one core") : tr("0 = all %1 cores").arg(cores);
    auto* label = new QLabel(tr("Threads for loading and analysis (%1):").arg(zero), performance);
    label->setBuddy(m_threads);
    form->addRow(label, m_threads);
    auto* note = new QLabel(
        tr("Used for every trace, job and comparison opened from now on; the tabs already open "
           "keep theirs. The ranks of a job and the two sides of a comparison share them. "
           "The results are the same whatever the number."),
        performance);
    note->setWordWrap(true);
    form->addRow(note);
    if (launchThreads) {
        auto* launch = new QLabel(
            tr("This window was started with --threads %1, which it uses until it closes.")
                .arg(*launchThreads),
            performance);
        launch->setWordWrap(true);
        launch->setObjectName(QStringLiteral("launchThreads"));
        form->addRow(launch);
    }

    auto* buttons = new QDialogButtonBox(
        QDialogButtonBox::Ok | QDialogButtonBox::Cancel | QDialogButtonBox::RestoreDefaults, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(buttons->button(QDialogButtonBox::RestoreDefaults), &QPushButton::clicked, m_threads,
            [this] { m_threads->setValue(0); });
    auto* column = new QVBoxLayout(this);
    column->addWidget(performance);
    column->addStretch(1);
    column->addWidget(buttons);
    setMinimumWidth(520);
}

void PreferencesDialog::accept()
{
    setThreadsSetting(unsigned(m_threads->value()));
    QDialog::accept();
}

}  // namespace kinetoscope::gui
