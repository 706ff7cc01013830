#include "app/gui/compare_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QPushButton>

namespace kinetoscope::gui {

namespace {

QWidget* chooser(QComboBox*& combo, const QStringList& choices, int current, QWidget* parent)
{
    auto* row = new QWidget(parent);
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    combo = new QComboBox(row);
    combo->setEditable(true);
    combo->addItems(choices);
    combo->setCurrentIndex(current);
    combo->setMinimumContentsLength(60);
    auto* browse = new QPushButton(QObject::tr("Browse…"), row);
    QComboBox* target = combo;
    QObject::connect(browse, &QPushButton::clicked, row, [target, row] {
        const QString path = QFileDialog::getOpenFileName(
            row, QObject::tr("Choose a trace or session"), QString(),
            QObject::tr("Traces and sessions (*.json *.json.gz *.gz);;All files (*)"));
        if (!path.isEmpty())
            target->setCurrentText(path);
    });
    layout->addWidget(combo, 1);
    layout->addWidget(browse);
    return row;
}

}  // namespace

CompareDialog::CompareDialog(const QStringList& open, const QStringList& recent, QWidget* parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Compare two runs"));
    QStringList choices = open;
    for (const QString& path : recent)
        if (!choices.contains(path))
            choices << path;
    // The current document is the "after" (the change just made); the one opened before it, the
    // "before".
    const int after = open.isEmpty() ? -1 : int(open.size()) - 1;
    const int before = open.size() >= 2 ? int(open.size()) - 2 : (choices.size() > 1 ? 1 : -1);
    auto* form = new QFormLayout(this);
    form->addRow(tr("Before:"), chooser(m_before, choices, before, this));
    form->addRow(tr("After:"), chooser(m_after, choices, after, this));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Compare"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);
}

QString CompareDialog::beforePath() const
{
    return m_before->currentText();
}

QString CompareDialog::afterPath() const
{
    return m_after->currentText();
}

}  // namespace kinetoscope::gui
