#include "core/job/job_text.h"

#include "core/format/format.h"

namespace kinetoscope::job {

std::string stragglerLine(const Job& job)
{
    if (job.commonSteps.empty())
        return "No step number is common to every rank: ranks are not compared.";
    auto own = [&](int r) { return format::duration(job.meanOwnNs.at(r)); };
    if (!job.straggler) {
        if (job.byOwnWork.size() < 2)
            return "One rank: no straggler to find.";
        return "No single straggler: the longest own work (compute, data, host) is rank " +
               std::to_string(job.byOwnWork[0]) + "'s (" + own(job.byOwnWork[0]) +
               " per step), then rank " + std::to_string(job.byOwnWork[1]) + "'s (" +
               own(job.byOwnWork[1]) + "), against a median of " +
               format::duration(job.medianOwnNs) + ".";
    }
    const int r = *job.straggler;
    return "Straggler: rank " + std::to_string(r) + ", its own work (compute, data, host) " +
           own(r) + " per step, " + format::duration(job.stragglerExcessNs) +
           " longer than the median rank's (" + format::duration(job.medianOwnNs) + ")" +
           (job.stragglerCause.empty()
                ? std::string()
                : ", most of it " + job.stragglerCause + " (" +
                      format::durationChange(job.stragglerCauseExcessNs) + " against the others)") +
           "; the others wait for it in collectives.";
}

const analysis::Finding* firstOwnFinding(const Rank& rank)
{
    for (const analysis::Finding& f : rank.findings)
        if (!f.aboutWindow)
            return &f;
    return nullptr;
}

std::string rankFindingsNote(const Job& job)
{
    if (!job.straggler)
        return {};
    return "A rank's own diagnosis counts its wait for rank " + std::to_string(*job.straggler) +
           " as communication; the job's findings separate the wait from the transfer.";
}

}  // namespace kinetoscope::job
