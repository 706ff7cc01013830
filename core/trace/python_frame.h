#pragma once
// Python frames as torch.profiler's Python tracer names them (with_stack):
// "path/file.py(12): function" for source frames, "<built-in method item of Tensor object
// at 0x7f...>" and "<built-in function ...>" for calls into C.
#include <optional>
#include <string>
#include <string_view>

namespace kinetoscope::trace {

// A source frame's parts: "path/file.py(12): function" -> {"path/file.py", "function"};
// nullopt for a built-in or any other name.
struct FrameParts
{
    std::string_view path;
    std::string_view function;
};
std::optional<FrameParts> splitFrame(std::string_view frame);

// Is this frame the user's code rather than torch's, a library's (site-packages,
// dist-packages, the standard library) or a built-in?
bool isUserFrame(std::string_view frame);

// The call a frame names, shortly: "<built-in method item of Tensor object at 0x7f...>" ->
// "Tensor.item", "<built-in method relu of type object at 0x7f...>" -> "relu" (a class
// object or a pybind11 record owns it: no owner told), "<built-in function len>" -> "len";
// a source frame as it is.
std::string pythonCallName(std::string_view frame);

}  // namespace kinetoscope::trace
