#include "widgets/session_view.h"

#include "core/session/lab_reading.h"
#include "core/session/session.h"
#include "widgets/findings_view.h"
#include "widgets/live_run_view.h"
#include "widgets/table_export.h"

#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

namespace kinetoscope::widgets {

SessionView::SessionView(std::shared_ptr<const document::Document> session, QWidget* parent)
    : QWidget(parent), m_document(std::move(session)), m_pages(new QTabWidget(this)),
      m_findings(new FindingsView(this))
{
    const session::Session& s = *m_document->session;
    m_lab = new LiveRunView(LiveRunView::titleOf(s), this);
    m_lab->showSession(s);
    m_findings->setFindings(m_document->findings);
    m_findings->setTraceActions(false);
    setExportDocumentName(this, exportBaseName(QString::fromStdString(m_document->path)));

    QString noteText =
        tr("<b>A session recorded without a trace:</b> what was measured and the findings it "
           "supports; %1.")
            .arg(QString::fromStdString(session::noTraceAdvice(s)));
    // A run cut short (cancelled, its engine killed) says so before anything else: what it
    // holds is what it measured before, never a whole run.
    if (const std::optional<std::string> stopped = session::stoppedEarly(s))
        noteText = QStringLiteral("<p style=\"color:#c62828\"><b>%1</b></p>")
                       .arg(QString::fromStdString(*stopped).toHtmlEscaped()) +
                   noteText;
    auto* note = new QLabel(noteText, this);
    note->setWordWrap(true);
    note->setTextFormat(Qt::RichText);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(note);
    layout->addWidget(m_pages, 1);
    m_pages->addTab(m_findings, tr("&Diagnosis"));
    m_pages->addTab(m_lab, tr("&Lab"));
}

QAbstractItemView* SessionView::currentTable() const
{
    return m_pages->currentIndex() == Diagnosis
               ? static_cast<QAbstractItemView*>(m_findings->list())
               : m_lab->labTable();
}

void SessionView::setCurrentPage(Page page)
{
    m_pages->setCurrentIndex(page);
}

}  // namespace kinetoscope::widgets
