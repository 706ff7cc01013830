#include "app/gui/problems_bar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace kinetoscope::gui {

namespace {
// Beyond this many lines the oldest go: the bar must not push the documents off screen.
constexpr int kMaxLines = 8;
}  // namespace

ProblemsBar::ProblemsBar(QWidget* parent) : QFrame(parent), m_text(new QLabel(this))
{
    setObjectName(QStringLiteral("problemsBar"));
    setStyleSheet(
        QStringLiteral("#problemsBar { background: #fdecea; border-bottom: 1px solid #f5c2c0; }"
                       "#problemsBar QLabel { color: #b71c1c; }"));
    m_text->setWordWrap(true);
    // A path or a name without spaces cannot wrap: it is cut at the window's edge (whole in the
    // tooltip, on standard error and selectable) rather than widening the window past the
    // screen and the Dismiss button out of reach.
    m_text->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_text->setTextFormat(Qt::PlainText);
    auto* dismiss = new QPushButton(tr("Dismiss"), this);
    dismiss->setToolTip(tr("Hide these messages (they were also written to standard error)"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(12, 6, 12, 6);
    layout->addWidget(m_text, 1);
    layout->addWidget(dismiss, 0, Qt::AlignTop);
    connect(dismiss, &QPushButton::clicked, this, &ProblemsBar::clear);
    hide();
}

void ProblemsBar::add(const QString& message)
{
    m_messages << message;
    while (m_messages.size() > kMaxLines)
        m_messages.removeFirst();
    m_text->setText(m_messages.join(QLatin1Char('\n')));
    m_text->setToolTip(m_text->text());
    show();
}

void ProblemsBar::clear()
{
    m_messages.clear();
    m_text->clear();
    m_text->setToolTip({});
    hide();
}

}  // namespace kinetoscope::gui
