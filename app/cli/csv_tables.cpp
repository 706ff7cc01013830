#include "app/cli/csv_tables.h"

#include "core/format/csv.h"

namespace kinetoscope::cli {

using format::CsvCell;

namespace {

struct Column
{
    const char* name;
    const char* unit;  // "" for text and identifiers
};

std::string header(std::initializer_list<Column> columns)
{
    std::vector<CsvCell> cells;
    for (const Column& c : columns)
        cells.emplace_back(format::csvHeader(c.name, c.unit));
    return format::csvRecord(cells);
}

CsvCell number(double value)
{
    return CsvCell{value};
}

CsvCell text(std::string value)
{
    return CsvCell{std::move(value)};
}

// An optional figure: empty when absent (-1 or none).
CsvCell known(double value)
{
    return value < 0 ? text("") : number(value);
}

std::string opsCsv(const analysis::TraceSummary& summary)
{
    std::string csv = header({{"Name", ""},
                              {"Calls", "count"},
                              {"Self CPU", "ns"},
                              {"CPU total", "ns"},
                              {"Self device", "ns"},
                              {"Device total", "ns"},
                              {"Mean CPU", "ns"},
                              {"Mean device", "ns"},
                              {"Tensor Core eligible", ""},
                              {"On Tensor Cores", "ns"}});
    for (const analysis::OpStats& op : summary.ops.byName)
        csv += format::csvRecord(
            {text(op.name), number(double(op.calls)), number(double(op.selfCpuNs)),
             number(double(op.cpuTotalNs)), number(double(op.selfDeviceNs)),
             number(double(op.deviceTotalNs)), number(op.meanCpuNs()), number(op.meanDeviceNs()),
             text(op.tensorCoreEligible ? "yes" : "no"), number(double(op.tensorCoreNs))});
    return csv;
}

std::string dims(const int32_t (&d)[3])
{
    return d[0] < 0
               ? std::string()
               : std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" + std::to_string(d[2]);
}

std::string kernelsCsv(const analysis::TraceSummary& summary)
{
    std::string csv = header({{"Name", ""},
                              {"Calls", "count"},
                              {"Total", "ns"},
                              {"Mean", "ns"},
                              {"Min", "ns"},
                              {"Max", "ns"},
                              {"Grid", ""},
                              {"Block", ""},
                              {"Registers per thread", "count"},
                              {"Shared memory", "bytes"},
                              {"Blocks per SM", "count"},
                              {"Occupancy", "%"},
                              {"Tensor Core", ""},
                              {"Top op", ""}});
    for (const analysis::KernelStats& k : summary.kernels)
        csv += format::csvRecord(
            {text(k.name), number(double(k.calls)), number(double(k.totalNs)), number(k.meanNs()),
             number(double(k.minNs)), number(double(k.maxNs)), text(dims(k.grid)),
             text(dims(k.block)), known(k.registersPerThread), known(k.sharedMemoryBytes),
             k.meanBlocksPerSm ? number(*k.meanBlocksPerSm) : text(""),
             k.meanOccupancyPercent ? number(*k.meanOccupancyPercent) : text(""),
             text(k.tensorCore ? "yes" : "no"), text(k.topOp)});
    return csv;
}

std::string stepsCsv(const analysis::TraceSummary& summary, int64_t originNs)
{
    const analysis::WindowClass& w = summary.window;
    std::string csv = header({{"Step", ""},
                              {"Role", ""},
                              {"Begin after the first event", "ns"},
                              {"End after the first event", "ns"},
                              {"Duration", "ns"},
                              {"Host begin after the first event", "ns"},
                              {"Host end after the first event", "ns"},
                              {"Device activities", "count"}});
    for (size_t i = 0; i < w.allSteps.size(); ++i) {
        const analysis::Step& s = w.allSteps[i];
        const char* role = i < w.roles.size() ? analysis::stepRoleName(w.roles[i]) : "steady";
        csv += format::csvRecord(
            {text(s.name.empty() ? "window" : s.name), text(role),
             number(double(s.beginNs - originNs)), number(double(s.endNs - originNs)),
             number(double(s.durationNs())), number(double(s.hostBeginNs - originNs)),
             number(double(s.hostEndNs - originNs)), number(double(s.deviceActivities))});
    }
    return csv;
}

std::string memoryByOpCsv(const analysis::TraceSummary& summary)
{
    std::string csv = header({{"Device", ""},
                              {"Op", ""},
                              {"Allocations", "count"},
                              {"Allocations with children", "count"},
                              {"Allocated", "bytes"},
                              {"Allocated with children", "bytes"},
                              {"Self increase", "bytes"},
                              {"Increase with children", "bytes"}});
    for (const auto& [device, memory] : summary.memory)
        for (const analysis::OpAllocation& a : memory.byOp)
            csv += format::csvRecord({text(device), text(a.op), number(double(a.allocations)),
                                      number(double(a.totalAllocations)), number(double(a.bytes)),
                                      number(double(a.totalBytes)),
                                      number(double(a.selfIncreaseBytes)),
                                      number(double(a.totalIncreaseBytes))});
    return csv;
}

double meanOf(const std::map<int, double>& byRank, int rank)
{
    const auto it = byRank.find(rank);
    return it == byRank.end() ? 0.0 : it->second;
}

std::string ranksCsv(const job::Job& job)
{
    std::string csv = header({{"Rank", ""},
                              {"Rank from", ""},
                              {"Trace", ""},
                              {"Mean step", "ns"},
                              {"Mean own work", "ns"},
                              {"Mean exposed communication", "ns"},
                              {"Mean hidden communication", "ns"},
                              {"Collectives", "count"},
                              {"Straggler", ""}});
    for (const job::Rank& r : job.ranks) {
        double hidden = 0;
        for (int64_t n : job.commonSteps)
            hidden += double(r.steps.at(n).hiddenNs());
        if (!job.commonSteps.empty())
            hidden /= double(job.commonSteps.size());
        csv += format::csvRecord({number(r.rank), text(r.rankSource), text(r.path),
                                  number(meanOf(job.meanStepNs, r.rank)),
                                  number(meanOf(job.meanOwnNs, r.rank)),
                                  number(meanOf(job.meanCommunicationNs, r.rank)), number(hidden),
                                  number(double(r.collectives.size())),
                                  text(job.straggler && *job.straggler == r.rank ? "yes" : "no")});
    }
    return csv;
}

std::string collectivesCsv(const job::Job& job)
{
    // One row per collective and rank: what each rank spent in it and waited.
    std::string csv = header({{"Kind", ""},
                              {"Group", ""},
                              {"Ordinal", ""},
                              {"Step", ""},
                              {"Group size", "count"},
                              {"Size", "bytes"},
                              {"Sizes agree", ""},
                              {"Rank", ""},
                              {"Duration", "ns"},
                              {"Transfer", "ns"},
                              {"Wait", "ns"},
                              {"Last to arrive", ""},
                              {"Algorithm bandwidth", "GB/s"},
                              {"Bus bandwidth", "GB/s"}});
    for (const job::MatchedCollective& m : job.collectives.matched)
        for (size_t r = 0; r < m.ranks.size() && r < job.ranks.size(); ++r)
            csv += format::csvRecord(
                {text(job::collectiveKindName(m.kind)), text(m.group), number(m.ordinal),
                 m.step ? number(double(*m.step)) : text(""), number(m.groupSize),
                 known(double(m.bytes)), text(m.sizesAgree ? "yes" : "no"),
                 number(job.ranks[r].rank), number(double(m.ranks[r].durationNs)),
                 number(double(m.transferNs)), number(double(m.waitNs[r])),
                 text(int(r) == m.lastToArrive ? "yes" : "no"),
                 m.algorithmBytesPerS > 0 ? number(m.algorithmBytesPerS / 1e9) : text(""),
                 m.busBytesPerS > 0 ? number(m.busBytesPerS / 1e9) : text("")});
    return csv;
}

}  // namespace

bool isTraceCsvTable(const std::string& table)
{
    return table == "ops" || table == "kernels" || table == "steps" || table == "memory-by-op";
}

bool isJobCsvTable(const std::string& table)
{
    return table == "ranks" || table == "collectives";
}

std::string traceCsv(const std::string& table, const analysis::TraceSummary& summary,
                     int64_t originNs)
{
    if (table == "ops")
        return opsCsv(summary);
    if (table == "kernels")
        return kernelsCsv(summary);
    if (table == "steps")
        return stepsCsv(summary, originNs);
    if (table == "memory-by-op")
        return memoryByOpCsv(summary);
    return {};
}

std::string jobCsv(const std::string& table, const job::Job& job)
{
    return table == "ranks"         ? ranksCsv(job)
           : table == "collectives" ? collectivesCsv(job)
                                    : std::string();
}

}  // namespace kinetoscope::cli
