#pragma once
// The Compare window's torch.compile page, shown when either side is compiled: what
// `kinetoscope diff` prints as the compiled change (core/compare/compiled_change.h), laid
// out. The step before → after; its four parts (fusion, GEMMs, launches or host dispatch,
// other), each with before, after and change, as a table and as a waterfall; whether the
// times are device time (kernels) or host time (ops' self time); the fused groups (their
// source ops, the eager ops' time → the generated kernels' time); and what got slower.
// Nanoseconds per steady step; the page only draws what core/compare computed.
#include "core/compare/compiled_change.h"
#include "core/compare/step_change.h"

#include <QWidget>

class QAbstractItemView;
class QLabel;
class QTableWidget;

namespace kinetoscope::widgets {

class WaterfallChart;

class CompiledChangePage : public QWidget
{
    Q_OBJECT
public:
    // The parts table: one row per part in the change's order, then the step.
    enum PartColumn
    {
        Part,
        Before,
        After,
        Change,
        CountBefore,  // ops (kernels) per step
        CountAfter,
        PartColumnCount
    };
    // The fused groups table, one row per group in the change's order.
    enum GroupColumn
    {
        FusedOps,  // the source ops, joined " · "
        EagerOps,  // per step
        EagerTime,
        Kernels,  // per step
        KernelTime,
        GroupChange,  // after − before
        GroupColumnCount
    };
    // `step`: the verdict on the same steady steps (is the change significant?).
    CompiledChangePage(const compare::CompiledChange& change, const compare::StepChange& step,
                       QWidget* parent = nullptr);

    QLabel* headline() const { return m_headline; }
    QLabel* timeBasis() const { return m_basis; }
    QTableWidget* parts() const { return m_parts; }
    QTableWidget* groups() const { return m_groups; }
    QTableWidget* slower() const { return m_slower; }
    WaterfallChart* waterfall() const { return m_waterfall; }
    // The table that last had the keyboard focus, else the parts: what File > Export table
    // writes.
    QAbstractItemView* currentTable() const;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void fillParts(const compare::CompiledChange& change);
    void fillGroups(const compare::CompiledChange& change);
    void fillSlower(const compare::CompiledChange& change);

    QLabel* m_headline = nullptr;
    QLabel* m_basis = nullptr;
    QTableWidget* m_parts = nullptr;
    QTableWidget* m_groups = nullptr;
    QTableWidget* m_slower = nullptr;
    WaterfallChart* m_waterfall = nullptr;
    QAbstractItemView* m_focused = nullptr;
};

}  // namespace kinetoscope::widgets
