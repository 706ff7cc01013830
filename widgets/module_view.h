#pragma once
// The Modules page: the nn.Module hierarchy as a tree (host and device time, inclusive
// and exclusive; the selected module's ops and kernels below it) over the icicle graph
// of the host threads' call tree. A trace without module spans says so in place of the
// tree; the icicle graph shows whatever frames the trace has.
#include "core/analysis/call_tree.h"
#include "core/analysis/module_tree.h"

#include <QWidget>

class QLabel;
class QTreeWidget;
class QTreeWidgetItem;
class QComboBox;

namespace kinetoscope::widgets {

class FlameGraph;

class ModuleView : public QWidget
{
    Q_OBJECT
public:
    enum Column
    {
        Name,
        Calls,
        HostTotal,
        HostSelf,
        DeviceTotal,
        DeviceSelf,
        ColumnCount
    };
    explicit ModuleView(QWidget* parent = nullptr);
    void setTrees(const analysis::ModuleTree& modules, const analysis::CallTree& calls);

    QTreeWidget* tree() const { return m_tree; }
    FlameGraph* flameGraph() const { return m_flame; }
    QLabel* notice() const { return m_notice; }
    QLabel* details() const { return m_details; }

private:
    void addNode(const analysis::ModuleTree& modules, int32_t index, QTreeWidgetItem* parent);
    void showDetails(QTreeWidgetItem* item);
    analysis::ModuleTree m_modules;
    QLabel* m_notice;
    QWidget* m_upper = nullptr;  // the module tree beside the selected module's details
    QTreeWidget* m_tree;
    QLabel* m_details;
    QComboBox* m_widthBy;
    FlameGraph* m_flame;
};

}  // namespace kinetoscope::widgets
