#pragma once
// The `kinetoscope` GUI entry and the `report` command (both need a QApplication).
namespace kinetoscope::gui {

// `kinetoscope [FILE...] [--screenshot PNG [--view overview|diagnosis|operators|kernels|memory]]`
// --screenshot grabs the window once the first file is open, writes the PNG and quits
// (exit 0, or 2 when the file could not be opened): how the tests and docs/ get pictures
// of the real app.
int runGui(int argc, char** argv);
// `kinetoscope report TRACE --out FILE.{pdf,png,html}`, headless (offscreen platform).
int runReport(int argc, char** argv);

}  // namespace kinetoscope::gui
