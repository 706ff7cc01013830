#include "widgets/live_job_view.h"

#include "widgets/live_run_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace kinetoscope::widgets {

LiveJobView::LiveJobView(const QString& title, QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* top = new QHBoxLayout;
    m_status = new QLabel(title, this);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* rankLabel = new QLabel(tr("Rank"), this);
    m_selector = new QComboBox(this);
    m_selector->setObjectName(QStringLiteral("rankSelector"));
    m_selector->setToolTip(tr("The ranks of this machine, each with its own live views"));
    m_selector->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    rankLabel->setBuddy(m_selector);
    top->addWidget(m_status, 1);
    top->addWidget(rankLabel);
    top->addWidget(m_selector);
    layout->addLayout(top);
    m_stack = new QStackedWidget(this);
    layout->addWidget(m_stack, 1);
    connect(m_selector, &QComboBox::currentIndexChanged, m_stack, &QStackedWidget::setCurrentIndex);
}

LiveRunView* LiveJobView::rankView(int rank)
{
    if (LiveRunView* known = m_views.value(rank))
        return known;
    auto* view = new LiveRunView(tr("Rank %1: starting…").arg(rank), m_stack);
    connect(view, &LiveRunView::cancelRequested, this, &LiveJobView::cancelRequested);
    m_views.insert(rank, view);
    // In rank order: the position among the ranks known so far.
    const int at = int(std::distance(m_views.begin(), m_views.find(rank)));
    const int shown = m_selector->currentIndex();
    m_stack->insertWidget(at, view);
    m_selector->insertItem(at, tr("rank %1").arg(rank), rank);
    m_selector->setCurrentIndex(shown < 0 ? 0 : (at <= shown ? shown + 1 : shown));
    return view;
}

void LiveJobView::setStatus(const QString& line)
{
    m_status->setText(line);
}

void LiveJobView::finish(const QString& error, const QMap<int, QStringList>& readings)
{
    for (auto it = m_views.begin(); it != m_views.end(); ++it)
        it.value()->finish(error, readings.value(it.key()));
}

}  // namespace kinetoscope::widgets
