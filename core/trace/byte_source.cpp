#include "core/trace/byte_source.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>
#include <vector>
#include <zlib.h>

namespace kinetoscope::trace {

namespace {

constexpr size_t kInputBytes = size_t(1) << 20;       // read from a gzip file at a time
constexpr size_t kHeadInputBytes = size_t(16) << 10;  // the same, for a look at its head
constexpr unsigned char kGzipMagic[2] = {0x1f, 0x8b};
constexpr int kGzipWindowBits = 15 + 16;  // a gzip header and trailer around deflate data
constexpr int kRawWindowBits = -15;       // deflate data alone (from an access point)

// Owns a file descriptor.
class FileHandle
{
public:
    explicit FileHandle(int fd) : m_fd(fd) {}
    ~FileHandle()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    FileHandle(const FileHandle&) = delete;
    FileHandle& operator=(const FileHandle&) = delete;
    int get() const { return m_fd; }

private:
    int m_fd;
};

// ::read that retries after a signal; -1 on a read error (errno set).
ssize_t readSome(int fd, void* dest, size_t count)
{
    for (;;) {
        const ssize_t got = ::read(fd, dest, count);
        if (got >= 0 || errno != EINTR)
            return got;
    }
}

class PlainFileSource final : public ByteSource
{
public:
    explicit PlainFileSource(int fd) : m_file(fd) {}

    size_t read(char* dest, size_t capacity) override
    {
        size_t total = 0;
        while (m_status == Status::Ok && total < capacity) {
            const ssize_t got = readSome(m_file.get(), dest + total, capacity - total);
            if (got < 0) {
                m_status = Status::Error;
                m_error = std::string("read error: ") + std::strerror(errno);
            } else if (got == 0) {
                if (total == 0)
                    m_status = Status::EndOfData;
                break;
            } else {
                total += static_cast<size_t>(got);
            }
        }
        return total;
    }

private:
    FileHandle m_file;
};

// A gzip file inflated with zlib's stream API (not gzread) so that it can stop at deflate
// block boundaries to record access points, and start again from one. Several gzip
// members in a row are read as one stream; bytes after the last member that do not start
// another are ignored, as gzip does.
class GzipFileSource final : public ByteSource
{
public:
    // `fd` positioned at the file's start; `index` (may be null) receives access points;
    // `inputBytes` are read from the file at a time.
    GzipFileSource(int fd, std::shared_ptr<GzipIndex> index, size_t inputBytes = kInputBytes)
        : m_file(fd), m_input(inputBytes), m_index(std::move(index))
    {
        m_compressed = true;
        m_stream.next_in = m_input.data();
        m_ready = inflateInit2(&m_stream, kGzipWindowBits) == Z_OK;
        if (!m_ready)
            fail(Status::Error, "cannot start decompression: out of memory");
    }
    ~GzipFileSource() override
    {
        if (m_ready)
            inflateEnd(&m_stream);
    }
    GzipFileSource(const GzipFileSource&) = delete;
    GzipFileSource& operator=(const GzipFileSource&) = delete;

    std::shared_ptr<const GzipIndex> gzipIndex() const override { return m_index; }

    // Restarts at `point`: raw deflate data from there, its window as the dictionary.
    bool startAt(const GzipAccessPoint& point)
    {
        if (!m_ready)
            return false;
        const uint64_t start = point.inputOffset - (point.bits ? 1 : 0);
        if (::lseek(m_file.get(), static_cast<off_t>(start), SEEK_SET) < 0)
            return fail(Status::Error, std::string("seek error: ") + std::strerror(errno));
        m_inputBase = start;
        m_stream.next_in = m_input.data();
        m_stream.avail_in = 0;
        m_output = point.outputOffset;
        m_raw = true;
        if (inflateReset2(&m_stream, kRawWindowBits) != Z_OK)
            return fail(Status::Error, "cannot restart decompression");
        if (point.bits) {
            if (!fillInput(1))
                return fail(Status::Truncated, "the gzip stream ends early");
            const int byte = *m_stream.next_in;
            ++m_stream.next_in;
            --m_stream.avail_in;
            inflatePrime(&m_stream, point.bits, byte >> (8 - point.bits));
        }
        if (inflateSetDictionary(&m_stream, point.window.data(),
                                 static_cast<uInt>(point.window.size())) != Z_OK)
            return fail(Status::Error, "cannot restart decompression at an access point");
        return true;
    }

    // Decompresses and drops `count` bytes; false when the data ends or fails first.
    bool skip(uint64_t count)
    {
        std::vector<char> scratch(size_t(256) << 10);
        while (count > 0 && m_status == Status::Ok) {
            const size_t got = read(scratch.data(),
                                    static_cast<size_t>(std::min<uint64_t>(count, scratch.size())));
            if (got == 0)
                break;
            count -= got;
        }
        return count == 0;
    }

    size_t read(char* dest, size_t capacity) override
    {
        size_t total = 0;
        while (m_status == Status::Ok && !m_finished && total < capacity) {
            if (m_stream.avail_in == 0 && !fillInput(1)) {
                if (m_status == Status::Ok)
                    fail(Status::Truncated, "the gzip stream ends early");
                break;
            }
            auto* out = reinterpret_cast<unsigned char*>(dest + total);
            const auto room = static_cast<uInt>(std::min<size_t>(capacity - total, UINT_MAX));
            m_stream.next_out = out;
            m_stream.avail_out = room;
            // Z_BLOCK returns at every deflate block boundary, where a point can be taken.
            const int code = inflate(&m_stream, m_index ? Z_BLOCK : Z_NO_FLUSH);
            const size_t produced = room - m_stream.avail_out;
            total += produced;
            m_output += produced;
            if (code == Z_STREAM_END) {
                endMember();
            } else if (code == Z_DATA_ERROR || code == Z_NEED_DICT) {
                fail(Status::Error, std::string("corrupt gzip data: ") +
                                        (m_stream.msg ? m_stream.msg : "bad data"));
            } else if (code == Z_MEM_ERROR) {
                fail(Status::Error, "out of memory while decompressing");
            } else if (m_index) {
                notePoint(dest, total);
            }
        }
        if (m_index)
            keepHistory(dest, total);
        if (total == 0 && m_finished && m_status == Status::Ok)
            m_status = Status::EndOfData;
        return total;
    }

private:
    bool fail(Status status, std::string message)
    {
        m_status = status;
        m_error = std::move(message);
        return false;
    }

    // Makes at least `want` input bytes available unless the file ends first; returns
    // whether it did. A read error sets the status.
    bool fillInput(size_t want)
    {
        if (m_stream.avail_in >= want)
            return true;
        m_inputBase += static_cast<uint64_t>(m_stream.next_in - m_input.data());
        std::memmove(m_input.data(), m_stream.next_in, m_stream.avail_in);
        m_stream.next_in = m_input.data();
        while (m_stream.avail_in < want) {
            const ssize_t got = readSome(m_file.get(), m_input.data() + m_stream.avail_in,
                                         m_input.size() - m_stream.avail_in);
            if (got < 0)
                return fail(Status::Error, std::string("read error: ") + std::strerror(errno));
            if (got == 0)
                return false;
            m_stream.avail_in += static_cast<uInt>(got);
        }
        return true;
    }

    // After a member's deflate data (and, in gzip mode, its checked trailer): another
    // member follows, or the data has ended.
    void endMember()
    {
        if (m_raw) {  // started from an access point: the trailer is still unread
            if (!fillInput(8)) {
                if (m_status == Status::Ok)
                    fail(Status::Truncated, "the gzip stream ends early");
                return;
            }
            m_stream.next_in += 8;
            m_stream.avail_in -= 8;
        }
        if (!fillInput(2) || std::memcmp(m_stream.next_in, kGzipMagic, 2) != 0) {
            m_finished = true;
            return;
        }
        m_raw = false;
        if (inflateReset2(&m_stream, kGzipWindowBits) != Z_OK)
            fail(Status::Error, "cannot restart decompression");
    }

    // At the end of a deflate block (not the last one), at least kSpacingBytes after the
    // previous point: record an access point.
    void notePoint(const char* dest, size_t total)
    {
        const int type = m_stream.data_type;
        const bool blockEnd = (type & 128) != 0 && (type & 64) == 0;
        if (!blockEnd || m_output - m_lastPoint < GzipIndex::kSpacingBytes)
            return;
        GzipAccessPoint point;
        point.outputOffset = m_output;
        point.inputOffset = m_inputBase + static_cast<uint64_t>(m_stream.next_in - m_input.data());
        point.bits = type & 7;
        const size_t fromCall = std::min(total, GzipIndex::kWindowBytes);
        const size_t fromHistory = std::min(m_history.size(), GzipIndex::kWindowBytes - fromCall);
        point.window.reserve(fromHistory + fromCall);
        point.window.insert(point.window.end(),
                            m_history.end() - static_cast<ptrdiff_t>(fromHistory), m_history.end());
        point.window.insert(point.window.end(), dest + total - fromCall, dest + total);
        m_index->add(std::move(point));
        m_lastPoint = m_output;
    }

    // Keeps the last 32 KiB of output, for a point taken early in the next call.
    void keepHistory(const char* dest, size_t total)
    {
        const size_t fromCall = std::min(total, GzipIndex::kWindowBytes);
        const size_t keep = std::min(m_history.size(), GzipIndex::kWindowBytes - fromCall);
        m_history.erase(m_history.begin(), m_history.end() - static_cast<ptrdiff_t>(keep));
        m_history.insert(m_history.end(), dest + total - fromCall, dest + total);
    }

    FileHandle m_file;
    std::vector<unsigned char> m_input;
    z_stream m_stream{};
    bool m_ready = false;
    bool m_raw = false;        // inflating raw deflate data (started from an access point)
    bool m_finished = false;   // the last member has ended
    uint64_t m_inputBase = 0;  // file offset of m_input[0]
    uint64_t m_output = 0;  // decompressed bytes before the next one read (from the file's start)
    uint64_t m_lastPoint = 0;  // m_output at the last access point
    std::shared_ptr<GzipIndex> m_index;
    std::vector<unsigned char> m_history;  // the last <= 32 KiB of output of earlier calls
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

// Opens `path` for reading and tells whether it starts as a gzip file; -1 and `error`
// set when it cannot be opened.
int openTrace(const std::filesystem::path& path, bool& gzip, std::string& error)
{
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status)) {
        error = "no such file: " + path.string();
        return -1;
    }
    if (std::filesystem::is_directory(status)) {
        error = "is a directory, not a trace file: " + path.string();
        return -1;
    }
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        error = "cannot open " + path.string() + ": " + std::strerror(errno);
        return -1;
    }
    unsigned char magic[2] = {0, 0};
    gzip = ::pread(fd, magic, 2, 0) == 2 && std::memcmp(magic, kGzipMagic, 2) == 0;
    return fd;
}

}  // namespace

std::unique_ptr<ByteSource> openFileSource(const std::filesystem::path& path, std::string& error,
                                           ReadExtent extent)
{
    bool gzip = false;
    const int fd = openTrace(path, gzip, error);
    if (fd < 0)
        return nullptr;
    if (!gzip)
        return std::make_unique<PlainFileSource>(fd);
    if (extent == ReadExtent::Head)
        return std::make_unique<GzipFileSource>(fd, nullptr, kHeadInputBytes);
    return std::make_unique<GzipFileSource>(fd, std::make_shared<GzipIndex>());
}

std::unique_ptr<ByteSource> openFileSourceAt(const std::filesystem::path& path, uint64_t offset,
                                             const GzipIndex* index, std::string& error)
{
    bool gzip = false;
    const int fd = openTrace(path, gzip, error);
    if (fd < 0)
        return nullptr;
    if (!gzip) {
        if (::lseek(fd, static_cast<off_t>(offset), SEEK_SET) < 0) {
            error = std::string("seek error: ") + std::strerror(errno);
            ::close(fd);
            return nullptr;
        }
        return std::make_unique<PlainFileSource>(fd);
    }
    auto source = std::make_unique<GzipFileSource>(fd, nullptr);
    uint64_t position = 0;
    if (const GzipAccessPoint* point = index ? index->pointAtOrBefore(offset) : nullptr) {
        if (!source->startAt(*point)) {
            error = source->error();
            return nullptr;
        }
        position = point->outputOffset;
    }
    if (!source->skip(offset - position)) {
        error = source->status() == ByteSource::Status::Ok ||
                        source->status() == ByteSource::Status::EndOfData
                    ? "the file is shorter than the offset (has it changed?)"
                    : source->error();
        return nullptr;
    }
    return source;
}

std::unique_ptr<ByteSource> memorySource(std::string_view bytes)
{
    return std::make_unique<MemorySource>(bytes);
}

}  // namespace kinetoscope::trace
