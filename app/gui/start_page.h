#pragma once
// What an empty window shows: open a trace, recent files, "Run a lab" (with the engine),
// "Profile a script" (with the probe). What could not be opened is the window's problems bar.
#include <QWidget>

class QListWidget;
class QPushButton;

namespace kinetoscope::gui {

class StartPage : public QWidget
{
    Q_OBJECT
public:
    explicit StartPage(QWidget* parent = nullptr);
    void setRecentFiles(const QStringList& files);
    void setLabAvailable(bool available);      // builds with the engine
    void setProfileAvailable(bool available);  // the probe installed beside the app

Q_SIGNALS:
    void openRequested();
    void openFileRequested(const QString& path);
    void labRequested();
    void profileRequested();

private:
    QListWidget* m_recent;
    QPushButton* m_lab;
    QPushButton* m_profile;
};

}  // namespace kinetoscope::gui
