#include "core/compiled/compiled_window.h"

#include "core/compiled/kernel_name.h"
#include "core/trace/name_cache.h"
#include "core/trace/python_frame.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <iterator>
#include <map>
#include <optional>
#include <string_view>
#include <utility>

namespace kinetoscope::compiled {

namespace {

using trace::Category;
using trace::Event;
using trace::EventId;
using trace::TraceModel;

constexpr std::string_view kRegionPrefix = "Torch-Compiled Region: ";

// What a span around compiled code is, from its name.
enum class Role : uint8_t
{
    None,
    Region,       // Torch-Compiled Region: F/C
    Graph,        // a compiled graph run: CompiledFunction(Backward), ## Call CompiledFxGraph ##
    Guards,       // TorchDynamo Cache Lookup
    Bookkeeping,  // Dynamo's and AOTAutograd's wrappers around a graph run
    Compile,      // compilation itself
    Launch,       // a compiled kernel's launch op (Triton, or Inductor's C++)
};

Role roleOfName(std::string_view name)
{
    if (name.starts_with(kRegionPrefix))
        return Role::Region;
    if (name == "CompiledFunction" || name == "CompiledFunctionBackward" ||
        name.starts_with("## Call CompiledFxGraph"))
        return Role::Graph;
    if (name == "TorchDynamo Cache Lookup")
        return Role::Guards;
    if (name == "Pregraph bytecode" || name.starts_with("AOTDispatcher Runtime Wrapper"))
        return Role::Bookkeeping;
    if (isCompileWork(name))
        return Role::Compile;
    if (parseCompiledKernelName(name))
        return Role::Launch;
    return Role::None;
}

// "0/1" -> frame "0", compile 1; "0/0_1" (a second attempt) -> compile 0.
struct CompileId
{
    std::string frame;
    int compile = 0;
};
std::optional<CompileId> parseCompileId(std::string_view text)
{
    const size_t slash = text.find('/');
    if (slash == std::string_view::npos || slash == 0)
        return std::nullopt;
    CompileId id;
    id.frame = std::string{text.substr(0, slash)};
    const std::string_view rest = text.substr(slash + 1);
    const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), id.compile);
    if (error != std::errc{} || end == rest.data())
        return std::nullopt;
    return id;
}

// Where a step list (sorted by begin, not overlapping) places a time: the index of the
// step containing it, or -1.
int stepAt(std::span<const StepSpan> steps, int64_t timeNs)
{
    const auto after =
        std::upper_bound(steps.begin(), steps.end(), timeNs,
                         [](int64_t time, const StepSpan& step) { return time < step.beginNs; });
    if (after == steps.begin())
        return -1;
    const auto step = std::prev(after);
    return timeNs < step->endNs ? static_cast<int>(step - steps.begin()) : -1;
}

struct Interval
{
    int64_t beginNs = 0;
    int64_t endNs = 0;
};

// The time of [begin, end) covered by the intervals' union.
int64_t coveredWithin(std::vector<Interval> intervals, int64_t beginNs, int64_t endNs)
{
    for (Interval& interval : intervals) {
        interval.beginNs = std::max(interval.beginNs, beginNs);
        interval.endNs = std::min(interval.endNs, endNs);
    }
    std::erase_if(intervals, [](const Interval& i) { return i.endNs <= i.beginNs; });
    std::sort(intervals.begin(), intervals.end(),
              [](const Interval& a, const Interval& b) { return a.beginNs < b.beginNs; });
    int64_t covered = 0;
    int64_t reach = beginNs;
    for (const Interval& interval : intervals) {
        const int64_t from = std::max(reach, interval.beginNs);
        if (interval.endNs > from)
            covered += interval.endNs - from;
        reach = std::max(reach, interval.endNs);
    }
    return covered;
}

// One occurrence of a break, before the steps are averaged.
struct BreakSeen
{
    std::string frame;
    int index = 0;
    int64_t gapBeginNs = 0;
    int64_t gapNs = 0;
    std::vector<EventId> eagerOps;  // outermost, in time order
    EventId resumed;                // the Python frame Dynamo resumed after it, if recorded
    bool afterLastGraph = false;
};

// The spans one CPU thread holds, read in one pass over its events (sorted by start, a
// parent before its children, so "inside" is "starts before the enclosing span's end").
struct ThreadReading
{
    std::vector<Interval> regions;  // outermost regions, and graphs run outside any region
    std::vector<Interval> graphs;   // outermost graph runs
    std::vector<BreakSeen> breaks;
    std::vector<Interval> breakHost;  // the breaks' time less their eager ops
};

class Reader
{
public:
    explicit Reader(const TraceModel& model)
        : m_model(model), m_inGraph(model.events().size(), false)
    {
    }

    Role role(const Event& event) { return m_roles(event.name); }
    bool isResumeFrame(trace::StringId name) { return m_resumes(name); }
    bool inGraph(EventId id) const
    {
        return id.valid() && id.value < m_inGraph.size() && m_inGraph[id.value];
    }

    ThreadReading readThread(trace::TrackId track)
    {
        ThreadReading reading;
        const std::span<const Event> events = m_model.events(track);
        size_t i = 0;
        while (i < events.size()) {
            const Event& event = events[i];
            const Role kind = role(event);
            if (kind == Role::Region) {
                i = readRegion(events, i, reading);
                continue;
            }
            if (kind == Role::Graph) {  // a backward graph, run by the autograd engine
                reading.regions.push_back({event.startNs, event.endNs()});
                reading.graphs.push_back({event.startNs, event.endNs()});
                i = markGraph(events, i);
                continue;
            }
            ++i;
        }
        return reading;
    }

    std::string frameOf(const Event& region) const
    {
        const std::string_view name = m_model.text(region.name).substr(kRegionPrefix.size());
        const std::optional<CompileId> id = parseCompileId(name);
        return id ? id->frame : std::string{name};
    }

    // The innermost Python call and the user's frame around an op, from the stack spans.
    std::pair<std::string, std::string> pythonContext(EventId op)
    {
        std::string call;
        std::string source;
        for (EventId at = m_model.event(op).parent; at.valid(); at = m_model.event(at).parent) {
            const Event& ancestor = m_model.event(at);
            if (ancestor.category != Category::PythonFunction)
                continue;
            const std::string_view frame = m_model.text(ancestor.name);
            if (call.empty())
                call = trace::pythonCallName(frame);
            if (trace::isUserFrame(frame)) {
                source = std::string{frame};
                break;
            }
        }
        return {call, source};
    }

private:
    // Marks the graph run at `first` and every event inside it; returns the index after
    // them, always past `first` (a run of zero duration holds nothing but itself).
    size_t markGraph(std::span<const Event> events, size_t first)
    {
        const int64_t end = events[first].endNs();
        m_inGraph[m_model.idOf(events[first]).value] = true;
        size_t i = first + 1;
        for (; i < events.size() && events[i].startNs < end; ++i)
            m_inGraph[m_model.idOf(events[i]).value] = true;
        return i;
    }

    // Skips the events inside the span at `first`; returns the index after them.
    static size_t skipInside(std::span<const Event> events, size_t first)
    {
        const int64_t end = events[first].endNs();
        size_t i = first + 1;
        while (i < events.size() && events[i].startNs < end)
            ++i;
        return i;
    }

    // An outermost region: its graph runs, and the eager ops between them.
    size_t readRegion(std::span<const Event> events, size_t first, ThreadReading& reading)
    {
        const Event& region = events[first];
        const int64_t end = region.endNs();
        reading.regions.push_back({region.startNs, end});
        std::vector<Interval> graphs;
        std::vector<EventId> eager;    // outermost eager CPU ops, in time order
        std::vector<EventId> resumes;  // Python frames of Dynamo's resume functions
        size_t i = first + 1;
        while (i < events.size() && events[i].startNs < end) {
            const Event& event = events[i];
            switch (role(event)) {
            case Role::Graph:
                graphs.push_back({event.startNs, event.endNs()});
                i = markGraph(events, i);
                continue;
            case Role::Guards:
            case Role::Bookkeeping:
            case Role::Compile:
                i = skipInside(events, i);
                continue;
            case Role::Region:
                ++i;  // a resumed frame after a break: its insides are read here too
                continue;
            case Role::None:
            case Role::Launch:
                break;
            }
            if (event.category == Category::CpuOp) {
                eager.push_back(m_model.idOf(event));
                i = skipInside(events, i);
                continue;
            }
            if (event.category == Category::PythonFunction && isResumeFrame(event.name))
                resumes.push_back(m_model.idOf(event));
            ++i;
        }
        if (graphs.empty()) {
            // No graph-run span inside (inference on some torch versions): the region runs
            // its graph itself, and what it launched is compiled.
            graphs.push_back({region.startNs, end});
            for (size_t k = first; k < i; ++k)
                m_inGraph[m_model.idOf(events[k]).value] = true;
            eager.clear();
        }
        reading.graphs.insert(reading.graphs.end(), graphs.begin(), graphs.end());
        // A break: the time from one graph's end to the next graph's start, or to the
        // last eager op after the frame's last graph.
        const std::string frame = frameOf(region);
        int index = 0;
        for (size_t g = 0; g < graphs.size(); ++g) {
            const int64_t gapBegin = graphs[g].endNs;
            int64_t gapEnd = g + 1 < graphs.size() ? graphs[g + 1].beginNs : gapBegin;
            BreakSeen seen;
            for (const EventId op : eager) {
                const Event& e = m_model.event(op);
                if (e.startNs < gapBegin || (g + 1 < graphs.size() && e.startNs >= gapEnd))
                    continue;
                seen.eagerOps.push_back(op);
                if (g + 1 == graphs.size())
                    gapEnd = std::max(gapEnd, e.endNs());
            }
            if (g + 1 == graphs.size() && seen.eagerOps.empty())
                continue;  // the frame ends with its last graph
            seen.frame = frame;
            seen.index = index++;
            seen.afterLastGraph = g + 1 == graphs.size();
            if (g + 1 < graphs.size())  // the last frame resumed before the next graph
                for (const EventId resume : resumes) {
                    const int64_t at = m_model.event(resume).startNs;
                    if (at >= gapBegin && at <= gapEnd)
                        seen.resumed = resume;
                }
            seen.gapBeginNs = gapBegin;
            seen.gapNs = std::max<int64_t>(0, gapEnd - gapBegin);
            int64_t from = gapBegin;
            for (const EventId op : seen.eagerOps) {
                const Event& e = m_model.event(op);
                if (e.startNs > from)
                    reading.breakHost.push_back({from, e.startNs});
                from = std::max(from, e.endNs());
            }
            if (gapEnd > from)
                reading.breakHost.push_back({from, gapEnd});
            reading.breaks.push_back(std::move(seen));
        }
        return i;
    }

    const TraceModel& m_model;
    trace::PerName<Role, Role (*)(std::string_view)> m_roles{m_model, roleOfName};
    trace::PerName<bool, bool (*)(std::string_view)> m_resumes{
        m_model, [](std::string_view name) { return resumedAt(name).has_value(); }};
    std::vector<bool> m_inGraph;
};

// The compile id a compile span worked on: named in its insides ("...: compile_id=1/2"),
// else the region entered next on its thread.
std::string compileIdOf(const TraceModel& model, std::span<const Event> events, size_t first)
{
    const int64_t end = events[first].endNs();
    constexpr std::string_view kKey = "compile_id=";
    for (size_t i = first + 1; i < events.size() && events[i].startNs < end; ++i) {
        const std::string_view name = model.text(events[i].name);
        const size_t at = name.find(kKey);
        if (at == std::string_view::npos)
            continue;
        std::string_view id = name.substr(at + kKey.size());
        id = id.substr(0, id.find_first_of(", "));
        if (parseCompileId(id))
            return std::string{id};
    }
    for (size_t i = first + 1; i < events.size(); ++i) {
        const std::string_view name = model.text(events[i].name);
        if (name.starts_with(kRegionPrefix))
            return std::string{name.substr(kRegionPrefix.size())};
    }
    return {};
}

void aggregateBreaks(Reader& reader, const TraceModel& model, std::span<const BreakSeen> seen,
                     std::span<const StepSpan> steady, CompiledWindow& window)
{
    std::map<std::pair<std::string, int>, GraphBreak> byPlace;
    std::map<std::pair<std::string, int>, std::map<std::string, int64_t>> opTime;
    std::map<std::pair<std::string, int>, std::vector<double>> gapsByStep;  // by steady step
    for (const BreakSeen& occurrence : seen) {
        const int step = stepAt(steady, occurrence.gapBeginNs);
        if (step < 0)
            continue;
        const auto key = std::make_pair(occurrence.frame, occurrence.index);
        std::vector<double>& gaps = gapsByStep[key];
        gaps.resize(std::max(gaps.size(), static_cast<size_t>(step) + 1));
        gaps[static_cast<size_t>(step)] += static_cast<double>(occurrence.gapNs);
        GraphBreak& entry = byPlace[key];
        entry.frame = occurrence.frame;
        entry.index = occurrence.index;
        entry.afterLastGraph = occurrence.afterLastGraph;
        entry.perStep += 1;
        entry.gapNsPerStep += static_cast<double>(occurrence.gapNs);
        for (const EventId op : occurrence.eagerOps) {
            const Event& event = model.event(op);
            entry.eagerNsPerStep += static_cast<double>(event.durationNs);
            opTime[key][std::string{model.text(event.name)}] += event.durationNs;
        }
        if (!entry.example.valid() && !occurrence.eagerOps.empty()) {
            entry.example = occurrence.eagerOps.front();
            std::tie(entry.call, entry.source) = reader.pythonContext(entry.example);
        }
        if (entry.line.line == 0 && occurrence.resumed.valid())
            entry.line =
                resumedAt(model.text(model.event(occurrence.resumed).name)).value_or(SourceLine{});
    }
    const double steps = static_cast<double>(steady.size());
    for (auto& [key, entry] : byPlace) {
        std::vector<double> perStep = gapsByStep[key];
        perStep.resize(steady.size());  // a step without it had none
        std::sort(perStep.begin(), perStep.end());
        entry.gapNsTypical = perStep[perStep.size() / 2];
        entry.gapNsLargest = perStep.back();
        entry.perStep /= steps;
        entry.gapNsPerStep /= steps;
        entry.eagerNsPerStep /= steps;
        std::vector<std::pair<std::string, int64_t>> ops(opTime[key].begin(), opTime[key].end());
        std::stable_sort(ops.begin(), ops.end(),
                         [](const auto& a, const auto& b) { return a.second > b.second; });
        for (auto& [name, time] : ops)
            entry.ops.push_back(name);
        window.breaks.push_back(std::move(entry));
    }
    std::stable_sort(
        window.breaks.begin(), window.breaks.end(),
        [](const GraphBreak& a, const GraphBreak& b) { return a.gapNsPerStep > b.gapNsPerStep; });
}

void readCompilations(const TraceModel& model, Reader& reader, std::span<const StepSpan> all,
                      CompiledWindow& window)
{
    // Compile spans, outermost only.
    for (const trace::Track& track : model.tracks()) {
        if (track.kind != trace::TrackKind::CpuThread)
            continue;
        const std::span<const Event> events =
            model.events(trace::TrackId{static_cast<uint32_t>(&track - model.tracks().data())});
        int64_t insideUntil = INT64_MIN;
        for (size_t i = 0; i < events.size(); ++i) {
            const Event& event = events[i];
            if (event.startNs < insideUntil || reader.role(event) != Role::Compile)
                continue;
            insideUntil = event.endNs();
            Compilation compilation;
            compilation.compileId = compileIdOf(model, events, i);
            const int step = stepAt(all, event.startNs);
            compilation.step = step >= 0 ? all[static_cast<size_t>(step)].name : std::string{};
            compilation.beginNs = event.startNs;
            compilation.durationNs = event.durationNs;
            const std::optional<CompileId> id = parseCompileId(compilation.compileId);
            compilation.recompile = id && id->compile > 0;
            window.compilations.push_back(std::move(compilation));
        }
    }
    // A frame that switched to a compile id not seen before, where no compile span was
    // recorded (older torch, or the compiled code came from a cache): a recompile too. The
    // ids a frame runs in the first step it runs in were compiled before (a frame keeps one
    // graph per guard it failed: per module instance, per shape): they are its cache, not
    // a recompile.
    std::vector<std::pair<int64_t, std::string>> regions;
    for (const Event& event : model.events())
        if (reader.role(event) == Role::Region)
            regions.emplace_back(event.startNs,
                                 std::string{model.text(event.name).substr(kRegionPrefix.size())});
    std::sort(regions.begin(), regions.end());
    std::map<std::string, std::vector<int>> seenByFrame;
    std::map<std::string, int> firstStepOfFrame;
    for (const auto& region : regions) {
        const int64_t start = region.first;
        const std::string& name = region.second;
        const std::optional<CompileId> id = parseCompileId(name);
        if (!id)
            continue;
        std::vector<int>& seen = seenByFrame[id->frame];
        const int step = stepAt(all, start);
        const int firstStep = firstStepOfFrame.try_emplace(id->frame, step).first->second;
        const bool isNew = std::find(seen.begin(), seen.end(), id->compile) == seen.end();
        if (isNew && !seen.empty() && step != firstStep) {
            const bool spanned =
                std::any_of(window.compilations.begin(), window.compilations.end(),
                            [&](const Compilation& c) { return c.compileId == name; });
            if (!spanned) {
                Compilation compilation;
                compilation.compileId = name;
                compilation.step = step >= 0 ? all[static_cast<size_t>(step)].name : std::string{};
                compilation.beginNs = start;
                compilation.recompile = true;
                window.compilations.push_back(std::move(compilation));
            }
        }
        if (isNew)
            seen.push_back(id->compile);
    }
    for (const auto& [frame, compiles] : seenByFrame)
        window.frames.push_back(frame);
    std::sort(window.compilations.begin(), window.compilations.end(),
              [](const Compilation& a, const Compilation& b) { return a.beginNs < b.beginNs; });
}

// CompiledWindow::eagerModelNsPerStep, eagerModelOps and compiledModel.
void readEagerModelCode(const TraceModel& model, std::span<const StepSpan> steady,
                        CompiledWindow& window)
{
    constexpr std::string_view kModule = "nn.Module: ";
    constexpr std::string_view kCompiled = "nn.Module: OptimizedModule";
    std::map<std::string, int64_t> opTime;
    double total = 0;
    trace::PerName<bool, bool (*)(std::string_view)> compilerSpan{model, isCompilerSpan};
    for (size_t t = 0; t < model.tracks().size(); ++t) {
        if (model.tracks()[t].kind != trace::TrackKind::CpuThread)
            continue;
        const std::span<const Event> events =
            model.events(trace::TrackId{static_cast<uint32_t>(t)});
        for (size_t i = 0; i < events.size(); ++i) {
            const Event& span = events[i];
            if (span.category != Category::PythonFunction ||
                !model.text(span.name).starts_with(kCompiled) || stepAt(steady, span.startNs) < 0)
                continue;
            const EventId spanId = model.idOf(span);
            for (size_t j = i + 1; j < events.size() && events[j].startNs < span.endNs(); ++j) {
                const Event& e = events[j];
                const std::string_view name = model.text(e.name);
                if (window.compiledModel.empty() && e.category == Category::PythonFunction &&
                    name.starts_with(kModule) && !name.starts_with(kCompiled)) {
                    std::string_view module = name.substr(kModule.size());
                    module = module.substr(0, module.rfind('_'));
                    window.compiledModel = std::string{module};
                }
                if (e.category != Category::CpuOp || compilerSpan(e.name))
                    continue;
                // Outermost, and in none of the compiler's spans, up to the module's.
                bool eager = true;
                for (EventId at = e.parent; at.valid() && at != spanId;
                     at = model.event(at).parent) {
                    const Event& up = model.event(at);
                    if (up.category == Category::CpuOp || compilerSpan(up.name)) {
                        eager = false;
                        break;
                    }
                }
                if (!eager)
                    continue;
                total += static_cast<double>(e.durationNs);
                opTime[std::string{name}] += e.durationNs;
            }
        }
    }
    window.eagerModelNsPerStep = total / static_cast<double>(steady.size());
    std::vector<std::pair<std::string, int64_t>> ops(opTime.begin(), opTime.end());
    std::stable_sort(ops.begin(), ops.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    for (auto& [name, time] : ops)
        window.eagerModelOps.push_back(name);
}

// The graph run ("## Call CompiledFxGraph ##") an op was called from, through the Python
// frames of the generated code; invalid when it was not.
EventId callingGraph(const TraceModel& model, const Event& op)
{
    for (EventId at = op.parent; at.valid(); at = model.event(at).parent) {
        const Event& ancestor = model.event(at);
        if (ancestor.category != Category::PythonFunction)
            return model.text(ancestor.name).starts_with("## Call CompiledFxGraph") ? at
                                                                                    : EventId{};
    }
    return {};
}

// CompiledWindow::unnamedKernelNsPerStep and its calls, over the steady steps.
void readUnnamedKernels(const TraceModel& model, Reader& reader, std::span<const StepSpan> steady,
                        CompiledWindow& window)
{
    constexpr std::string_view kKernelFrame = "<built-in function kernel>";
    double frameNs = 0, frames = 0, graphNs = 0, graphs = 0, opsInGraphsNs = 0;
    for (const Event& event : model.events()) {
        const EventId id = model.idOf(event);
        if (!reader.inGraph(id) || stepAt(steady, event.startNs) < 0)
            continue;
        const auto ns = static_cast<double>(event.durationNs);
        if (event.category == Category::PythonFunction) {
            if (model.text(event.name) == kKernelFrame) {
                frameNs += ns;
                frames += 1;
            }
        } else if (model.text(event.name).starts_with("## Call CompiledFxGraph")) {
            graphNs += ns;
            graphs += 1;
        } else if (event.category == Category::CpuOp && callingGraph(model, event).valid()) {
            opsInGraphsNs += ns;  // an op the generated code called (its outermost)
        }
    }
    const auto steps = static_cast<double>(steady.size());
    window.unnamedKernelsFromFrames = frames > 0;
    window.unnamedKernelNsPerStep =
        (frames > 0 ? frameNs : std::max(0.0, graphNs - opsInGraphsNs)) / steps;
    window.unnamedKernelCallsPerStep = (frames > 0 ? frames : graphs) / steps;
}

}  // namespace

std::optional<SourceLine> resumedAt(std::string_view frame)
{
    constexpr std::string_view kResumed = "torch_dynamo_resume_in_";
    const std::optional<trace::FrameParts> parts = trace::splitFrame(frame);
    if (!parts)
        return std::nullopt;
    const std::string_view function = parts->function;
    const size_t at = function.rfind("_at_");
    if (!function.starts_with(kResumed) || at == std::string_view::npos || at <= kResumed.size())
        return std::nullopt;
    SourceLine line;
    const std::string_view number = function.substr(at + 4);
    const auto [end, error] =
        std::from_chars(number.data(), number.data() + number.size(), line.line);
    if (error != std::errc{} || end != number.data() + number.size() || line.line <= 0)
        return std::nullopt;
    line.file = std::string{parts->path};
    // A break inside a resumed function resumes a function named for that one
    // (torch_dynamo_resume_in_torch_dynamo_resume_in_forward_at_28_at_35): the user's own
    // function is the innermost name.
    std::string_view name = function.substr(kResumed.size(), at - kResumed.size());
    while (name.starts_with(kResumed)) {
        const size_t inner = name.rfind("_at_");
        if (inner == std::string_view::npos || inner <= kResumed.size())
            break;
        name = name.substr(kResumed.size(), inner - kResumed.size());
    }
    line.function = std::string{name};
    return line;
}

bool isCompilerSpan(std::string_view name)
{
    const Role kind = roleOfName(name);
    return kind != Role::None && kind != Role::Launch;
}

bool isCompiledSpan(std::string_view name)
{
    const Role kind = roleOfName(name);
    return kind == Role::Region || kind == Role::Graph;
}

bool isCompileWork(std::string_view name)
{
    return name.ends_with(" (dynamo_timed)") || name == "entire_frame_compile";
}

CompiledWindow readCompiledWindow(const TraceModel& model, std::span<const StepSpan> steadySteps,
                                  std::span<const StepSpan> allSteps)
{
    const auto byBegin = [](const StepSpan& a, const StepSpan& b) { return a.beginNs < b.beginNs; };
    std::vector<StepSpan> steadySorted(steadySteps.begin(), steadySteps.end());
    std::vector<StepSpan> allSorted(allSteps.begin(), allSteps.end());
    std::sort(steadySorted.begin(), steadySorted.end(), byBegin);
    std::sort(allSorted.begin(), allSorted.end(), byBegin);
    const std::span<const StepSpan> steady = steadySorted;
    const std::span<const StepSpan> all = allSorted;
    CompiledWindow window;
    Reader reader(model);
    std::vector<Interval> regions;
    std::vector<Interval> graphs;
    std::vector<BreakSeen> breaks;
    for (size_t t = 0; t < model.tracks().size(); ++t) {
        if (model.tracks()[t].kind != trace::TrackKind::CpuThread)
            continue;
        ThreadReading reading = reader.readThread(trace::TrackId{static_cast<uint32_t>(t)});
        regions.insert(regions.end(), reading.regions.begin(), reading.regions.end());
        graphs.insert(graphs.end(), reading.graphs.begin(), reading.graphs.end());
        std::move(reading.breaks.begin(), reading.breaks.end(), std::back_inserter(breaks));
        for (const Interval& interval : reading.breakHost)
            window.breakHostRanges.emplace_back(interval.beginNs, interval.endNs);
    }
    window.compiled = !regions.empty() || !graphs.empty();
    if (!window.compiled)
        return window;
    readCompilations(model, reader, all, window);
    if (steady.empty())
        return window;

    // Per steady step: shares of the host's time, graph runs, guards and launches.
    double regionShare = 0, graphShare = 0;
    for (const StepSpan& step : steady) {
        const double length = static_cast<double>(std::max<int64_t>(1, step.endNs - step.beginNs));
        regionShare +=
            static_cast<double>(coveredWithin(regions, step.beginNs, step.endNs)) / length;
        graphShare += static_cast<double>(coveredWithin(graphs, step.beginNs, step.endNs)) / length;
    }
    const double steps = static_cast<double>(steady.size());
    window.regionShare = regionShare / steps;
    window.graphShare = graphShare / steps;
    for (const Interval& graph : graphs)
        if (stepAt(steady, graph.beginNs) >= 0)
            window.graphsPerStep += 1;
    window.graphsPerStep /= steps;

    double deviceTotal = 0, deviceCompiled = 0;
    for (const Event& event : model.events()) {
        const bool device = trace::isDeviceWork(event.category);
        // Older torch records the cache lookup as a user annotation, newer as a CPU op.
        const Role kind =
            event.category == Category::CpuOp || event.category == Category::UserAnnotation
                ? reader.role(event)
                : Role::None;
        if ((!device && kind != Role::Guards && kind != Role::Launch) ||
            stepAt(steady, event.startNs) < 0)
            continue;
        if (kind == Role::Guards)
            window.cacheLookupNsPerStep += static_cast<double>(event.durationNs);
        else if (kind == Role::Launch && event.category == Category::CpuOp)
            window.launchesPerStep += 1;
        else {
            deviceTotal += static_cast<double>(event.durationNs);
            // Launched from inside a graph run (its op, or its launch call where no op is
            // behind it), or named as Inductor names its kernels: older traces miss the
            // driver call Triton's launcher makes, and so the link.
            if (reader.inGraph(event.op) || reader.inGraph(event.correlated) ||
                reader.role(event) == Role::Launch)
                deviceCompiled += static_cast<double>(event.durationNs);
        }
    }
    window.cacheLookupNsPerStep /= steps;
    window.launchesPerStep /= steps;
    window.deviceShare = deviceTotal > 0 ? deviceCompiled / deviceTotal : -1;
    if (window.launchesPerStep == 0 && deviceTotal == 0)
        readUnnamedKernels(model, reader, steady, window);
    aggregateBreaks(reader, model, breaks, steady, window);
    readEagerModelCode(model, steady, window);
    if (!window.breaks.empty()) {
        const auto events = model.events();
        window.pythonStacks = std::any_of(events.begin(), events.end(), [](const Event& e) {
            return e.category == Category::PythonFunction;
        });
    }
    return window;
}

}  // namespace kinetoscope::compiled
