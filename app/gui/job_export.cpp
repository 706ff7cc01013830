#include "app/gui/job_export.h"

#include "app/cli/job_report.h"
#include "widgets/job_view.h"
#include "widgets/markdown_report.h"

#include <algorithm>

namespace kinetoscope::gui {

bool writeJobReport(const widgets::JobView& view, const QString& path, QString* error)
{
    const job::Job& job = view.job();
    const std::string markdown = cli::jobReportMarkdown(job, view.findings(), job::jobName(job));
    // Rows of about 28 pixels above the step axis; the colour scale names the measure shown.
    const int height = 110 + 28 * int(std::min<size_t>(job.ranks.size(), 32));
    return widgets::writeMarkdownReport(
        markdown, {{QStringLiteral("Rank × step heatmap"), view.heatmapImage(1000, height)}}, path,
        error);
}

}  // namespace kinetoscope::gui
