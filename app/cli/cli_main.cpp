#include "app/cli/cli_main.h"

#include "app/cli/diagnose_command.h"
#include "app/cli/diff_command.h"
#include "app/cli/info_command.h"
#include "app/cli/summary_command.h"
#include "app/cli/run_command.h"

#include <iostream>
#include <new>

namespace kinetoscope::cli {

namespace {

constexpr const char* kUsage =
    "usage: kinetoscope <command> [options]\n"
    "\n"
    "commands:\n"
    "  info TRACE [--json]   what was read from a torch.profiler trace (.json or .json.gz):\n"
    "                        format, devices, ranks, time span, steps, events per category,\n"
    "                        skipped events with reasons, load time and throughput\n"
    "  summary TRACE [--json] [--series] [--memory-points N] [--step-marker NAME]\n"
    "                        steps and their time breakdown, GPU utilisation, idle gaps,\n"
    "                        launches, synchronisation, op/kernel/memcpy tables, memory\n"
    "  summary DIR|TRACE TRACE... [--json]\n"
    "                        a job of several ranks: each rank's step, own work, exposed and\n"
    "                        hidden communication, the straggler with its cause, collectives\n"
    "                        matched across ranks (transfer, wait, bus bandwidth), clock offsets\n"
    "  diagnose TRACE [--json|--markdown] [--fail-on low|medium|high]\n"
    "                 [--threshold NAME=VALUE]... [--step-marker NAME]\n"
    "                        ranked findings with evidence, estimated gain and the fix\n"
    "  diagnose DIR|TRACE TRACE... [--json|--markdown] [--link-gbps N]\n"
    "                        a job of several ranks: straggler, load imbalance, exposed\n"
    "                        communication, slow collectives; each rank's first finding\n"
    "  diff BEFORE AFTER [--json|--markdown] [--fail-on-regression PCT] [--step-marker NAME]\n"
    "                        the verdict on step time (with a 95 % interval) and where the\n"
    "                        change came from: breakdown, causes, kernels, ops, memory, findings\n"
    "  run --model mlp|cnn|transformer|FILE.pt --dataset synthetic|mnist|cifar10|tensors\n"
    "      [--data PATH] [--device auto|cpu|cuda] [--batch-size N] [--steps N] [--warmup N]\n"
    "      [--workers N] [--lab] [--split] [--sweep workers=0,2,4,8] [--profile] --out DIR\n"
    "                        run the method on a model through LibTorch: a session + trace\n"
    "                        (`kinetoscope run --help` lists every knob)\n"
    "  report TRACE|SESSION --out FILE.{pdf,png,html}\n"
    "                        the diagnosis page (figures, plots, findings) as a document\n"
    "  report DIR|TRACE TRACE... --out FILE.{pdf,png,html,md}\n"
    "                        a job of several ranks: its diagnosis, the ranks, the collectives\n"
    "                        waited on longest and the rank x step heatmap\n"
    "  help                  this text\n"
    "\n"
    "kinetoscope [FILE...]   the desktop app, opening the files given\n"
    "\n"
    "exit codes: 0 success, 1 a finding at or above --fail-on (diff: a regression beyond PCT), 2 bad input (one line on stderr)\n";

int runCommand(const std::string& command, const std::vector<std::string>& rest, std::ostream& out,
               std::ostream& err);

}  // namespace

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
        (args.empty() ? err : out) << kUsage;
        return args.empty() ? kExitBadInput : kExitOk;
    }
    const std::string& command = args[0];
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    try {
        return runCommand(command, rest, out, err);
    } catch (const std::bad_alloc&) {
        // Loading and analysis report this themselves; this is for whatever else runs out.
        err << "kinetoscope " << command << ": out of memory: free memory and try again\n";
        return kExitBadInput;
    }
}

namespace {

int runCommand(const std::string& command, const std::vector<std::string>& rest, std::ostream& out,
               std::ostream& err)
{
    if (command == "info")
        return runInfo(rest, out, err);
    if (command == "summary")
        return runSummary(rest, out, err);
    if (command == "diagnose")
        return runDiagnose(rest, out, err);
    if (command == "diff")
        return runDiff(rest, out, err);
    if (command == "run")
        return runRun(rest, out, err);
    err << "kinetoscope: unknown command '" << command << "' (try 'kinetoscope help')\n";
    return kExitBadInput;
}

}  // namespace

bool isCommand(std::string_view name)
{
    return name == "info" || name == "summary" || name == "diagnose" || name == "diff" || name == "run" || name == "help" ||
           name == "--help" || name == "-h";
}

int run(int argc, char** argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
    return run(args, std::cout, std::cerr);
}

}  // namespace kinetoscope::cli
