#pragma once
// Random access into a gzip file. While the ingest decompresses a trace it records an
// access point about every kSpacingBytes of output, at a deflate block boundary: where
// the compressed bits of the next block begin, and the 32 KiB of output before it (the
// window that a deflate stream may copy from). Reading one event's `args` later starts
// inflating at the nearest point before the event instead of at the start of the file:
// at most kSpacingBytes of decompression (~20 ms) rather than the whole file.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace kinetoscope::trace {

struct GzipAccessPoint
{
    uint64_t outputOffset = 0;  // decompressed bytes before the point
    uint64_t inputOffset = 0;   // file offset of the first compressed byte not yet consumed
    int bits = 0;  // 0-7: the next block's first bits are the top `bits` bits of the byte
                   // at inputOffset - 1
    std::vector<unsigned char> window;  // the last <= 32 KiB of output before the point
};

class GzipIndex
{
public:
    static constexpr uint64_t kSpacingBytes = uint64_t(8) << 20;
    static constexpr size_t kWindowBytes = 32768;  // deflate's largest back-reference

    // Points must come in increasing outputOffset.
    void add(GzipAccessPoint point);
    // The last point at or before `outputOffset`; null when there is none.
    const GzipAccessPoint* pointAtOrBefore(uint64_t outputOffset) const;
    std::span<const GzipAccessPoint> points() const { return m_points; }
    size_t size() const { return m_points.size(); }
    size_t memoryBytes() const;

private:
    std::vector<GzipAccessPoint> m_points;
};

}  // namespace kinetoscope::trace
