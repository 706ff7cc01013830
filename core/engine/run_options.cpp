#include "core/engine/run_options.h"

#include <algorithm>
#include <map>

namespace kinetoscope::engine {

const char* const kRunOptionsHelp =
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
    "  --no-samples            no live CPU/GPU/memory sampling\n"
    "  --out DIR               where the session (and trace) go\n";

namespace {

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

// "0,2,4,8" or "3x32x32" -> non-negative numbers; false on anything else.
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

}  // namespace

bool hasOutOption(const std::vector<std::string>& args)
{
    return std::find(args.begin(), args.end(), "--out") != args.end();
}

bool parseRunOptions(const std::vector<std::string>& args, RunConfig& c, std::string& error)
{
    const std::map<std::string, int64_t*> integers{
        {"--batch-size", &c.batchSize}, {"--steps", &c.steps},         {"--warmup", &c.warmup},
        {"--workers", &c.workers},      {"--prefetch", &c.prefetch},   {"--hidden", &c.hidden},
        {"--layers", &c.layers},        {"--heads", &c.heads},         {"--seq-len", &c.sequenceLength},
        {"--vocab", &c.vocabulary},     {"--classes", &c.classes},     {"--image-size", &c.imageSize},
        {"--input-features", &c.inputFeatures}, {"--sample-cpu-us", &c.sampleCpuUs},
        {"--sample-io-us", &c.sampleIoUs}};
    const std::map<std::string, bool*> flags{{"--lab", &c.lab},         {"--split", &c.split},
                                             {"--profile", &c.profile}, {"--pin-memory", &c.pinMemory},
                                             {"--non-blocking", &c.nonBlocking}};
    const std::map<std::string, std::string*> strings{{"--model", &c.model},     {"--dataset", &c.dataset},
                                                      {"--data", &c.dataPath},   {"--device", &c.device},
                                                      {"--out", &c.outDir}};
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        const bool hasValue = i + 1 < args.size();
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
                error = arg + " needs a whole number";
                return false;
            }
            ++i;
        } else if (auto t = strings.find(arg); t != strings.end() && hasValue) {
            *t->second = args[++i];
        } else if (arg == "--seed" && hasValue) {
            int64_t seed = 0;
            if (!parseInt(args[++i], seed)) {
                error = "--seed needs a whole number";
                return false;
            }
            c.seed = uint64_t(seed);
        } else if (arg == "--input-shape" && hasValue) {
            if (!parseList(args[++i], 'x', c.inputShape)) {
                error = "--input-shape takes dimensions like 3x32x32";
                return false;
            }
        } else if (arg == "--sweep" && hasValue) {
            const std::string spec = args[++i];
            const size_t eq = spec.find('=');
            const std::string knob = spec.substr(0, eq);
            std::vector<int64_t> values;
            if (eq == std::string::npos || !parseList(spec.substr(eq + 1), ',', values) ||
                (knob != "workers" && knob != "batch" && knob != "batch-size")) {
                error = "--sweep takes workers=0,2,4,8 or batch=32,64,128";
                return false;
            }
            (knob == "workers" ? c.sweepWorkers : c.sweepBatchSizes) = values;
        } else {
            error = "unknown option or missing value: '" + arg + "'";
            return false;
        }
    }
    return true;
}

}  // namespace kinetoscope::engine
