#pragma once
// `kinetoscope profile` ends the way the script it ran ended. A script killed by a signal
// (Ctrl-C's uncaught KeyboardInterrupt, SIGTERM, a crash) makes this process end by the
// same signal once its report is out, so that its caller sees what it would have seen
// without us: a shell loop stops at Ctrl-C, subprocess reports -15, not 143.

namespace kinetoscope::cli {

// Records that this process is to end by `signal` (the script's WTERMSIG).
void endBySignal(int signal);
// At the end of main's command: the streams flushed, this process raises the recorded
// signal with its default action (and no core file of its own: a crash's core is the
// script's). Returns when none was recorded, or when the signal did not end the process.
void endAsRecorded();

}  // namespace kinetoscope::cli
