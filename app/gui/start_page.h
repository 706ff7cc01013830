#pragma once
// What an empty window shows: open a trace, recent files, "Run a lab" (with the
// engine), and the last error in one line.
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
    void showError(const QString& message);  // empty clears it
    QString errorText() const;
    void setLabAvailable(bool available);  // builds with the engine

Q_SIGNALS:
    void openRequested();
    void openFileRequested(const QString& path);
    void labRequested();

private:
    QListWidget* m_recent;
    QLabel* m_error;
    QPushButton* m_lab;
};

}  // namespace kinetoscope::gui
