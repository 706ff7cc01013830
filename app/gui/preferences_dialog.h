#pragma once
// Edit > Preferences: the app's settings, kept in QSettings. One so far: how many threads
// reading and analysing a trace may use (performance/threads; 0 = every core, the default;
// 1 = the serial path). Every trace, job and comparison opened after it is saved uses it;
// the tabs already open keep what they were opened with. A `--threads N` on the app's
// command line wins over it for that launch.
#include <QDialog>
#include <optional>

class QSpinBox;

namespace kinetoscope::gui {

inline constexpr const char* kThreadsSettingKey = "performance/threads";

// The saved setting: 0 (every core) when unset or not a thread count.
unsigned threadsSetting();
void setThreadsSetting(unsigned threads);

class PreferencesDialog : public QDialog
{
    Q_OBJECT
public:
    // `launchThreads`: this launch's --threads, when it was given (the dialog says it wins
    // until the app closes).
    explicit PreferencesDialog(std::optional<unsigned> launchThreads = std::nullopt,
                               QWidget* parent = nullptr);
    QSpinBox* threadsBox() const { return m_threads; }
    void accept() override;  // saves, then closes

private:
    QSpinBox* m_threads;
};

}  // namespace kinetoscope::gui
