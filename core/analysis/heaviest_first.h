#pragma once
// One order for the nodes of the module tree and the call tree: heaviest first.
#include <algorithm>
#include <cstdint>
#include <vector>

namespace kinetoscope::analysis {

// Sorts node indices by device time, then host time, both descending, then by index
// (creation order), given the members that hold the two times.
template <typename Node>
void sortHeaviestFirst(std::vector<int32_t>& indices, const std::vector<Node>& nodes,
                       int64_t Node::*device, int64_t Node::*host)
{
    std::sort(indices.begin(), indices.end(), [&](int32_t a, int32_t b) {
        const Node &x = nodes[size_t(a)], &y = nodes[size_t(b)];
        if (x.*device != y.*device)
            return x.*device > y.*device;
        if (x.*host != y.*host)
            return x.*host > y.*host;
        return a < b;
    });
}

}  // namespace kinetoscope::analysis
