#pragma once
// What went wrong, kept in sight: one line per file that could not be opened (per
// comparison or job that could not be made, lab that stopped, export that failed), above
// the start page and the tabs alike, until the user dismisses it. A status bar message is
// gone at the next load; this is not.
#include <QFrame>
#include <QStringList>

class QLabel;

namespace kinetoscope::gui {

class ProblemsBar : public QFrame
{
    Q_OBJECT
public:
    explicit ProblemsBar(QWidget* parent = nullptr);
    void add(const QString& message);  // one line; shown at once
    void clear();                      // and hidden
    QStringList messages() const { return m_messages; }

private:
    QLabel* m_text;
    QStringList m_messages;
};

}  // namespace kinetoscope::gui
