#pragma once
// What torch.compile made of a window, read from the spans torch records around compiled
// code (torch >= 2.1; the region spans from 2.4):
//   "Torch-Compiled Region: F/C"      a compiled frame entered (frame F, its C-th compile)
//   "TorchDynamo Cache Lookup"        the guards checked before it
//   "CompiledFunction", "## Call CompiledFxGraph <hash> ##", "CompiledFunctionBackward"
//                                     a compiled graph run (forward, backward)
//   "<name> (dynamo_timed)", "entire_frame_compile"
//                                     compilation itself, where it falls in the window
// A graph break splits a frame: Dynamo compiles the part before the break, runs the
// unsupported code eagerly, then enters the resumed rest (a region nested in the first).
// So a break shows as time between two compiled graphs inside one outermost region; the
// eager ops there (and, with stacks, the Python frame that ran them) say what broke it.
//
// Time: nanoseconds, as in the trace model.
#include "core/trace/trace_model.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kinetoscope::compiled {

// A step of the window, as the analysis found it.
struct StepSpan
{
    std::string name;
    int64_t beginNs = 0;
    int64_t endNs = 0;
};

// One graph break seen in the steady steps: the time between two compiled graphs of one
// frame, and the eager ops run there. Breaks are told apart by their frame and their
// place in it (the first break of frame 0, the second, ...).
// A line of the user's source: "train.py", "forward", 28.
struct SourceLine
{
    std::string file;  // as the trace names it (a path)
    std::string function;
    int line = 0;  // 0: unknown
};

// The line a Python frame of Dynamo's resume function names: "train.py(28):
// torch_dynamo_resume_in_forward_at_28" -> {train.py, forward, 28}; nullopt for any other.
std::optional<SourceLine> resumedAt(std::string_view frame);

struct GraphBreak
{
    std::string frame;             // "0": the outermost region's frame id
    int index = 0;                 // 0 for the frame's first break
    std::vector<std::string> ops;  // the eager ops between the graphs, most time first
    std::string source;            // the user's Python frame around them, "train.py(41): forward";
                                   // "" without stacks
    std::string call;  // the Python call that ran them ("Tensor.item"), "" without stacks
    // Where the graph broke: the frame Dynamo resumed after it is named for the function and
    // line it resumes at ("train.py(28): torch_dynamo_resume_in_forward_at_28"), the line of
    // the break. Empty (line 0) without stacks, or where no resumed frame follows.
    SourceLine line;
    bool afterLastGraph = false;  // eager ops after the frame's last graph (no frame resumes)
    double perStep = 0;           // occurrences per steady step
    double gapNsPerStep = 0;      // between the graphs: eager ops, guards, region entry
    // The same per steady step: the median step's and the largest (a mean over few steps
    // can be one slow step's: a guard check that took 5 ms once).
    double gapNsTypical = 0;
    double gapNsLargest = 0;
    double eagerNsPerStep = 0;  // of which the eager ops themselves
    trace::EventId example;     // the first eager op of one occurrence (or invalid)
};

// Compilation that fell inside the window: a one-off, never a steady cost.
struct Compilation
{
    std::string compileId;  // "0/1" where the trace names it, else ""
    std::string step;       // the step it fell in ("" when between steps)
    int64_t beginNs = 0;
    int64_t durationNs = 0;  // the outermost compile span
    bool recompile = false;  // a frame compiled again (C > 0), not its first compile
};

struct CompiledWindow
{
    bool compiled = false;  // the trace holds compiled regions or graphs
    // Per steady step, means:
    double regionShare = 0;    // host time inside compiled regions and backward graphs / step
    double graphShare = 0;     // host time running compiled graphs / step
    double graphsPerStep = 0;  // compiled graph runs (forward and backward)
    double cacheLookupNsPerStep = 0;
    double deviceShare = -1;     // device time of kernels launched from compiled graphs /
                                 // the steps' device time; -1 without device activity
    double launchesPerStep = 0;  // Triton (or C++) kernel launch ops of compiled graphs
    // Inductor's C++ kernels on a CPU run where the trace names none (no launch ops: its
    // cpp.enable_kernel_profile was off): with stacks, the time in their Python frames
    // ("<built-in function kernel>"); without, the graph runs' own time ("## Call
    // CompiledFxGraph ##" less the ops run inside it), which holds the generated Python
    // around the kernels too. Per steady step; 0 where kernels are named or on a device.
    double unnamedKernelNsPerStep = 0;
    double unnamedKernelCallsPerStep = 0;   // kernel frames, or graph runs without stacks
    bool unnamedKernelsFromFrames = false;  // read from the kernels' own Python frames
    std::vector<GraphBreak> breaks;         // most gap time first
    bool pythonStacks = false;              // the trace holds Python frames (with_stack); read only
                                            // where there are breaks
    std::vector<Compilation> compilations;  // in time order
    std::vector<std::string> frames;        // compiled frame ids seen ("0", "1")
    // Every break's host time less its eager ops, [begin, end) ns, in any order: what the
    // causal model removes when the break is fixed (Cause::GraphBreak).
    std::vector<std::pair<int64_t, int64_t>> breakHostRanges;
    // The compiled model's own code that ran outside every compiled graph: inside its
    // OptimizedModule's module span (stacks only), the outermost CPU ops in no region,
    // graph run or guard check (a frame Dynamo gave up on around a break runs eagerly).
    // Forward only: their backward is outside module spans. Per steady step.
    double eagerModelNsPerStep = 0;
    std::vector<std::string> eagerModelOps;  // most time first
    std::string compiledModel;               // "LM": the module inside OptimizedModule
};

// Is this span torch.compile's own machinery: a region, a graph run, a guard check,
// Dynamo's and AOTAutograd's wrappers, or compiling?
bool isCompilerSpan(std::string_view name);

// Is this span torch.compile compiling ("<phase> (dynamo_timed)", "entire_frame_compile")?
// Compilation in a step is a one-off (core/analysis/window.cpp), unless it recurs.
bool isCompileWork(std::string_view name);

// Is this span compiled code: a region or a compiled graph run (its self time on a CPU is
// Inductor's C++ kernels, which the trace does not name)?
bool isCompiledSpan(std::string_view name);

// Reads the window. `steady` are the steps the per-step figures average over; `all` every
// step found (warm-up included), where compilations are placed.
CompiledWindow readCompiledWindow(const trace::TraceModel& model, std::span<const StepSpan> steady,
                                  std::span<const StepSpan> all);

}  // namespace kinetoscope::compiled
