#include "app/cli/run_command.h"

#include "app/cli/cli_main.h"
#include "core/engine/lab_runner.h"

#include <cstdio>
#include <ostream>

namespace kinetoscope::cli {

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

}  // namespace

int runRun(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    engine::RunConfig config;
    bool haveOut = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        const bool hasValue = i + 1 < args.size();
        auto intOption = [&](int64_t& field) {
            if (!hasValue || !parseInt(args[i + 1], field)) {
                err << "kinetoscope run: " << arg << " needs a whole number\n";
                return false;
            }
            ++i;
            return true;
        };
        if (arg == "--lab") {
            config.lab = true;
        } else if (arg == "--split") {
            config.split = true;
        } else if (arg == "--profile") {
            config.profile = true;
        } else if (arg == "--pin-memory") {
            config.pinMemory = true;
        } else if (arg == "--non-blocking") {
            config.nonBlocking = true;
        } else if (arg == "--model" && hasValue) {
            config.model = args[++i];
        } else if (arg == "--dataset" && hasValue) {
            config.dataset = args[++i];
        } else if (arg == "--device" && hasValue) {
            config.device = args[++i];
        } else if (arg == "--out" && hasValue) {
            config.outDir = args[++i];
            haveOut = true;
        } else if (arg == "--batch-size") {
            if (!intOption(config.batchSize))
                return kExitBadInput;
        } else if (arg == "--steps") {
            if (!intOption(config.steps))
                return kExitBadInput;
        } else if (arg == "--warmup") {
            if (!intOption(config.warmup))
                return kExitBadInput;
        } else if (arg == "--workers") {
            if (!intOption(config.workers))
                return kExitBadInput;
        } else if (arg == "--sample-cpu-us") {
            if (!intOption(config.sampleCpuUs))
                return kExitBadInput;
        } else if (arg == "--hidden") {
            if (!intOption(config.hidden))
                return kExitBadInput;
        } else {
            err << "kinetoscope run: unknown option or missing value: '" << arg << "'\n";
            return kExitBadInput;
        }
    }
    if (!haveOut) {
        err << "kinetoscope run: --out DIR is required (where the session and trace go)\n";
        return kExitBadInput;
    }
    engine::RunCallbacks callbacks;
    callbacks.progress = [&err](const std::string& stage, double fraction) {
        const int width = 30, done = int(fraction * width);
        err << "\r[" << std::string(size_t(done), '#') << std::string(size_t(width - done), ' ') << "] "
            << int(fraction * 100) << "% " << stage << "   " << std::flush;
    };
    const engine::RunResult result = engine::runLab(config, callbacks);
    err << "\r" << std::string(50, ' ') << "\r";
    for (const session::LabArm& arm : result.session.lab) {
        char line[160];
        if (arm.ran)
            std::snprintf(line, sizeof line, "%-18s %10.1f samples/s  %8.2f ms/step\n", arm.name.c_str(),
                          arm.samplesPerSecond, arm.meanStepMs);
        else
            std::snprintf(line, sizeof line, "%-18s not run: %s\n", arm.name.c_str(), arm.skippedReason.c_str());
        out << line;
    }
    if (result.session.dataLoaderMs && result.session.computeMs) {
        const double data = *result.session.dataLoaderMs, compute = *result.session.computeMs;
        out << "DataLoader " << data << " ms vs compute " << compute << " ms per step: "
            << (data > compute ? "data-bound (the loader sets the pace)" : "compute-bound") << "\n";
    }
    if (!result.sessionPath.empty())
        out << "session: " << result.sessionPath << "\n";
    if (!result.ok) {
        err << "kinetoscope run: " << result.error << '\n';
        return kExitBadInput;
    }
    return kExitOk;
}

}  // namespace kinetoscope::cli
