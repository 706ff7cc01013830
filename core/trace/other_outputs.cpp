#include "core/trace/other_outputs.h"

#include "core/trace/byte_source.h"

#include <algorithm>
#include <cctype>

namespace kinetoscope::trace {

namespace {

std::string_view trimmedStart(std::string_view text)
{
    if (text.starts_with("\xEF\xBB\xBF"))  // a UTF-8 byte order mark
        text.remove_prefix(3);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
        text.remove_prefix(1);
    return text;
}

bool containsNoCase(std::string_view text, std::string_view word)
{
    return std::search(text.begin(), text.end(), word.begin(), word.end(), [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) == b;
           }) != text.end();
}

// export_stacks writes one line per stack: "frame;frame;...;frame 1234" (a time in us).
bool isStacksLine(std::string_view line)
{
    const size_t space = line.rfind(' ');
    if (space == std::string_view::npos || space + 1 == line.size() ||
        line.substr(0, space).find(';') == std::string_view::npos)
        return false;
    const std::string_view count = line.substr(space + 1);
    return std::all_of(count.begin(), count.end(),
                       [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

}  // namespace

std::string otherTorchOutput(std::string_view head)
{
    const std::string_view text = trimmedStart(head);
    if (text.empty())
        return {};
    if (text.front() == '{') {
        // Its keys come first: "schema": "1.1.1-chakra.0.0.4", "pid", "time", "nodes": [...]
        if (text.find("\"nodes\"") != std::string_view::npos &&
            text.find("\"schema\"") != std::string_view::npos)
            return "an execution trace (torch.profiler.ExecutionTraceObserver: the ops' graph, "
                   "without their times)";
        return {};
    }
    if (text.front() == '[') {
        // export_memory_timeline's data: [[times...], [[sizes...]...]], and its .raw.json.gz
        // [[time, action, bytes, category], ...]: arrays, where a trace's array holds events.
        if (trimmedStart(text.substr(1)).starts_with('['))
            return "a memory timeline's data (prof.export_memory_timeline: times and sizes, "
                   "not trace events)";
        return {};
    }
    if (text.front() == '<')
        return containsNoCase(text.substr(0, 512), "<html")
                   ? "an HTML page (prof.export_memory_timeline writes its plot as one)"
                   : "an XML or HTML file";
    if (isStacksLine(text.substr(0, text.find('\n'))))
        return "a stacks file (prof.export_stacks, for a flame graph tool)";
    return {};
}

std::string fileHead(const std::filesystem::path& path, size_t bytes)
{
    std::string error;
    const std::unique_ptr<ByteSource> source = openFileSource(path, error, ReadExtent::Head);
    if (!source)
        return {};
    std::string head(bytes, '\0');
    size_t filled = 0;
    while (filled < bytes) {
        const size_t got = source->read(head.data() + filled, bytes - filled);
        if (got == 0)
            break;
        filled += got;
    }
    head.resize(filled);
    return head;
}

}  // namespace kinetoscope::trace
