#include "widgets/eliding_label.h"

#include <QHelpEvent>
#include <QPainter>
#include <QStyle>
#include <QToolTip>

namespace kinetoscope::widgets {

ElidingLabel::ElidingLabel(QWidget* parent) : QLabel(parent)
{
    setTextFormat(Qt::PlainText);
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
}

QSize ElidingLabel::minimumSizeHint() const
{
    return {0, QLabel::minimumSizeHint().height()};
}

QSize ElidingLabel::sizeHint() const
{
    // As wide as a short message; the layout gives it more when there is room.
    return {fontMetrics().averageCharWidth() * 20, QLabel::sizeHint().height()};
}

QString ElidingLabel::shownText() const
{
    const QString line = text().section(QLatin1Char('\n'), 0, 0);
    return fontMetrics().elidedText(line, Qt::ElideRight, contentsRect().width());
}

void ElidingLabel::paintEvent(QPaintEvent* /*event*/)
{
    QPainter painter(this);
    style()->drawItemText(&painter, contentsRect(), int(alignment()), palette(), isEnabled(),
                          shownText(), foregroundRole());
}

bool ElidingLabel::event(QEvent* event)
{
    // The whole line in a tooltip when it was cut (and no other tooltip was set).
    if (event->type() == QEvent::ToolTip && toolTip().isEmpty()) {
        if (shownText() != text())
            QToolTip::showText(static_cast<QHelpEvent*>(event)->globalPos(), text(), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QLabel::event(event);
}

}  // namespace kinetoscope::widgets
