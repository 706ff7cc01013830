#pragma once
// "Run a lab": the knobs of `kinetoscope run` as a form.
#include "core/lab/run_config.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace kinetoscope::gui {

class LabDialog : public QDialog
{
    Q_OBJECT
public:
    explicit LabDialog(QWidget* parent = nullptr);
    // The run the form describes; false + a one-line reason when it cannot run as filled.
    bool config(lab::RunConfig& config, QString& error) const;
    void setConfig(const lab::RunConfig& config);

private:
    void updateEnabled();

    QComboBox* m_model;
    QLineEdit* m_modelFile;
    QComboBox* m_dataset;
    QLineEdit* m_dataPath;
    QComboBox* m_device;
    QComboBox* m_mode;
    QSpinBox* m_memoryLimitMb = nullptr;
    QSpinBox* m_checkpointEvery = nullptr;
    QSpinBox *m_batch, *m_steps, *m_warmup, *m_workers, *m_prefetch, *m_seed;
    QSpinBox *m_hidden, *m_layers, *m_imageSize, *m_sampleCpuUs, *m_sampleIoUs;
    QCheckBox *m_pin, *m_nonBlocking, *m_shuffle, *m_dropLast;
    QCheckBox *m_lab, *m_split, *m_profile;
    QLineEdit* m_sweepWorkers;
    QLineEdit* m_sweepBatch;
    QLineEdit* m_outDir;
    QLabel* m_error;
};

}  // namespace kinetoscope::gui
