// A rank's digest read back (core/job/digest.h). simdjson's DOM: a job of hundreds of ranks
// reads hundreds of digests, and a rank of thousands of collectives makes one of a few
// hundred kilobytes; nlohmann's tree took most of such a job's opening.
#include "core/job/digest.h"
#include "core/job/rank_read.h"
#include "core/trace/printable.h"

#include <charconv>
#include <filesystem>
#include <simdjson.h>
#include <stdexcept>

namespace kinetoscope::job {

namespace fs = std::filesystem;
namespace dom = simdjson::dom;

namespace {

struct Malformed : std::invalid_argument
{
    using std::invalid_argument::invalid_argument;
};

dom::element field(dom::object object, std::string_view key)
{
    dom::element value;
    if (object.at_key(key).get(value))
        throw Malformed("no \"" + std::string(key) + "\"");
    return value;
}

bool has(dom::object object, std::string_view key, dom::element& value)
{
    return !object.at_key(key).get(value) && !value.is_null();
}

[[noreturn]] void wrongType(std::string_view key, const char* wanted)
{
    throw Malformed("\"" + std::string(key) + "\" is not " + wanted);
}

dom::object objectAt(dom::object object, std::string_view key)
{
    dom::object value;
    if (field(object, key).get(value))
        wrongType(key, "an object");
    return value;
}

dom::array arrayAt(dom::object object, std::string_view key)
{
    dom::array value;
    if (field(object, key).get(value))
        wrongType(key, "an array");
    return value;
}

int64_t integerOf(dom::element element, std::string_view key)
{
    int64_t value = 0;
    if (element.get_int64().get(value))
        wrongType(key, "an integer");
    return value;
}

int64_t integerAt(dom::object object, std::string_view key)
{
    return integerOf(field(object, key), key);
}

int intAt(dom::object object, std::string_view key)
{
    const int64_t value = integerAt(object, key);
    if (value < INT32_MIN || value > INT32_MAX)
        wrongType(key, "an int");
    return int(value);
}

std::string textOf(dom::element element, std::string_view key)
{
    std::string_view value;
    if (element.get_string().get(value))
        wrongType(key, "a string");
    return std::string(value);
}

std::string textAt(dom::object object, std::string_view key)
{
    return textOf(field(object, key), key);
}

bool booleanOf(dom::element element, std::string_view key)
{
    bool value = false;
    if (element.get_bool().get(value))
        wrongType(key, "true or false");
    return value;
}

bool booleanAt(dom::object object, std::string_view key, bool otherwise)
{
    dom::element value;
    return has(object, key, value) ? booleanOf(value, key) : otherwise;
}

dom::object objectOf(dom::element element, std::string_view what)
{
    dom::object value;
    if (element.get(value))
        wrongType(what, "an object");
    return value;
}

FileStamp stampFrom(dom::object j, const fs::path& folder)
{
    FileStamp stamp;
    const fs::path named(textAt(j, "path"));
    stamp.path = (named.is_absolute() ? named : folder / named).string();
    stamp.size = integerAt(j, "size");
    stamp.mtimeNs = integerAt(j, "mtime_ns");
    return stamp;
}

CollectiveKind kindFrom(std::string_view name)
{
    for (int k = 0; k <= int(CollectiveKind::Other); ++k)
        if (name == collectiveKindName(CollectiveKind(k)))
            return CollectiveKind(k);
    return CollectiveKind::Other;
}

analysis::Finding findingFrom(dom::object j)
{
    analysis::Finding f;
    f.id = textAt(j, "id");
    if (!analysis::parseSeverity(textAt(j, "severity"), f.severity))
        throw Malformed("a finding's severity is not low, medium or high");
    dom::element basis;
    const std::string from = has(j, "severity_from", basis) ? textOf(basis, "severity_from") : "";
    f.basis = from == "gain"          ? analysis::SeverityBasis::Gain
              : from == "device_gain" ? analysis::SeverityBasis::DeviceGain
                                      : analysis::SeverityBasis::Own;
    f.title = textAt(j, "title");
    if (field(j, "estimated_gain_ns").get_double().get(f.estimatedGainNs))
        wrongType("estimated_gain_ns", "a number");
    f.measured = booleanAt(j, "measured", false);
    f.perBatch = booleanAt(j, "per_batch", false);
    f.aboutWindow = booleanAt(j, "about_window", false);
    return f;
}

void readCollectives(dom::object j, Rank& r)
{
    const dom::object table = objectAt(j, "collectives");
    const dom::array columns = arrayAt(table, "columns");
    size_t c = 0;
    for (dom::element column : columns) {
        if (c < kDigestCollectiveColumns.size() &&
            textOf(column, "columns") != kDigestCollectiveColumns[c])
            throw Malformed("the collectives' column " + std::to_string(c) + " is not " +
                            kDigestCollectiveColumns[c]);
        ++c;
    }
    if (c < kDigestCollectiveColumns.size())
        throw Malformed("the collectives table lacks columns");
    const dom::array rows = arrayAt(table, "rows");
    r.collectives.reserve(rows.size());
    for (dom::element row : rows) {
        dom::array cells;
        if (row.get(cells) || cells.size() < kDigestCollectiveColumns.size())
            throw Malformed("a collective's row is not an array of its columns");
        RankCollective rc;
        auto cell = cells.begin();
        rc.kind = kindFrom(textOf(*cell, "kind"));
        rc.group = textOf(*++cell, "group");
        const int64_t groupSize = integerOf(*++cell, "group_size");
        rc.groupSize = int(std::clamp<int64_t>(groupSize, -1, 1 << 20));
        rc.startNs = integerOf(*++cell, "start_ns");
        rc.durationNs = integerOf(*++cell, "duration_ns");
        rc.hostNs = integerOf(*++cell, "host_ns");
        rc.bytes = integerOf(*++cell, "bytes");
        rc.onDevice = booleanOf(*++cell, "on_device");
        r.collectives.push_back(std::move(rc));
    }
}

void readSteps(dom::object j, Rank& r)
{
    for (dom::element element : arrayAt(j, "steps")) {
        const dom::object s = objectOf(element, "steps");
        RankStep step;
        step.beginNs = integerAt(s, "begin_ns");
        step.endNs = integerAt(s, "end_ns");
        step.durationNs = integerAt(s, "duration_ns");
        step.communicationNs = integerAt(s, "communication_ns");
        step.collectiveNs = integerAt(s, "collective_ns");
        step.categories.totalNs = integerAt(s, "total_ns");
        const dom::object categories = objectAt(s, "categories");
        for (size_t c = 0; c < analysis::kTimeCategoryCount; ++c) {
            const std::string_view key = analysis::timeCategoryKey(analysis::TimeCategory(c));
            dom::element value;
            step.categories.ns[c] = has(categories, key, value) ? integerOf(value, key) : 0;
        }
        detail::addStep(r, integerAt(s, "step"), step, integerAt(s, "host_begin_ns"),
                        integerAt(s, "host_end_ns"));
    }
}

Digest digestFrom(dom::object j, const fs::path& folder)
{
    Digest d;
    Rank& r = d.rank;
    d.rankFile = stampFrom(objectAt(j, "rank_file"), folder);
    d.trace = stampFrom(objectAt(j, "trace"), folder);
    r.path = d.rankFile.path;
    r.fromDigest = true;
    dom::element value;
    if (has(j, "distributed", value)) {
        const dom::object distributed = objectOf(value, "distributed");
        r.distributedRank = intAt(distributed, "rank");
        r.distributedWorldSize = intAt(distributed, "world_size");
    }
    if (has(j, "device", value))
        r.device = textOf(value, "device");
    r.traceBeginNs = integerAt(j, "trace_begin_ns");
    readCollectives(j, r);
    readSteps(j, r);
    for (dom::element f : arrayAt(j, "findings"))
        r.findings.push_back(findingFrom(objectOf(f, "findings")));
    if (has(j, "session_steps", value))
        r.sessionSteps = size_t(std::max<int64_t>(0, integerOf(value, "session_steps")));
    if (has(j, "failure", value)) {
        const dom::object failure = objectOf(value, "failure");
        r.failure = textAt(failure, "reason");
        r.stoppedByAnother = booleanAt(failure, "stopped_by_another", false);
    }
    return d;
}

// "kinetoscope-rank-digest/1.0" -> (1, 0); nullopt when it is not that format's name.
std::optional<std::pair<int, int>> versionOf(std::string_view format)
{
    const std::string prefix = std::string(kDigestFormatName) + "/";
    if (!format.starts_with(prefix))
        return std::nullopt;
    int major = -1, minor = -1;
    const char* at = format.data() + prefix.size();
    const char* end = format.data() + format.size();
    const auto [afterMajor, e1] = std::from_chars(at, end, major);
    if (e1 != std::errc() || afterMajor == end || *afterMajor != '.')
        return std::nullopt;
    const auto [afterMinor, e2] = std::from_chars(afterMajor + 1, end, minor);
    if (e2 != std::errc() || afterMinor != end || major < 0 || minor < 0)
        return std::nullopt;
    return std::pair{major, minor};
}

std::optional<Digest> parsePadded(const simdjson::padded_string& text,
                                  const std::string& digestPath, std::string& error)
{
    thread_local dom::parser parser;  // its buffers reused digest after digest
    dom::object root;
    if (parser.parse(text).get(root)) {
        error = "not a digest: " + digestPath + " is not a JSON object";
        return std::nullopt;
    }
    std::string_view format;
    dom::element value;
    const auto version = !root.at_key("format").get(value) && !value.get_string().get(format)
                             ? versionOf(format)
                             : std::nullopt;
    if (!version) {
        error = "not a digest: " + digestPath + " has no \"format\": \"" + kDigestFormatName +
                "/MAJOR.MINOR\"";
        return std::nullopt;
    }
    if (version->first > kDigestMajor) {
        error = "digest format " + std::to_string(version->first) + "." +
                std::to_string(version->second) + " is newer than this Kinetoscope reads (" +
                std::to_string(kDigestMajor) + ".x): " + digestPath;
        return std::nullopt;
    }
    try {
        return digestFrom(root, fs::path(digestPath).parent_path());
    } catch (const std::exception& e) {  // Malformed, a path or allocation error
        error = "malformed digest " + digestPath + ": " + trace::printableExcerpt(e.what(), 160);
        return std::nullopt;
    }
}

}  // namespace

std::optional<Digest> parseDigest(std::string_view text, const std::string& digestPath,
                                  std::string& error)
{
    return parsePadded(simdjson::padded_string(text), digestPath, error);
}

std::optional<Digest> readDigest(const std::string& digestPath, std::string& error)
{
    simdjson::padded_string text;
    if (simdjson::padded_string::load(digestPath).get(text)) {
        error = "cannot read the digest " + digestPath;
        return std::nullopt;
    }
    return parsePadded(text, digestPath, error);
}

}  // namespace kinetoscope::job
