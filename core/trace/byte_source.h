#pragma once
// Sequential bytes of a trace: a file (plain or gzip, decompressed as it is read) or a
// string in memory. The loader reads it in chunks and never holds the whole file.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace kinetoscope::trace {

class ByteSource
{
public:
    enum class Status { Ok, EndOfData, Truncated, Error };

    virtual ~ByteSource() = default;
    // Reads up to `capacity` bytes; returns the count (0 with a non-Ok status at the end).
    virtual size_t read(char* dest, size_t capacity) = 0;
    Status status() const { return m_status; }
    // A one-line reason when status() is Truncated or Error.
    const std::string& error() const { return m_error; }
    bool compressed() const { return m_compressed; }

protected:
    Status m_status = Status::Ok;
    std::string m_error;
    bool m_compressed = false;
};

// Opens `path` (gzip detected from its content, not its name). Returns null and sets
// `error` to a one-line reason when the file cannot be opened.
std::unique_ptr<ByteSource> openFileSource(const std::filesystem::path& path, std::string& error);
std::unique_ptr<ByteSource> memorySource(std::string_view bytes);

}  // namespace kinetoscope::trace
