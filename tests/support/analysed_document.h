#pragma once
// A shared trace opened as the app opens one: read, analysed, diagnosed, with its call
// tree (the Modules page's icicle needs it). For the GUI tests of the document's pages.
#include "core/document/document.h"
#include "tests/support/test_support.h"

#include <memory>

namespace kinetoscope::test {

inline std::shared_ptr<const document::Document> analysed(const char* sharedTraceName)
{
    document::OpenOptions options;
    options.callTree = true;
    return document::open(sharedTrace(sharedTraceName).string(), options);
}

}  // namespace kinetoscope::test
