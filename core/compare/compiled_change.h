#pragma once
// An eager run against a compiled one (torch.compile), or two compiled runs: the step's
// change split by cause, with the compiled side's generated kernels matched to the eager
// ops they fused by the source ops their names list (core/compiled/kernel_name.h).
//
// Each side's step is cut into four parts that add up to it, so their changes add up to
// the step's change:
//   fusion    the time of the ops the generated kernels fused (an eager op aten::X whose X
//             is among the fused ops of some generated kernel, on either side), and of
//             the generated kernels themselves
//   gemm      matmul, convolution and attention: extern kernels (aten::mm, addmm, ...)
//             and the compiler's templates (triton_tem_*)
//   other     every other kernel (op) of the step
//   launches  the remainder: the step less the three above. With device activity, the
//             device's idle time (step − kernel time; overlapping kernels make it smaller):
//             fewer launches, less dispatch. Without (a CPU run), the host's dispatch: its
//             time outside every op (Python), in spans that are no aten op (autograd's
//             nodes, compiled-graph wrappers, guards) and in ops that compute nothing
//             (view, transpose, empty, ...).
// Time is device time (each kernel, by the op that launched it) when both sides ran
// kernels, else host self time (each op's time less its children's). Nanoseconds per
// steady step.
#include "core/analysis/op_table.h"
#include "core/analysis/time_ranges.h"
#include "core/document/document.h"

#include <optional>
#include <string>
#include <vector>

namespace kinetoscope::compare {

struct CompiledChange
{
    bool beforeCompiled = false, afterCompiled = false;
    bool deviceTime = false;  // parts read from kernels (device) or from ops' self time (host)

    struct Part
    {
        std::string key;    // "fusion", "gemm", "launches", "other"
        std::string label;  // "fusion", "GEMMs", "launches/idle" ("host/dispatch"), "other"
        double beforeNs = 0, afterNs = 0;
        double beforeCount = 0, afterCount = 0;  // kernels (ops) per step; for "launches" every
                                                 // kernel (op) of the step
        double deltaNs() const { return afterNs - beforeNs; }
    };
    std::vector<Part> parts;  // fusion, gemm, launches, other: they add up to each side's step
    double stepBeforeNs = 0, stepAfterNs = 0;  // the steady step's mean on each side

    // Generated kernels with the same fused ops, against the eager ops they fused. An
    // eager op fused by several groups has its time shared among them in proportion to
    // their kernels' time, so the groups' before times add up to the fusion part's.
    struct FusedGroup
    {
        std::vector<std::string> ops;      // "add", "mul", "relu"
        double eagerNs = 0, eagerOps = 0;  // per step, the eager side's share
        double kernelNs = 0, kernels = 0;  // per step, the generated kernels
        size_t kernelNames = 0;            // distinct generated kernels in the group
        bool compiledBefore = false;       // the generated kernels ran on the before side
        // Inductor's C++ kernels on a CPU run whose trace names none (no kernel profile):
        // one group of all of them (their time from CompiledWindow::unnamedKernelNsPerStep),
        // against the eager ops of kinds the compiled run no longer calls at all. Without
        // stacks their time is the graph runs' own (kernels and the generated Python), and
        // `kernels` counts graph runs.
        enum class Unnamed : uint8_t
        {
            No,
            Kernels,    // from the kernels' Python frames
            GraphRuns,  // the graph runs' own time
        };
        Unnamed unnamed = Unnamed::No;
        double deltaNs() const { return compiledBefore ? eagerNs - kernelNs : kernelNs - eagerNs; }
    };
    std::vector<FusedGroup> groups;  // by eager time, largest first
    // The compiled side's ops of the fused kinds that ran outside any generated kernel
    // (after a graph break, say): in the fusion part, in no group.
    double unfusedCompiledNs = 0;

    // Matmul, convolution and attention on Tensor Cores: their share of the GEMMs' device
    // time on each side (a precision change shows here); nullopt without device time.
    std::optional<double> gemmTensorCoreBefore, gemmTensorCoreAfter;

    // What got slower, by how much, largest first: ops (kernels) on both sides, the GEMM
    // part, and fused groups whose kernels took longer than the eager ops they replace.
    struct Slower
    {
        std::string kind;  // "op", "kernel", "gemm", "fused group"
        std::string name;
        double beforeNs = 0, afterNs = 0;
        double deltaNs() const { return afterNs - beforeNs; }
    };
    std::vector<Slower> slower;

    std::string direction;  // "Eager → compiled", "Compiled → eager", "Compiled → compiled"
    // "Eager → compiled: step 41.4 ms → 30.1 ms (−11.3 ms): fusion −8.0 ms, GEMMs −1.0 ms,
    // host/dispatch −2.0 ms, other −0.3 ms; slower: aten::addmm +0.4 ms."
    std::string line;
};

const CompiledChange::Part* findPart(const CompiledChange& change, std::string_view key);
// "add · mul · relu: 3 eager ops 120 µs → 1 kernel 40 µs"
std::string fusedGroupText(const CompiledChange::FusedGroup& group);
// "add · mul · relu"; an unnamed group's "unnamed C++ kernels (add · mul and 3 more)"
std::string fusedGroupOps(const CompiledChange::FusedGroup& group);

// One side as the comparison read it.
struct CompiledSideInput
{
    const document::Document* doc = nullptr;
    const analysis::RangeSet* steady = nullptr;  // the steady steps
    const analysis::OpTables* ops = nullptr;     // over the steady steps
    double steadySteps = 1;
    double stepMeanNs = 0;
};

// Is this side compiled: its window holds compiled regions or graphs, or it ran
// compiler-generated kernels?
bool sideIsCompiled(const CompiledSideInput& side);

// The split when one side is compiled and the other eager, or both are compiled;
// nullopt otherwise. `thresholdNs`: a change smaller than this is not called slower.
std::optional<CompiledChange> compareCompiled(const CompiledSideInput& before,
                                              const CompiledSideInput& after, double thresholdNs);

// "add" for "aten::add"; the name itself otherwise.
std::string_view atenBase(std::string_view opName);

}  // namespace kinetoscope::compare
