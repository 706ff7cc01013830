// The device table, the rules that match a trace's device name to it, and the estimate for a
// device it does not name. The figures, the rules and the constants: docs/device-peaks.md.
#include "core/roofline/device_peaks.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <string_view>
#include <utility>
#include <vector>

namespace kinetoscope::roofline {

namespace {

// ---------------------------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------------------------

// One part, as its vendor's datasheet gives it: dense (no 2:4 sparsity; where a datasheet gives
// only sparse tensor figures they are halved), at the boost clock. TFLOP/s and GB/s, the units
// of DevicePeaks. `major`/`minor` is the compute capability the part reports (AMD: the gfx9
// major/minor HIP reports); `sms` the SM (CU) count it reports, 0 where not known. A device
// whose recorded SM count differs from a known `sms` is not this part (a MIG slice, a cut-down
// or laptop variant): the rules pass over the entry and the device is estimated instead.
struct Spec
{
    std::string_view model;
    double fp64 = 0;        // fp64 on the matrix units where the part has them, else vector
    double fp32 = 0;        // fp32 on the SIMT / vector units
    double tf32 = 0;        // fp32 inputs on the matrix units; 0: none
    double fp16 = 0;        // fp16 / bf16 on the matrix units, fp32 accumulate; 0: none
    double fp8 = 0;         // fp8 on the matrix units; 0: none
    double memoryGBps = 0;  // > 0 for every entry
    int major = 0;
    int minor = 0;
    int sms = 0;
    std::string_view source;
};

// Consumer (GeForce) parts: the matrix figures are the fp32-accumulate ones, half the
// fp16-accumulate figure the same whitepaper gives. fp64 on the GDDR parts is the vendor's
// fraction of fp32 (1/32 on Turing, 1/64 on GA10x and Ada).
// AMD CDNA2 has no XF32: its tf32 figure is the rate of its matrix cores on full fp32 inputs
// (twice the vector rate), which is where an fp32 matmul runs there. MI250 and MI250X carry
// two GCDs that ROCm shows as two devices: their entries are one GCD, half the datasheet.
constexpr std::array kSpecs = {
    // NVIDIA Pascal: no tensor cores.
    Spec{"P100 SXM2", 5.3, 10.6, 0, 0, 0, 732, 6, 0, 56, "NVIDIA Tesla P100 datasheet (SXM2)"},
    Spec{"P100 PCIe 16GB", 4.7, 9.3, 0, 0, 0, 732, 6, 0, 56,
         "NVIDIA Tesla P100 datasheet (PCIe, 16 GB)"},
    Spec{"P100 PCIe 12GB", 4.7, 9.3, 0, 0, 0, 549, 6, 0, 56,
         "NVIDIA Tesla P100 datasheet (PCIe, 12 GB)"},
    Spec{"Quadro GP100", 5.2, 10.3, 0, 0, 0, 717, 6, 0, 56,
         "NVIDIA Quadro GP100 datasheet (its 20.7 TF fp16 needs fp16 accumulate: not listed)"},
    // NVIDIA Volta: tensor cores for fp16 only (no TF32, no bf16).
    Spec{"V100 SXM2", 7.8, 15.7, 0, 125, 0, 900, 7, 0, 80,
         "NVIDIA Tesla V100 datasheet (SXM2, 16 and 32 GB)"},
    Spec{"V100 PCIe", 7.0, 14.0, 0, 112, 0, 900, 7, 0, 80, "NVIDIA Tesla V100 datasheet (PCIe)"},
    Spec{"V100S PCIe", 8.2, 16.4, 0, 130, 0, 1134, 7, 0, 80, "NVIDIA V100S datasheet (PCIe)"},
    Spec{"V100 DGXS", 7.8, 15.7, 0, 125, 0, 900, 7, 0, 80,
         "NVIDIA DGX Station datasheet (Tesla V100 DGXS, per GPU: the V100 SXM2 rates)"},
    // NVIDIA Turing: tensor cores for fp16 (no TF32, no bf16).
    Spec{"T4", 0.25, 8.1, 0, 65, 0, 320, 7, 5, 40,
         "NVIDIA T4 datasheet (fp64: 1/32 of fp32, Turing whitepaper)"},
    Spec{"RTX 2080 Ti", 0.42, 13.4, 0, 53.8, 0, 616, 7, 5, 68,
         "NVIDIA Turing whitepaper (RTX 2080 Ti reference board; fp16: fp32 accumulate, half "
         "the 107.6 TF fp16-accumulate rate)"},
    Spec{"RTX 2080", 0.31, 10.1, 0, 40.3, 0, 448, 7, 5, 46,
         "NVIDIA Turing whitepaper (RTX 2080 reference board; fp16: fp32 accumulate, half the "
         "80.5 TF fp16-accumulate rate)"},
    // NVIDIA Ampere GA100.
    Spec{"A100 PCIe 40GB", 19.5, 19.5, 156, 312, 0, 1555, 8, 0, 108,
         "NVIDIA A100 datasheet (PCIe, 40 GB)"},
    Spec{"A100 PCIe 80GB", 19.5, 19.5, 156, 312, 0, 1935, 8, 0, 108,
         "NVIDIA A100 datasheet (PCIe, 80 GB)"},
    Spec{"A100 SXM4 40GB", 19.5, 19.5, 156, 312, 0, 1555, 8, 0, 108,
         "NVIDIA A100 datasheet (SXM4, 40 GB)"},
    Spec{"A100 SXM4 80GB", 19.5, 19.5, 156, 312, 0, 2039, 8, 0, 108,
         "NVIDIA A100 datasheet (SXM4, 80 GB)"},
    // NVIDIA Ampere GA10x.
    Spec{"A10", 0.49, 31.2, 62.5, 125, 0, 600, 8, 6, 72,
         "NVIDIA A10 datasheet (fp64: 1/64 of fp32)"},
    Spec{"RTX 3080", 0.47, 29.8, 29.8, 59.5, 0, 760, 8, 6, 68,
         "NVIDIA GA102 whitepaper (RTX 3080 10 GB; fp16: fp32 accumulate, half the 119 TF "
         "fp16-accumulate rate)"},
    Spec{"RTX 3090", 0.56, 35.6, 35.6, 71, 0, 936, 8, 6, 82,
         "NVIDIA GA102 whitepaper (RTX 3090; fp16: fp32 accumulate, half the 142 TF "
         "fp16-accumulate rate)"},
    // NVIDIA Ada.
    Spec{"L4", 0.47, 30.3, 60, 121, 242.5, 300, 8, 9, 58,
         "NVIDIA L4 datasheet (fp64: 1/64 of fp32)"},
    Spec{"L40", 1.41, 90.5, 90.5, 181.05, 362, 864, 8, 9, 142,
         "NVIDIA L40 datasheet (fp64: 1/64 of fp32)"},
    Spec{"L40S", 1.43, 91.6, 183, 362.05, 733, 864, 8, 9, 142,
         "NVIDIA L40S datasheet (fp64: 1/64 of fp32)"},
    Spec{"RTX 4080", 0.76, 48.7, 48.7, 97.5, 194.9, 716.8, 8, 9, 76,
         "NVIDIA Ada whitepaper (RTX 4080 16 GB; fp16 and fp8: fp32 accumulate, half the "
         "fp16-accumulate rates)"},
    Spec{"RTX 4090", 1.29, 82.6, 82.6, 165.2, 330.3, 1008, 8, 9, 128,
         "NVIDIA Ada whitepaper (RTX 4090; fp16 and fp8: fp32 accumulate, half the "
         "fp16-accumulate rates)"},
    // NVIDIA Hopper.
    Spec{"H100 PCIe", 51, 51, 378, 756.5, 1513, 2000, 9, 0, 114, "NVIDIA H100 datasheet (PCIe)"},
    Spec{"H100 SXM5", 67, 67, 494.7, 989.4, 1978.9, 3350, 9, 0, 132,
         "NVIDIA H100 datasheet (SXM5)"},
    Spec{"H100 NVL", 60, 60, 417.5, 835.5, 1670.5, 3900, 9, 0, 132,
         "NVIDIA H100 datasheet (NVL, per GPU)"},
    Spec{"H200 SXM", 67, 67, 494.7, 989.4, 1978.9, 4800, 9, 0, 132, "NVIDIA H200 datasheet (SXM)"},
    Spec{"H200 NVL", 60, 60, 417.5, 835.5, 1670.5, 4800, 9, 0, 132, "NVIDIA H200 datasheet (NVL)"},
    Spec{"GH200 96GB", 67, 67, 494.7, 989.4, 1978.9, 4000, 9, 0, 132,
         "NVIDIA GH200 datasheet (96 GB HBM3)"},
    Spec{"GH200 144GB", 67, 67, 494.7, 989.4, 1978.9, 4900, 9, 0, 132,
         "NVIDIA GH200 datasheet (144 GB HBM3e)"},
    // NVIDIA Blackwell.
    Spec{"B200", 37, 75, 1100, 2250, 4500, 7700, 10, 0, 148, "NVIDIA HGX B200 datasheet (per GPU)"},
    Spec{"GB200", 40, 80, 1250, 2500, 5000, 8000, 10, 0, 0,
         "NVIDIA GB200 NVL72 datasheet (per GPU)"},
    Spec{"B300", 1.25, 75, 1100, 2250, 4500, 8000, 10, 3, 148,
         "NVIDIA HGX B300 datasheet (per GPU)"},
    // AMD CDNA2.
    Spec{"MI210", 45.3, 22.6, 45.3, 181.0, 0, 1638.4, 9, 0, 104,
         "AMD Instinct MI210 datasheet (fp64 and tf32: the matrix-core fp64 / fp32 rates)"},
    Spec{"MI250 (one GCD)", 45.25, 22.65, 45.25, 181.05, 0, 1638.4, 9, 0, 104,
         "AMD Instinct MI250 datasheet, halved: ROCm shows each of its two GCDs as a device"},
    Spec{"MI250X (one GCD)", 47.85, 23.95, 47.85, 191.5, 0, 1638.4, 9, 0, 110,
         "AMD Instinct MI250X datasheet, halved: ROCm shows each of its two GCDs as a device"},
    // AMD CDNA3 (tf32: XF32).
    Spec{"MI300A", 122.6, 122.6, 490.3, 980.6, 1961.2, 5300, 9, 4, 228,
         "AMD Instinct MI300A datasheet"},
    Spec{"MI300X", 163.4, 163.4, 653.7, 1307.4, 2614.9, 5300, 9, 4, 304,
         "AMD Instinct MI300X datasheet"},
    Spec{"MI325X", 163.4, 163.4, 653.7, 1307.4, 2614.9, 6000, 9, 4, 304,
         "AMD Instinct MI325X datasheet"},
};

// The invariants docs/device-peaks.md states, held by every entry.
constexpr bool everySpecIsOrdered()
{
    for (const Spec& spec : kSpecs) {
        const bool ordered =
            spec.fp16 >= spec.tf32 && spec.tf32 >= 0 && (spec.fp8 == 0 || spec.fp8 >= spec.fp16);
        if (!ordered || spec.memoryGBps <= 0 || spec.fp32 <= 0 || spec.fp64 <= 0 ||
            spec.source.empty())
            return false;
    }
    return true;
}
static_assert(everySpecIsOrdered(), "an entry is out of order or lacks a figure");

// ---------------------------------------------------------------------------------------------
// Matching a name
// ---------------------------------------------------------------------------------------------

// The name is cut into lower-case tokens at every character that is not a letter or a digit
// ("Tesla V100-SXM2-32GB" -> tesla, v100, sxm2, 32gb), so "A10" does not match "A100", "H200"
// does not match "GH200", nor "V100" "V100S". The first rule that fits wins: specific before
// general.
struct Rule
{
    std::string_view all;    // space-separated tokens, every one of them in the name
    std::string_view none;   // space-separated tokens, none of them in the name
    double minGiB = 0;       // device memory at least this (GiB); 0: no condition. Unknown: no fit
    double maxGiB = 0;       // device memory at most this (GiB); 0: no condition. Unknown: no fit
    std::string_view model;  // the Spec it names
};

constexpr Rule when(std::string_view all, std::string_view model)
{
    return Rule{all, "", 0, 0, model};
}

constexpr Rule whenNot(std::string_view all, std::string_view none, std::string_view model)
{
    return Rule{all, none, 0, 0, model};
}

constexpr Rule withAtLeastGiB(std::string_view all, double gib, std::string_view model)
{
    return Rule{all, "", gib, 0, model};
}

constexpr Rule withAtMostGiB(std::string_view all, double gib, std::string_view model)
{
    return Rule{all, "", 0, gib, model};
}

// GeForce rules leave out laptop and regional variants (other SM counts and clocks); the SM
// check does the same when the trace records the count.
constexpr std::array kRules = {
    when("p100 sxm2", "P100 SXM2"),
    when("p100 pcie 12gb", "P100 PCIe 12GB"),
    withAtMostGiB("p100 pcie", 13, "P100 PCIe 12GB"),
    when("p100", "P100 PCIe 16GB"),
    when("gp100", "Quadro GP100"),
    when("v100s", "V100S PCIe"),
    when("v100 pcie", "V100 PCIe"),
    when("v100 dgxs", "V100 DGXS"),
    when("v100", "V100 SXM2"),
    when("t4", "T4"),
    whenNot("2080 ti", "laptop mobile", "RTX 2080 Ti"),
    whenNot("2080", "ti super laptop mobile", "RTX 2080"),
    when("a100 pcie 80gb", "A100 PCIe 80GB"),
    withAtLeastGiB("a100 pcie", 60, "A100 PCIe 80GB"),
    when("a100 pcie", "A100 PCIe 40GB"),
    when("a100 80gb", "A100 SXM4 80GB"),
    when("a100 40gb", "A100 SXM4 40GB"),
    // PG509: the SXM4 board's part number. -200 is the 40 GB board, -210 the 80 GB one.
    when("pg509 210", "A100 SXM4 80GB"),
    when("pg509 200", "A100 SXM4 40GB"),
    withAtLeastGiB("a100", 60, "A100 SXM4 80GB"),
    when("a100", "A100 SXM4 40GB"),
    withAtLeastGiB("pg509", 60, "A100 SXM4 80GB"),
    when("pg509", "A100 SXM4 40GB"),
    when("a10", "A10"),
    whenNot("3080", "ti laptop mobile", "RTX 3080"),
    whenNot("3090", "ti laptop mobile", "RTX 3090"),
    when("l4", "L4"),
    when("l40s", "L40S"),
    when("l40", "L40"),
    whenNot("4080", "super laptop mobile", "RTX 4080"),
    whenNot("4090", "d laptop mobile", "RTX 4090"),
    when("h100 nvl", "H100 NVL"),
    when("h100 pcie", "H100 PCIe"),
    // A bare "H100": the SXM5 part (132 SMs), or the PCIe one when the trace says 114 SMs.
    when("h100", "H100 SXM5"),
    when("h100", "H100 PCIe"),
    when("h200 nvl", "H200 NVL"),
    when("h200", "H200 SXM"),
    when("gh200 144g", "GH200 144GB"),
    when("gh200 144gb", "GH200 144GB"),
    withAtLeastGiB("gh200", 120, "GH200 144GB"),
    when("gh200", "GH200 96GB"),
    when("gb200", "GB200"),
    when("b200", "B200"),
    when("b300", "B300"),
    when("mi210", "MI210"),
    // ROCm names both "AMD Instinct MI250X / MI250" (one PCI id): the CU count tells them apart.
    when("mi250x", "MI250X (one GCD)"),
    when("mi250", "MI250 (one GCD)"),
    when("mi300a", "MI300A"),
    when("mi300x", "MI300X"),
    when("mi325x", "MI325X"),
};

// Index of `model` in kSpecs; kSpecs.size() when absent.
constexpr size_t specIndex(std::string_view model)
{
    for (size_t i = 0; i < kSpecs.size(); ++i) {
        if (kSpecs[i].model == model)
            return i;
    }
    return kSpecs.size();
}

constexpr bool everyRuleNamesASpec()
{
    for (const Rule& rule : kRules) {
        if (specIndex(rule.model) == kSpecs.size())
            return false;
    }
    return true;
}
static_assert(everyRuleNamesASpec(), "a rule names a model that is not in kSpecs");

// The tokens of a device name: lower case, split at every non-alphanumeric character.
std::vector<std::string> tokensOf(std::string_view name)
{
    std::vector<std::string> tokens;
    std::string current;
    for (const char c : name) {
        const auto byte = static_cast<unsigned char>(c);
        if (std::isalnum(byte) != 0) {
            current += static_cast<char>(std::tolower(byte));
        } else if (!current.empty()) {
            tokens.push_back(std::move(current));
            current.clear();
        }
    }
    if (!current.empty())
        tokens.push_back(std::move(current));
    return tokens;
}

bool hasToken(const std::vector<std::string>& tokens, std::string_view token)
{
    for (const std::string& t : tokens) {
        if (t == token)
            return true;
    }
    return false;
}

// Calls `f` on each space-separated token of `list`; false as soon as `f` says false.
template <typename F>
bool eachToken(std::string_view list, F f)
{
    size_t start = 0;
    while (start < list.size()) {
        size_t end = list.find(' ', start);
        if (end == std::string_view::npos)
            end = list.size();
        if (end > start && !f(list.substr(start, end - start)))
            return false;
        start = end + 1;
    }
    return true;
}

DevicePeaks peaksOf(const Spec& spec)
{
    DevicePeaks peaks;
    peaks.model = std::string(spec.model);
    peaks.fp64Tflops = spec.fp64;
    peaks.fp32Tflops = spec.fp32;
    peaks.tf32Tflops = spec.tf32;
    peaks.fp16Tflops = spec.fp16;
    peaks.fp8Tflops = spec.fp8;
    peaks.memoryGBps = spec.memoryGBps;
    peaks.estimated = false;
    peaks.source = std::string(spec.source);
    return peaks;
}

// Device memory in GiB; negative when the trace does not say.
double memoryGiB(const trace::DeviceInfo& device)
{
    if (device.totalGlobalMemBytes <= 0)
        return -1;
    return static_cast<double>(device.totalGlobalMemBytes) / (1024.0 * 1024.0 * 1024.0);
}

const Spec* matchByName(const trace::DeviceInfo& device)
{
    const std::vector<std::string> tokens = tokensOf(device.name);
    if (tokens.empty())
        return nullptr;
    const double gib = memoryGiB(device);
    for (const Rule& rule : kRules) {
        const auto present = [&](std::string_view t) { return hasToken(tokens, t); };
        const auto absent = [&](std::string_view t) { return !hasToken(tokens, t); };
        if (!eachToken(rule.all, present) || !eachToken(rule.none, absent))
            continue;
        if (rule.minGiB > 0 && (gib < 0 || gib < rule.minGiB))
            continue;
        if (rule.maxGiB > 0 && (gib < 0 || gib > rule.maxGiB))
            continue;
        const Spec& spec = kSpecs[specIndex(rule.model)];
        if (spec.sms > 0 && device.numSms > 0 && device.numSms != spec.sms)
            continue;  // same name, another part (MIG slice, cut-down variant): not this entry
        return &spec;
    }
    return nullptr;
}

// ---------------------------------------------------------------------------------------------
// Estimating an unnamed device
// ---------------------------------------------------------------------------------------------

// Dense FLOP per SM (AMD: per CU) per clock, for each unit, and a typical boost clock. Rows are
// searched in order; minor -1 takes any minor of that major.
struct Arch
{
    bool amd = false;
    int major = 0;
    int minor = -1;
    std::string_view name;
    double fp64 = 0;  // FLOP / SM / clock (matrix units where the architecture has them)
    double fp32 = 0;  // FLOP / SM / clock on the SIMT / vector units
    double tf32 = 0;  // FLOP / SM / clock, fp32 inputs on the matrix units
    double fp16 = 0;  // FLOP / SM / clock, fp16 / bf16 on the matrix units, fp32 accumulate
    double fp8 = 0;   // FLOP / SM / clock, fp8 on the matrix units
    bool geforceHalves = false;  // GeForce parts: fp32-accumulate matrix rates at half
    double ghz = 0;              // typical boost clock, GHz
    double memoryGBps = 0;       // typical for the class; 0: the class spreads too far to guess
};

constexpr std::array kArchs = {
    Arch{false, 6, 0, "Pascal GP100", 64, 128, 0, 0, 0, false, 1.48, 732},
    Arch{false, 6, -1, "Pascal", 8, 256, 0, 0, 0, false, 1.6, 0},
    Arch{false, 7, 0, "Volta", 64, 128, 0, 1024, 0, false, 1.53, 900},
    Arch{false, 7, 2, "Volta (Xavier)", 64, 128, 0, 1024, 0, false, 1.38, 0},
    Arch{false, 7, 5, "Turing", 4, 128, 0, 1024, 0, true, 1.6, 0},
    Arch{false, 8, 0, "Ampere GA100", 128, 128, 1024, 2048, 0, false, 1.41, 1555},
    Arch{false, 8, 6, "Ampere GA10x", 4, 256, 512, 1024, 0, true, 1.7, 0},
    Arch{false, 8, 7, "Ampere (Orin)", 4, 256, 1024, 2048, 0, false, 1.3, 0},
    Arch{false, 8, 9, "Ada", 4, 256, 512, 1024, 2048, true, 2.5, 0},
    Arch{false, 9, 0, "Hopper", 256, 256, 2048, 4096, 8192, false, 1.83, 3350},
    Arch{false, 10, 0, "Blackwell B200", 128, 256, 4096, 8192, 16384, false, 1.86, 8000},
    Arch{false, 10, 3, "Blackwell Ultra B300", 4, 256, 4096, 8192, 16384, false, 1.86, 8000},
    Arch{false, 10, -1, "Blackwell", 128, 256, 4096, 8192, 16384, false, 1.86, 0},
    Arch{false, 11, -1, "Blackwell", 128, 256, 4096, 8192, 16384, false, 1.86, 0},
    Arch{false, 12, -1, "Blackwell GB20x", 4, 256, 512, 1024, 2048, true, 2.4, 0},
    Arch{true, 9, 4, "CDNA3", 256, 256, 1024, 2048, 4096, false, 2.1, 5300},
    Arch{true, 9, 5, "CDNA4", 128, 256, 256, 4096, 8192, false, 2.4, 8000},
    // gfx9 minor 0 covers gfx906 (MI50), gfx908 (MI100) and gfx90a (MI210/MI250): CDNA2 assumed.
    Arch{true, 9, -1, "CDNA2", 256, 128, 256, 1024, 0, false, 1.7, 1638.4},
};

bool anyToken(const std::vector<std::string>& tokens, std::string_view list)
{
    return !eachToken(list, [&](std::string_view t) { return !hasToken(tokens, t); });
}

// AMD or NVIDIA: from the name's vendor words; else from the warp size (AMD wavefronts are 64
// wide); else from the compute capability (NVIDIA has no 9.x but 9.0, and no 9.0 part beyond
// 144 SMs).
bool looksAmd(const trace::DeviceInfo& device, const std::vector<std::string>& tokens)
{
    if (anyToken(tokens, "amd radeon instinct ati"))
        return true;
    if (anyToken(tokens, "nvidia tesla quadro geforce titan rtx"))
        return false;
    if (device.warpSize == 64)
        return true;
    if (device.warpSize == 32)
        return false;
    return device.computeMajor == 9 && (device.computeMinor > 0 || device.numSms > 144);
}

const Arch* archFor(bool amd, int major, int minor)
{
    for (const Arch& arch : kArchs) {
        if (arch.amd == amd && arch.major == major && (arch.minor < 0 || arch.minor == minor))
            return &arch;
    }
    return nullptr;
}

// "1.83", "2.1": at most two decimals, no trailing zeros.
std::string shortNumber(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", value);
    std::string s = text;
    while (!s.empty() && s.back() == '0')
        s.pop_back();
    if (!s.empty() && s.back() == '.')
        s.pop_back();
    return s;
}

std::optional<DevicePeaks> estimate(const trace::DeviceInfo& device)
{
    if (device.numSms <= 0 || device.computeMajor < 0)
        return std::nullopt;
    const std::vector<std::string> tokens = tokensOf(device.name);
    const bool amd = looksAmd(device, tokens);
    const Arch* arch = archFor(amd, device.computeMajor, device.computeMinor);
    if (arch == nullptr)
        return std::nullopt;

    const bool halved = arch->geforceHalves && hasToken(tokens, "geforce");
    const double matrixScale = halved ? 0.5 : 1.0;
    // TFLOP/s for 1 FLOP / SM / clock: SMs x GHz = GFLOP/s, / 1000 = TFLOP/s.
    const double perClock = static_cast<double>(device.numSms) * arch->ghz / 1000.0;
    const char* unit = amd ? "CUs" : "SMs";
    const std::string capability = std::to_string(device.computeMajor) + "." +
                                   std::to_string(std::max(device.computeMinor, 0));

    DevicePeaks peaks;
    peaks.model = std::string(arch->name) + " (" + std::to_string(device.numSms) + " " + unit + ")";
    peaks.fp64Tflops = arch->fp64 * perClock;
    peaks.fp32Tflops = arch->fp32 * perClock;
    peaks.tf32Tflops = arch->tf32 * perClock * matrixScale;
    peaks.fp16Tflops = arch->fp16 * perClock * matrixScale;
    peaks.fp8Tflops = arch->fp8 * perClock * matrixScale;
    peaks.memoryGBps = arch->memoryGBps;
    peaks.estimated = true;

    std::string source = "estimated from " + std::to_string(device.numSms) + " " + unit +
                         " of compute capability " + capability + " at ~" + shortNumber(arch->ghz) +
                         " GHz (" + std::string(arch->name) + " per-" + (amd ? "CU" : "SM") +
                         " rates)";
    if (amd && arch->minor < 0)
        source += "; CDNA2 assumed: gfx9 minor 0 also covers MI50 and MI100, which it overstates";
    if (halved)
        source += "; GeForce: fp32-accumulate matrix rates at half";
    if (arch->memoryGBps > 0)
        source += "; memory: " + shortNumber(arch->memoryGBps) + " GB/s, typical of the class";
    else
        source += "; memory bandwidth unknown (0)";
    // The table's parts this one could be: same capability and SM count.
    std::string fits;
    for (const Spec& spec : kSpecs) {
        if (spec.sms == device.numSms && spec.major == device.computeMajor &&
            spec.minor == device.computeMinor) {
            fits += (fits.empty() ? "" : ", ") + std::string(spec.model);
        }
    }
    if (!fits.empty())
        source += std::string("; the ") + (amd ? "CU" : "SM") + " count fits: " + fits;
    peaks.source = std::move(source);
    return peaks;
}

}  // namespace

std::optional<DevicePeaks> peaksFor(const trace::DeviceInfo& device)
{
    if (const Spec* spec = matchByName(device))
        return peaksOf(*spec);
    return estimate(device);
}

std::span<const DevicePeaks> knownDevices()
{
    static const std::vector<DevicePeaks> table = [] {
        std::vector<DevicePeaks> peaks;
        peaks.reserve(kSpecs.size());
        for (const Spec& spec : kSpecs)
            peaks.push_back(peaksOf(spec));
        return peaks;
    }();
    return table;
}

}  // namespace kinetoscope::roofline
