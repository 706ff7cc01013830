#include "widgets/keyboard_focus.h"

#include <QAbstractItemView>
#include <QEvent>
#include <QPainter>
#include <QWidget>
#include <vector>

namespace kinetoscope::widgets {

namespace {

// Drawn over its parent while the parent has the focus; follows its size.
class FocusRing : public QWidget
{
public:
    explicit FocusRing(QWidget* owner) : QWidget(owner)
    {
        setObjectName(QStringLiteral("focusRing"));
        setAttribute(Qt::WA_TransparentForMouseEvents);
        setAttribute(Qt::WA_NoSystemBackground);
        setFocusPolicy(Qt::NoFocus);
        hide();
        owner->installEventFilter(this);
    }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (watched == parent()) {
            switch (event->type()) {
            case QEvent::FocusIn:
                setGeometry(parentWidget()->rect());
                raise();  // over the viewport and scroll bars, added after it
                show();
                break;
            case QEvent::FocusOut:
                hide();
                break;
            case QEvent::Resize:
                setGeometry(parentWidget()->rect());
                break;
            default:
                break;
            }
        }
        return QWidget::eventFilter(watched, event);
    }

    void paintEvent(QPaintEvent*) override
    {
        QPainter painter(this);
        QPen pen(palette().color(QPalette::Active, QPalette::Highlight), kWidth);
        pen.setJoinStyle(Qt::MiterJoin);
        painter.setPen(pen);
        // The pen straddles the rectangle's edge: inset by half its width to stay inside.
        painter.drawRect(QRectF(rect()).adjusted(kWidth / 2, kWidth / 2, -kWidth / 2, -kWidth / 2));
    }

private:
    static constexpr double kWidth = 2;  // px
};

}  // namespace

void tabLeavesTable(QAbstractItemView* table)
{
    table->setTabKeyNavigation(false);
}

void tabOrder(std::initializer_list<QWidget*> widgets)
{
    std::vector<QWidget*> stops;
    for (QWidget* widget : widgets) {
        // The widget and its descendants that take Tab, as the focus chain has them (a chain
        // is a ring through the whole window).
        QWidget* at = widget;
        do {
            if ((at == widget || widget->isAncestorOf(at)) && (at->focusPolicy() & Qt::TabFocus))
                stops.push_back(at);
            at = at->nextInFocusChain();
        } while (at != widget);
    }
    for (size_t i = 1; i < stops.size(); ++i)
        QWidget::setTabOrder(stops[i - 1], stops[i]);
}

void showFocusRing(QWidget* widget)
{
    new FocusRing(widget);
}

}  // namespace kinetoscope::widgets
