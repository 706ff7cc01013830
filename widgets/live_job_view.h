#pragma once
// A job running from the app (File > Profile a script… with processes, or a launcher in the
// command): one LiveRunView per rank of this machine (its utilisation sawtooth, phase bars,
// memory), made as each rank first reports, and a rank selector above them. Cancel on any
// rank's view cancels the job.
#include <QMap>
#include <QWidget>

class QComboBox;
class QLabel;
class QStackedWidget;

namespace kinetoscope::widgets {

class LiveRunView;

class LiveJobView : public QWidget
{
    Q_OBJECT

public:
    explicit LiveJobView(const QString& title, QWidget* parent = nullptr);
    // Rank `rank`'s view, made (and added to the selector, in rank order) on first use.
    LiveRunView* rankView(int rank);
    int rankCount() const { return int(m_views.size()); }
    QComboBox* selector() const { return m_selector; }
    // One line above the ranks: the command, then how the job ended.
    void setStatus(const QString& line);
    // Every rank's view ends with the job's error (empty: none) and its own reading.
    void finish(const QString& error, const QMap<int, QStringList>& readings);

Q_SIGNALS:
    void cancelRequested();

private:
    QLabel* m_status = nullptr;
    QComboBox* m_selector = nullptr;
    QStackedWidget* m_stack = nullptr;
    QMap<int, LiveRunView*> m_views;
};

}  // namespace kinetoscope::widgets
