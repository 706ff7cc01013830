#include "app/cli/roofline_report.h"

#include "core/format/format.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

namespace kinetoscope::cli {

using nlohmann::json;
using namespace kinetoscope::roofline;

namespace {

json positiveOrNull(double value)
{
    return value > 0 ? json(value) : json(nullptr);
}

json peaksJson(const DevicePeaks& p)
{
    return {{"model", p.model},
            {"fp64_tflops", positiveOrNull(p.fp64Tflops)},
            {"fp32_tflops", positiveOrNull(p.fp32Tflops)},
            {"tf32_tflops", positiveOrNull(p.tf32Tflops)},
            {"fp16_bf16_tflops", positiveOrNull(p.fp16Tflops)},
            {"fp8_tflops", positiveOrNull(p.fp8Tflops)},
            {"memory_gbps", positiveOrNull(p.memoryGBps)},
            {"estimated", p.estimated},
            {"source", p.source}};
}

// The rating's fields, shared by op and kernel rows; null where the row has no figure.
void addRating(json& row, const Rating& r, bool rated)
{
    row["achieved_tflops"] = rated ? json(r.achievedTflops) : json(nullptr);
    row["achieved_gbps"] = rated ? json(r.achievedGbps) : json(nullptr);
    row["intensity_flops_per_byte"] = rated && r.intensity > 0 ? json(r.intensity) : json(nullptr);
    row["peak_tflops"] = positiveOrNull(r.roofs.tflops);
    row["peak_gbps"] = positiveOrNull(r.roofs.gbps);
    row["bound"] = rated ? boundName(r.bound) : boundName(Bound::Unknown);
    row["share_of_roof"] = rated && r.attainableTflops > 0 ? json(r.shareOfRoof) : json(nullptr);
    row["above_peak"] = r.abovePeak;
}

// "TF32 156 TFLOP/s", or "no TF32" on a part without it (a V100): never a zero rate.
std::string peakText(const char* precision, double tflops)
{
    return tflops > 0 ? std::string(precision) + " " + format::flopRate(tflops * 1e12)
                      : std::string("no ") + precision;
}

}  // namespace

json rooflineJson(const Roofline& roofline, size_t rows)
{
    json ops = json::array();
    for (size_t i = 0; i < std::min(rows, roofline.ops.size()); ++i) {
        const OpRoofline& o = roofline.ops[i];
        json row = {{"name", o.name},
                    {"input_shapes", o.inputShapes},
                    {"kind", opKindName(o.kind)},
                    {"dtype", precisionName(o.precision)},
                    {"calls", o.calls},
                    {"flops_per_call", o.modelled() ? json(o.flopsPerCall) : json(nullptr)},
                    {"bytes_per_call", o.modelled() ? json(o.bytesPerCall) : json(nullptr)},
                    {"device_time_us", double(o.deviceNs) / 1e3},
                    {"steady_device_time_us", double(o.windowDeviceNs) / 1e3},
                    {"matrix_unit_share",
                     o.deviceNs > 0 ? double(o.matrixUnitNs) / double(o.deviceNs) : 0.0}};
        addRating(row, o.rating, o.modelled());
        row["unmodelled"] = o.unmodelled.empty() ? json(nullptr) : json(o.unmodelled);
        row["note"] = o.note.empty() ? json(nullptr) : json(o.note);
        row["fused_ops"] = o.fusedOps.empty() ? json(nullptr) : json(o.fusedOps);
        json kernels = json::array();
        for (const auto& [name, ns] : o.kernels)
            kernels.push_back({{"name", name}, {"device_time_us", double(ns) / 1e3}});
        row["kernels"] = kernels;
        ops.push_back(std::move(row));
    }
    json kernels = json::array();
    for (size_t i = 0; i < std::min(rows, roofline.kernels.size()); ++i) {
        const KernelRoofline& k = roofline.kernels[i];
        json row = {{"name", k.name},
                    {"op", k.op},
                    {"kind", opKindName(k.kind)},
                    {"dtype", precisionName(k.precision)},
                    {"calls", k.calls},
                    {"device_time_us", double(k.deviceNs) / 1e3},
                    {"rated_calls", k.ratedCalls},
                    {"rated_device_time_us", double(k.ratedNs) / 1e3},
                    {"flops", k.flops},
                    {"bytes", k.bytes},
                    {"fused_ops", k.fusedOps.empty() ? json(nullptr) : json(k.fusedOps)}};
        addRating(row, k.rating, true);
        kernels.push_back(std::move(row));
    }
    return {{"device", roofline.device.empty() ? json(nullptr) : json(roofline.device)},
            {"device_index", roofline.deviceIndex},
            {"peaks", roofline.peaks ? peaksJson(*roofline.peaks) : json(nullptr)},
            {"kernel_time_us", double(roofline.kernelNs) / 1e3},
            {"catalogued_time_us", double(roofline.chargedNs) / 1e3},
            {"rated_time_us", double(roofline.ratedNs) / 1e3},
            {"ops", ops},
            {"kernels", kernels}};
}

std::string rooflineText(const Roofline& roofline, size_t rows)
{
    std::ostringstream out;
    out << "\nKernel efficiency (roofline)\n";
    if (roofline.empty()) {
        out << "  no kernel ran under an op with a work model (record_shapes=True records what it "
               "needs)\n";
        return out.str();
    }
    if (roofline.peaks) {
        const DevicePeaks& p = *roofline.peaks;
        out << "  device: "
            << (roofline.device.empty() ? std::string("(unnamed)") : roofline.device) << " as "
            << p.model << (p.estimated ? " (peaks estimated)" : "") << "; "
            << peakText("fp32", p.fp32Tflops) << ", " << peakText("TF32", p.tf32Tflops) << ", "
            << peakText("fp16/bf16", p.fp16Tflops) << ", memory "
            << format::bandwidth(p.memoryGBps * 1e9) << "\n";
    } else {
        out << "  device: not described by the trace: achieved rates only\n";
    }
    out << "  rated: " << format::duration(double(roofline.ratedNs)) << " of "
        << format::duration(double(roofline.kernelNs)) << " kernel time\n";
    for (size_t i = 0; i < std::min(rows, roofline.ops.size()); ++i) {
        const OpRoofline& o = roofline.ops[i];
        out << "  " << format::padRight(format::clip(o.name + " " + o.inputShapes, 56), 56) << " "
            << format::padLeft(format::duration(double(o.deviceNs)), 10) << "  ";
        if (!o.modelled()) {
            out << "no figure: " << o.unmodelled << "\n";
            continue;
        }
        const Rating& r = o.rating;
        out << precisionName(o.precision) << " " << format::flopRate(r.achievedTflops * 1e12)
            << ", " << format::bandwidth(r.achievedGbps * 1e9);
        if (r.attainableTflops > 0)
            out << ", " << boundName(r.bound) << "-bound at " << format::percent(r.shareOfRoof)
                << " of its roof";
        if (r.abovePeak)
            out << " (" << o.note << ")";
        out << "\n";
        if (!o.fusedOps.empty())  // a compiled kernel's launch: what its name says it fused
            out << "      fused: " << o.fusedOps << "\n";
    }
    return out.str();
}

}  // namespace kinetoscope::cli
