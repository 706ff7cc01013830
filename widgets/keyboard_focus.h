#pragma once
// How the keyboard moves through the app's pages: Tab goes from one control to the next and
// never round a table's cells (the arrow keys move in a table), and the control it lands on
// shows that it has the keys, also where the style draws nothing for it.
#include <initializer_list>

class QAbstractItemView;
class QWidget;

namespace kinetoscope::widgets {

// Tab and Shift+Tab leave the table for the next control; the arrows move its current cell.
void tabLeavesTable(QAbstractItemView* table);

// Tab visits these in this order, each one's own controls in their order (a compound widget's
// line edit and table, where QWidget::setTabOrder in Qt 6.4 moves the compound alone).
void tabOrder(std::initializer_list<QWidget*> widgets);

// A ring in the palette's highlight colour around `widget` while it has the focus, for the
// widgets the style draws no focus for: a text browser, a scroll area, a view painted here.
// The ring is a child of `widget`, drawn over it, transparent to the mouse.
void showFocusRing(QWidget* widget);

}  // namespace kinetoscope::widgets
