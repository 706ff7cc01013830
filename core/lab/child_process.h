#pragma once
// A measured child process and the reading of its line protocol: the engine
// (`kinetoscope-engine`, protocol on its standard output, cancel on its standard input, its
// standard error kept in a log), or a user's script under the probe (protocol and cancel on
// a socket it inherits, its own output left alone). Torch-free; POSIX.
#include "core/lab/other_processes.h"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace kinetoscope::lab {

struct SpawnSpec
{
    std::string name = "the child";        // in the error line: "cannot start the engine: ..."
    std::string executable;                // a path; with searchPath, a name looked up in PATH too
    std::vector<std::string> args;         // argv[1...]
    std::vector<std::string> environment;  // "NAME=value" each
    bool searchPath = false;
    // The protocol on a socket the child inherits, its number in the environment variable
    // named here (KINETOSCOPE_PROBE_FD); empty: on the child's standard input and output,
    // with its standard error read too (the engine).
    std::string socketVariable;
    // No protocol channel at all (a job's launcher: its ranks write stream files); the
    // child's output is as in socket mode, and pump() returns false at once.
    bool noChannel = false;
    // Socket mode: the child's standard output and error appended to this file (the app
    // keeps a script's output); empty: inherited (the terminal of `kinetoscope profile`).
    std::string outputFile;
    std::string workingDirectory;  // empty: this process's
    // A process group of its own (signals reach everything it started; a terminal's Ctrl-C
    // reaches only this process): the engine, and a script started by the app. A script
    // started from a terminal stays in the terminal's group, as it would without us.
    bool ownProcessGroup = true;
    bool dieWithParent = true;  // SIGTERM when this process dies (PR_SET_PDEATHSIG)
    // Descriptors the child inherits at their numbers (the caller owns and closes them).
    std::vector<int> inheritedFds;
};

class ChildProcess
{
public:
    ChildProcess() = default;
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;
    // Never leaves a zombie or an orphan: a child still running is killed and reaped.
    ~ChildProcess();

    // False + one line ("cannot start ...: errno's text") when the channel or the process
    // could not be made. A program that cannot be executed exits 127 (see exitedUnstarted).
    bool spawn(const SpawnSpec& spec, std::string& error);
    pid_t pid() const { return m_pid; }

    // Keeps the child's standard error (engine mode) in a file from now on; what came
    // before is held in memory until then (up to 1 MiB) and written first.
    void keepLogAt(const std::string& path);

    // Reads what is there (waiting up to `timeout`), hands out complete protocol lines.
    // False once every output is closed. `onLine` gets lines without their '\n'; a line
    // past 16 MiB is handed out cut (it is not the protocol).
    template <typename OnLine>
    bool pump(std::chrono::milliseconds timeout, OnLine&& onLine)
    {
        std::vector<std::string_view> lines;
        const bool open = read(timeout, lines);
        for (std::string_view line : lines)
            onLine(line);
        m_line.erase(0, m_consumed);
        m_consumed = 0;
        return open;
    }

    void send(std::string_view line);  // on the control channel; a child gone is ignored
    // To the child's process group when it has its own, else to the child alone.
    void signal(int signal) const;
    bool reap();  // true once the process has ended (its wait status in status())
    int status() const { return m_status; }
    // Once reaped: the cores other processes used on average while it ran (see
    // OtherProcessesCpu), or nothing where not measured.
    std::optional<double> otherProcessesCores() const { return m_others.cores(); }
    // The last 4 KiB of the engine's standard error (empty in socket mode).
    const std::string& errorTail() const { return m_errorTail; }
    void closeOutputs();  // stops reading: what they still hold is not waited for

private:
    bool read(std::chrono::milliseconds timeout, std::vector<std::string_view>& lines);
    void writeLog(const char* bytes, size_t size) const;
    void closeChildEnds();

    std::vector<int> m_childEnds;  // the child's ends, until it has its copies
    pid_t m_pid = -1;
    bool m_ownGroup = true;
    int m_control = -1, m_out = -1, m_err = -1, m_log = -1;
    bool m_socket = false;  // protocol and control on one socket (m_out == m_control)
    bool m_reaped = false;
    int m_status = 0;
    OtherProcessesCpu m_others;
    std::string m_line;
    size_t m_consumed = 0;
    std::string m_errorTail;
    bool m_logKept = false;
    std::string m_earlyLog;
};

// After a cancel the child does not act on (no step boundary comes, no probe): what Ctrl-C
// would give it, then SIGTERM, then SIGKILL, each `grace` after the one before.
class SignalEscalation
{
public:
    using Clock = std::chrono::steady_clock;
    explicit SignalEscalation(Clock::duration grace) : m_grace(grace) {}
    // The cancel was asked for at `at` (the first call counts).
    void start(Clock::time_point at)
    {
        if (m_signals == 0 && m_last == Clock::time_point{})
            m_last = at;
    }
    bool started() const { return m_last != Clock::time_point{}; }
    // Sends the next signal when its time has come.
    void poll(const ChildProcess& child, Clock::time_point now);

private:
    Clock::duration m_grace;
    Clock::time_point m_last;  // the cancel, then each signal sent
    int m_signals = 0;         // sent so far: SIGINT, SIGTERM, SIGKILL
};

// "FD:DEVICE:INODE" for a descriptor a child inherits: the number, and what tells it from
// another file at the same number (a process the child starts may have that number for a
// file of its own: the probe there keeps away from it).
std::string describeInherited(int fd);

// "SIGSEGV" (or "signal 77").
std::string signalName(int signal);

}  // namespace kinetoscope::lab
