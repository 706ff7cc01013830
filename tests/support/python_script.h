#pragma once
// Runs a Python script written for a test (torch's own writers: TorchScript models,
// torch.save files) with the interpreter whose torch the engine links.
#include <QFile>
#include <QProcess>
#include <QString>

namespace kinetoscope::test {

inline bool runPythonScript(const QString& python, const QString& script, const QString& scriptPath,
                            QString& error)
{
    QFile file(scriptPath);
    if (!file.open(QIODevice::WriteOnly) || file.write(script.toUtf8()) < 0) {
        error = "cannot write " + scriptPath;
        return false;
    }
    file.close();
    QProcess process;
    process.start(python, {scriptPath});
    if (!process.waitForFinished(180000) || process.exitCode() != 0) {
        error = QString::fromUtf8(process.readAllStandardError()).right(400);
        return false;
    }
    return true;
}

}  // namespace kinetoscope::test
