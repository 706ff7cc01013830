#include "app/cli/memory_command.h"

#include "app/cli/cli_main.h"
#include "app/cli/json_output.h"
#include "app/cli/memory_report.h"
#include "app/cli/threads_option.h"
#include "core/document/document.h"
#include "core/trace/other_outputs.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

namespace kinetoscope::cli {

int runMemory(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    std::string path, tracePath;
    bool asJson = false, asMarkdown = false;
    unsigned threads =
        0;  // --threads: for reading and analysing --trace (the snapshot's reader is serial)
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (arg == "--trace") {
            if (i + 1 == args.size()) {
                err << "kinetoscope memory: --trace needs a trace file\n";
                return kExitBadInput;
            }
            tracePath = args[++i];
        } else if (arg == kThreadsOption) {
            if (!readThreadsOption(args, i, "memory", err, threads))
                return kExitBadInput;
        } else if (arg == "--json") {
            asJson = true;
        } else if (arg == "--markdown") {
            asMarkdown = true;
        } else if (arg.starts_with("-")) {
            err << "kinetoscope memory: unknown option '" << arg << "'\n";
            return kExitBadInput;
        } else if (path.empty()) {
            path = arg;
        } else {
            err << "kinetoscope memory: one snapshot at a time ('" << arg << "' is extra)\n";
            return kExitBadInput;
        }
    }
    if (path.empty() || (asJson && asMarkdown)) {
        err << "kinetoscope memory: usage: kinetoscope memory SNAPSHOT [--trace TRACE] "
               "[--json|--markdown] "
               "[--threads N]\n";
        return kExitBadInput;
    }
    std::error_code ec;
    if (std::filesystem::exists(path, ec) && !snapshot::isSnapshotFile(path)) {
        // 'summary' reads traces; torch.profiler's other outputs are said by name.
        const std::string other = trace::otherTorchOutput(trace::fileHead(path));
        err << "kinetoscope memory: " << path << ": "
            << (other.empty() ? std::string("not a CUDA memory snapshot (not a pickle); "
                                            "'kinetoscope summary' reads traces")
                              : other + ", not a CUDA memory snapshot (the pickle "
                                        "torch.cuda.memory._dump_snapshot writes); "
                                        "'kinetoscope summary' reads the run's trace")
            << "\n";
        return kExitBadInput;
    }
    document::OpenOptions options;
    options.depth = document::Depth::Read;
    options.snapshots = true;
    options.threads = threads;
    const std::shared_ptr<const document::Document> doc = document::open(path, options);
    if (!doc->isSnapshot()) {
        err << "kinetoscope memory: " << path << ": " << doc->loadMessage << '\n';
        return kExitBadInput;
    }
    const document::SnapshotDocument& snap = *doc->snapshot;
    std::optional<snapshot::PeakInTrace> placed;
    if (!tracePath.empty()) {
        document::OpenOptions traceOptions;
        traceOptions.threads = threads;
        const std::shared_ptr<const document::Document> trace =
            document::open(tracePath, traceOptions);
        if (!trace->hasTrace()) {
            err << "kinetoscope memory: --trace " << tracePath << ": " << trace->loadMessage
                << '\n';
            return kExitBadInput;
        }
        placed = snapshot::placePeak(snap.summary, *trace->model, trace->summary);
    }
    const snapshot::PeakInTrace* inTrace = placed ? &*placed : nullptr;
    if (asJson)
        out << jsonOutput(memoryJson(path, snap.model, snap.summary, inTrace)) << '\n';
    else
        out << memoryText(path, snap.model, snap.summary, asMarkdown, inTrace);
    return kExitOk;
}

}  // namespace kinetoscope::cli
