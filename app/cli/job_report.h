#pragma once
// A job of several ranks as `kinetoscope summary DIR|FILES...` prints it: one row per
// rank (mean step, own work, exposed and hidden communication), the straggler, the
// collectives matched across ranks, the clocks' offsets; and the job's diagnosis.
#include "core/analysis/diagnosis/finding.h"
#include "core/job/job.h"

#include <nlohmann/json.hpp>
#include <string>

namespace kinetoscope::cli {

// A job of up to this many traces keeps its documents: were they separate runs, each is
// then summarised without reading it again. A larger job drops each once its rank is read.
inline constexpr size_t kJobDocumentsKept = 8;

nlohmann::json jobJson(const job::Job& job);
// How the ranks were read (a stale digest, ranks from their digests alone), one line each,
// each prefixed "kinetoscope: ": what a command writes to standard error before the job.
std::string jobNotes(const job::Job& job);
std::string jobText(const job::Job& job);

// `kinetoscope diagnose DIR|FILES...`: the job's findings, then each rank's first finding.
nlohmann::json jobDiagnosisJson(const job::Job& job,
                                const std::vector<analysis::Finding>& findings);
std::string jobDiagnosisText(const job::Job& job, const std::vector<analysis::Finding>& findings);
std::string jobDiagnosisMarkdown(const job::Job& job,
                                 const std::vector<analysis::Finding>& findings);
// `kinetoscope report DIR|FILES...` and the Job tab's export: the diagnosis, then the ranks
// table and the collectives that were waited on longest. `name` titles it (the folder).
std::string jobReportMarkdown(const job::Job& job, const std::vector<analysis::Finding>& findings,
                              const std::string& name);

}  // namespace kinetoscope::cli
