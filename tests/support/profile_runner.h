#pragma once
// Runs the real `kinetoscope profile` binary (KINETOSCOPE_BINARY) on a command, as a user's
// shell would, and captures what it prints and its exit code.
#include <QProcess>
#include <QString>
#include <QStringList>

namespace kinetoscope::test {

struct Ran
{
    int code = -1;  // the exit code; 128 + N for a crash; -1 when it did not end in time
    QByteArray out, err;
};

// One process to its end (`timeoutMs` at most), its outputs captured.
inline Ran runProcess(const QString& program, const QStringList& args,
                      const QString& workingDir = {}, int timeoutMs = 240'000)
{
    QProcess p;
    if (!workingDir.isEmpty())
        p.setWorkingDirectory(workingDir);
    p.start(program, args);
    Ran r;
    if (!p.waitForStarted() || !p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : 128 + p.exitCode();
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

#ifdef KINETOSCOPE_BINARY
// kinetoscope profile OPTIONS -- COMMAND
inline Ran profile(const QStringList& options, const QStringList& command,
                   const QString& workingDir = {})
{
    return runProcess(QStringLiteral(KINETOSCOPE_BINARY),
                      QStringList{"profile"} + options + QStringList{"--"} + command, workingDir);
}
#endif

}  // namespace kinetoscope::test
