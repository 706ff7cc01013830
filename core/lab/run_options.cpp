#include "core/lab/run_options.h"

#include <algorithm>
#include <filesystem>
#include <map>

namespace kinetoscope::lab {

const char* const kMemorySnapshotNeedsGpu =
    "--memory-snapshot records the CUDA caching allocator's history: it needs a GPU run (a CPU run "
    "has no such "
    "allocator)";

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
    "  --mode train|inference  inference: eval mode, no autograd, per-batch latency (mean,\n"
    "                          std, p50, p95, p99) for each arm and batch size\n"
    "  --memory-limit-mb N     allocations past N MiB fail as out of memory (the batch\n"
    "                          sweep stops there)\n"
    "  --checkpoint-every N    activation checkpointing of every N-th block of a built-in\n"
    "                          model; the batch sweep runs each size without and with it\n"
    "  --lab                   fp32, bf16 autocast, bf16 + whole-step CUDA graph (the C++\n"
    "                          counterpart of torch.compile(mode=\"reduce-overhead\"), which\n"
    "                          has no C++ API)\n"
    "  --split                 DataLoader-versus-compute\n"
    "  --sweep workers=0,2,4,8 | batch=32,64,128   samples/s against the knob (repeatable);\n"
    "                          with a batch sweep and no --batch-size, the arms run at its\n"
    "                          smallest size\n"
    "  --profile               a Kineto profiler window -> DIR/trace.json\n"
    "  --memory-snapshot       the CUDA caching allocator's history -> DIR/memory_snapshot.pickle\n"
    "                          (a GPU run; open it with kinetoscope memory or the app)\n"
    "  --no-samples            no live CPU/GPU/memory sampling\n"
    "  --sample-rate HZ        live samples per second (default 20)\n"
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

// One table of options, read by parseRunOptions and written by runOptionArgs.
using IntegerField = int64_t RunConfig::*;
using FlagField = bool RunConfig::*;
using TextField = std::string RunConfig::*;

const std::map<std::string, IntegerField> kIntegers{
    {"--batch-size", &RunConfig::batchSize},
    {"--steps", &RunConfig::steps},
    {"--warmup", &RunConfig::warmup},
    {"--workers", &RunConfig::workers},
    {"--prefetch", &RunConfig::prefetch},
    {"--hidden", &RunConfig::hidden},
    {"--layers", &RunConfig::layers},
    {"--heads", &RunConfig::heads},
    {"--seq-len", &RunConfig::sequenceLength},
    {"--vocab", &RunConfig::vocabulary},
    {"--classes", &RunConfig::classes},
    {"--image-size", &RunConfig::imageSize},
    {"--input-features", &RunConfig::inputFeatures},
    {"--sample-cpu-us", &RunConfig::sampleCpuUs},
    {"--sample-io-us", &RunConfig::sampleIoUs},
    {"--memory-limit-mb", &RunConfig::memoryLimitMb},
    {"--checkpoint-every", &RunConfig::checkpointEvery},
    // Test-only fault injection; not in the help.
    {"--poison-loss-at-step", &RunConfig::poisonLossAtStep}};
// Present: true.
const std::map<std::string, FlagField> kFlags{{"--lab", &RunConfig::lab},
                                              {"--split", &RunConfig::split},
                                              {"--profile", &RunConfig::profile},
                                              {"--memory-snapshot", &RunConfig::memorySnapshot},
                                              {"--pin-memory", &RunConfig::pinMemory},
                                              {"--non-blocking", &RunConfig::nonBlocking}};
// Present: false.
const std::map<std::string, FlagField> kNegatedFlags{{"--no-shuffle", &RunConfig::shuffle},
                                                     {"--keep-last", &RunConfig::dropLast},
                                                     {"--no-samples", &RunConfig::liveSamples}};
const std::map<std::string, TextField> kTexts{
    {"--model", &RunConfig::model},
    {"--dataset", &RunConfig::dataset},
    {"--data", &RunConfig::dataPath},
    {"--device", &RunConfig::device},
    {"--mode", &RunConfig::mode},
    {"--out", &RunConfig::outDir},
    // Test-only fault injection; not in the help.
    {"--out-of-memory-in-arm", &RunConfig::outOfMemoryInArm}};

std::string joined(const std::vector<int64_t>& values, char separator)
{
    std::string text;
    for (int64_t value : values)
        text += (text.empty() ? "" : std::string(1, separator)) + std::to_string(value);
    return text;
}

}  // namespace

bool hasOutOption(const std::vector<std::string>& args)
{
    return std::find(args.begin(), args.end(), "--out") != args.end();
}

std::vector<std::string> runOptionArgs(const RunConfig& c)
{
    std::vector<std::string> args;
    for (const auto& [name, field] : kIntegers)
        args.insert(args.end(), {name, std::to_string(c.*field)});
    for (const auto& [name, field] : kFlags)
        if (c.*field)
            args.push_back(name);
    for (const auto& [name, field] : kNegatedFlags)
        if (!(c.*field))
            args.push_back(name);
    for (const auto& [name, field] : kTexts)
        args.insert(args.end(), {name, c.*field});
    args.insert(args.end(), {"--seed", std::to_string(c.seed), "--sample-rate",
                             std::to_string(c.samplesPerSecond)});
    if (!c.inputShape.empty())
        args.insert(args.end(), {"--input-shape", joined(c.inputShape, 'x')});
    if (!c.plantedLatencyUs.empty())
        args.insert(args.end(), {"--planted-latency-us", joined(c.plantedLatencyUs, ',')});
    if (!c.sweepWorkers.empty())
        args.insert(args.end(), {"--sweep", "workers=" + joined(c.sweepWorkers, ',')});
    if (!c.sweepBatchSizes.empty())
        args.insert(args.end(), {"--sweep", "batch=" + joined(c.sweepBatchSizes, ',')});
    return args;
}

bool parseRunOptions(const std::vector<std::string>& args, RunConfig& c, std::string& error)
{
    bool batchSizeGiven = false;
    for (size_t i = 0; i < args.size(); ++i) {
        batchSizeGiven |= args[i] == "--batch-size";
        const std::string& arg = args[i];
        const bool hasValue = i + 1 < args.size();
        if (auto f = kFlags.find(arg); f != kFlags.end()) {
            c.*f->second = true;
        } else if (auto g = kNegatedFlags.find(arg); g != kNegatedFlags.end()) {
            c.*g->second = false;
        } else if (auto n = kIntegers.find(arg); n != kIntegers.end()) {
            if (!hasValue || !parseInt(args[i + 1], c.*n->second)) {
                error = arg + " needs a whole number";
                return false;
            }
            ++i;
        } else if (auto t = kTexts.find(arg); t != kTexts.end() && hasValue) {
            c.*t->second = args[++i];
        } else if (arg == "--seed" && hasValue) {
            int64_t seed = 0;
            if (!parseInt(args[++i], seed)) {
                error = "--seed needs a whole number";
                return false;
            }
            c.seed = uint64_t(seed);
        } else if (arg == "--sample-rate" && hasValue) {
            int64_t rate = 0;
            if (!parseInt(args[++i], rate) || rate < 1 || rate > 100) {
                error = "--sample-rate takes 1 to 100 samples per second";
                return false;
            }
            c.samplesPerSecond = int(rate);
        } else if (arg == "--input-shape" && hasValue) {
            if (!parseList(args[++i], 'x', c.inputShape)) {
                error = "--input-shape takes dimensions like 3x32x32";
                return false;
            }
        } else if (arg == "--planted-latency-us" && hasValue) {  // test-only, not in the help
            if (!parseList(args[++i], ',', c.plantedLatencyUs)) {
                error = "--planted-latency-us takes microseconds like 2000,10000";
                return false;
            }
        } else if (arg == "--sweep" && hasValue) {
            const std::string& spec = args[++i];
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
    // A batch-size sweep without --batch-size: the arms run at its smallest size, the one
    // most likely to fit and the quickest, not at a default the sweep may not even reach.
    if (!batchSizeGiven && !c.sweepBatchSizes.empty())
        c.batchSize = *std::min_element(c.sweepBatchSizes.begin(), c.sweepBatchSizes.end());
    return validateRunConfig(c, error);
}

bool isBuiltInModel(const std::string& model)
{
    return model == "mlp" || model == "cnn" || model == "transformer";
}

bool validateRunConfig(const RunConfig& c, std::string& error)
{
    std::error_code ec;
    if (!isBuiltInModel(c.model) && !std::filesystem::is_regular_file(c.model, ec)) {
        error = "--model takes mlp, cnn, transformer or a TorchScript file (torch.jit.save); '" +
                c.model + "' is " +
                (std::filesystem::exists(c.model, ec) ? "not a file" : "neither (no such file)");
        return false;
    }
    if (c.dataset != "synthetic" && c.dataset != "mnist" && c.dataset != "cifar10" &&
        c.dataset != "tensors") {
        error = "--dataset takes synthetic, mnist, cifar10 or tensors, not '" + c.dataset + "'";
        return false;
    }
    if (c.dataset == "synthetic" && !c.dataPath.empty()) {
        // Read by nothing: the run would silently measure random data instead of the files.
        error = "--data " + c.dataPath +
                " is read by --dataset mnist, cifar10 or tensors; the synthetic dataset "
                "(the default) takes none";
        return false;
    }
    if (c.dataset != "synthetic") {
        const bool folder =
            c.dataset != "tensors";  // mnist and cifar10: the folder of the original files
        if (c.dataPath.empty()) {
            error = "the " + c.dataset + " dataset needs --data " +
                    (folder ? "DIR (the folder of its files)" : "FILE");
            return false;
        }
        if (folder ? !std::filesystem::is_directory(c.dataPath, ec)
                   : !std::filesystem::is_regular_file(c.dataPath, ec)) {
            error = "--data " + c.dataPath + ": " +
                    (!std::filesystem::exists(c.dataPath, ec) ? "no such file or folder"
                     : folder ? "not a folder (" + c.dataset + " reads a folder of files)"
                              : "not a file (tensors reads one torch.save file)");
            return false;
        }
    }
    if (c.device != "auto" && c.device != "cpu" && c.device != "cuda") {
        error = "--device takes auto, cpu or cuda, not '" + c.device + "'";
        return false;
    }
    if (c.mode != "train" && c.mode != "inference") {
        error = "--mode takes train or inference, not '" + c.mode + "'";
        return false;
    }
    if (std::find(c.sweepBatchSizes.begin(), c.sweepBatchSizes.end(), 0) !=
        c.sweepBatchSizes.end()) {
        error = "--sweep batch= takes batch sizes of 1 or more";
        return false;
    }
    // Counts that must be at least 1, and at least 0.
    const std::pair<const char*, int64_t> atLeastOne[] = {{"--steps", c.steps},
                                                          {"--batch-size", c.batchSize},
                                                          {"--prefetch", c.prefetch},
                                                          {"--hidden", c.hidden},
                                                          {"--layers", c.layers},
                                                          {"--heads", c.heads},
                                                          {"--seq-len", c.sequenceLength},
                                                          {"--vocab", c.vocabulary},
                                                          {"--classes", c.classes},
                                                          {"--image-size", c.imageSize},
                                                          {"--input-features", c.inputFeatures}};
    for (const auto& [name, value] : atLeastOne)
        if (value < 1) {
            error = std::string(name) + " needs 1 or more, not " + std::to_string(value);
            return false;
        }
    const std::pair<const char*, int64_t> atLeastZero[] = {{"--warmup", c.warmup},
                                                           {"--workers", c.workers},
                                                           {"--sample-cpu-us", c.sampleCpuUs},
                                                           {"--sample-io-us", c.sampleIoUs}};
    for (const auto& [name, value] : atLeastZero)
        if (value < 0) {
            error = std::string(name) + " needs 0 or more, not " + std::to_string(value);
            return false;
        }
    if (c.memoryLimitMb < 0) {
        error = "--memory-limit-mb needs 0 (no limit) or more";
        return false;
    }
    if (c.checkpointEvery < 0) {
        error = "--checkpoint-every needs 0 (off) or more";
        return false;
    }
    if (c.memorySnapshot && c.device == "cpu") {
        error = kMemorySnapshotNeedsGpu;
        return false;
    }
    if (c.checkpointEvery > 0 && c.mode == "inference") {
        error =
            "--checkpoint-every applies to training: inference keeps no activations for backward";
        return false;
    }
    if (c.checkpointEvery > 0 && !isBuiltInModel(c.model)) {
        error = "--checkpoint-every needs a built-in model (mlp, cnn, transformer): a TorchScript "
                "model's blocks are "
                "not known";
        return false;
    }
    return true;
}

}  // namespace kinetoscope::lab
