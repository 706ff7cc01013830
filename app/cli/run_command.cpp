#include "app/cli/run_command.h"

#include "app/cli/cli_main.h"
#include "core/engine/lab_runner.h"
#include "core/session/lab_reading.h"

#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <ostream>
#include <unistd.h>

namespace kinetoscope::cli {

namespace {

constexpr const char* kRunUsage =
    "usage: kinetoscope run [options] --out DIR\n"
    "\n"
    "model and data:\n"
    "  --model NAME|FILE       mlp, cnn, transformer, or a TorchScript file (torch.jit.save)\n"
    "  --dataset NAME          synthetic (default), mnist, cifar10 (binary version), tensors\n"
    "  --data PATH             mnist/cifar10: the folder of the original files; tensors: a\n"
    "                          torch.save file of (inputs, targets)\n"
    "  --input-shape AxBxC     one synthetic sample's shape (for a TorchScript model)\n"
    "  --hidden N --layers N --heads N --seq-len N --vocab N --classes N --image-size N\n"
    "  --input-features N      model size knobs\n"
    "  --sample-cpu-us N --sample-io-us N\n"
    "                          per-sample CPU work and I/O wait (heavy transforms, slow disk)\n"
    "loader:\n"
    "  --batch-size N --workers N --prefetch N --seed N\n"
    "  --pin-memory --non-blocking --no-shuffle --keep-last\n"
    "run:\n"
    "  --device auto|cpu|cuda  --steps N (measured)  --warmup N\n"
    "  --lab                   fp32, bf16 autocast, bf16 + whole-step CUDA graph (the C++\n"
    "                          counterpart of torch.compile(mode=\"reduce-overhead\"), which\n"
    "                          has no C++ API)\n"
    "  --split                 DataLoader-versus-compute\n"
    "  --sweep workers=0,2,4,8 | batch=32,64,128   samples/s against the knob (repeatable)\n"
    "  --profile               a Kineto profiler window -> DIR/trace.json\n"
    "  --no-samples            no live CPU/GPU/memory sampling\n";

bool parseInt(const std::string& text, int64_t& value)
{
    try {
        size_t used = 0;
        value = std::stoll(text, &used);
        return used == text.size();
    } catch (const std::exception&) {
        return false;
    }
}

// "0,2,4,8" or "3x32x32" -> numbers; false on anything else.
bool parseList(const std::string& text, char separator, std::vector<int64_t>& values)
{
    values.clear();
    size_t begin = 0;
    while (begin <= text.size()) {
        const size_t end = std::min(text.find(separator, begin), text.size());
        int64_t value = 0;
        if (!parseInt(text.substr(begin, end - begin), value) || value < 0)
            return false;
        values.push_back(value);
        begin = end + 1;
    }
    return !values.empty();
}

std::string bytesText(int64_t bytes)
{
    if (bytes < 0)
        return "n/a";
    char text[32];
    std::snprintf(text, sizeof text, "%.2f GB", double(bytes) / 1e9);
    return text;
}

void printResults(const engine::RunResult& result, std::ostream& out)
{
    const session::Session& s = result.session;
    for (const session::LabArm& arm : s.lab) {
        char line[200];
        if (arm.ran)
            std::snprintf(line, sizeof line, "%-18s %10.1f samples/s  %8.2f ms/step  peak %s\n", arm.name.c_str(),
                          arm.samplesPerSecond, arm.meanStepMs, bytesText(arm.peakAllocatedBytes).c_str());
        else
            std::snprintf(line, sizeof line, "%-18s not run: %s\n", arm.name.c_str(), arm.skippedReason.c_str());
        out << line;
    }
    if (!s.phases.empty()) {
        out << "\nphase (fp32)   mean ms    std   median    p95    p99\n";
        for (const session::PhaseTiming& p : s.phases) {
            char line[160];
            std::snprintf(line, sizeof line, "%-12s %8.3f %7.3f %8.3f %6.3f %6.3f\n", p.phase.c_str(), p.meanMs,
                          p.stdMs, p.medianMs, p.p95Ms, p.p99Ms);
            out << line;
        }
    }
    if (!s.sweep.empty()) {
        out << "\nsweep\n";
        for (const session::SweepPoint& p : s.sweep) {
            char line[200];
            if (p.error.empty())
                std::snprintf(line, sizeof line, "%-10s = %-6lld %10.1f samples/s  data wait %.2f ms\n", p.knob.c_str(),
                              static_cast<long long>(p.value), p.samplesPerSecond, p.dataWaitMs);
            else
                std::snprintf(line, sizeof line, "%-10s = %-6lld %s\n", p.knob.c_str(),
                              static_cast<long long>(p.value), p.error.c_str());
            out << line;
        }
    }
    const session::LabReading reading = session::readLab(s);
    if (!reading.lines.empty()) {
        out << "\n";
        for (const std::string& line : reading.lines)
            out << line << "\n";
    }
}

}  // namespace

int runRun(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    engine::RunConfig c;
    bool haveOut = false;
    const std::map<std::string, int64_t*> integers{
        {"--batch-size", &c.batchSize},  {"--steps", &c.steps},           {"--warmup", &c.warmup},
        {"--workers", &c.workers},       {"--prefetch", &c.prefetch},     {"--hidden", &c.hidden},
        {"--layers", &c.layers},         {"--heads", &c.heads},           {"--seq-len", &c.sequenceLength},
        {"--vocab", &c.vocabulary},      {"--classes", &c.classes},       {"--image-size", &c.imageSize},
        {"--input-features", &c.inputFeatures}, {"--sample-cpu-us", &c.sampleCpuUs},
        {"--sample-io-us", &c.sampleIoUs}};
    const std::map<std::string, bool*> flags{{"--lab", &c.lab},           {"--split", &c.split},
                                             {"--profile", &c.profile},   {"--pin-memory", &c.pinMemory},
                                             {"--non-blocking", &c.nonBlocking}};
    const std::map<std::string, std::string*> strings{
        {"--model", &c.model}, {"--dataset", &c.dataset}, {"--data", &c.dataPath}, {"--device", &c.device}};
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        const bool hasValue = i + 1 < args.size();
        if (arg == "--help" || arg == "-h") {
            out << kRunUsage;
            return kExitOk;
        }
        if (auto f = flags.find(arg); f != flags.end()) {
            *f->second = true;
        } else if (arg == "--no-shuffle") {
            c.shuffle = false;
        } else if (arg == "--keep-last") {
            c.dropLast = false;
        } else if (arg == "--no-samples") {
            c.liveSamples = false;
        } else if (auto n = integers.find(arg); n != integers.end()) {
            if (!hasValue || !parseInt(args[i + 1], *n->second)) {
                err << "kinetoscope run: " << arg << " needs a whole number\n";
                return kExitBadInput;
            }
            ++i;
        } else if (auto t = strings.find(arg); t != strings.end() && hasValue) {
            *t->second = args[++i];
        } else if (arg == "--seed" && hasValue) {
            int64_t seed = 0;
            if (!parseInt(args[++i], seed)) {
                err << "kinetoscope run: --seed needs a whole number\n";
                return kExitBadInput;
            }
            c.seed = uint64_t(seed);
        } else if (arg == "--input-shape" && hasValue) {
            if (!parseList(args[++i], 'x', c.inputShape)) {
                err << "kinetoscope run: --input-shape takes dimensions like 3x32x32\n";
                return kExitBadInput;
            }
        } else if (arg == "--sweep" && hasValue) {
            const std::string spec = args[++i];
            const size_t eq = spec.find('=');
            const std::string knob = spec.substr(0, eq);
            std::vector<int64_t> values;
            if (eq == std::string::npos || !parseList(spec.substr(eq + 1), ',', values) ||
                (knob != "workers" && knob != "batch" && knob != "batch-size")) {
                err << "kinetoscope run: --sweep takes workers=0,2,4,8 or batch=32,64,128\n";
                return kExitBadInput;
            }
            (knob == "workers" ? c.sweepWorkers : c.sweepBatchSizes) = values;
        } else if (arg == "--out" && hasValue) {
            c.outDir = args[++i];
            haveOut = true;
        } else {
            err << "kinetoscope run: unknown option or missing value: '" << arg << "' (see kinetoscope run --help)\n";
            return kExitBadInput;
        }
    }
    if (!haveOut) {
        err << "kinetoscope run: --out DIR is required (where the session and trace go)\n";
        return kExitBadInput;
    }
    engine::RunCallbacks callbacks;
    // The bar redraws one line in place: only on a terminal, never into a log file.
    const bool terminal = &err == &std::cerr && isatty(STDERR_FILENO);
    if (terminal)
        callbacks.progress = [&err](const std::string& stage, double fraction) {
            const int width = 30, done = int(fraction * width);
            err << "\r[" << std::string(size_t(done), '#') << std::string(size_t(width - done), ' ') << "] "
                << int(fraction * 100) << "% " << stage << "        " << std::flush;
        };
    const engine::RunResult result = engine::runLab(c, callbacks);
    if (terminal)
        err << "\r" << std::string(60, ' ') << "\r";
    printResults(result, out);
    if (!result.sessionPath.empty())
        out << "\nsession: " << result.sessionPath << "\n";
    if (!result.ok) {
        err << "kinetoscope run: " << result.error << '\n';
        return kExitBadInput;
    }
    if (!result.session.tracePath.empty()) {
        out << "\n";
        return run({"diagnose", result.sessionPath}, out, err) == kExitBadInput ? kExitBadInput : kExitOk;
    }
    return kExitOk;
}

}  // namespace kinetoscope::cli
