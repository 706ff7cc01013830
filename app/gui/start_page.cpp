#include "app/gui/start_page.h"

#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace kinetoscope::gui {

StartPage::StartPage(QWidget* parent)
    : QWidget(parent), m_recent(new QListWidget(this)), m_noRecent(new QLabel(this)),
      m_lab(new QPushButton(tr("Run a lab…"), this)),
      m_profile(new QPushButton(tr("Profile a script…"), this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(48, 36, 48, 36);
    auto* title = new QLabel(
        tr("<h1>Kinetoscope</h1><p>Why is this PyTorch training run slow? Open a trace that "
           "<code>torch.profiler</code> wrote (<code>.json</code> or <code>.json.gz</code>), "
           "or a lab session (<code>.kinetoscope.json</code>), or drop one or several on this "
           "window.</p>"),
        this);
    title->setWordWrap(true);
    layout->addWidget(title);
    auto* open = new QPushButton(tr("Open trace…"), this);
    open->setToolTip(tr("Open a torch.profiler trace (Ctrl+O)"));
    setLabAvailable(false);
    setProfileAvailable(false);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(open);
    buttons->addWidget(m_lab);
    buttons->addWidget(m_profile);
    buttons->addStretch();
    layout->addLayout(buttons);
    layout->addWidget(new QLabel(tr("<b>Recent files</b>"), this));
    layout->addWidget(m_recent, 1);
    m_noRecent->setText(tr("Nothing opened yet. What you open (traces, lab sessions, memory "
                           "snapshots) is listed here, to open again with a double-click."));
    m_noRecent->setWordWrap(true);
    m_noRecent->setStyleSheet(QStringLiteral("color: #616161"));
    layout->addWidget(m_noRecent);
    layout->addStretch();  // the page's height, when no list takes it
    setRecentFiles({});
    connect(open, &QPushButton::clicked, this, &StartPage::openRequested);
    connect(m_lab, &QPushButton::clicked, this, &StartPage::labRequested);
    connect(m_profile, &QPushButton::clicked, this, &StartPage::profileRequested);
    connect(m_recent, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        Q_EMIT openFileRequested(item->data(Qt::UserRole).toString());
    });
}

void StartPage::setRecentFiles(const QStringList& files)
{
    m_recent->clear();
    for (const QString& file : files) {
        auto* item = new QListWidgetItem(file, m_recent);
        item->setData(Qt::UserRole, file);
    }
    // An empty list is a sentence, not a blank box the height of the window.
    m_recent->setVisible(!files.isEmpty());
    m_noRecent->setVisible(files.isEmpty());
}

void StartPage::setLabAvailable(bool available)
{
    m_lab->setEnabled(available);
    m_lab->setToolTip(
        available
            ? tr("Run the profiling method on a model and dataset through LibTorch: the three-run "
                 "lab, the DataLoader-vs-compute split, sweeps and a profiler window, live "
                 "(Ctrl+L)")
            : tr("The engine (kinetoscope-engine) is not installed beside kinetoscope"));
}

void StartPage::setProfileAvailable(bool available)
{
    m_profile->setEnabled(available);
    m_profile->setToolTip(
        available ? tr("Run your own training script under the probe: its steps, live samples "
                       "and a profiler window, as a session (Ctrl+Shift+P)")
                  : tr("The probe is not installed beside kinetoscope (KINETOSCOPE_PROBE_DIR "
                       "names its folder)"));
}

}  // namespace kinetoscope::gui
