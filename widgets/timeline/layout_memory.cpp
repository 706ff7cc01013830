#include "widgets/timeline/layout_memory.h"

#include "widgets/timeline/timeline_view.h"

#include <QSettings>
#include <QStringList>

namespace kinetoscope::widgets {

namespace {

QString keyOf(analysis::RunKind kind, const char* what)
{
    return QStringLiteral("timeline/%1/%2")
        .arg(QLatin1String(analysis::runKindName(kind)), QLatin1String(what));
}

}  // namespace

void restoreTimelineLayout(TimelineView& view, analysis::RunKind kind)
{
    const QSettings settings;
    const QStringList collapsed = settings.value(keyOf(kind, "collapsed")).toStringList();
    const auto& groups = view.layout().groups();
    for (uint32_t g = 0; g < groups.size(); ++g)
        if (collapsed.contains(QLatin1String(timeline::groupRoleName(groups[g].role))))
            view.setGroupCollapsed(g, true);
    if (settings.value(keyOf(kind, "foldsExpanded"), false).toBool())
        for (uint32_t f = 0; f < view.layout().folds().size(); ++f)
            view.setFoldExpanded(f, true);
}

void rememberTimelineLayout(const TimelineView& view, analysis::RunKind kind)
{
    // A role is remembered collapsed when any of its groups is: the next trace's other
    // processes (DataLoader workers, say) fold away as this one's did.
    QStringList collapsed;
    for (const timeline::TrackGroup& group : view.layout().groups()) {
        const QString role = QLatin1String(timeline::groupRoleName(group.role));
        if (group.collapsed && !collapsed.contains(role))
            collapsed << role;
    }
    bool expanded = false;
    for (const timeline::LayoutFold& fold : view.layout().folds())
        expanded = expanded || fold.expanded;
    QSettings settings;
    settings.setValue(keyOf(kind, "collapsed"), collapsed);
    settings.setValue(keyOf(kind, "foldsExpanded"), expanded);
}

}  // namespace kinetoscope::widgets
