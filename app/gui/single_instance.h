#pragma once
// One app per user and display: `kinetoscope FILE...` (a double-click in the file manager,
// xdg-open) with the app already running hands the files to it over a local socket, and
// they open there as new tabs; with none running, this process becomes the app and
// listens. KINETOSCOPE_INSTANCE names the socket (tests, or two apps side by side).
//
// The exchange: the newcomer writes each absolute path on a line (UTF-8) and an empty
// line; the app answers "ok" once it has them. No answer within the timeout: the newcomer
// opens them itself.
#include <QObject>
#include <QStringList>

class QLocalServer;

namespace kinetoscope::gui {

class MainWindow;

// The socket's name: per user and display.
QString instanceName();

// True when a running app took `paths` (made absolute here).
bool handToRunningApp(const QStringList& paths, int timeoutMs = 3000);

class InstanceServer : public QObject
{
    Q_OBJECT
public:
    explicit InstanceServer(QObject* parent = nullptr);
    // Listens on instanceName(), replacing a socket left by an app that crashed; false
    // (and a running app keeps the name) when another app already listens.
    bool listen();

Q_SIGNALS:
    void filesReceived(const QStringList& paths);

private:
    void accept();
    QLocalServer* m_server;
};

// Files handed over by later launches open in `window` as new tabs, and the window comes
// forward.
void openHandedFiles(InstanceServer& server, MainWindow& window);

}  // namespace kinetoscope::gui
