// The lab's DataLoader rules: the seed's DataLoader-vs-compute split (the loop timed
// waiting for the next batch, and computing) and the workers sweep, which changed
// num_workers alone, read against it. Every figure is checked finite before use.
#include "core/analysis/diagnosis/rule_helpers.h"
#include "core/analysis/diagnosis/rules.h"

#include <cmath>
#include <optional>
#include <string>

namespace kinetoscope::analysis::rules {

namespace {

// The probe saw Hugging Face's Trainer iterate the loader (config loader_loop).
bool trainerLoop(const LabMeasurements* lab)
{
    return lab && lab->loaderLoop == "transformers";
}

}  // namespace

std::string dataLoaderSnippet(const LabMeasurements* lab, bool cpu, int measuredWorkers)
{
    const std::string workers = measuredWorkers > 0 ? std::to_string(measuredWorkers)
                                : cpu               ? "2"
                                                    : "8";
    const char* why = measuredWorkers > 0 ? "the workers sweep's fastest"
                      : cpu               ? "cores of their own: the model computes on the rest"
                                          : "about the CPU cores per GPU";
    if (trainerLoop(lab))  // (the Trainer pins its batches by default: dataloader_pin_memory)
        return std::string("args = TrainingArguments(\n"
                           "    ...,  # the run's own arguments\n"
                           "    dataloader_num_workers=") +
               workers + ",            # " + why +
               "\n"
               "    dataloader_persistent_workers=True,  # no worker restart each epoch\n"
               "    dataloader_prefetch_factor=4,        # batches queued per worker\n"
               ")\n";
    return std::string("loader = torch.utils.data.DataLoader(\n"
                       "    dataset, batch_size=batch_size, shuffle=True,\n"
                       "    num_workers=") +
           workers + ",            # " + why + "\n" +
           (cpu ? "" : "    pin_memory=True,          # page-locked batches: async copies\n") +
           "    persistent_workers=True,  # no worker restart each epoch\n"
           "    prefetch_factor=4)        # batches queued per worker\n";
}

std::string dataLoaderFixNote(const LabMeasurements* lab)
{
    if (!lab)
        return {};
    std::string note;
    if (trainerLoop(lab))
        note += " The Trainer builds this DataLoader from its TrainingArguments: set "
                "dataloader_num_workers there (with dataloader_persistent_workers and "
                "dataloader_prefetch_factor).";
    if (lab->script && !lab->workersSweep)
        note += " Measure the count on this script: kinetoscope profile --sweep "
                "workers=0,2,4 -- <its command> runs it at each count.";
    return note;
}

namespace {

// The split read the loader as keeping up (its wait under its compute), but the workers
// sweep, which changed num_workers alone, measured more workers clearly faster than the
// run's own count: the loader held the run back after all. Loading done in the loop's own
// process (num_workers=0), or by workers on the cores the compute needs, is timed as
// compute, so the split alone cannot show it.
void labWorkersOverSplit(const LabMeasurements& lab, double wait, double compute,
                         std::vector<Finding>& out)
{
    if (!lab.workersSweep || lab.workersSweep->ran < 0 || !(lab.workersSweep->ranSamples > 0))
        return;
    const LabMeasurements::WorkersSweep& sweep = *lab.workersSweep;
    const double ratio = sweep.bestSamples / sweep.ranSamples;
    if (!(ratio >= kSmallLabJump))
        return;
    const double step = wait + compute;
    const double saved = 1.0 - 1.0 / ratio;  // the share of the step more workers took off
    const std::string best = std::to_string(sweep.best), ran = std::to_string(sweep.ran);
    Finding f;
    f.id = "dataloader-bound-measured";
    f.measured = true;
    f.severity = severityForGain(saved);
    f.title = "num_workers=" + best + " runs " + format::ratio(ratio) +
              " the samples per second of the run's num_workers=" + ran + " (measured)";
    f.explanation =
        std::string(lab.script ? "The probe timed the script's loop" : "The lab timed the loop") +
        " at num_workers=" + ran + ": " + format::duration(wait) +
        " per step waiting for the next batch, " + format::duration(compute) +
        " computing, which alone reads as a loader that keeps up. The workers sweep changed "
        "num_workers alone and measured num_workers=" +
        best + " at " + format::ratio(ratio) +
        " the samples per second: the loader holds the run back. Loading done in the loop's "
        "own process, or by workers on the cores the compute needs, is timed as compute.";
    f.evidence.figures = {{"workers_sweep_best_over_run_samples_per_s", ratio, Unit::Ratio},
                          {"dataloader_wait_per_step_us", wait / 1e3, Unit::Microseconds},
                          {"compute_per_step_us", compute / 1e3, Unit::Microseconds}};
    f.estimatedGainNs = step * saved;
    f.gainMethod =
        std::string(lab.script ? "measured in the script's runs" : "measured in the lab") +
        ": the step at the run's samples per second, less the step at the "
        "sweep's best";
    f.fix = "Set num_workers=" + best + " (measured: " + format::ratio(ratio) +
            " the samples per second of " + ran +
            "); beyond that, make the per-sample work cheaper (decode once, cache" +
            (lab.cpu ? ")." : ", move augmentation to the GPU).");
    f.fix += dataLoaderFixNote(&lab);  // (swept: the Trainer's arguments alone, if any)
    if (!lab.sharedRuns.empty())
        f.fix += kSharedClause;
    f.snippet = dataLoaderSnippet(&lab, lab.cpu, sweep.best);
    out.push_back(std::move(f));
}

}  // namespace

void labSplit(const DiagnosisInput& in, std::vector<Finding>& out)
{
    // The seed's DataLoader-vs-compute split: the loop timed waiting for the next batch,
    // and computing. A loader that kept up would leave the step its compute alone.
    if (!in.lab)
        return;
    const std::optional<MeasuredSplit> split = measuredSplit(*in.lab);
    if (!split)
        return;
    const double wait = split->waitNs, compute = split->computeNs;
    const double step = wait + compute;
    // Under its compute, the wait is still time the loader did not hide: a finding from the
    // share the trace's dataloader-bound reads (helper 47: a loop waiting 48 % of each step
    // read "compute-bound, the loader keeps up"), unless the workers sweep measured it.
    const bool overCompute = wait > compute;
    if (!overCompute) {
        const size_t before = out.size();
        labWorkersOverSplit(*in.lab, wait, compute, out);
        // A workers sweep through the run's own count that measured no gain has said it
        // (more workers do not help): the share's advice of more workers would contradict it.
        const bool sweptWithoutGain = in.lab->workersSweep && in.lab->workersSweep->ran >= 0;
        if (out.size() > before || sweptWithoutGain ||
            share(wait, step) < in.thresholds.dataloaderShare)
            return;
    }
    Finding f;
    f.id = "dataloader-bound-measured";
    f.measured = true;
    f.severity = severityForGain(share(wait, step));
    f.title = "The loop waits " + format::duration(wait) + " per step for the next batch, " +
              (overCompute ? "more than its compute (" + format::duration(compute) + ")"
                           : format::percent(share(wait, step)) + " of the step") +
              " (measured)";
    f.explanation = std::string(in.lab->script ? "The probe timed the script's loop: "
                                               : "The lab timed the loop: ") +
                    format::duration(wait) + " per step waiting for the DataLoader, " +
                    format::duration(compute) + " computing. " +
                    (overCompute ? std::string("The loader sets the pace")
                                 : std::string("The loader does not keep up")) +
                    "; with batches ready when asked for, the step would be its compute alone, " +
                    format::duration(wait) + " shorter.";
    f.evidence.figures = {{"dataloader_wait_per_step_us", wait / 1e3, Unit::Microseconds},
                          {"compute_per_step_us", compute / 1e3, Unit::Microseconds},
                          {"dataloader_share_of_step", share(wait, step), Unit::Fraction}};
    f.estimatedGainNs = wait;
    f.gainMethod =
        std::string(in.lab->script ? "measured in the script's run" : "measured in the lab") +
        ": the mean wait for the next batch per step (a loader that keeps up leaves "
        "the step its compute)";
    f.fix = in.lab->cpu
                ? "Keep the loader ahead of the model: worker processes on cores the model "
                  "does not compute on, persistent workers; if workers are already many, make "
                  "the per-sample work cheaper (decode once, cache)."
                : "Keep the loader ahead of the model: more worker processes, pin_memory=True "
                  "so the copy overlaps, persistent workers; if workers are already many, make "
                  "the per-sample work cheaper (decode once, cache, move augmentation to the "
                  "GPU).";
    f.fix += dataLoaderFixNote(in.lab);
    f.snippet = dataLoaderSnippet(in.lab, in.lab->cpu);
    // The workers sweep measured the fix: say it with its figures.
    if (const auto& sweep = in.lab->workersSweep; sweep && sweep->best > sweep->fewest) {
        const double ratio = sweep->bestSamples / sweep->fewestSamples;
        f.fix += " The workers sweep measured it: num_workers=" + std::to_string(sweep->best) +
                 " runs " + format::ratio(ratio) +
                 " the samples per second of num_workers=" + std::to_string(sweep->fewest) +
                 " (the wait " + format::duration(sweep->fewestWaitNs) + " -> " +
                 format::duration(sweep->bestWaitNs) + " per step).";
        f.snippet = dataLoaderSnippet(in.lab, in.lab->cpu, sweep->best);
        f.evidence.figures.push_back(
            {"workers_sweep_best_over_fewest_samples_per_s", ratio, Unit::Ratio});
        if (!in.lab->sharedRuns.empty())
            f.fix += kSharedClause;
    } else if (sweep && sweep->fewestFastest()) {
        // More workers measured slower: the advice is not more of them.
        f.fix = moreWorkersRanSlower(*in.lab);
        f.snippet.clear();
        if (!in.lab->sharedRuns.empty())
            f.fix += kSharedClause;
    }
    out.push_back(std::move(f));
}

std::string moreWorkersRanSlower(const LabMeasurements& lab)
{
    return "The workers sweep measured more workers slower: num_workers=" +
           std::to_string(lab.workersSweep->fewest) +
           " ran fastest. Make the per-sample work cheaper (decode once, cache" +
           (lab.cpu ? "" : ", move augmentation to the GPU") +
           "); workers need cores of their own, which on a machine with few cores they take "
           "from the loop's threads.";
}

}  // namespace kinetoscope::analysis::rules
