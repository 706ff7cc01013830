#include "core/trace/printable.h"

namespace kinetoscope::trace {

size_t validSequence(std::string_view s, size_t i, size_t& maximal)
{
    const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char lead = byte(i);
    maximal = 1;
    if (lead < 0x80)
        return 1;
    size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;  // the second byte's range (RFC 3629 table)
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        if (lead == 0xE0)
            low = 0xA0;  // no overlong forms
        else if (lead == 0xED)
            high = 0x9F;  // no surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        if (lead == 0xF0)
            low = 0x90;
        else if (lead == 0xF4)
            high = 0x8F;  // nothing above U+10FFFF
    } else {
        return 0;
    }
    for (size_t k = 1; k < length; ++k) {
        if (i + k >= s.size())
            return 0;
        const unsigned char c = byte(i + k);
        const unsigned char lo = k == 1 ? low : 0x80;
        const unsigned char hi = k == 1 ? high : 0xBF;
        if (c < lo || c > hi)
            return 0;
        maximal = k + 1;
    }
    return length;
}

bool isValidUtf8(std::string_view bytes)
{
    for (size_t i = 0; i < bytes.size();) {
        if (static_cast<unsigned char>(bytes[i]) < 0x80) {
            ++i;
            continue;
        }
        size_t maximal = 0;
        const size_t length = validSequence(bytes, i, maximal);
        if (length == 0)
            return false;
        i += length;
    }
    return true;
}

std::string toValidUtf8(std::string_view bytes, size_t* replaced)
{
    std::string out;
    out.reserve(bytes.size());
    size_t count = 0;
    for (size_t i = 0; i < bytes.size();) {
        size_t maximal = 0;
        const size_t length = validSequence(bytes, i, maximal);
        if (length > 0) {
            out.append(bytes.substr(i, length));
            i += length;
        } else {
            out.append(kReplacementCharacter);
            i += maximal;
            ++count;
        }
    }
    if (replaced)
        *replaced = count;
    return out;
}

std::string_view utf8Prefix(std::string_view text, size_t maxBytes)
{
    if (text.size() <= maxBytes)
        return text;
    size_t cut = maxBytes;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
        --cut;  // back off continuation bytes: text[cut] starts a character
    return text.substr(0, cut);
}

std::string printableExcerpt(std::string_view bytes, size_t maxBytes)
{
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    const size_t shown = bytes.size() > maxBytes ? maxBytes : bytes.size();
    for (size_t i = 0; i < shown; ++i) {
        const auto c = static_cast<unsigned char>(bytes[i]);
        if (c >= 0x20 && c < 0x7f && c != '\\') {
            out.push_back(static_cast<char>(c));
        } else {
            out += "\\x";
            out.push_back(kHex[c >> 4]);
            out.push_back(kHex[c & 15]);
        }
    }
    if (shown < bytes.size())
        out += "...";
    return out;
}

}  // namespace kinetoscope::trace
