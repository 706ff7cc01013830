#pragma once
// What an empty window shows: open a trace, recent files, "Run a lab" (with the
// engine). What could not be opened is the window's problems bar.
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
    void setLabAvailable(bool available);  // builds with the engine

Q_SIGNALS:
    void openRequested();
    void openFileRequested(const QString& path);
    void labRequested();

private:
    QListWidget* m_recent;
    QPushButton* m_lab;
};

}  // namespace kinetoscope::gui
