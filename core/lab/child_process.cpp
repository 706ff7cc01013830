#include "core/lab/child_process.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace kinetoscope::lab {

namespace {

// A line longer than this is not the protocol (a session header is a few KiB).
constexpr size_t kMaxLineBytes = 16u << 20;
// Kept of the engine's standard error, for the last line of a crash.
constexpr size_t kErrorTailBytes = 4096;
// Held of the engine's standard error until the run starts and its log has a place
// (torch's start-up warnings are a few lines; more is cut).
constexpr size_t kEarlyLogBytes = 1u << 20;

}  // namespace

std::string describeInherited(int fd)
{
    struct stat status
    {
    };
    std::string text = std::to_string(fd);
    if (::fstat(fd, &status) == 0)
        text += ":" + std::to_string(status.st_dev) + ":" + std::to_string(status.st_ino);
    return text;
}

std::string signalName(int signal)
{
    const char* abbreviation = ::sigabbrev_np(signal);
    return abbreviation ? std::string("SIG") + abbreviation : "signal " + std::to_string(signal);
}

ChildProcess::~ChildProcess()
{
    closeChildEnds();
    for (int fd : {m_control, m_err, m_log})
        if (fd >= 0)
            ::close(fd);
    if (m_out >= 0 && m_out != m_control)
        ::close(m_out);
    if (m_pid > 0 && !m_reaped) {  // only on an early return: never leave a zombie or an orphan
        signal(SIGKILL);
        ::waitpid(m_pid, nullptr, 0);
    }
}

bool ChildProcess::spawn(const SpawnSpec& spec, std::string& error)
{
    auto failed = [&error](const char* what) {
        error = std::string("cannot start ") + what + ": " + std::strerror(errno);
        return false;
    };
    const bool socketMode = spec.noChannel || !spec.socketVariable.empty();
    m_socket = socketMode;
    m_ownGroup = spec.ownProcessGroup;
    // Each end is owned by this object as soon as it exists (the destructor closes it).
    int control[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
    if (!spec.noChannel) {
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, control) != 0)
            return failed(spec.name.c_str());
        m_control = control[0];
        m_childEnds.push_back(control[1]);
    }
    if (socketMode) {
        m_out = m_control;
    } else {
        if (::pipe2(out, O_CLOEXEC) != 0)
            return failed(spec.name.c_str());
        m_out = out[0];
        m_childEnds.push_back(out[1]);
        if (::pipe2(err, O_CLOEXEC) != 0)
            return failed(spec.name.c_str());
        m_err = err[0];
        m_childEnds.push_back(err[1]);
    }
    int output = -1;  // socket mode: the file the child's output goes to
    if (socketMode && !spec.outputFile.empty()) {
        output = ::open(spec.outputFile.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (output < 0)
            return failed(spec.outputFile.c_str());
        m_childEnds.push_back(output);
    }
    // Built before the fork: the child may only make async-signal-safe calls.
    std::vector<std::string> environment = spec.environment;
    if (socketMode && !spec.noChannel)
        environment.push_back(spec.socketVariable + "=" + describeInherited(control[1]));
    std::vector<char*> envp;
    envp.reserve(environment.size() + 1);
    for (std::string& entry : environment)
        envp.push_back(entry.data());
    envp.push_back(nullptr);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(spec.executable.c_str()));
    for (const std::string& arg : spec.args)
        argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0)
        return failed(spec.name.c_str());
    if (pid == 0) {
        // The child: async-signal-safe calls only until exec.
        if (socketMode) {
            if (control[1] >= 0)
                ::fcntl(control[1], F_SETFD, 0);  // inherited across exec, at the number it has
            if (output >= 0) {
                ::dup2(output, STDOUT_FILENO);
                ::dup2(output, STDERR_FILENO);
                if (const int null = ::open("/dev/null", O_RDONLY); null >= 0)
                    ::dup2(null, STDIN_FILENO);
            }
        } else {
            ::dup2(control[1], STDIN_FILENO);
            ::dup2(out[1], STDOUT_FILENO);
            ::dup2(err[1], STDERR_FILENO);
        }
        for (int fd : spec.inheritedFds)
            ::fcntl(fd, F_SETFD, 0);
        sigset_t all;
        ::sigemptyset(&all);
        ::sigprocmask(SIG_SETMASK, &all, nullptr);
        // A child of its own group is ours to stop (SIGINT first: the lab's cancel); one in
        // the caller's group keeps the dispositions the caller gave (exec resets caught
        // signals, and a signal ignored by nohup or `trap ''` stays ignored, as without us).
        if (spec.ownProcessGroup) {
            ::signal(SIGINT, SIG_DFL);
            ::signal(SIGQUIT, SIG_DFL);
            ::setpgid(0, 0);
        }
        if (spec.dieWithParent) {
            ::prctl(PR_SET_PDEATHSIG, SIGTERM);
            if (::getppid() != parent)
                ::_exit(127);
        }
        if (!spec.workingDirectory.empty() && ::chdir(spec.workingDirectory.c_str()) != 0)
            ::_exit(126);
        if (spec.searchPath)
            ::execvpe(spec.executable.c_str(), argv.data(), envp.data());
        else
            ::execve(spec.executable.c_str(), argv.data(), envp.data());
        ::_exit(127);
    }
    m_pid = pid;
    m_others.start();
    if (spec.ownProcessGroup)
        ::setpgid(pid, pid);  // as the child does: whichever runs first, the group exists
    closeChildEnds();
    return true;
}

void ChildProcess::keepLogAt(const std::string& path)
{
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    m_log = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    m_logKept = true;
    writeLog(m_earlyLog.data(), m_earlyLog.size());
    m_earlyLog.clear();
    m_earlyLog.shrink_to_fit();
}

bool ChildProcess::read(std::chrono::milliseconds timeout, std::vector<std::string_view>& lines)
{
    if (m_out < 0 && m_err < 0)
        return false;
    pollfd fds[2] = {{m_out, POLLIN, 0}, {m_err, POLLIN, 0}};  // a negative fd is skipped
    if (::poll(fds, 2, int(timeout.count())) < 0 && errno != EINTR)
        return false;
    char buffer[65536];
    if (m_out >= 0 && fds[0].revents) {
        const ssize_t n = ::read(m_out, buffer, sizeof buffer);
        if (n > 0) {
            m_line.append(buffer, size_t(n));
            size_t begin = 0;
            for (size_t end; (end = m_line.find('\n', begin)) != std::string::npos; begin = end + 1)
                lines.push_back(std::string_view(m_line).substr(begin, end - begin));
            m_consumed = begin;
            if (m_line.size() - begin > kMaxLineBytes) {
                lines.push_back(std::string_view(m_line).substr(begin, 200));  // not a message
                m_consumed = m_line.size();
            }
        } else if (n == 0 || errno != EINTR) {
            if (m_out != m_control)
                ::close(m_out);
            m_out = -1;
        }
    }
    if (m_err >= 0 && fds[1].revents) {
        const ssize_t n = ::read(m_err, buffer, sizeof buffer);
        if (n > 0) {
            if (m_logKept)
                writeLog(buffer, size_t(n));
            else if (m_earlyLog.size() < kEarlyLogBytes)
                m_earlyLog.append(buffer, std::min(size_t(n), kEarlyLogBytes - m_earlyLog.size()));
            m_errorTail.append(buffer, size_t(n));
            if (m_errorTail.size() > kErrorTailBytes)
                m_errorTail.erase(0, m_errorTail.size() - kErrorTailBytes);
        } else if (n == 0 || errno != EINTR) {
            ::close(m_err);
            m_err = -1;
        }
    }
    return m_out >= 0 || m_err >= 0;
}

void ChildProcess::send(std::string_view line)
{
    // MSG_NOSIGNAL: a child that is gone is an error here, never a SIGPIPE.
    if (m_control >= 0)
        (void)::send(m_control, line.data(), line.size(), MSG_NOSIGNAL);
}

void SignalEscalation::poll(const ChildProcess& child, Clock::time_point now)
{
    static constexpr int kSignals[] = {SIGINT, SIGTERM, SIGKILL};
    if (!started() || m_signals >= 3 || now - m_last <= m_grace)
        return;
    child.signal(kSignals[m_signals++]);
    m_last = now;
}

void ChildProcess::signal(int signal) const
{
    if (m_pid > 0 && !m_reaped)
        ::kill(m_ownGroup ? -m_pid : m_pid, signal);
}

bool ChildProcess::reap()
{
    struct rusage usage
    {
    };
    if (!m_reaped && m_pid > 0 && ::wait4(m_pid, &m_status, WNOHANG, &usage) == m_pid) {
        m_reaped = true;
        m_others.finish(usage);
    }
    return m_reaped;
}

void ChildProcess::closeOutputs()
{
    if (m_out >= 0 && m_out != m_control)
        ::close(m_out);
    m_out = -1;
    if (m_err >= 0)
        ::close(m_err);
    m_err = -1;
}

void ChildProcess::writeLog(const char* bytes, size_t size) const
{
    ssize_t ignored = ::write(m_log >= 0 ? m_log : STDERR_FILENO, bytes, size);
    (void)ignored;
}

void ChildProcess::closeChildEnds()
{
    for (int fd : m_childEnds)
        ::close(fd);
    m_childEnds.clear();
}

}  // namespace kinetoscope::lab
