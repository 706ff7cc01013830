#include "app/cli/command_help.h"

#include "core/lab/engine_protocol.h"
#include "core/lab/run_options.h"

#include <algorithm>
#include <array>
#include <vector>

#ifndef KINETOSCOPE_VERSION
#error "KINETOSCOPE_VERSION is set by app/CMakeLists.txt"
#endif

namespace kinetoscope::cli {

namespace {

struct CommandHelp
{
    const char* name;
    const char* overview;  // its lines in `kinetoscope help`
    const char* details;   // what `kinetoscope NAME --help` adds: options, an example
};

// TRACE is a .json or .json.gz file that torch.profiler wrote; SESSION a lab run's
// *.kinetoscope.json. Every command reads gzip from the content, not the name.
constexpr std::array<CommandHelp, 8> kCommands{{
    {"info",
     "  info TRACE [--json]   what was read from a torch.profiler trace (.json or .json.gz):\n"
     "                        format, devices, ranks, time span, steps, events per category,\n"
     "                        skipped events with reasons, load time and throughput\n",
     "options:\n"
     "  --json                the same as one JSON object (its keys: README.md, section\n"
     "                        \"kinetoscope info\")\n"
     "  --threads N           threads for reading the trace: 0 every core (the default), 1 one\n"
     "                        thread (the serial path); what is printed is the same whatever N\n"
     "example:\n"
     "  kinetoscope info resources/sample.pt.trace.json.gz\n"},
    {"summary",
     "  summary TRACE [--json] [--series] [--memory-points N] [--step-marker NAME]\n"
     "                        steps and their time breakdown, GPU utilisation, idle gaps,\n"
     "                        launches, synchronisation, op/kernel/memcpy tables, memory\n"
     "  summary DIR|TRACE TRACE... [--json] [--no-digests]\n"
     "                        a job of several ranks: each rank's step, own work, exposed and\n"
     "                        hidden communication, the straggler with its cause, collectives\n"
     "                        matched across ranks (transfer, wait, bus bandwidth), clock offsets\n"
     "                        (a rank with a fresh digest beside its trace is read from it)\n"
     "  summary TRACE|SESSION|DIR... --digest\n"
     "                        write each rank's digest beside its trace, for a job of many ranks\n"
     "                        to open from (OUT/rank-K/digest.kinetoscope.json, else\n"
     "                        TRACE.digest.json)\n"
     "  summary TRACE --csv TABLE\n"
     "                        one table as CSV on stdout: ops, kernels, steps, memory-by-op;\n"
     "                        for a job, ranks or collectives\n",
     "options:\n"
     "  --json                the summary as one JSON object\n"
     "  --csv TABLE           one table as CSV (RFC 4180): a header row with each column's unit,\n"
     "                        raw numbers (ns, bytes, counts), times after the trace's first "
     "event\n"
     "  --series              with --json: the utilisation and memory series too\n"
     "  --memory-points N     with --series: at most N points per memory curve (at least 2)\n"
     "  --step-marker NAME    steps are the events named NAME* (default ProfilerStep#)\n"
     "  --threads N           threads for reading and analysing: 0 every core (the default), 1 "
     "one\n"
     "                        thread (the serial path); a job's ranks share them. The summary is\n"
     "                        the same whatever N\n"
     "  --digest              write each rank's digest (what a job reads of it: steps, breakdown,\n"
     "                        collectives, findings) beside its trace and print its path; for a\n"
     "                        trace, a session, a rank folder (srun kinetoscope summary\n"
     "                        OUT/rank-$SLURM_PROCID --digest on each node) or a job's folder\n"
     "  --no-digests          a job: read every rank's trace, even where a fresh digest (written\n"
     "                        from the trace as it is now) is beside it\n"
     "Files that are not ranks of one job (no shared distributedInfo, no collective that\n"
     "matches, starts hours apart) are summarised one after another, each on its own.\n"
     "example:\n"
     "  kinetoscope summary resources/sample.pt.trace.json.gz\n"},
    {"diagnose",
     "  diagnose TRACE|SESSION [--json|--markdown] [--fail-on low|medium|high]\n"
     "                 [--threshold NAME=VALUE]... [--step-marker NAME]\n"
     "                        ranked findings with evidence, estimated gain and the fix\n"
     "  diagnose DIR|TRACE TRACE... [--json|--markdown] [--link-gbps N] [--no-digests]\n"
     "                        a job of several ranks: straggler, load imbalance, exposed\n"
     "                        communication, slow collectives; each rank's first finding\n",
     "options:\n"
     "  --json | --markdown   the findings as JSON, or as Markdown for a report\n"
     "  --fail-on SEVERITY    exit 1 when a finding is at or above low, medium or high (CI)\n"
     "  --threshold NAME=VALUE  change one rule's threshold (the names: docs/diagnosis.md)\n"
     "  --step-marker NAME    steps are the events named NAME* (default ProfilerStep#)\n"
     "  --link-gbps N         a job: the interconnect's bandwidth in GB/s, for slow collectives\n"
     "  --no-digests          a job: read every rank's trace, even where a fresh digest is beside\n"
     "                        it (kinetoscope summary --digest)\n"
     "  --threads N           threads for reading and analysing: 0 every core (the default), 1 "
     "one\n"
     "                        thread (the serial path); a job's ranks share them. The findings "
     "are\n"
     "                        the same whatever N\n"
     "A lab session recorded without --profile is diagnosed from what it measured (the lab's\n"
     "arms, split, memory); the trace's findings need a run with --profile.\n"
     "example:\n"
     "  kinetoscope diagnose resources/sample.pt.trace.json.gz --fail-on high\n"},
    {"diff",
     "  diff BEFORE AFTER [--json|--markdown] [--fail-on-regression PCT] [--step-marker NAME]\n"
     "                        the verdict on step time (with a 95 % interval) and where the\n"
     "                        change came from: breakdown, causes, kernels, ops, memory, "
     "findings\n",
     "BEFORE and AFTER are traces or lab sessions. Runs on different hardware or models are\n"
     "compared too, and the verdict says so first.\n"
     "options:\n"
     "  --json | --markdown   the comparison as JSON, or as Markdown for a report\n"
     "  --fail-on-regression PCT  exit 1 when AFTER's step is slower by more than PCT %\n"
     "  --step-marker NAME    steps are the events named NAME* (default ProfilerStep#)\n"
     "  --threads N           threads for reading and analysing: 0 every core (the default), 1 "
     "one\n"
     "                        thread (the serial path); the two sides, read at once, share them\n"
     "example:\n"
     "  kinetoscope diff before.pt.trace.json.gz after.pt.trace.json.gz --fail-on-regression 5\n"},
    {"run",
     "  run --model mlp|cnn|transformer|FILE.pt --dataset synthetic|mnist|cifar10|tensors\n"
     "      [--data PATH] [--device auto|cpu|cuda] [--batch-size N] [--steps N] [--warmup N]\n"
     "      [--workers N] [--lab] [--split] [--sweep workers=0,2,4,8] [--profile] --out DIR\n"
     "                        run the method on a model through LibTorch: a session + trace\n"
     "                        (`kinetoscope run --help` lists every knob)\n",
     nullptr},  // its options are the lab's own table (core/lab/run_options.h)
    {"profile",
     "  profile [options] [--out DIR] -- COMMAND...\n"
     "                        your own training script (python train.py ARGS, python -m "
     "pkg.train)\n"
     "                        run under the probe, no code change: a session + trace\n",
     "COMMAND runs in your own interpreter and environment, with its own output, input and\n"
     "exit code; a small pure-Python probe rides in it (torch >= 2.1, Python >= 3.9) and finds\n"
     "the steps from torch's own hooks: the optimizer's step, or without one the outermost\n"
     "model's forward under no_grad. Steps 0 to --skip-1 are warm-up; the next --active are\n"
     "profiled (DIR/trace.json); every step after is measured: data wait, host-to-device,\n"
     "forward, backward, optimizer, memory. At the end the diagnosis is printed.\n"
     "options (before --):\n"
     "  --out DIR             the session's folder, new or empty (default: a new folder\n"
     "                        kinetoscope-profiles/SCRIPT-DATE-TIME): a run never overwrites one\n"
     "  --skip K              warm-up steps, neither measured nor profiled (default 5)\n"
     "  --active N            steps in the profiler window after the warm-up (default 3)\n"
     "  --no-trace            no profiler window (--active 0)\n"
     "  --steps N             stop the script cleanly after N measured steps (default: it runs\n"
     "                        to its end)\n"
     "  --step-marker NAME    a step is one record_function(NAME) block, or one call of the\n"
     "                        function NAME (module:function for one outside the script)\n"
     "  --cwd DIR             the folder the script runs in (default: this one)\n"
     "  --no-shapes           the window without input shapes (smaller trace)\n"
     "  --no-profile-memory   the window without allocator events\n"
     "  --with-stack          the window with Python stacks (larger trace, slower window)\n"
     "  --memory-snapshot     CUDA: the allocator's history, dumped at the end and at an\n"
     "                        out-of-memory error (DIR/memory_snapshot.pickle)\n"
     "  --sample-rate HZ      live samples per second, 10-20 (default 20); --no-samples: none\n"
     "the method's lab on the script (each run: warm-up + --steps measured, default 20):\n"
     "  --lab                 three runs: fp32 as written, bf16 (the model's forward and loss\n"
     "                        under bf16 autocast), bf16 + torch.compile of the model (compile\n"
     "                        time apart); then the reading of the jumps\n"
     "  --arms LIST           the arms to run, of fp32,bf16,bf16+compile\n"
     "  --compile-mode MODE   torch.compile's mode (default, reduce-overhead, max-autotune)\n"
     "  --sweep workers=LIST  one fp32 run per num_workers of the script's DataLoader\n"
     "  --sweep batch=LIST    one fp32 run per batch size, ascending, up to the first out of\n"
     "                        memory\n"
     "  --memory-limit-mb N   a run whose peak passes N MiB counts as out of memory\n"
     "  --seed N              torch, random and numpy seeded before the script goes on\n"
     "                        (default 0 in a lab)\n"
     "ranks (torch.distributed: every rank measured, DIR/rank-K/ each, then the job's reading):\n"
     "  --nproc N             N processes on this machine through your torch's\n"
     "                        torch.distributed.run (torchrun --standalone)\n"
     "  (or name the launcher yourself: -- torchrun ... train.py, -- srun python train.py;\n"
     "  ranks on other machines write where --out points, which must be a shared folder)\n"
     "  --scaling LIST        one job per world size (1,2,4), each DIR/world-N/: samples/s\n"
     "                        against N x the smallest's, the efficiency, and the lost time\n"
     "                        per step split (DIR/scaling.kinetoscope.json); weak scaling (the\n"
     "                        per-rank batch fixed) unless --strong (the smallest job's global\n"
     "                        batch divided among the ranks)\n"
     "The runs' outputs go to DIR/runs/NAME/output.log; the lab's session to DIR. The script\n"
     "runs once per arm and point: files it writes are written each time.\n"
     "Exit code: the script's (ended by signal N when N ended it); 2 for a bad option here; a\n"
     "lab: 0 when the fp32 run measured, 2 when none did; cancelled by signal N (Ctrl-C;\n"
     "SIGTERM, SIGHUP and the others that would end it cancel it too), it ends by N once its\n"
     "report is out (a shell shows 128+N).\n"
     "example:\n"
     "  kinetoscope profile --out runs/mine -- python train.py --epochs 1\n"
     "  kinetoscope profile --steps 50 -- python -m mypkg.train --config small.yaml\n"
     "  kinetoscope profile --lab --sweep workers=0,2,4 -- python train.py\n"
     "  kinetoscope profile --nproc 4 --steps 30 -- python train_ddp.py\n"
     "  kinetoscope profile --scaling 1,2,4 -- python train_ddp.py\n"},
    {"report",
     "  report TRACE|SESSION --out FILE.{pdf,png,html}\n"
     "                        the diagnosis page (figures, plots, findings) as a document\n"
     "  report DIR|TRACE TRACE... --out FILE.{pdf,png,html,md}\n"
     "                        a job of several ranks: its diagnosis, the ranks, the collectives\n"
     "                        waited on longest and the rank x step heatmap\n",
     "options:\n"
     "  --out FILE            the document to write; its extension picks the format. It is\n"
     "                        written whole or not at all (a temporary file, then renamed)\n"
     "  --threads N           threads for reading and analysing: 0 every core (the default), 1 "
     "one\n"
     "                        thread (the serial path); a job's ranks share them\n"
     "Needs no display: the page is drawn offscreen.\n"
     "example:\n"
     "  kinetoscope report resources/sample.pt.trace.json.gz --out sample-report.pdf\n"},
    {"memory",
     "  memory SNAPSHOT [--trace TRACE] [--json|--markdown]\n"
     "                        a CUDA memory snapshot (torch.cuda.memory._dump_snapshot): reserved\n"
     "                        and allocated bytes, the peak and what was alive at it by the line\n"
     "                        that allocated it, leaks, the out-of-memory reading, findings\n",
     "options:\n"
     "  --trace TRACE         a trace of the same run: the peak placed in its step, phase, op\n"
     "                        and module (both clocks are Unix time)\n"
     "  --json | --markdown   the figures as JSON (the stable contract in docs/memory.md), or\n"
     "                        as Markdown for a report\n"
     "  --threads N           threads for reading and analysing --trace: 0 every core (the\n"
     "                        default), 1 one thread (the serial path); the snapshot's reader\n"
     "                        uses one\n"
     "The snapshot is read by Kinetoscope's own reader of the pickle's data: a pickle that\n"
     "names or calls Python code is refused, never run. Any file name: the bytes decide.\n"
     "example:\n"
     "  kinetoscope memory snapshot.pickle --json\n"
     "  kinetoscope memory snapshot.pickle --trace trace.json.gz\n"},
}};

constexpr const char* kAppHelp =
    "kinetoscope [FILE...]   the desktop app, opening the files given (traces, sessions, memory "
    "snapshots);\n"
    "                        with the app already running, they open there as new tabs\n"
    "  --new-window              a window of its own, apart from a running app\n"
    "  --compare BEFORE AFTER    open a comparison of two runs\n"
    "  --job DIR|FILE...         open the ranks of one job together\n"
    "  --lab [run options]       start a lab run (the options of `kinetoscope run`)\n"
    "  --screenshot PNG [--view overview|diagnosis|operators|kernels|memory|modules|timeline]\n"
    "                            (a snapshot: --view timeline|peak|leaks|segments|diagnosis)\n"
    "                            save the window once the first file is open, and exit\n"
    "  --print-latency           print the event loop's longest delay while loading, and exit\n"
    "  --threads N               threads for reading and analysing, for this launch only (over\n"
    "                            Edit > Preferences; 0 every core); its files open in this "
    "window\n";

}  // namespace

std::string usageText()
{
    std::string text = "usage: kinetoscope <command> [options]\n\ncommands:\n";
    for (const CommandHelp& c : kCommands)
        text += c.overview;
    text +=
        "  help [COMMAND]        this text, or one command's options (also COMMAND --help)\n"
        "  version               the version (also --version)\n"
        "\n"
        "every command that reads traces (info, summary, diagnose, diff, report, memory --trace):\n"
        "  --threads N           threads for reading and analysing: 0 every core (the default), 1 "
        "one\n"
        "                        thread (the serial path); the output is the same whatever N\n"
        "\n";
    text += kAppHelp;
    text += "\nexit codes: 0 success, 1 a finding at or above --fail-on (diff: a regression beyond "
            "PCT), "
            "2 bad input (one line on stderr); a run cancelled by signal N ends by N once its "
            "report is out (a shell shows 128+N: 130 for Ctrl-C)\n";
    return text;
}

std::string commandHelp(std::string_view command)
{
    if (command == "run")
        return "usage: kinetoscope run [options] --out DIR\n\n"
               "Runs the method on a model through LibTorch, in the engine process, and writes a\n"
               "session (DIR/session.kinetoscope.json) and, with --profile, its trace. Every "
               "option\n"
               "is checked before anything is written: a run that does not start leaves DIR as it\n"
               "was.\n\n" +
               std::string(lab::kRunOptionsHelp) +
               "example:\n"
               "  kinetoscope run --model cnn --device cpu --split --profile --out runs/cnn\n"
               "  kinetoscope run --model net.pt --input-shape 3x32x32 --classes 10 --out "
               "runs/net\n";
    for (const CommandHelp& c : kCommands)
        if (command == c.name)
            return std::string("usage: kinetoscope ") + c.name + " ...\n" + c.overview + "\n" +
                   c.details;
    return {};
}

namespace {

// Edits (insertions, deletions, substitutions, adjacent swaps) between two short words.
size_t editDistance(std::string_view a, std::string_view b)
{
    std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
    for (size_t i = 0; i <= a.size(); ++i)
        d[i][0] = i;
    for (size_t j = 0; j <= b.size(); ++j)
        d[0][j] = j;
    for (size_t i = 1; i <= a.size(); ++i)
        for (size_t j = 1; j <= b.size(); ++j) {
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1,
                                d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[a.size()][b.size()];
}

}  // namespace

std::string unknownCommandText(std::string_view word)
{
    std::string names;
    std::string_view closest;
    size_t best = 3;  // a typo is at most two edits away
    for (const CommandHelp& c : kCommands) {
        names += std::string(names.empty() ? "" : ", ") + c.name;
        if (const size_t distance = editDistance(word, c.name); distance < best) {
            best = distance;
            closest = c.name;
        }
    }
    names += ", help, version";
    std::string text = "kinetoscope: unknown command '" + std::string(word) + "'";
    if (!closest.empty())
        text += " (did you mean '" + std::string(closest) + "'?)";
    text += "; nor is it a file to open. Commands: " + names + " (kinetoscope help)\n";
    return text;
}

std::string versionText()
{
    return std::string("kinetoscope ") + KINETOSCOPE_VERSION + " (engine protocol " +
           std::to_string(lab::kProtocolVersion) + ", C++" +
           std::to_string(__cplusplus / 100 % 100) + ")\n";
}

}  // namespace kinetoscope::cli
