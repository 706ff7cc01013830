#include "widgets/timeline/timeline_palette.h"

namespace kinetoscope::widgets {

QColor sliceCategoryColor(trace::Category category)
{
    using trace::Category;
    switch (category) {
    case Category::CpuOp:
        return {86, 132, 196};
    case Category::UserAnnotation:
        return {150, 110, 190};
    case Category::PythonFunction:
        return {120, 170, 120};
    case Category::Runtime:
        return {214, 150, 60};
    case Category::Driver:
        return {200, 120, 80};
    case Category::Kernel:
        return {64, 160, 110};
    case Category::Memcpy:
        return {215, 95, 95};
    case Category::Memset:
        return {225, 140, 140};
    case Category::Sync:
        return {160, 160, 40};
    case Category::GpuUserAnnotation:
        return {175, 140, 205};
    case Category::Instant:
        return {90, 90, 90};
    case Category::Overhead:
        return {170, 170, 170};
    case Category::ProfilerSpan:
        return {200, 200, 210};
    case Category::Other:
        return {140, 150, 160};
    }
    return {140, 150, 160};
}

QColor sliceColor(trace::Category category, uint32_t nameId)
{
    // Knuth's multiplicative hash spreads consecutive string ids over five shades.
    const int shade = int((nameId * 2654435761u) >> 29) % 5;  // 0..4
    const QColor base = sliceCategoryColor(category);
    return shade < 2 ? base.darker(100 + 7 * (2 - shade)) : base.lighter(100 + 7 * (shade - 2));
}

QString sliceCategoryLabel(trace::Category category)
{
    using trace::Category;
    switch (category) {
    case Category::CpuOp:
        return QStringLiteral("CPU op");
    case Category::UserAnnotation:
        return QStringLiteral("Annotation");
    case Category::PythonFunction:
        return QStringLiteral("Python");
    case Category::Runtime:
        return QStringLiteral("Runtime");
    case Category::Driver:
        return QStringLiteral("Driver");
    case Category::Kernel:
        return QStringLiteral("Kernel");
    case Category::Memcpy:
        return QStringLiteral("Memcpy");
    case Category::Memset:
        return QStringLiteral("Memset");
    case Category::Sync:
        return QStringLiteral("Sync");
    case Category::GpuUserAnnotation:
        return QStringLiteral("GPU annotation");
    case Category::Instant:
        return QStringLiteral("Instant");
    case Category::Overhead:
        return QStringLiteral("Overhead");
    case Category::ProfilerSpan:
        return QStringLiteral("Profiler");
    case Category::Other:
        return QStringLiteral("Other");
    }
    return QStringLiteral("Other");
}

}  // namespace kinetoscope::widgets
