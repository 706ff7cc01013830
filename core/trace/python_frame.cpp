#include "core/trace/python_frame.h"

#include <algorithm>
#include <iterator>
#include <string>

namespace kinetoscope::trace {

std::optional<FrameParts> splitFrame(std::string_view frame)
{
    const size_t colon = frame.find("): ");
    const size_t open = frame.rfind('(', colon);
    if (colon == std::string_view::npos || open == std::string_view::npos || frame.starts_with('<'))
        return std::nullopt;
    return FrameParts{frame.substr(0, open), frame.substr(colon + 3)};
}

bool isUserFrame(std::string_view frame)
{
    const size_t open = frame.find(".py(");
    if (open == std::string_view::npos || frame.starts_with("<"))
        return false;  // a built-in, or not a source frame
    // Windows traces write backslashes; the tracer trims the sys.path prefix, so torch's
    // own files read "torch/...", other libraries' "name/...", the standard library's
    // "threading.py" (or a full path into lib/python3.x when it is not trimmed).
    std::string path(frame.substr(0, open));
    std::replace(path.begin(), path.end(), '\\', '/');
    const std::string_view p = path;
    auto directory = [p](std::string_view name) {  // "name/" at the start or after a '/'
        for (size_t at = p.find(name); at != std::string_view::npos; at = p.find(name, at + 1))
            if (at == 0 || p[at - 1] == '/')
                return true;
        return false;
    };
    for (std::string_view library :
         {"torch/", "triton/", "functorch/", "site-packages/", "dist-packages/", "multiprocessing/",
          "concurrent/", "asyncio/", "importlib/", "collections/", "json/"})
        if (directory(library))
            return false;
    if (p.find("/lib/python3") != std::string_view::npos || p.starts_with("<frozen"))
        return false;
    static constexpr std::string_view kStandardModules[] = {
        "threading",   "runpy",     "contextlib", "functools", "abc",     "typing",
        "queue",       "selectors", "socket",     "copy",      "weakref", "enum",
        "dataclasses", "pickle",    "copyreg",    "warnings",  "inspect", "traceback"};
    const std::string_view file =
        p.substr(p.rfind('/') == std::string_view::npos ? 0 : p.rfind('/') + 1);
    const bool topLevel = p.find('/') == std::string_view::npos;
    return !(topLevel && std::find(std::begin(kStandardModules), std::end(kStandardModules),
                                   file) != std::end(kStandardModules));
}

std::string pythonCallName(std::string_view frame)
{
    constexpr std::string_view kMethod = "<built-in method ";
    if (frame.starts_with(kMethod)) {
        std::string_view rest = frame.substr(kMethod.size());
        const size_t of = rest.find(" of ");
        if (of != std::string_view::npos) {
            const std::string_view method = rest.substr(0, of);
            std::string_view owner = rest.substr(of + 4);
            owner = owner.substr(0, owner.find(' '));
            // A module's function bound to a class object ("relu of type object": torch's
            // functions) or to pybind11's function record says nothing of whose it is.
            if (owner == "type" || owner.starts_with("pybind11_builtins.") || owner == "PyCapsule")
                return std::string{method};
            return std::string{owner} + "." + std::string{method};
        }
    }
    constexpr std::string_view kFunction = "<built-in function ";
    if (frame.starts_with(kFunction)) {
        std::string_view rest = frame.substr(kFunction.size());
        return std::string{rest.substr(0, rest.find('>'))};
    }
    return std::string{frame};
}

}  // namespace kinetoscope::trace
