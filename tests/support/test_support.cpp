#include "tests/support/test_support.h"

#include <algorithm>
#include <fstream>
#include <stdexcept>
#include <zlib.h>

namespace kinetoscope::test {

std::filesystem::path sharedTracesDir()
{
    return std::filesystem::path(KINETOSCOPE_SHARED_TRACES);
}

std::filesystem::path sharedTrace(const std::string& relativePath)
{
    return sharedTracesDir() / relativePath;
}

std::filesystem::path sharedSnapshot(const std::string& name)
{
    return sharedTracesDir().parent_path() / "snapshots" / name;
}

std::filesystem::path dataFile(const std::string& relative)
{
    return std::filesystem::path(KINETOSCOPE_SOURCE_DIR "/tests/data") / relative;
}

std::vector<std::filesystem::path> sharedTraceFiles()
{
    std::vector<std::filesystem::path> files;
    const std::filesystem::path root = sharedTracesDir();
    if (!std::filesystem::exists(root))
        return files;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
        const std::string name = entry.path().filename().string();
        if (entry.is_regular_file() && (name.ends_with(".json") || name.ends_with(".json.gz")))
            files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

std::string readBytes(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string readDecompressed(const std::filesystem::path& path)
{
    gzFile file = gzopen(path.c_str(), "rb");
    if (!file)
        throw std::runtime_error("cannot open " + path.string());
    std::string content;
    char buffer[1 << 16];
    int got = 0;
    while ((got = gzread(file, buffer, sizeof buffer)) > 0)
        content.append(buffer, static_cast<size_t>(got));
    gzclose(file);
    return content;
}

void writeFile(const std::filesystem::path& path, const std::string& bytes)
{
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void writeGzip(const std::filesystem::path& path, const std::string& bytes)
{
    gzFile file = gzopen(path.c_str(), "wb6");
    if (!file)
        throw std::runtime_error("cannot write " + path.string());
    gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size()));
    gzclose(file);
}

}  // namespace kinetoscope::test
