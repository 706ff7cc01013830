#include "core/compare/compiled_change.h"

#include "core/analysis/kernel_table.h"
#include "core/analysis/name_match.h"
#include "core/compiled/kernel_name.h"
#include "core/format/format.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>

namespace kinetoscope::compare {

namespace {

// Matmul, convolution and attention: what a compiler calls as an extern kernel (or a
// template) rather than generating.
bool isGemmOp(std::string_view base)
{
    static const std::set<std::string_view> names = {"mm",
                                                     "addmm",
                                                     "bmm",
                                                     "baddbmm",
                                                     "matmul",
                                                     "linear",
                                                     "_addmm_activation",
                                                     "addbmm",
                                                     "_scaled_mm",
                                                     "convolution",
                                                     "_convolution",
                                                     "conv1d",
                                                     "conv2d",
                                                     "conv3d",
                                                     "cudnn_convolution",
                                                     "mkldnn_convolution",
                                                     "convolution_backward",
                                                     "_convolution_backward",
                                                     "cudnn_convolution_transpose",
                                                     "conv_transpose1d",
                                                     "conv_transpose2d",
                                                     "conv_transpose3d",
                                                     "mkldnn_linear",
                                                     "_mkldnn_linear"};
    if (names.contains(base))
        return true;
    return base.find("scaled_dot_product") != std::string_view::npos ||
           base.find("flash_attention") != std::string_view::npos ||
           base.find("efficient_attention") != std::string_view::npos ||
           base.find("cudnn_attention") != std::string_view::npos;
}

// A kernel that no op is known to have launched: GEMMs by their library's names.
bool isGemmKernel(std::string_view name)
{
    for (std::string_view word : {"gemm", "cutlass", "cublas", "flash_fwd", "flash_bwd", "fmha",
                                  "conv2d", "implicit_convolve", "xmma"})
        if (analysis::containsNoCase(name, word))
            return true;
    return false;
}

enum class Kind : uint8_t
{
    Generated,  // a generated kernel (not a template): the fusion part
    Gemm,
    Matched,  // an op the other side's (or this side's) generated kernels fused
    Other,
    Host  // host time only: a framework span or a metadata op (the launches/host part)
};

// Ops that compute nothing: they look at, reshape or allocate tensors. On a CPU run their
// self time is dispatch.
bool isMetadataOp(std::string_view base)
{
    static const std::set<std::string_view> names = {
        "view",       "_unsafe_view",  "reshape",    "_reshape_alias", "t",
        "transpose",  "permute",       "expand",     "as_strided",     "detach",
        "alias",      "unsqueeze",     "squeeze",    "select",         "slice",
        "empty",      "empty_strided", "empty_like", "resolve_conj",   "resolve_neg",
        "lift_fresh", "numpy_T",       "unbind",     "split",          "chunk",
        "narrow",     "set_",          "resize_",    "result_type",    "is_nonzero"};
    return names.contains(base);
}

// A kernel (device time, by the op that launched it) or an op (host self time).
struct Unit
{
    std::string name;  // the kernel's or op's
    std::string op;    // the launching op (an op: itself); "" unknown
    double ns = 0, calls = 0;
    Kind kind = Kind::Other;
    std::vector<std::string> fused;  // a generated kernel's source ops
    bool tensorCore = false;
    // Inductor's C++ kernels together, not named in the trace
    CompiledChange::FusedGroup::Unnamed unnamed = CompiledChange::FusedGroup::Unnamed::No;
};

std::vector<Unit> unitsOf(const CompiledSideInput& side, bool deviceTime)
{
    std::vector<Unit> units;
    const double n = std::max(1.0, side.steadySteps);
    const std::string& marker = side.doc->summary.steps.marker;
    if (deviceTime) {
        for (const analysis::KernelStats& k : analysis::computeKernelTable(
                 *side.doc->model, side.steady, analysis::KernelGrouping::NameAndOp))
            units.push_back({k.name,
                             k.topOp,
                             double(k.totalNs) / n,
                             double(k.calls) / n,
                             Kind::Other,
                             {},
                             k.tensorCore});
        return units;
    }
    for (const analysis::OpStats& op : side.ops->byName)
        if (marker.empty() || !op.name.starts_with(marker))  // the steps themselves
            units.push_back({op.name,
                             op.name,
                             double(op.selfCpuNs) / n,
                             double(op.calls) / n,
                             Kind::Other,
                             {},
                             false});
    return units;
}

// Generated kernels and GEMMs first (they decide the fused set), then the ops matched.
void classify(std::vector<Unit>& units, std::set<std::string>& fusedSet)
{
    for (Unit& u : units) {
        std::optional<compiled::CompiledKernelName> g = compiled::parseCompiledKernelName(u.name);
        if (!g && !u.op.empty())
            g = compiled::parseCompiledKernelName(u.op);
        if (g) {
            if (g->kind == compiled::KernelKind::Template) {
                u.kind = Kind::Gemm;
            } else {
                u.kind = Kind::Generated;
                u.fused = g->fusedOps;
                fusedSet.insert(g->fusedOps.begin(), g->fusedOps.end());
            }
        } else if (u.op.empty() ? isGemmKernel(u.name) : isGemmOp(atenBase(u.op))) {
            u.kind = Kind::Gemm;
        }
    }
}

void matchFused(std::vector<Unit>& units, const std::set<std::string>& fusedSet, bool hostTime)
{
    for (Unit& u : units) {
        if (u.kind != Kind::Other || u.op.empty())
            continue;
        if (fusedSet.contains(std::string(atenBase(u.op))))
            u.kind = Kind::Matched;
        // Host time: what is no aten op (autograd's nodes, compiled-graph wrappers, guards,
        // record_function spans: Python and the framework) or computes nothing is dispatch.
        else if (hostTime && (!u.name.starts_with("aten::") || isMetadataOp(atenBase(u.name))))
            u.kind = Kind::Host;
    }
}

// A compiled CPU run whose trace names none of Inductor's C++ kernels: they become one
// generated unit on the compiled side. Against an eager side (`eagerUnits`), what they fused
// is the calls of computing aten ops that the compiled side no longer makes: all of an op's
// where the whole model compiled, the calls beyond the compiled side's where some of its
// code ran eagerly (around a graph break) or where only some were fused (copy_). That share
// of an eager op's time is matched (split off as its own unit); the rest, like the compiled
// side's own calls of it, stays in its part.
void addUnnamedKernels(const CompiledSideInput& compiledSide, std::vector<Unit>& compiledUnits,
                       std::vector<Unit>* eagerUnits)
{
    const compiled::CompiledWindow& window = compiledSide.doc->summary.compiled;
    const bool named = std::any_of(compiledUnits.begin(), compiledUnits.end(),
                                   [](const Unit& u) { return u.kind == Kind::Generated; });
    if (named || window.unnamedKernelNsPerStep <= 0)
        return;
    using Unnamed = CompiledChange::FusedGroup::Unnamed;
    Unit kernels{"Inductor C++ kernels (not named in the trace)",
                 "",
                 window.unnamedKernelNsPerStep,
                 window.unnamedKernelCallsPerStep,
                 Kind::Generated,
                 {},
                 false,
                 window.unnamedKernelsFromFrames ? Unnamed::Kernels : Unnamed::GraphRuns};
    if (eagerUnits) {
        std::map<std::string, double> compiledCalls;  // per step, by op
        for (const Unit& u : compiledUnits)
            compiledCalls[u.name] += u.calls;
        std::vector<Unit> rests;
        std::vector<std::pair<double, std::string>> matched;  // eager time, op
        for (Unit& u : *eagerUnits) {
            if (u.kind != Kind::Other || !u.name.starts_with("aten::") ||
                isMetadataOp(atenBase(u.name)) || u.ns <= 0 || u.calls <= 0)
                continue;
            const double left = compiledCalls[u.name];
            if (left >= u.calls)
                continue;
            const double share = (u.calls - left) / u.calls;
            if (left > 0) {
                Unit rest = u;
                rest.ns = u.ns * (1 - share);
                rest.calls = left;
                rests.push_back(std::move(rest));
            }
            u.ns *= share;
            u.calls -= left;
            u.kind = Kind::Matched;
            matched.emplace_back(u.ns, std::string(atenBase(u.name)));
        }
        eagerUnits->insert(eagerUnits->end(), rests.begin(), rests.end());
        std::sort(matched.rbegin(), matched.rend());
        for (auto& [ns, op] : matched)
            kernels.fused.push_back(std::move(op));
    }
    compiledUnits.push_back(std::move(kernels));
}

struct Sums
{
    std::array<double, 5> ns{}, calls{};  // by Kind
    double totalCalls = 0;
};

Sums sumsOf(const std::vector<Unit>& units)
{
    Sums s;
    for (const Unit& u : units) {
        // Generated and matched units are both the fusion part.
        const size_t part = u.kind == Kind::Matched ? size_t(Kind::Generated) : size_t(u.kind);
        s.ns[part] += u.ns;
        s.calls[part] += u.calls;
        if (u.unnamed == CompiledChange::FusedGroup::Unnamed::No)  // (kernel frames, graph runs)
            s.totalCalls += u.calls;
    }
    return s;
}

std::optional<double> tensorCoreShare(const std::vector<Unit>& units)
{
    double all = 0, core = 0;
    for (const Unit& u : units)
        if (u.kind == Kind::Gemm) {
            all += u.ns;
            core += u.tensorCore ? u.ns : 0.0;
        }
    return all > 0 ? std::optional(core / all) : std::nullopt;
}

std::string opsText(const std::vector<std::string>& ops)
{
    std::string text;
    for (const std::string& op : ops)
        text += (text.empty() ? "" : " · ") + op;
    return text;
}

// The generated side's kernels grouped by their fused ops; the other side's matched ops
// shared among the groups that fused them.
std::vector<CompiledChange::FusedGroup> fusedGroups(const std::vector<Unit>& generatedSide,
                                                    const std::vector<Unit>& eagerSide,
                                                    bool compiledBefore, double& unfusedCompiledNs)
{
    std::map<std::vector<std::string>, CompiledChange::FusedGroup> byOps;
    std::map<std::vector<std::string>, std::set<std::string>> names;
    for (const Unit& u : generatedSide) {
        if (u.kind == Kind::Matched)
            unfusedCompiledNs += u.ns;
        if (u.kind != Kind::Generated ||
            (u.unnamed != CompiledChange::FusedGroup::Unnamed::No && u.fused.empty()))
            continue;  // (unnamed kernels against no eager side: nothing to group them by)
        CompiledChange::FusedGroup& g = byOps[u.fused];
        g.ops = u.fused;
        g.unnamed = u.unnamed;
        g.kernelNs += u.ns;
        g.kernels += u.calls;
        g.compiledBefore = compiledBefore;
        names[u.fused].insert(u.name);
    }
    std::vector<CompiledChange::FusedGroup> groups;
    for (auto& [ops, g] : byOps) {
        g.kernelNames =
            g.unnamed == CompiledChange::FusedGroup::Unnamed::No ? names[ops].size() : 0;
        groups.push_back(std::move(g));
    }
    for (const Unit& u : eagerSide) {
        if (u.kind != Kind::Matched)
            continue;
        const std::string base(atenBase(u.op));
        std::vector<CompiledChange::FusedGroup*> holders;
        double weight = 0;
        for (CompiledChange::FusedGroup& g : groups)
            if (std::find(g.ops.begin(), g.ops.end(), base) != g.ops.end()) {
                holders.push_back(&g);
                weight += g.kernelNs;
            }
        for (CompiledChange::FusedGroup* g : holders) {
            const double share = weight > 0 ? g->kernelNs / weight : 1.0 / double(holders.size());
            g->eagerNs += share * u.ns;
            g->eagerOps += share * u.calls;
        }
    }
    std::stable_sort(groups.begin(), groups.end(),
                     [](const CompiledChange::FusedGroup& a, const CompiledChange::FusedGroup& b) {
                         return a.eagerNs > b.eagerNs;
                     });
    return groups;
}

// Units by name (kernels by their own name, ops by theirs): the rows that can be slower.
// Generated kernels only when both sides are compiled (else they ran on one side only).
std::map<std::string, double> byName(const std::vector<Unit>& units, bool withGenerated)
{
    std::map<std::string, double> rows;
    for (const Unit& u : units)
        if (withGenerated || u.kind != Kind::Generated)
            rows[u.name] += u.ns;
    return rows;
}

std::string partText(const CompiledChange::Part& p)
{
    return p.label + " " + format::durationChange(p.deltaNs());
}

std::string lineOf(const CompiledChange& c)
{
    const double delta = c.stepAfterNs - c.stepBeforeNs;
    std::string line = c.direction + ": step " + format::duration(c.stepBeforeNs) + " → " +
                       format::duration(c.stepAfterNs) + " (" + format::durationChange(delta) +
                       (c.stepBeforeNs > 0 ? ", " + format::percentChange(delta / c.stepBeforeNs)
                                           : std::string()) +
                       "): ";
    for (size_t i = 0; i < c.parts.size(); ++i) {
        line += (i ? ", " : "") + partText(c.parts[i]);
        if (c.parts[i].key == "launches")
            line += " (" + std::string(c.deviceTime ? "kernels " : "ops ") +
                    format::count(c.parts[i].beforeCount) + " → " +
                    format::count(c.parts[i].afterCount) + " per step)";
    }
    if (!c.groups.empty())
        line += "; largest fused group " + fusedGroupText(c.groups.front());
    if (c.slower.empty()) {
        line += "; nothing got slower.";
        return line;
    }
    line += "; slower: ";
    for (size_t i = 0; i < c.slower.size() && i < 3; ++i)
        line += (i ? ", " : "") + c.slower[i].name + " " +
                format::durationChange(c.slower[i].deltaNs());
    if (c.slower.size() > 3)
        line += " and " + format::count(c.slower.size() - 3) + " more";
    return line + ".";
}

}  // namespace

std::string_view atenBase(std::string_view opName)
{
    if (opName.starts_with("aten::"))
        opName.remove_prefix(6);
    return opName;
}

const CompiledChange::Part* findPart(const CompiledChange& change, std::string_view key)
{
    for (const CompiledChange::Part& p : change.parts)
        if (p.key == key)
            return &p;
    return nullptr;
}

std::string fusedGroupOps(const CompiledChange::FusedGroup& g)
{
    using Unnamed = CompiledChange::FusedGroup::Unnamed;
    if (g.unnamed == Unnamed::No)
        return opsText(g.ops);
    // The eager ops it stands for, the costliest first.
    constexpr size_t kShown = 5;
    const std::vector<std::string> first(g.ops.begin(),
                                         g.ops.begin() + std::min(g.ops.size(), kShown));
    return std::string(g.unnamed == Unnamed::Kernels ? "unnamed C++ kernels ("
                                                     : "compiled graphs' own time (") +
           opsText(first) +
           (g.ops.size() > kShown ? " and " + format::count(g.ops.size() - kShown) + " more"
                                  : std::string()) +
           ")";
}

std::string fusedGroupText(const CompiledChange::FusedGroup& g)
{
    auto approx = [](double value) { return format::count(std::round(value * 10.0) / 10.0); };
    const std::string eager = approx(g.eagerOps) + " eager op" + (g.eagerOps == 1.0 ? "" : "s") +
                              " " + format::duration(g.eagerNs);
    const bool graphRuns = g.unnamed == CompiledChange::FusedGroup::Unnamed::GraphRuns;
    const std::string unit = graphRuns ? " graph run" : " kernel";
    const std::string kernels = approx(g.kernels) + unit + (g.kernels == 1.0 ? "" : "s") + " " +
                                format::duration(g.kernelNs);
    return fusedGroupOps(g) + ": " +
           (g.compiledBefore ? kernels + " → " + eager : eager + " → " + kernels) + " per step" +
           (graphRuns ? " (C++ kernels and the generated Python around them: with_stack tells "
                        "them apart)"
                      : "");
}

bool sideIsCompiled(const CompiledSideInput& side)
{
    if (!side.doc || !side.doc->model)
        return false;
    if (side.doc->summary.compiled.compiled)
        return true;
    if (side.ops)
        for (const analysis::OpStats& op : side.ops->byName)
            if (compiled::parseCompiledKernelName(op.name))
                return true;
    for (const analysis::KernelStats& k : side.doc->summary.kernels)
        if (compiled::parseCompiledKernelName(k.name))
            return true;
    return false;
}

std::optional<CompiledChange> compareCompiled(const CompiledSideInput& before,
                                              const CompiledSideInput& after, double thresholdNs)
{
    CompiledChange c;
    c.beforeCompiled = sideIsCompiled(before);
    c.afterCompiled = sideIsCompiled(after);
    if (!c.beforeCompiled && !c.afterCompiled)
        return std::nullopt;
    c.direction = c.beforeCompiled && c.afterCompiled ? "Compiled → compiled"
                  : c.afterCompiled                   ? "Eager → compiled"
                                                      : "Compiled → eager";
    c.deviceTime = before.ops && after.ops && before.ops->kernelNs > 0 && after.ops->kernelNs > 0;
    std::vector<Unit> a = unitsOf(before, c.deviceTime), b = unitsOf(after, c.deviceTime);
    std::set<std::string> fusedSet;
    classify(a, fusedSet);
    classify(b, fusedSet);
    if (!c.deviceTime) {  // a compiled side's C++ kernels where its trace names none
        if (c.afterCompiled)
            addUnnamedKernels(after, b, c.beforeCompiled ? nullptr : &a);
        if (c.beforeCompiled)
            addUnnamedKernels(before, a, c.afterCompiled ? nullptr : &b);
    }
    matchFused(a, fusedSet, !c.deviceTime);
    matchFused(b, fusedSet, !c.deviceTime);
    const Sums sa = sumsOf(a), sb = sumsOf(b);
    c.stepBeforeNs = before.stepMeanNs;
    c.stepAfterNs = after.stepMeanNs;
    auto part = [&](const char* key, const char* label, Kind kind) {
        return CompiledChange::Part{key,
                                    label,
                                    sa.ns[size_t(kind)],
                                    sb.ns[size_t(kind)],
                                    sa.calls[size_t(kind)],
                                    sb.calls[size_t(kind)]};
    };
    CompiledChange::Part fusion = part("fusion", "fusion", Kind::Generated);
    CompiledChange::Part gemm = part("gemm", "GEMMs", Kind::Gemm);
    CompiledChange::Part other = part("other", "other", Kind::Other);
    CompiledChange::Part launches{"launches",
                                  c.deviceTime ? "launches/idle" : "host/dispatch",
                                  c.stepBeforeNs - fusion.beforeNs - gemm.beforeNs - other.beforeNs,
                                  c.stepAfterNs - fusion.afterNs - gemm.afterNs - other.afterNs,
                                  sa.totalCalls,
                                  sb.totalCalls};
    c.parts = {fusion, gemm, launches, other};

    const bool groupsAfter = c.afterCompiled;
    c.groups =
        fusedGroups(groupsAfter ? b : a, groupsAfter ? a : b, !groupsAfter, c.unfusedCompiledNs);
    if (c.deviceTime) {
        c.gemmTensorCoreBefore = tensorCoreShare(a);
        c.gemmTensorCoreAfter = tensorCoreShare(b);
    }

    // Slower: what ran on both sides and took longer, the GEMMs, fused groups.
    const bool both = c.beforeCompiled && c.afterCompiled;
    const std::map<std::string, double> rowsA = byName(a, both), rowsB = byName(b, both);
    for (const auto& [name, ns] : rowsA)
        if (const auto row = rowsB.find(name);
            ns > 0 && row != rowsB.end() && row->second - ns >= thresholdNs)
            c.slower.push_back({c.deviceTime ? "kernel" : "op", name, ns, row->second});
    if (gemm.beforeNs > 0 && gemm.deltaNs() >= thresholdNs)
        c.slower.push_back({"gemm", "GEMMs", gemm.beforeNs, gemm.afterNs});
    // Two compiled runs: their generated kernels compare by name, above.
    for (const CompiledChange::FusedGroup& g :
         both ? std::vector<CompiledChange::FusedGroup>{} : c.groups)
        if (g.eagerNs > 0 && g.deltaNs() >= thresholdNs)
            c.slower.push_back({"fused group", fusedGroupOps(g),
                                g.compiledBefore ? g.kernelNs : g.eagerNs,
                                g.compiledBefore ? g.eagerNs : g.kernelNs});
    std::stable_sort(c.slower.begin(), c.slower.end(),
                     [](const CompiledChange::Slower& x, const CompiledChange::Slower& y) {
                         return x.deltaNs() > y.deltaNs();
                     });
    c.line = lineOf(c);
    return c;
}

}  // namespace kinetoscope::compare
