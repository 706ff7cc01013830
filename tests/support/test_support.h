#pragma once
// Helpers shared by the test suites: where the real traces are, and temporary copies
// of them (plain, gzip, cut, corrupted) for the bad-input tests.
#include <QString>
#include <QTemporaryDir>
#include <filesystem>
#include <string>
#include <vector>

namespace kinetoscope::test {

// ../shared/traces beside the repository (see tests/CMakeLists.txt).
std::filesystem::path sharedTracesDir();
std::filesystem::path sharedTrace(const std::string& relativePath);
// Every trace file there (.json and .json.gz, in sub-folders too), sorted; none when the
// folder is missing.
std::vector<std::filesystem::path> sharedTraceFiles();
// ../shared/snapshots/NAME: the real CUDA memory snapshots beside the traces.
std::filesystem::path sharedSnapshot(const std::string& name);
// A fixture of the repository's own: tests/data/RELATIVE ("compiled/recompile.json.gz").
std::filesystem::path dataFile(const std::string& relative);

// Whole content of a file, as it is on disk.
std::string readBytes(const std::filesystem::path& path);
// Whole decompressed content of a (possibly gzip) file.
std::string readDecompressed(const std::filesystem::path& path);
void writeFile(const std::filesystem::path& path, const std::string& bytes);
void writeGzip(const std::filesystem::path& path, const std::string& bytes);

}  // namespace kinetoscope::test
