#include "core/trace/byte_source.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace kinetoscope::trace {

namespace {

constexpr unsigned kGzipBufferBytes = 1u << 20;

class GzipFileSource final : public ByteSource
{
public:
    explicit GzipFileSource(gzFile file) : m_file(file)
    {
        gzbuffer(m_file, kGzipBufferBytes);
    }
    ~GzipFileSource() override { gzclose_r(m_file); }

    size_t read(char* dest, size_t capacity) override
    {
        // Small gzread calls: when the data turns out corrupt, gzread returns -1 and the
        // bytes it inflated in that call are lost, so keep each call's loss small.
        constexpr size_t kStep = 256 * 1024;
        size_t total = 0;
        while (m_status == Status::Ok && total < capacity) {
            const auto request = static_cast<unsigned>(std::min(capacity - total, kStep));
            const int got = gzread(m_file, dest + total, request);
            m_compressed = gzdirect(m_file) == 0;
            if (got > 0) {
                total += static_cast<size_t>(got);
                if (static_cast<unsigned>(got) < request)
                    break;  // the rest will come with the next call, or the end
                continue;
            }
            noteEnd(got);
        }
        return total;
    }

private:
    void noteEnd(int got)
    {
        int code = Z_OK;
        const char* message = gzerror(m_file, &code);
        if (got == 0 && code == Z_OK) {
            m_status = Status::EndOfData;
        } else if (code == Z_BUF_ERROR) {
            m_status = Status::Truncated;
            m_error = "the gzip stream ends early";
        } else {
            m_status = Status::Error;
            m_error = code == Z_DATA_ERROR ? std::string("corrupt gzip data: ") + message
                                           : std::string("read error: ") + message;
        }
    }

    gzFile m_file;
};

class MemorySource final : public ByteSource
{
public:
    explicit MemorySource(std::string_view bytes) : m_bytes(bytes) {}

    size_t read(char* dest, size_t capacity) override
    {
        const size_t count = std::min(capacity, m_bytes.size() - m_position);
        std::memcpy(dest, m_bytes.data() + m_position, count);
        m_position += count;
        if (count == 0)
            m_status = Status::EndOfData;
        return count;
    }

private:
    std::string_view m_bytes;
    size_t m_position = 0;
};

}  // namespace

std::unique_ptr<ByteSource> openFileSource(const std::filesystem::path& path, std::string& error)
{
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status)) {
        error = "no such file: " + path.string();
        return nullptr;
    }
    if (std::filesystem::is_directory(status)) {
        error = "is a directory, not a trace file: " + path.string();
        return nullptr;
    }
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        error = "cannot open " + path.string() + ": " + std::strerror(errno);
        return nullptr;
    }
    gzFile file = gzdopen(fd, "rb");
    if (!file) {
        ::close(fd);
        error = "cannot open " + path.string() + ": out of memory";
        return nullptr;
    }
    return std::make_unique<GzipFileSource>(file);
}

std::unique_ptr<ByteSource> memorySource(std::string_view bytes)
{
    return std::make_unique<MemorySource>(bytes);
}

}  // namespace kinetoscope::trace
