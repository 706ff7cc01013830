#pragma once
// Running out of memory on demand, for the tests that check a std::bad_alloc thrown on any
// thread reaches the caller. The executable that links failing_allocations.cpp has its
// global operator new replaced: while a FailingAllocations is alive it counts allocations
// and, once `allowed` have succeeded, fails every one after (memory stays short, as it
// does). Not in a sanitizer build that replaces operator new itself (address, thread,
// memory): there supported() is false.
#include <cstdint>

namespace kinetoscope::test {

class FailingAllocations
{
public:
    // allowed < 0: count only, never fail.
    explicit FailingAllocations(int64_t allowed);
    ~FailingAllocations();
    FailingAllocations(const FailingAllocations&) = delete;
    FailingAllocations& operator=(const FailingAllocations&) = delete;

    static bool supported();
    int64_t allocations() const;       // asked for so far (failed ones included)
    bool failedOnOtherThread() const;  // an allocation failed on a thread other than this one
};

}  // namespace kinetoscope::test
