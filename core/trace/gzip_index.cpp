#include "core/trace/gzip_index.h"

#include <algorithm>

namespace kinetoscope::trace {

void GzipIndex::add(GzipAccessPoint point)
{
    m_points.push_back(std::move(point));
}

const GzipAccessPoint* GzipIndex::pointAtOrBefore(uint64_t outputOffset) const
{
    const auto after = std::upper_bound(
        m_points.begin(), m_points.end(), outputOffset,
        [](uint64_t offset, const GzipAccessPoint& p) { return offset < p.outputOffset; });
    return after == m_points.begin() ? nullptr : &*(after - 1);
}

size_t GzipIndex::memoryBytes() const
{
    size_t bytes = m_points.capacity() * sizeof(GzipAccessPoint);
    for (const GzipAccessPoint& p : m_points)
        bytes += p.window.capacity();
    return bytes;
}

}  // namespace kinetoscope::trace
