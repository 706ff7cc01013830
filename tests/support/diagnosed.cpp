#include "tests/support/diagnosed.h"

#include "core/trace/trace_loader.h"

#include <cmath>

namespace kinetoscope::test {

namespace {

Diagnosed diagnoseLoaded(const trace::LoadResult& loaded, const analysis::Thresholds& thresholds,
                         const analysis::LabMeasurements* lab)
{
    Diagnosed d;
    d.model = loaded.model;
    if (!d.model)
        return d;
    d.summary = analysis::summarize(*d.model);
    d.findings = analysis::diagnose({*d.model, d.summary, thresholds, lab});
    return d;
}

}  // namespace

Diagnosed diagnoseText(const std::string& json, const analysis::Thresholds& thresholds,
                       const analysis::LabMeasurements* lab)
{
    const trace::LoadResult loaded = trace::loadTraceText(json);
    if (!loaded.ok())
        return {};
    return diagnoseLoaded(loaded, thresholds, lab);
}

Diagnosed diagnoseFile(const std::filesystem::path& path, const analysis::LabMeasurements* lab)
{
    return diagnoseLoaded(trace::loadTraceFile(path), {}, lab);
}

const analysis::Finding* findFinding(const std::vector<analysis::Finding>& findings,
                                     const std::string& id)
{
    for (const analysis::Finding& f : findings)
        if (f.id == id)
            return &f;
    return nullptr;
}

double figure(const analysis::Finding& f, const std::string& name)
{
    for (const analysis::Evidence::Figure& g : f.evidence.figures)
        if (g.name == name)
            return g.value;
    return std::nan("");
}

}  // namespace kinetoscope::test
