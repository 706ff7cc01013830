#pragma once
// A one-line label that never asks for the width of its text: a long line (a status, a
// path, an error) is cut with "…" at the width it is given, and the whole line is its
// tooltip. A plain QLabel asks for its whole text as its minimum width, and one long
// message then widens the window past the screen.
#include <QLabel>

namespace kinetoscope::widgets {

class ElidingLabel : public QLabel
{
    Q_OBJECT
public:
    explicit ElidingLabel(QWidget* parent = nullptr);
    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;
    // The text as drawn at the label's width ("…" where it was cut).
    QString shownText() const;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;
};

}  // namespace kinetoscope::widgets
