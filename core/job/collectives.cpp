#include "core/job/collectives.h"

#include "core/analysis/breakdown.h"
#include "core/job/median.h"
#include "core/trace/event_args.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <unordered_map>

namespace kinetoscope::job {

namespace {

std::string lowered(std::string_view text)
{
    std::string out(text);
    for (char& c : out)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool isCollectiveAnnotation(std::string_view name)
{
    return name.starts_with("nccl:") || name.starts_with("rccl:") || name.starts_with("gloo:");
}

int64_t argInteger(std::span<const trace::Arg> args, std::string_view key)
{
    const trace::ArgValue* value = trace::findArg(args, key);
    const auto n = value ? value->integer() : std::nullopt;
    return n ? *n : -1;
}

std::string argString(std::span<const trace::Arg> args, std::string_view key)
{
    const trace::ArgValue* value = trace::findArg(args, key);
    if (!value)
        return {};
    if (const std::string* s = value->string())
        return *s;
    return trace::argText(*value);
}

// The first element count of `Input Dims` ([[394241]] -> 394241; [[4, 8]] -> 32) and the
// first `Input type`: the tensor a collective annotation was given.
int64_t firstTensorBytes(std::span<const trace::Arg> args)
{
    const trace::ArgValue* dims = trace::findArg(args, "Input Dims");
    const trace::ArgValue* types = trace::findArg(args, "Input type");
    if (!dims || !types || !dims->array() || !types->array() || dims->array()->empty() ||
        types->array()->empty())
        return -1;
    const trace::ArgValue& shape = dims->array()->front();
    const std::string* type = types->array()->front().string();
    if (!shape.array() || shape.array()->empty() || !type)
        return -1;
    int64_t elements = 1;
    for (const trace::ArgValue& d : *shape.array()) {
        const auto n = d.integer();
        if (!n || *n < 0 || (*n > 0 && elements > (int64_t(1) << 50) / *n))
            return -1;
        elements *= *n;
    }
    const int size = dtypeBytes(*type);
    return size > 0 ? elements * size : -1;
}

// The size nccl-tests reports for a collective whose per-rank input is `inBytes` and
// output `outBytes` (-1 unknown): the output for an all-gather, the input otherwise.
int64_t messageBytes(CollectiveKind kind, int64_t inBytes, int64_t outBytes, int groupSize)
{
    if (kind == CollectiveKind::AllGather) {
        if (outBytes > 0)
            return outBytes;
        return inBytes > 0 && groupSize > 0 ? inBytes * groupSize : -1;
    }
    return inBytes;
}

// Reads each collective's size and group from the args of its annotation and, when the
// trace has one around it, the `record_param_comms` op (2023 on: nelems, dtype, group). The
// args are read in one pass through the file per kind (readArgsOf): a gzip trace is inflated
// once, not once per collective.
void readCollectiveArgs(const trace::TraceModel& model, std::vector<RankCollective>& collectives)
{
    std::vector<int64_t> inBytes(collectives.size(), -1), outBytes(collectives.size(), -1);
    std::vector<size_t> withComms;
    std::vector<trace::EventId> comms;
    for (size_t i = 0; i < collectives.size(); ++i) {
        const RankCollective& c = collectives[i];
        if (!c.launch.valid())
            continue;
        const trace::EventId parent = model.event(c.launch).parent;
        if (parent.valid() && model.text(model.event(parent).name) == "record_param_comms") {
            withComms.push_back(i);
            comms.push_back(parent);
        }
    }
    const auto commsArgs = trace::readArgsOf(model, comms);
    for (size_t k = 0; k < withComms.size(); ++k) {
        if (!commsArgs[k])
            continue;
        const std::vector<trace::Arg>& args = *commsArgs[k];
        RankCollective& c = collectives[withComms[k]];
        c.group = argString(args, "Process Group Name");
        c.groupSize = int(std::clamp<int64_t>(argInteger(args, "Group size"), -1, 1 << 20));
        const int size = dtypeBytes(argString(args, "dtype"));
        const int64_t in = argInteger(args, "In msg nelems"),
                      out = argInteger(args, "Out msg nelems");
        if (size > 0 && in >= 0 && in < (int64_t(1) << 50))
            inBytes[withComms[k]] = in * size;
        if (size > 0 && out >= 0 && out < (int64_t(1) << 50))
            outBytes[withComms[k]] = out * size;
    }
    std::vector<size_t> withoutSize;
    std::vector<trace::EventId> launches;
    for (size_t i = 0; i < collectives.size(); ++i)
        if (collectives[i].launch.valid() && inBytes[i] < 0) {
            withoutSize.push_back(i);
            launches.push_back(collectives[i].launch);
        }
    const auto launchArgs = trace::readArgsOf(model, launches);
    for (size_t k = 0; k < withoutSize.size(); ++k)
        if (launchArgs[k])
            inBytes[withoutSize[k]] = firstTensorBytes(*launchArgs[k]);
    for (size_t i = 0; i < collectives.size(); ++i)
        if (collectives[i].launch.valid())
            collectives[i].bytes = messageBytes(collectives[i].kind, inBytes[i], outBytes[i],
                                                collectives[i].groupSize);
}

// The collective annotation among the ancestors of `id` (a launch call), or invalid.
trace::EventId enclosingAnnotation(const trace::TraceModel& model, trace::EventId id)
{
    for (int hops = 0; id.valid() && hops < 64; ++hops, id = model.event(id).parent)
        if (isCollectiveAnnotation(model.text(model.event(id).name)))
            return id;
    return {};
}

}  // namespace

const char* collectiveKindName(CollectiveKind kind)
{
    switch (kind) {
    case CollectiveKind::AllReduce:
        return "all_reduce";
    case CollectiveKind::AllGather:
        return "all_gather";
    case CollectiveKind::ReduceScatter:
        return "reduce_scatter";
    case CollectiveKind::AllToAll:
        return "all_to_all";
    case CollectiveKind::Broadcast:
        return "broadcast";
    case CollectiveKind::Reduce:
        return "reduce";
    case CollectiveKind::SendRecv:
        return "send_recv";
    case CollectiveKind::Barrier:
        return "barrier";
    case CollectiveKind::Other:
        break;
    }
    return "other";
}

CollectiveKind collectiveKindOf(std::string_view name)
{
    const std::string n = lowered(name);
    // Most specific first: "reduce_scatter" holds "reduce", "allgather" is not "all_to_all".
    if (n.find("reduce_scatter") != std::string::npos ||
        n.find("reducescatter") != std::string::npos)
        return CollectiveKind::ReduceScatter;
    if (n.find("allreduce") != std::string::npos || n.find("all_reduce") != std::string::npos)
        return CollectiveKind::AllReduce;
    if (n.find("allgather") != std::string::npos || n.find("all_gather") != std::string::npos)
        return CollectiveKind::AllGather;
    if (n.find("all_to_all") != std::string::npos || n.find("alltoall") != std::string::npos)
        return CollectiveKind::AllToAll;
    if (n.find("broadcast") != std::string::npos)
        return CollectiveKind::Broadcast;
    if (n.find("barrier") != std::string::npos)
        return CollectiveKind::Barrier;
    if (n.find("sendrecv") != std::string::npos || n.find(":send") != std::string::npos ||
        n.find(":recv") != std::string::npos || n.find("_send") != std::string::npos ||
        n.find("_recv") != std::string::npos)
        return CollectiveKind::SendRecv;
    if (n.find("reduce") != std::string::npos)
        return CollectiveKind::Reduce;
    return CollectiveKind::Other;
}

double busBandwidthFactor(CollectiveKind kind, int groupSize)
{
    const double n = std::max(groupSize, 1);
    switch (kind) {
    case CollectiveKind::AllReduce:
        return 2.0 * (n - 1.0) / n;
    case CollectiveKind::AllGather:
    case CollectiveKind::ReduceScatter:
    case CollectiveKind::AllToAll:
        return (n - 1.0) / n;
    case CollectiveKind::Broadcast:
    case CollectiveKind::Reduce:
    case CollectiveKind::SendRecv:
        return 1.0;
    case CollectiveKind::Barrier:
    case CollectiveKind::Other:
        break;
    }
    return 0.0;
}

int dtypeBytes(std::string_view dtype)
{
    std::string t = lowered(dtype);
    if (t.starts_with("c10::"))
        t = t.substr(5);
    if (t == "float" || t == "float32" || t == "int" || t == "int32" || t == "unsigned int" ||
        t == "uint32")
        return 4;
    if (t == "double" || t == "float64" || t == "long" || t == "int64" || t == "long int" ||
        t == "uint64")
        return 8;
    if (t == "half" || t == "float16" || t == "bfloat16" || t == "short" || t == "int16" ||
        t == "uint16")
        return 2;
    if (t == "signed char" || t == "unsigned char" || t == "char" || t == "bool" || t == "byte" ||
        t == "int8" || t == "uint8" || t.starts_with("float8"))
        return 1;
    return 0;
}

std::vector<RankCollective> rankCollectives(const trace::TraceModel& model)
{
    std::vector<RankCollective> out;
    // One collective per launching annotation: an annotation that started several kernels
    // (a coalesced group) spans them all.
    std::unordered_map<uint32_t, size_t> byAnnotation;
    const std::span<const trace::Track> tracks = model.tracks();
    for (uint32_t t = 0; t < tracks.size(); ++t) {
        if (tracks[t].kind != trace::TrackKind::GpuStream)
            continue;
        for (const trace::Event& e : model.events(trace::TrackId{t})) {
            if (e.category != trace::Category::Kernel ||
                !analysis::isCommunicationKernel(model.text(e.name)))
                continue;
            const trace::EventId launch =
                e.correlated.valid() ? enclosingAnnotation(model, e.correlated) : trace::EventId{};
            if (launch.valid()) {
                const auto [at, fresh] = byAnnotation.try_emplace(launch.value, out.size());
                if (!fresh) {
                    RankCollective& c = out[at->second];
                    const int64_t end = std::max(c.startNs + c.durationNs, e.endNs());
                    c.startNs = std::min(c.startNs, e.startNs);
                    c.durationNs = end - c.startNs;
                    continue;
                }
            }
            RankCollective c;
            c.event = model.idOf(e);
            c.launch = launch;
            c.kind = collectiveKindOf(launch.valid() ? model.text(model.event(launch).name)
                                                     : model.text(e.name));
            if (c.kind == CollectiveKind::Other)
                c.kind = collectiveKindOf(model.text(e.name));
            c.startNs = e.startNs;
            c.durationNs = e.durationNs;
            c.hostNs = launch.valid()
                           ? model.event(launch).startNs
                           : (e.correlated.valid() ? model.event(e.correlated).startNs : e.startNs);
            out.push_back(std::move(c));
        }
    }
    if (out.empty()) {
        // A CPU-only job: the gloo spans are the collectives, host time.
        for (const trace::Event& e : model.events()) {
            if (!model.text(e.name).starts_with("gloo:") || e.durationNs <= 0)
                continue;
            RankCollective c;
            c.event = c.launch = model.idOf(e);
            c.kind = collectiveKindOf(model.text(e.name));
            c.startNs = c.hostNs = e.startNs;
            c.durationNs = e.durationNs;
            c.onDevice = false;
            out.push_back(std::move(c));
        }
    }
    readCollectiveArgs(model, out);
    std::sort(out.begin(), out.end(), [](const RankCollective& a, const RankCollective& b) {
        return a.hostNs != b.hostNs ? a.hostNs < b.hostNs : a.startNs < b.startNs;
    });
    return out;
}

std::optional<int64_t> RankSteps::stepAt(int64_t hostNs) const
{
    for (size_t i = 0; i < hostRanges.size(); ++i)
        if (hostNs >= hostRanges[i].first && hostNs < hostRanges[i].second)
            return numbers[i];
    return std::nullopt;
}

CollectiveMatch matchCollectives(const std::vector<std::span<const RankCollective>>& collectives,
                                 const std::vector<RankSteps>& steps, int worldSize)
{
    CollectiveMatch match;
    const size_t ranks = collectives.size();
    match.countPerRank.resize(ranks);
    match.clockOffsetNs.assign(ranks, 0.0);
    match.lastToArriveCount.assign(ranks, 0);
    if (ranks == 0)
        return match;

    // Each rank's collectives by (group, kind), in issue order.
    using Key = std::pair<std::string, CollectiveKind>;
    std::vector<std::map<Key, std::vector<const RankCollective*>>> lanes(ranks);
    for (size_t r = 0; r < ranks; ++r) {
        match.countPerRank[r] = collectives[r].size();
        for (const RankCollective& c : collectives[r])
            lanes[r][{c.group, c.kind}].push_back(&c);
    }
    for (const auto& [key, first] : lanes[0]) {
        size_t common = first.size();
        for (size_t r = 1; r < ranks; ++r) {
            const auto lane = lanes[r].find(key);
            common = std::min(common, lane == lanes[r].end() ? size_t{0} : lane->second.size());
        }
        for (size_t i = 0; i < common; ++i) {
            MatchedCollective m;
            m.kind = key.second;
            m.group = key.first;
            m.ordinal = int(i);
            for (size_t r = 0; r < ranks; ++r)
                m.ranks.push_back(*lanes[r].at(key)[i]);
            m.bytes = m.ranks[0].bytes;
            for (const RankCollective& c : m.ranks)
                if (c.bytes >= 0 && m.bytes >= 0 && c.bytes != m.bytes)
                    m.sizesAgree = false;
            m.groupSize = m.ranks[0].groupSize > 0 ? m.ranks[0].groupSize
                                                   : (worldSize > 0 ? worldSize : int(ranks));
            match.matched.push_back(std::move(m));
        }
    }
    for (size_t r = 0; r < ranks; ++r)
        match.unmatched += collectives[r].size();
    match.unmatched -= match.matched.size() * ranks;
    std::sort(match.matched.begin(), match.matched.end(),
              [](const MatchedCollective& a, const MatchedCollective& b) {
                  return a.ranks[0].hostNs < b.ranks[0].hostNs;
              });

    // Clock offsets: every rank leaves a collective at about the same moment.
    for (size_t r = 1; r < ranks; ++r) {
        std::vector<double> differences;
        differences.reserve(match.matched.size());
        for (const MatchedCollective& m : match.matched)
            differences.push_back(double(m.ranks[r].startNs + m.ranks[r].durationNs) -
                                  double(m.ranks[0].startNs + m.ranks[0].durationNs));
        match.clockOffsetNs[r] = median(std::move(differences));
    }
    const auto [low, high] =
        std::minmax_element(match.clockOffsetNs.begin(), match.clockOffsetNs.end());
    match.clockSpreadNs = *high - *low;

    for (MatchedCollective& m : match.matched) {
        m.transferNs = m.ranks[0].durationNs;
        for (const RankCollective& c : m.ranks)
            m.transferNs = std::min(m.transferNs, c.durationNs);
        double latest = 0;
        for (size_t r = 0; r < ranks; ++r) {
            m.waitNs.push_back(m.ranks[r].durationNs - m.transferNs);
            const double arrival = double(m.ranks[r].startNs) - match.clockOffsetNs[r];
            if (m.lastToArrive < 0 || arrival > latest) {
                latest = arrival;
                m.lastToArrive = int(r);
            }
        }
        if (m.sizesAgree && m.bytes > 0 && m.transferNs > 0) {
            m.algorithmBytesPerS = double(m.bytes) / (double(m.transferNs) * 1e-9);
            m.busBytesPerS = m.algorithmBytesPerS * busBandwidthFactor(m.kind, m.groupSize);
        }
        if (m.lastToArrive >= 0)
            ++match.lastToArriveCount[size_t(m.lastToArrive)];
        if (!m.sizesAgree)
            ++match.sizeMismatches;
        if (!steps.empty())
            m.step = steps[0].stepAt(m.ranks[0].hostNs);
    }
    return match;
}

}  // namespace kinetoscope::job
