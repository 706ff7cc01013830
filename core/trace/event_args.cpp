#include "core/trace/event_args.h"

#include "core/trace/byte_source.h"
#include "core/trace/json_scan.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <simdjson.h>

namespace kinetoscope::trace {

namespace {

namespace od = simdjson::ondemand;

// Nesting deeper than this is shown as null: no trace needs it, and it bounds recursion.
constexpr int kMaxDepth = 64;

// The event's whole JSON object, read back from the source; nullopt when unreadable.
std::optional<std::string> eventObjectText(const TraceModel& model, EventId id)
{
    const uint64_t offset = model.sourceOffset(id);
    const TraceSource& source = model.source();
    if (source.text) {
        const std::string_view text = *source.text;
        if (offset >= text.size())
            return std::nullopt;
        const auto scan = json_scan::scanValue(text.substr(offset));
        if (scan.status != json_scan::Scan::Complete)
            return std::nullopt;
        return std::string(text.substr(offset, scan.length));
    }
    // A seek for a plain file; for a gzip file, decompression from the nearest access
    // point before the event (at most GzipIndex::kSpacingBytes). Only this event is parsed.
    std::string error;
    const auto reader = openFileSourceAt(source.path, offset, source.gzipIndex.get(), error);
    if (!reader)
        return std::nullopt;
    constexpr size_t kStep = size_t(64) << 10;
    std::string buffer;
    for (;;) {
        const size_t old = buffer.size();
        buffer.resize(old + kStep);
        const size_t got = reader->read(buffer.data() + old, kStep);
        buffer.resize(old + got);
        const auto scan = json_scan::scanValue(buffer);
        if (scan.status == json_scan::Scan::Complete) {
            buffer.resize(scan.length);
            return buffer;
        }
        if (scan.status == json_scan::Scan::Invalid || got == 0)
            return std::nullopt;
    }
}

bool readValue(od::value value, ArgValue& out, int depth);

bool readObject(od::object object, ArgValue::Object& out, int depth)
{
    for (auto field : object) {
        std::string_view key;
        od::value value;
        if (field.unescaped_key().get(key) || field.value().get(value))
            return false;
        Arg arg{std::string(key), {}};
        if (!readValue(value, arg.value, depth + 1))
            return false;
        out.push_back(std::move(arg));
    }
    return true;
}

bool readValue(od::value value, ArgValue& out, int depth)
{
    if (depth > kMaxDepth) {
        out.value = std::monostate{};  // left unread: the parser skips it when it moves on
        return true;
    }
    od::json_type type;
    if (value.type().get(type))
        return false;
    switch (type) {
    case od::json_type::null:
        out.value = std::monostate{};
        return !value.is_null().error();
    case od::json_type::boolean: {
        bool b = false;
        if (value.get_bool().get(b))
            return false;
        out.value = b;
        return true;
    }
    case od::json_type::number: {
        od::number number;
        if (value.get_number().get(number))
            return false;
        if (number.is_int64())
            out.value = number.get_int64();
        else if (number.is_uint64())
            out.value = number.get_uint64();
        else
            out.value = number.get_double();
        return true;
    }
    case od::json_type::string: {
        std::string_view text;
        if (value.get_string().get(text))
            return false;
        out.value = std::string(text);
        return true;
    }
    case od::json_type::array: {
        od::array array;
        if (value.get_array().get(array))
            return false;
        ArgValue::Array items;
        for (auto element : array) {
            od::value item;
            if (element.get(item))
                return false;
            ArgValue v;
            if (!readValue(item, v, depth + 1))
                return false;
            items.push_back(std::move(v));
        }
        out.value = std::move(items);
        return true;
    }
    case od::json_type::object: {
        od::object object;
        if (value.get_object().get(object))
            return false;
        ArgValue::Object fields;
        if (!readObject(object, fields, depth))
            return false;
        out.value = std::move(fields);
        return true;
    }
    }
    return false;
}

// The `args` of one event object; empty when it has none, nullopt when not valid JSON.
std::optional<std::vector<Arg>> argsOfObject(std::string_view object)
{
    simdjson::padded_string padded(object);
    od::parser parser;
    od::document doc;
    od::object event;
    if (parser.iterate(padded).get(doc) || doc.get_object().get(event))
        return std::nullopt;
    for (auto field : event) {
        std::string_view key;
        if (field.unescaped_key().get(key))
            return std::nullopt;
        if (key != "args")
            continue;
        od::value value;
        od::object args;
        if (field.value().get(value) || value.get_object().get(args))
            return std::nullopt;
        std::vector<Arg> out;
        if (!readObject(args, out, 0))
            return std::nullopt;
        return out;
    }
    return std::vector<Arg>{};
}

std::string numberText(double value)
{
    if (!std::isfinite(value))
        return "null";
    std::array<char, 32> text{};
    const auto [end, error] = std::to_chars(text.data(), text.data() + text.size(), value);
    return error == std::errc() ? std::string(text.data(), end) : std::string("null");
}

// JSON string syntax for display: quotes, backslashes and control characters escaped.
std::string quoted(const std::string& s)
{
    std::string out = "\"";
    for (const char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            static constexpr char kHex[] = "0123456789abcdef";
            out += "\\u00";
            out += kHex[(c >> 4) & 0xf];
            out += kHex[c & 0xf];
        } else {
            out += c;
        }
    }
    return out + "\"";
}

std::string nestedText(const ArgValue& value);

std::string objectText(std::span<const Arg> args)
{
    std::string out = "{";
    for (size_t i = 0; i < args.size(); ++i)
        out += (i ? ", " : "") + quoted(args[i].key) + ": " + nestedText(args[i].value);
    return out + "}";
}

// Inside an array or object strings keep their quotes.
std::string nestedText(const ArgValue& value)
{
    if (const std::string* s = value.string())
        return quoted(*s);
    return argText(value);
}

}  // namespace

std::optional<int64_t> ArgValue::integer() const
{
    if (const auto* i = std::get_if<int64_t>(&value))
        return *i;
    if (const auto* d = std::get_if<double>(&value)) {
        // Inside int64 and integral: the range check is on the double, before any cast.
        if (std::isfinite(*d) && *d == std::floor(*d) && *d >= -9.2e18 && *d <= 9.2e18)
            return static_cast<int64_t>(*d);
    }
    return std::nullopt;
}

const std::string* ArgValue::string() const
{
    return std::get_if<std::string>(&value);
}

const ArgValue::Array* ArgValue::array() const
{
    return std::get_if<Array>(&value);
}

std::optional<std::vector<Arg>> readArgs(const TraceModel& model, EventId id)
{
    const std::optional<std::string> object = eventObjectText(model, id);
    if (!object)
        return std::nullopt;
    return argsOfObject(*object);
}

std::vector<std::optional<std::vector<Arg>>> readArgsOf(const TraceModel& model,
                                                        std::span<const EventId> ids)
{
    std::vector<std::optional<std::vector<Arg>>> out(ids.size());
    const TraceSource& source = model.source();
    if (source.text) {
        for (size_t i = 0; i < ids.size(); ++i)
            out[i] = readArgs(model, ids[i]);
        return out;
    }
    std::vector<size_t> order(ids.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return model.sourceOffset(ids[a]) < model.sourceOffset(ids[b]);
    });
    // One reader walks forward through the (decompressed) file: `buffer` holds the bytes
    // read from `bufferStart` on and not consumed yet. A gap wider than an access point's
    // spacing reopens the reader there rather than inflating what lies between.
    std::unique_ptr<ByteSource> reader;
    std::string buffer;
    uint64_t bufferStart = 0;
    constexpr size_t kStep = size_t(64) << 10;
    for (size_t index : order) {
        const uint64_t offset = model.sourceOffset(ids[index]);
        const uint64_t bufferEnd = bufferStart + buffer.size();
        if (!reader || offset < bufferStart ||
            (offset > bufferEnd && offset - bufferEnd > GzipIndex::kSpacingBytes)) {
            std::string error;
            reader = openFileSourceAt(source.path, offset, source.gzipIndex.get(), error);
            if (!reader)
                return out;
            buffer.clear();
        } else if (offset <= bufferEnd) {
            buffer.erase(0, static_cast<size_t>(offset - bufferStart));
        } else {
            std::string skipped(kStep, '\0');
            for (uint64_t left = offset - bufferEnd; left > 0;) {
                const size_t got = reader->read(
                    skipped.data(), static_cast<size_t>(std::min<uint64_t>(left, kStep)));
                if (got == 0)
                    break;
                left -= got;
            }
            buffer.clear();
        }
        bufferStart = offset;
        for (;;) {
            const auto scan = json_scan::scanValue(buffer);
            if (scan.status == json_scan::Scan::Complete) {
                out[index] = argsOfObject(std::string_view(buffer).substr(0, scan.length));
                break;
            }
            const size_t old = buffer.size();
            buffer.resize(old + kStep);
            const size_t got = scan.status == json_scan::Scan::Invalid
                                   ? 0
                                   : reader->read(buffer.data() + old, kStep);
            buffer.resize(old + got);
            if (got == 0)
                break;
        }
    }
    return out;
}

const ArgValue* findArg(std::span<const Arg> args, std::string_view key)
{
    for (const Arg& arg : args)
        if (arg.key == key)
            return &arg.value;
    return nullptr;
}

std::string argText(const ArgValue& value)
{
    struct Visitor
    {
        std::string operator()(std::monostate) const { return "null"; }
        std::string operator()(bool b) const { return b ? "true" : "false"; }
        std::string operator()(int64_t i) const { return std::to_string(i); }
        std::string operator()(uint64_t u) const { return std::to_string(u); }
        std::string operator()(double d) const { return numberText(d); }
        std::string operator()(const std::string& s) const { return s; }
        std::string operator()(const ArgValue::Array& items) const
        {
            std::string out = "[";
            for (size_t i = 0; i < items.size(); ++i)
                out += (i ? ", " : "") + nestedText(items[i]);
            return out + "]";
        }
        std::string operator()(const ArgValue::Object& fields) const { return objectText(fields); }
    };
    return std::visit(Visitor{}, value.value);
}

std::string argsText(std::span<const Arg> args)
{
    return objectText(args);
}

}  // namespace kinetoscope::trace
