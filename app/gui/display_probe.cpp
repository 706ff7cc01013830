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

// Connects a fresh socket to `address`; true when something accepts within the timeout.
bool answers(int family, const sockaddr* address, socklen_t length)
{
    const int fd = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return true;  // cannot tell: let Qt try
    bool ok = ::connect(fd, address, length) == 0;
    if (!ok && errno == EINPROGRESS) {
        pollfd p{fd, POLLOUT, 0};
        int error = 0;
        socklen_t size = sizeof error;
        ok = ::poll(&p, 1, kConnectTimeoutMs) == 1 &&
             ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) == 0 && error == 0;
    }
    ::close(fd);
    return ok;
}

bool unixAnswers(const std::string& path, bool abstract)
{
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    const size_t offset = abstract ? 1 : 0;  // an abstract name starts with a NUL
    if (path.size() + offset >= sizeof address.sun_path)
        return true;
    std::memcpy(address.sun_path + offset, path.data(), path.size());
    const auto length =
        socklen_t(offsetof(sockaddr_un, sun_path) + offset + path.size() + (abstract ? 0 : 1));
    return answers(AF_UNIX, reinterpret_cast<const sockaddr*>(&address), length);
}

}  // namespace

std::string unreachableDisplay(const std::string& display)
{
    // [host]:number[.screen], host possibly "unix" or a protocol/host form.
    const size_t colon = display.rfind(':');
    if (colon == std::string::npos)
        return {};
    std::string host = display.substr(0, colon);
    if (const size_t slash = host.find('/'); slash != std::string::npos && host[0] != '/')
        host = host.substr(slash + 1);
    const std::string rest = display.substr(colon + 1);
    const std::string number = rest.substr(0, rest.find('.'));
    if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos)
        return {};
    if (host.empty() || host == "unix") {
        const std::string path = "/tmp/.X11-unix/X" + number;
        if (unixAnswers(path, true) || unixAnswers(path, false))
            return {};
        return "nothing listens on " + path;
    }
    if (host[0] == '/')  // a socket path of its own
        return unixAnswers(display.substr(0, colon), false) ? std::string()
                                                            : "nothing listens on " + host;
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const std::string port = std::to_string(6000 + std::stoi(number));
    if (::getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0 || !found)
        return "the host '" + host + "' is not known";
    bool ok = false;
    for (const addrinfo* a = found; a && !ok; a = a->ai_next)
        ok = answers(a->ai_family, a->ai_addr, a->ai_addrlen);
    ::freeaddrinfo(found);
    return ok ? std::string() : "nothing answers on " + host + " port " + port;
}

}  // namespace kinetoscope::gui
