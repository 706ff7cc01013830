#pragma once
// Sequential bytes of a trace: a file (plain or gzip, decompressed as it is read) or a
// string in memory. The loader reads it in chunks and never holds the whole file.
#include "core/trace/gzip_index.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace kinetoscope::trace {

class ByteSource
{
public:
    enum class Status
    {
        Ok,
        EndOfData,
        Truncated,
        Error
    };

    virtual ~ByteSource() = default;
    // Reads up to `capacity` bytes; returns the count. At the end of the data a call
    // returns 0 and status() turns EndOfData; on a truncated or corrupt stream the call
    // returns what it decoded before the fault and status() says which.
    virtual size_t read(char* dest, size_t capacity) = 0;
    Status status() const { return m_status; }
    // A one-line reason when status() is Truncated or Error.
    const std::string& error() const { return m_error; }
    bool compressed() const { return m_compressed; }
    // For a gzip file read from its start: the access points recorded so far (complete
    // once the whole file was read). Null for other sources.
    virtual std::shared_ptr<const GzipIndex> gzipIndex() const { return nullptr; }

protected:
    Status m_status = Status::Ok;
    std::string m_error;
    bool m_compressed = false;
};

// How much of a file will be read: all of it (a gzip file is read from disk 1 MiB at a
// time, its access points recorded), or its first kilobytes (other_outputs.h's fileHead,
// for each JSON file of a folder: 16 KiB at a time, no access points).
enum class ReadExtent
{
    Whole,
    Head
};

// Opens `path` (gzip detected from its content, not its name). Returns null and sets
// `error` to a one-line reason when the file cannot be opened.
std::unique_ptr<ByteSource> openFileSource(const std::filesystem::path& path, std::string& error,
                                           ReadExtent extent = ReadExtent::Whole);
// The same file positioned at byte `offset` of its (decompressed) content: a seek for a
// plain file; for a gzip file, decompression from the nearest access point of `index`
// before `offset` (from the start when `index` is null or has none).
std::unique_ptr<ByteSource> openFileSourceAt(const std::filesystem::path& path, uint64_t offset,
                                             const GzipIndex* index, std::string& error);
std::unique_ptr<ByteSource> memorySource(std::string_view bytes);

}  // namespace kinetoscope::trace
