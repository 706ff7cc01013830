#include "widgets/findings_view.h"

#include "core/analysis/diagnosis/finding_text.h"
#include "core/format/csv.h"
#include "widgets/keyboard_focus.h"
#include "widgets/table_export.h"

#include <QAbstractTableModel>
#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QListWidget>
#include <QPainter>
#include <QPushButton>
#include <QSplitter>
#include <QStyledItemDelegate>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <iterator>

namespace kinetoscope::widgets {

namespace {

QColor severityColor(analysis::Severity s)
{
    switch (s) {
    case analysis::Severity::High:
        return QColor(0xc6, 0x28, 0x28);
    case analysis::Severity::Medium:
        return QColor(0xef, 0x6c, 0x00);
    case analysis::Severity::Low:
        break;
    }
    return QColor(0x61, 0x61, 0x61);
}

QString joined(const std::vector<analysis::EvidenceTarget>& targets)
{
    QStringList names;
    for (const analysis::EvidenceTarget& t : targets)
        names << QString::fromStdString(t.name);
    return names.join(QStringLiteral("; "));
}

// The findings as rows for the CSV export: what each finding holds, its numbers raw.
class FindingsTable : public QAbstractTableModel
{
public:
    enum Column
    {
        Rank,
        Severity,
        Rule,
        Title,
        Gain,
        GainShare,
        GainKind,
        GainPer,
        GainMethod,
        RangeBegin,
        RangeEnd,
        Ranges,
        Steps,
        Ops,
        Kernels,
        Figures,
        Explanation,
        Fix,
        Snippet,
        ColumnCount
    };
    using QAbstractTableModel::QAbstractTableModel;

    void setFindings(const std::vector<analysis::Finding>* findings, double stepNs,
                     int64_t originNs)
    {
        beginResetModel();
        m_findings = findings;
        m_stepNs = stepNs;
        m_originNs = originNs;
        endResetModel();
    }
    int rowCount(const QModelIndex& parent = {}) const override
    {
        return parent.isValid() || !m_findings ? 0 : int(m_findings->size());
    }
    int columnCount(const QModelIndex& parent = {}) const override
    {
        return parent.isValid() ? 0 : ColumnCount;
    }

    QVariant data(const QModelIndex& index, int role) const override
    {
        if (!index.isValid() || index.row() >= rowCount() ||
            (role != Qt::DisplayRole && role != Qt::UserRole))
            return {};
        const analysis::Finding& f = (*m_findings)[size_t(index.row())];
        const auto text = [](const std::string& s) { return QVariant(QString::fromStdString(s)); };
        const bool hasRange = !f.evidence.ranges.empty();
        switch (index.column()) {
        case Rank:
            return index.row() + 1;
        case Severity:
            return QString::fromLatin1(analysis::severityName(f.severity));
        case Rule:
            return text(f.id);
        case Title:
            return text(f.title);
        case Gain:
            return f.estimatedGainNs;
        case GainShare:
            // Of the step the diagnosis graded it on; the lab's measured gains are graded
            // on the lab's own step.
            return m_stepNs > 0 && !f.measured && !f.perBatch
                       ? QVariant(f.estimatedGainNs / m_stepNs)
                       : QVariant(QString());
        case GainKind:
            return f.measured ? QStringLiteral("measured") : QStringLiteral("estimated");
        case GainPer:
            return f.perBatch ? QStringLiteral("batch") : QStringLiteral("step");
        case GainMethod:
            return text(f.gainMethod);
        case RangeBegin:
            return hasRange ? QVariant(qlonglong(f.evidence.ranges.front().begin - m_originNs))
                            : QVariant(QString());
        case RangeEnd:
            return hasRange ? QVariant(qlonglong(f.evidence.ranges.front().end - m_originNs))
                            : QVariant(QString());
        case Ranges:
            return qlonglong(f.evidence.ranges.size());
        case Steps: {
            QStringList steps;
            for (const std::string& step : f.evidence.steps)
                steps << QString::fromStdString(step);
            return steps.join(QStringLiteral("; "));
        }
        case Ops:
            return joined(f.evidence.ops);
        case Kernels:
            return joined(f.evidence.kernels);
        case Figures: {
            // name=value unit, the value raw: "dataloader_share=0.33 fraction".
            QStringList figures;
            for (const analysis::Evidence::Figure& figure : f.evidence.figures)
                figures << QStringLiteral("%1=%2 %3")
                               .arg(QString::fromStdString(figure.name),
                                    QString::fromStdString(format::csvNumber(figure.value)),
                                    QString::fromLatin1(analysis::unitKey(figure.unit)));
            return figures.join(QStringLiteral("; "));
        }
        case Explanation:
            return text(f.explanation);
        case Fix:
            return text(f.fix);
        case Snippet:
            return text(f.snippet);
        default:
            return {};
        }
    }

    QVariant headerData(int section, Qt::Orientation orientation, int role) const override
    {
        if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
            return {};
        static const char* const names[] = {"Rank",
                                            "Severity",
                                            "Rule",
                                            "Title",
                                            "Gain",
                                            "Gain share of step",
                                            "Gain kind",
                                            "Gain per",
                                            "Gain method",
                                            "First range begin after the first event",
                                            "First range end after the first event",
                                            "Ranges",
                                            "Steps",
                                            "Ops",
                                            "Kernels",
                                            "Figures",
                                            "Explanation",
                                            "Fix",
                                            "Snippet"};
        static const char* const units[] = {"", "", "",   "",   "ns",    "fraction", "",
                                            "", "", "ns", "ns", "count", "",         "",
                                            "", "", "",   "",   ""};
        static_assert(std::size(names) == ColumnCount && std::size(units) == ColumnCount);
        if (role == Qt::DisplayRole || role == ColumnNameRole)
            return QString::fromLatin1(names[section]);
        if (role == UnitRole && *units[section])
            return QString::fromLatin1(units[section]);
        return {};
    }

private:
    const std::vector<analysis::Finding>* m_findings = nullptr;
    double m_stepNs = 0;
    int64_t m_originNs = 0;  // the trace's first event
};

// A finding in the list: its severity as a badge in its colour, then "N. title" wrapped to
// the list's width, so the whole title shows however narrow the list is.
class FindingDelegate : public QStyledItemDelegate
{
public:
    explicit FindingDelegate(QListWidget* list) : QStyledItemDelegate(list), m_list(list) {}

    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override
    {
        const int width = std::max(1, m_list->viewport()->width() - kViewMargin);
        const QRect text = option.fontMetrics.boundingRect(
            QRect(0, 0, std::max(1, width - textLeft(option)), kTall), Qt::TextWordWrap,
            index.data(Qt::DisplayRole).toString());
        return {width, std::max(text.height(), badgeSize(option).height()) + 2 * kPadding};
    }

    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override
    {
        QStyleOptionViewItem item(option);
        initStyleOption(&item, index);
        const QString title = item.text;
        item.text.clear();  // the background, selection and focus as the style draws them
        const QWidget* widget = option.widget;
        QStyle* style = widget ? widget->style() : QApplication::style();
        style->drawControl(QStyle::CE_ItemViewItem, &item, painter, widget);
        painter->save();
        const QRect badge(QPoint(option.rect.left() + kPadding, option.rect.top() + kPadding),
                          badgeSize(option));
        painter->setRenderHint(QPainter::Antialiasing, false);
        painter->fillRect(badge, index.data(Qt::ForegroundRole).value<QBrush>().color());
        painter->setFont(badgeFont(option));
        painter->setPen(Qt::white);
        painter->drawText(badge, Qt::AlignCenter, index.data(kSeverityRole).toString());
        painter->setFont(option.font);
        const bool selected = option.state & QStyle::State_Selected;
        painter->setPen(
            option.palette.color(selected ? QPalette::HighlightedText : QPalette::Text));
        const QRect text = option.rect.adjusted(textLeft(option), kPadding, -kPadding, -kPadding);
        painter->drawText(text, Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, title);
        painter->restore();
    }

    static constexpr int kSeverityRole = Qt::UserRole + 1;

private:
    static constexpr int kPadding = 4;
    static constexpr int kViewMargin = 2;  // the item inside the viewport, never wider
    static constexpr int kTall = 100000;   // room enough for any title's lines

    static QFont badgeFont(const QStyleOptionViewItem& option)
    {
        QFont font = option.font;
        font.setBold(true);
        if (font.pointSizeF() > 0)
            font.setPointSizeF(font.pointSizeF() * 0.85);
        else  // a font sized in pixels has no point size
            font.setPixelSize(std::max(1, int(font.pixelSize() * 0.85)));
        return font;
    }
    // Wide enough for the widest severity: the titles start in one column.
    static QSize badgeSize(const QStyleOptionViewItem& option)
    {
        const QFontMetrics metrics(badgeFont(option));
        return {metrics.horizontalAdvance(QStringLiteral("medium")) + 10, metrics.height() + 2};
    }
    static int textLeft(const QStyleOptionViewItem& option)
    {
        return kPadding + badgeSize(option).width() + 6;
    }

    QListWidget* m_list;
};

}  // namespace

QString findingHtml(const analysis::Finding& f, int rank)
{
    QString html = QStringLiteral("<h3 style=\"margin-bottom:2px\">%1. %2</h3>")
                       .arg(rank)
                       .arg(QString::fromStdString(f.title).toHtmlEscaped());
    html += QStringLiteral(
                "<p style=\"margin-top:0\"><code>%1</code> · <b style=\"color:%2\">%3</b> · %4 "
                "<b>%5</b> <span style=\"color:#616161\">(%6)</span></p>")
                .arg(QString::fromStdString(f.id), severityColor(f.severity).name(),
                     QString::fromLatin1(analysis::severityName(f.severity)),
                     QString::fromLatin1(analysis::gainKind(f)),
                     QString::fromStdString(analysis::gainText(f)),
                     QString::fromStdString(f.gainMethod).toHtmlEscaped());
    html += QStringLiteral("<p>%1</p><p><b>Evidence</b></p><ul>")
                .arg(QString::fromStdString(f.explanation).toHtmlEscaped());
    for (const auto& fig : f.evidence.figures)
        html += QStringLiteral("<li>%1: <b>%2</b></li>")
                    .arg(QString::fromStdString(analysis::figureLabel(fig)).toHtmlEscaped(),
                         QString::fromStdString(analysis::figureValue(fig)).toHtmlEscaped());
    if (!f.evidence.steps.empty()) {
        QStringList steps;
        for (const auto& s : f.evidence.steps)
            steps << QString::fromStdString(s);
        html += QStringLiteral("<li>steps: %1</li>")
                    .arg(steps.join(QStringLiteral(", ")).toHtmlEscaped());
    }
    for (const auto& op : f.evidence.ops)
        html += QStringLiteral("<li>op: <code>%1</code></li>")
                    .arg(QString::fromStdString(analysis::targetText(op)).toHtmlEscaped());
    for (const auto& k : f.evidence.kernels)
        html += QStringLiteral("<li>kernel: <code>%1</code></li>")
                    .arg(QString::fromStdString(analysis::targetText(k)).toHtmlEscaped());
    html += QStringLiteral("</ul><p><b>Fix.</b> %1</p>")
                .arg(QString::fromStdString(f.fix).toHtmlEscaped());
    if (!f.snippet.empty())
        html += QStringLiteral("<pre style=\"background:#f5f5f5;padding:6px\">%1</pre>")
                    .arg(QString::fromStdString(f.snippet).toHtmlEscaped());
    return html;
}

FindingsView::FindingsView(QWidget* parent)
    : QWidget(parent), m_list(new QListWidget(this)), m_details(new QTextBrowser(this)),
      m_copy(new QPushButton(tr("Copy snippet"), this)),
      m_evidence(new QPushButton(tr("Show evidence"), this)),
      m_timeline(new QPushButton(tr("Show in timeline"), this))
{
    m_table = new FindingsTable(this);
    m_list->setSelectionMode(QAbstractItemView::ExtendedSelection);
    // Each finding's severity as a badge and its whole title, wrapped: laid out again at
    // each width, never scrolled sideways.
    m_list->setItemDelegate(new FindingDelegate(m_list));
    m_list->setResizeMode(QListView::Adjust);
    m_list->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_list->setVerticalScrollMode(QAbstractItemView::ScrollPerPixel);
    installTableExport(m_list, QStringLiteral("findings"), m_table);
    auto* splitter = new QSplitter(this);
    splitter->addWidget(m_list);
    auto* right = new QWidget(splitter);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addWidget(m_details);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_copy);
    buttons->addWidget(m_evidence);
    buttons->addWidget(m_timeline);
    buttons->addStretch();
    rightLayout->addLayout(buttons);
    splitter->addWidget(right);
    splitter->setStretchFactor(1, 2);
    splitter->setSizes({380, 900});
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(splitter);
    m_details->setOpenExternalLinks(false);
    showFocusRing(m_details);
    m_copy->setToolTip(tr("Copy the fix's Python snippet to the clipboard"));
    m_evidence->setToolTip(tr("Show the ops, kernels or time range behind this finding"));
    m_timeline->setToolTip(
        tr("Show the time range (or the kernel or op) behind this finding on the timeline"));
    connect(m_list, &QListWidget::currentRowChanged, this, &FindingsView::showDetails);
    connect(m_timeline, &QPushButton::clicked, this, [this] {
        const int row = m_list->currentRow();
        if (row >= 0)
            Q_EMIT timelineRequested(m_findings[size_t(row)]);
    });
    connect(m_copy, &QPushButton::clicked, this, [this] {
        const int row = m_list->currentRow();
        if (row >= 0)
            QApplication::clipboard()->setText(
                QString::fromStdString(m_findings[size_t(row)].snippet));
    });
    connect(m_evidence, &QPushButton::clicked, this, [this] {
        const int row = m_list->currentRow();
        if (row >= 0)
            Q_EMIT evidenceRequested(m_findings[size_t(row)]);
    });
}

void FindingsView::setFindings(const std::vector<analysis::Finding>& findings)
{
    m_findings = findings;
    static_cast<FindingsTable*>(m_table)->setFindings(&m_findings, m_stepNs, m_originNs);
    m_list->clear();
    for (size_t i = 0; i < findings.size(); ++i) {
        auto* item = new QListWidgetItem(
            QStringLiteral("%1. %2").arg(i + 1).arg(QString::fromStdString(findings[i].title)));
        const QString severity = QString::fromLatin1(analysis::severityName(findings[i].severity));
        item->setForeground(severityColor(findings[i].severity));  // the badge's colour
        item->setData(FindingDelegate::kSeverityRole, severity);
        item->setData(Qt::AccessibleTextRole, tr("%1 severity: %2").arg(severity, item->text()));
        item->setToolTip(QString::fromStdString(findings[i].id));
        m_list->addItem(item);
    }
    if (findings.empty())
        m_details->setHtml(
            tr("<p>No finding: nothing in this trace crosses a rule's threshold.</p>"));
    else
        m_list->setCurrentRow(0);
    m_copy->setEnabled(!findings.empty());
    m_evidence->setEnabled(!findings.empty());
    m_timeline->setEnabled(!findings.empty());
}

void FindingsView::setTraceFigures(double stepNs, int64_t originNs)
{
    m_stepNs = stepNs;
    m_originNs = originNs;
    static_cast<FindingsTable*>(m_table)->setFindings(&m_findings, m_stepNs, m_originNs);
}

void FindingsView::setTraceActions(bool shown)
{
    m_evidence->setVisible(shown);
    m_timeline->setVisible(shown);
}

int FindingsView::findingCount() const
{
    return m_list->count();
}

QString FindingsView::findingTitle(int row) const
{
    return m_list->item(row) ? m_list->item(row)->text() : QString();
}

void FindingsView::select(int row)
{
    m_list->setCurrentRow(row);
}

QString FindingsView::detailsText() const
{
    return m_details->toPlainText();
}

void FindingsView::showDetails(int row)
{
    if (row < 0 || size_t(row) >= m_findings.size())
        return;
    m_details->setHtml(findingHtml(m_findings[size_t(row)], row + 1));
    m_copy->setEnabled(!m_findings[size_t(row)].snippet.empty());
    Q_EMIT findingSelected(m_findings[size_t(row)]);
}

}  // namespace kinetoscope::widgets
