#include "app/gui/single_instance.h"

#include "app/gui/main_window.h"

#include <QCryptographicHash>
#include <QFileInfo>
#include <QLocalServer>
#include <QLocalSocket>
#include <unistd.h>

namespace kinetoscope::gui {

QString instanceName()
{
    const QByteArray given = qgetenv("KINETOSCOPE_INSTANCE");
    if (!given.isEmpty())
        return QString::fromLocal8Bit(given);
    // One per display: an app on a remote X display is not the one on this screen.
    const QByteArray display = qgetenv("WAYLAND_DISPLAY") + '|' + qgetenv("DISPLAY");
    const QByteArray tag =
        QCryptographicHash::hash(display, QCryptographicHash::Sha1).toHex().left(8);
    return QStringLiteral("kinetoscope-%1-%2").arg(::getuid()).arg(QString::fromLatin1(tag));
}

bool handToRunningApp(const QStringList& paths, int timeoutMs)
{
    QLocalSocket socket;
    socket.connectToServer(instanceName());
    if (!socket.waitForConnected(timeoutMs))
        return false;
    QByteArray message;
    for (const QString& path : paths)
        message += QFileInfo(path).absoluteFilePath().toUtf8() + '\n';
    message += '\n';
    socket.write(message);
    if (!socket.waitForBytesWritten(timeoutMs))
        return false;
    while (!socket.canReadLine())
        if (!socket.waitForReadyRead(timeoutMs))
            return false;
    return socket.readLine().trimmed() == "ok";
}

InstanceServer::InstanceServer(QObject* parent) : QObject(parent), m_server(new QLocalServer(this))
{
    m_server->setSocketOptions(QLocalServer::UserAccessOption);
    connect(m_server, &QLocalServer::newConnection, this, &InstanceServer::accept);
}

bool InstanceServer::listen()
{
    // Asked first: with access options Qt moves its socket onto the name, replacing one
    // an app still listens on. A socket left by an app that crashed answers nobody.
    const QString name = instanceName();
    QLocalSocket probe;
    probe.connectToServer(name);
    if (probe.waitForConnected(500))
        return false;
    QLocalServer::removeServer(name);
    return m_server->listen(name);
}

void InstanceServer::accept()
{
    while (QLocalSocket* socket = m_server->nextPendingConnection()) {
        connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
        auto received = std::make_shared<QStringList>();
        connect(socket, &QLocalSocket::readyRead, this, [this, socket, received] {
            while (socket->canReadLine()) {
                const QString line = QString::fromUtf8(socket->readLine()).chopped(1);
                if (!line.isEmpty()) {
                    received->append(line);
                    continue;
                }
                // The empty line: all of them. Answer first, then open (opening may take a while).
                socket->write("ok\n");
                socket->flush();
                Q_EMIT filesReceived(*received);
                received->clear();
            }
        });
    }
}

void openHandedFiles(InstanceServer& server, MainWindow& window)
{
    QObject::connect(&server, &InstanceServer::filesReceived, &window,
                     [&window](const QStringList& paths) {
                         window.openFiles(paths);
                         window.raise();
                         window.activateWindow();
                     });
}

}  // namespace kinetoscope::gui
