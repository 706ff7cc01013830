#pragma once
// Whether the X display named by DISPLAY answers. Qt aborts the whole process when it
// cannot connect (a lost ssh X forward, a closed Xvfb), so the app asks first and says so
// in one line instead.
//
// The connection that asked stays open until the app has its own (release()). An X server
// resets when its last client leaves (Xvfb as xvfb-run starts it, without -noreset; in
// X.Org 21.1, Debian 12's, even a client that never began its handshake counts), and the
// reset drops every connection it accepted meanwhile: had the probe closed at once, Qt's
// connection could land in that reset and Qt would abort ("could not connect to display").
#include <string>

namespace kinetoscope::gui {

class DisplayProbe
{
public:
    // Connects to `display` ([host]:number[.screen], "unix:N", or a socket path before the
    // colon) and keeps the connection when something answers.
    explicit DisplayProbe(const std::string& display);
    ~DisplayProbe();
    DisplayProbe(const DisplayProbe&) = delete;
    DisplayProbe& operator=(const DisplayProbe&) = delete;

    // Empty when the display answers, or when it cannot tell (a form it does not know);
    // else why not, in a few words ("nothing listens on /tmp/.X11-unix/X99").
    const std::string& unreachable() const { return m_why; }
    // Closes the connection: once the app's own is made, the server keeps a client.
    void release();

private:
    int m_held = -1;
    std::string m_why;
};

}  // namespace kinetoscope::gui
