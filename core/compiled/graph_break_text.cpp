#include "core/compiled/graph_break_text.h"

#include "core/trace/python_frame.h"

#include <optional>
#include <string_view>

namespace kinetoscope::compiled {

namespace {

std::string fileName(std::string_view path)
{
    return std::string{path.substr(path.find_last_of('/') + 1)};
}

std::string firstOp(const GraphBreak& b)
{
    return b.ops.empty() ? std::string("Python code") : b.ops.front();
}

}  // namespace

std::string breakLocation(const GraphBreak& b)
{
    if (b.line.line > 0) {
        const std::string at = fileName(b.line.file) + ":" + std::to_string(b.line.line);
        return b.line.function.empty() ? at : b.line.function + " at " + at;
    }
    const std::optional<trace::FrameParts> parts = trace::splitFrame(b.source);
    if (!parts)
        return b.source;
    std::string function{parts->function};
    if (const std::optional<SourceLine> resumed = resumedAt(b.source))
        function = resumed->function;
    return function + " in " + fileName(parts->path);
}

std::string breakCall(const GraphBreak& b)
{
    return b.call.empty() ? firstOp(b) : b.call + "() (" + firstOp(b) + ")";
}

std::string breakPlace(const GraphBreak& b)
{
    std::string place = !b.call.empty()    ? b.call
                        : !b.ops.empty()   ? b.ops.front()
                        : b.afterLastGraph ? std::string("eager code after the last graph")
                                           : std::string("Python code");
    const std::string where = breakLocation(b);
    return where.empty() ? place : place + " in " + where;
}

}  // namespace kinetoscope::compiled
