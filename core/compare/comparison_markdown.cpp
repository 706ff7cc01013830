#include "core/compare/comparison_markdown.h"

#include "core/format/format.h"

#include <cmath>
#include <sstream>

namespace kinetoscope::compare {

namespace {

// A table cell: no "|" or newline that would break the row, long names cut.
std::string cell(std::string_view text)
{
    std::string out;
    for (char c : text) {
        if (c == '|')
            out += "\\|";
        else if (c == '\n' || c == '\r')
            out += ' ';
        else
            out += c;
    }
    constexpr size_t kLongest = 100;
    if (out.size() > kLongest) {
        size_t cut = kLongest;
        while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80)
            --cut;  // not inside a UTF-8 sequence
        out = out.substr(0, cut) + "…";
    }
    return out;
}

std::string stepValues(const StepSample& s)
{
    std::string text;
    for (size_t i = 0; i < s.valuesNs.size(); ++i) {
        if (i == 8) {
            text += ", … (" + format::count(s.valuesNs.size()) + " in all)";
            break;
        }
        text += (i ? ", " : "") + format::duration(s.valuesNs[i]);
    }
    return text;
}

std::string setApart(const Side& side)
{
    if (side.warmUpSteps == 0 && side.outlierSteps == 0)
        return "";
    std::string text = " (set apart:";
    if (side.warmUpSteps)
        text += " " + format::count(side.warmUpSteps) + " warm-up";
    if (side.outlierSteps)
        text += std::string(side.warmUpSteps ? "," : "") + " " + format::count(side.outlierSteps) +
                " outlier";
    return text + ")";
}

std::string change(double before, double after)
{
    std::string text = format::durationChange(after - before);
    if (before > 0 && after > 0)
        text += " (" + format::percentChange((after - before) / before) + ")";
    return text;
}

std::string bytesChange(int64_t before, int64_t after)
{
    if (before < 0 || after < 0)
        return "";
    const double delta = double(after - before);
    const std::string magnitude = format::bytes(std::fabs(delta));
    return delta == 0 ? magnitude : (delta < 0 ? "\u2212" : "+") + magnitude;
}

void sides(std::ostringstream& out, const Comparison& c)
{
    const Side& a = c.before;
    const Side& b = c.after;
    out << "| | before | after |\n|---|---|---|\n"
        << "| file | `" << cell(a.path) << "` | `" << cell(b.path) << "` |\n"
        << "| hardware | " << cell(a.hardware.text()) << " | " << cell(b.hardware.text()) << " |\n"
        << "| run | " << cell(a.window) << " | " << cell(b.window) << " |\n"
        << "| steady steps compared | " << a.steps.valuesNs.size() << setApart(a) << " | "
        << b.steps.valuesNs.size() << setApart(b) << " |\n"
        << "| step, mean | " << format::duration(a.steps.meanNs) << " | "
        << format::duration(b.steps.meanNs) << " |\n"
        << "| step, median | " << format::duration(a.steps.medianNs) << " | "
        << format::duration(b.steps.medianNs) << " |\n"
        << "| step, p95 | " << format::duration(a.steps.p95Ns) << " | "
        << format::duration(b.steps.p95Ns) << " |\n"
        << "| each step | " << stepValues(a.steps) << " | " << stepValues(b.steps) << " |\n";
    if (c.batch)
        out << "| batch (from " << c.batch->source() << ") | " << format::count(c.batch->before)
            << " | " << format::count(c.batch->after) << " |\n";
    out << "\n" << c.verdict().method << ".\n";
}

void waterfall(std::ostringstream& out, const Comparison& c)
{
    out << "\n## Breakdown per step, before → after\n\n"
        << "Each instant of a step counted once, in the priority kernel > memcpy > memset > "
           "communication > "
           "runtime > DataLoader > CPU exec > other; read down, the changes take the step from "
           "before to after.\n\n"
        << "| | before | after | change |\n|---|---|---|---|\n"
        << "| **step (before)** | " << format::duration(c.before.steps.meanNs) << " | | |\n";
    double total = 0.0;
    for (const Delta& d : c.breakdown) {
        total += d.deltaNs();
        out << "| " << d.name << " | " << format::duration(d.beforeNs) << " | "
            << format::duration(d.afterNs) << " | "
            << (d.status == Delta::Status::Same ? "unchanged" : change(d.beforeNs, d.afterNs))
            << " |\n";
    }
    out << "| **step (after)** | | " << format::duration(c.after.steps.meanNs) << " | "
        << format::durationChange(total) << " |\n";
}

void causes(std::ostringstream& out, const Comparison& c)
{
    out << "\n## What changed, largest first\n\n"
        << "Each cause per steady step. They overlap (an op's host time includes the runtime calls "
           "it makes, a "
           "blocking copy is both a copy and a synchronising call): they do not add up to the "
           "step; the breakdown "
           "below does.\n\n";
    if (c.causes.empty()) {
        out << "Nothing moved by 0.5 % of the step or more.\n";
        return;
    }
    for (size_t i = 0; i < c.causes.size(); ++i) {
        const Cause& x = c.causes[i];
        out << i + 1 << ". " << cell(x.label) << ": " << format::duration(x.beforeNs) << " → "
            << format::duration(x.afterNs) << " per step (" << format::durationChange(x.deltaNs())
            << ")";
        if (x.beforeCount && x.afterCount)
            out << "; " << format::count(*x.beforeCount) << " → " << format::count(*x.afterCount)
                << " calls per step";
        out << "\n";
    }
}

// An eager run against a compiled one: the step's change split by cause.
void compiledSplit(std::ostringstream& out, const Comparison& c)
{
    if (!c.compiled)
        return;
    const CompiledChange& cc = *c.compiled;
    auto whole = [](std::string_view text) {  // a line or list item: escaped, never cut
        std::string line;
        for (char ch : text)
            line += ch == '\n' || ch == '\r' ? ' ' : ch;
        return line;
    };
    out << "\n## " << cc.direction << ": the change by cause\n\n"
        << whole(cc.line) << "\n\n"
        << "The parts add up to each side's step: "
        << (cc.deviceTime ? "kernels by the op that launched them; *launches/idle* is the step "
                            "less all kernel time."
                          : "ops by their self time (a CPU run); *host/dispatch* is the step less "
                            "the other parts: time outside every op, in framework spans and in "
                            "ops that compute nothing.")
        << "\n\n| part | before | after | change | " << (cc.deviceTime ? "kernels" : "ops")
        << " per step |\n|---|---|---|---|---|\n";
    for (const CompiledChange::Part& p : cc.parts)
        out << "| " << p.label << " | " << format::duration(p.beforeNs) << " | "
            << format::duration(p.afterNs) << " | " << format::durationChange(p.deltaNs()) << " | "
            << format::count(p.beforeCount) << " → " << format::count(p.afterCount) << " |\n";
    if (!cc.groups.empty()) {
        out << "\nFused groups (an eager op fused by several groups shares its time among "
               "them):\n\n";
        for (size_t i = 0; i < cc.groups.size() && i < 8; ++i)
            out << "- " << whole(fusedGroupText(cc.groups[i])) << "\n";
    }
    if (!cc.slower.empty()) {
        out << "\nSlower:\n\n";
        for (size_t i = 0; i < cc.slower.size() && i < 8; ++i)
            out << "- " << whole(cc.slower[i].name) << " (" << cc.slower[i].kind
                << "): " << format::duration(cc.slower[i].beforeNs) << " → "
                << format::duration(cc.slower[i].afterNs) << " ("
                << format::durationChange(cc.slower[i].deltaNs()) << ")\n";
    }
}

void table(std::ostringstream& out, const char* title, const char* column,
           const std::vector<Delta>& rows, bool withDetail)
{
    out << "\n## " << title << "\n\n";
    if (rows.empty()) {
        out << "None on either side.\n";
        return;
    }
    out << "| " << column << (withDetail ? " | input shapes" : "")
        << " | status | before | after | change | calls per step |\n|---|"
        << (withDetail ? "---|" : "") << "---|---|---|---|---|\n";
    size_t moved = 0, shown = 0;
    for (const Delta& d : rows) {
        if (d.status == Delta::Status::Same)
            continue;
        ++moved;
        if (shown == kRowsShown)
            continue;
        ++shown;
        out << "| `" << cell(d.name) << "`" << (withDetail ? " | " + cell(d.detail) : "") << " | "
            << statusName(d.status) << " | " << format::duration(d.beforeNs) << " | "
            << format::duration(d.afterNs) << " | " << format::durationChange(d.deltaNs()) << " | "
            << format::count(d.beforeCalls) << " → " << format::count(d.afterCalls) << " |\n";
    }
    out << "\n"
        << format::count(moved) << " of " << format::count(rows.size()) << " changed, new or gone";
    if (moved > shown)
        out << " (the " << shown << " that moved most shown)";
    out << "; the rest are within 0.5 % of the step.\n";
}

std::string readingCell(const std::optional<EfficiencyDelta::Reading>& r)
{
    if (!r)
        return "not run";
    std::string text = r->dtype + ", " + format::flopRate(r->achievedTflops * 1e12) + ", " +
                       format::bandwidth(r->achievedGbps * 1e9);
    if (r->shareOfRoof)
        text += ", " + format::percent(*r->shareOfRoof) + " of its roof (" + r->bound + "-bound)";
    return text + "; " + format::duration(r->deviceNsPerStep) + " per step";
}

void efficiency(std::ostringstream& out, const Comparison& c)
{
    out << "\n## Kernel efficiency of the costliest op groups\n\n";
    if (c.efficiency.empty()) {
        out << "No op group with a work model on either side (record_shapes=True records what it "
               "needs).\n";
        return;
    }
    out << "| op | input shapes | before | after | share of roof |\n|---|---|---|---|---|\n";
    for (const EfficiencyDelta& d : c.efficiency) {
        std::string moved = "n/a";
        if (d.before && d.after && d.before->shareOfRoof && d.after->shareOfRoof)
            moved = std::fabs(*d.after->shareOfRoof - *d.before->shareOfRoof) < kEfficiencyUnchanged
                        ? "unchanged"
                        : format::percent(*d.before->shareOfRoof) + " → " +
                              format::percent(*d.after->shareOfRoof);
        out << "| `" << cell(d.name) << "` | " << cell(format::clip(d.inputShapes, 60)) << " | "
            << cell(readingCell(d.before)) << " | " << cell(readingCell(d.after)) << " | " << moved
            << " |\n";
    }
}

void memory(std::ostringstream& out, const Comparison& c)
{
    out << "\n## Memory peaks\n\n";
    if (c.memory.empty()) {
        out << "No memory samples on either side.\n";
        return;
    }
    out << "| device | allocated before | after | change | reserved before | after | change |\n"
           "|---|---|---|---|---|---|---|\n";
    for (const MemoryDelta& m : c.memory)
        out << "| " << cell(m.device) << " | " << format::bytes(double(m.beforePeakAllocated))
            << " | " << format::bytes(double(m.afterPeakAllocated)) << " | "
            << bytesChange(m.beforePeakAllocated, m.afterPeakAllocated) << " | "
            << format::bytes(double(m.beforePeakReserved)) << " | "
            << format::bytes(double(m.afterPeakReserved)) << " | "
            << bytesChange(m.beforePeakReserved, m.afterPeakReserved) << " |\n";
}

void findings(std::ostringstream& out, const Comparison& c)
{
    out << "\n## Findings\n\n";
    if (c.findings.empty()) {
        out << "No finding on either side.\n";
        return;
    }
    out << "| finding | status | estimated gain before | after |\n|---|---|---|---|\n";
    for (const FindingChange& f : c.findings)
        out << "| " << cell(f.title) << " (`" << f.id << "`) | " << findingStatusName(f.status)
            << " | "
            << (f.status == FindingChange::Status::New ? "" : format::duration(f.beforeGainNs))
            << " | "
            << (f.status == FindingChange::Status::Resolved ? "" : format::duration(f.afterGainNs))
            << " |\n";
    bool predicted = false;
    for (const FindingChange& f : c.findings) {
        if (f.status != FindingChange::Status::Resolved || f.beforeGainNs <= 0)
            continue;
        if (!predicted)
            out << "\nPredicted and measured: ";
        out << (predicted ? "; " : "") << "`" << f.id << "` was estimated to save "
            << format::duration(f.beforeGainNs) << " per step";
        predicted = true;
    }
    if (predicted)
        out << "; the step changed by " << format::durationChange(c.step.deltaNs) << ".\n";
}

// A lab figure: milliseconds as a duration, anything else as a plain number.
std::string optionalFigure(const std::optional<double>& value, bool milliseconds)
{
    if (!value)
        return "—";
    return milliseconds ? format::duration(*value * 1e6) : format::count(*value);
}

void labFigures(std::ostringstream& out, const char* title,
                const std::vector<LabComparison::Figure>& figures, bool milliseconds)
{
    if (figures.empty())
        return;
    out << "\n| " << title << " | before | after | change |\n|---|---|---|---|\n";
    for (const LabComparison::Figure& f : figures) {
        out << "| " << cell(f.name) << " | " << optionalFigure(f.before, milliseconds) << " | "
            << optionalFigure(f.after, milliseconds) << " | ";
        if (f.before && f.after && *f.before > 0)
            out << format::percentChange((*f.after - *f.before) / *f.before);
        out << " |\n";
    }
}

void lab(std::ostringstream& out, const Comparison& c)
{
    if (!c.lab)
        return;
    const LabComparison& lab = *c.lab;
    out << "\n## Lab runs\n\n";
    if (lab.config.empty()) {
        out << "The same configuration on both sides.\n";
    } else {
        out << "What the configuration changed:";
        for (size_t i = 0; i < lab.config.size(); ++i)
            out << (i ? "," : "") << " " << lab.config[i].key << " "
                << (lab.config[i].before.empty() ? "(unset)" : lab.config[i].before) << " → "
                << (lab.config[i].after.empty() ? "(unset)" : lab.config[i].after);
        out << ".\n";
    }
    if (lab.steps)
        out << "\nThe lab's measured steps (fp32 arm, " << lab.stepsBefore->valuesNs.size()
            << " and " << lab.stepsAfter->valuesNs.size()
            << "): " << format::duration(lab.stepsBefore->meanNs) << " → "
            << format::duration(lab.stepsAfter->meanNs) << " ("
            << format::durationChange(lab.steps->deltaNs) << ", "
            << format::percentChange(lab.steps->relative) << "), "
            << verdictName(lab.steps->verdict) << ".\n";
    if (lab.sweep) {
        const auto& s = *lab.sweep;
        out << "\nPredicted and measured: the before run's sweep gave "
            << format::rate(s.predictedSamplesPerSecond, "samples") << " at " << s.knob << " = "
            << s.value << "; the after run measured "
            << format::rate(s.measuredSamplesPerSecond, "samples") << " ("
            << format::percentChange((s.measuredSamplesPerSecond - s.predictedSamplesPerSecond) /
                                     s.predictedSamplesPerSecond)
            << " against the prediction).\n";
    }
    labFigures(out, "arm (samples/s)", lab.armSamplesPerSecond, false);
    labFigures(out, "phase (per step)", lab.phaseMs, true);
    labFigures(out, "split (per step)", lab.splitMs, true);
}

}  // namespace

std::string labMarkdown(const Comparison& c)
{
    std::ostringstream out;
    lab(out, c);
    return out.str();
}

std::string comparisonMarkdown(const Comparison& c)
{
    std::ostringstream out;
    out << "# Comparison\n\n**" << c.verdictLine << "**\n\n" << c.changeLine << "\n\n";
    if (!c.traced) {  // two lab sessions without traces: what the lab measured
        findings(out, c);
        lab(out, c);
        return out.str();
    }
    sides(out, c);
    compiledSplit(out, c);
    causes(out, c);
    waterfall(out, c);
    table(out, "Kernels per step", "kernel", c.kernels, false);
    table(out,
          c.opsByShapes ? "Ops per step (host time, by name and input shapes)"
                        : "Ops per step (host time)",
          "op", c.ops, true);
    table(out, "Copies and memsets per step", "kind", c.copies, false);
    efficiency(out, c);
    memory(out, c);
    findings(out, c);
    lab(out, c);
    return out.str();
}

}  // namespace kinetoscope::compare
