#include "app/gui/display_probe.h"

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace kinetoscope::gui {

namespace {

constexpr int kConnectTimeoutMs = 1500;  // a forwarded display over a slow link still answers
constexpr int kNoAnswer = -1;
constexpr int kCannotTell = -2;  // no socket to ask with, a path too long: let Qt try

// Connects a fresh socket to `address`: the connected socket when something accepts within
// the timeout, else kNoAnswer or kCannotTell.
int connectTo(int family, const sockaddr* address, socklen_t length)
{
    const int fd = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return kCannotTell;
    bool ok = ::connect(fd, address, length) == 0;
    if (!ok && errno == EINPROGRESS) {
        pollfd p{fd, POLLOUT, 0};
        int error = 0;
        socklen_t size = sizeof error;
        ok = ::poll(&p, 1, kConnectTimeoutMs) == 1 &&
             ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) == 0 && error == 0;
    }
    if (ok)
        return fd;
    ::close(fd);
    return kNoAnswer;
}

int connectUnix(const std::string& path, bool abstract)
{
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    const size_t offset = abstract ? 1 : 0;  // an abstract name starts with a NUL
    if (path.size() + offset >= sizeof address.sun_path)
        return kCannotTell;
    std::memcpy(address.sun_path + offset, path.data(), path.size());
    const auto length =
        socklen_t(offsetof(sockaddr_un, sun_path) + offset + path.size() + (abstract ? 0 : 1));
    return connectTo(AF_UNIX, reinterpret_cast<const sockaddr*>(&address), length);
}

}  // namespace

DisplayProbe::DisplayProbe(const std::string& display)
{
    // [host]:number[.screen], host possibly "unix" or a protocol/host form.
    const size_t colon = display.rfind(':');
    if (colon == std::string::npos)
        return;
    std::string host = display.substr(0, colon);
    if (const size_t slash = host.find('/'); slash != std::string::npos && host[0] != '/')
        host = host.substr(slash + 1);
    const std::string rest = display.substr(colon + 1);
    const std::string number = rest.substr(0, rest.find('.'));
    if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos)
        return;
    if (host.empty() || host == "unix") {
        const std::string path = "/tmp/.X11-unix/X" + number;
        m_held = connectUnix(path, true);
        if (m_held == kNoAnswer)
            m_held = connectUnix(path, false);
        if (m_held == kNoAnswer)
            m_why = "nothing listens on " + path;
        return;
    }
    if (host[0] == '/') {  // a socket path of its own
        m_held = connectUnix(display.substr(0, colon), false);
        if (m_held == kNoAnswer)
            m_why = "nothing listens on " + host;
        return;
    }
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const std::string port = std::to_string(6000 + std::stoi(number));
    if (::getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0 || !found) {
        m_why = "the host '" + host + "' is not known";
        return;
    }
    m_held = kNoAnswer;
    for (const addrinfo* a = found; a && m_held == kNoAnswer; a = a->ai_next)
        m_held = connectTo(a->ai_family, a->ai_addr, a->ai_addrlen);
    ::freeaddrinfo(found);
    if (m_held == kNoAnswer)
        m_why = "nothing answers on " + host + " port " + port;
}

DisplayProbe::~DisplayProbe()
{
    release();
}

void DisplayProbe::release()
{
    if (m_held >= 0)
        ::close(m_held);
    m_held = -1;
}

}  // namespace kinetoscope::gui
