#pragma once
// Whether the X display named by DISPLAY answers. Qt aborts the whole process when it
// cannot connect (a lost ssh X forward, a closed Xvfb), so the app asks first and says so
// in one line instead.
#include <string>

namespace kinetoscope::gui {

// Empty when the display answers, or when it cannot tell (a form it does not know); else
// why not, in a few words ("nothing listens on /tmp/.X11-unix/X99").
std::string unreachableDisplay(const std::string& display);

}  // namespace kinetoscope::gui
