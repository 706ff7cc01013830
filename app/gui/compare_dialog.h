#pragma once
// File > Compare: pick the before and after sides among the open documents, the recent
// files, or any file.
#include <QDialog>

class QComboBox;

namespace kinetoscope::gui {

class CompareDialog : public QDialog
{
    Q_OBJECT
public:
    // `open`: the paths of the open documents, the current one last; `recent`: recent files.
    CompareDialog(const QStringList& open, const QStringList& recent, QWidget* parent = nullptr);
    QString beforePath() const;
    QString afterPath() const;

private:
    QComboBox* m_before;
    QComboBox* m_after;
};

}  // namespace kinetoscope::gui
