#pragma once
// What an empty window shows: open a trace, recent files, "Run a lab" (with the engine),
// "Profile a script" (with the probe). What could not be opened is the window's problems bar.
#include <QWidget>

class QLabel;
class QListWidget;
class QPushButton;

namespace kinetoscope::gui {

class StartPage : public QWidget
{
    Q_OBJECT
public:
    explicit StartPage(QWidget* parent = nullptr);
    void setRecentFiles(const QStringList& files);
    QListWidget* recentList() const { return m_recent; }
    void setLabAvailable(bool available);      // builds with the engine
    void setProfileAvailable(bool available);  // the probe installed beside the app

Q_SIGNALS:
    void openRequested();
    void openFileRequested(const QString& path);
    void labRequested();
    void profileRequested();

private:
    QListWidget* m_recent;
    QLabel* m_noRecent;  // said in place of an empty list
    QPushButton* m_lab;
    QPushButton* m_profile;
};

}  // namespace kinetoscope::gui
