// CUDA memory snapshots: the pickle reader on the real snapshots in ../shared/snapshots
// (their figures checked against Python's pickle.load of the same files), the code
// opcodes it refuses, truncation, the bare-list form, out-of-memory and leak readings on
// snapshots written here opcode by opcode, and `kinetoscope memory` as a user runs it.
#include "core/session/session.h"
#include "core/snapshot/native_frames.h"
#include "core/snapshot/pickle_reader.h"
#include "core/snapshot/snapshot_model.h"
#include "core/snapshot/snapshot_summary.h"
#include "core/snapshot/snapshot_timeline.h"
#include "tests/support/cli_runner.h"
#include "tests/support/pickle_writer.h"
#include "tests/support/test_support.h"

#include <QtTest>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

using namespace kinetoscope;
using nlohmann::json;
using test::entry;
using test::PickleWriter;
using test::segment;

namespace {

std::string bytesOf(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

class TestSnapshot : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    // The contract's figures on every real snapshot. The expected values are Python's
    // (pickle.load of the same file): len(segments), sum of total_size, sum of the
    // active_allocated blocks' size, and the entries of every device_traces list.
    void readsEveryRealSnapshot_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<qint64>("segments");
        QTest::addColumn<qint64>("reserved");
        QTest::addColumn<qint64>("allocated");
        QTest::addColumn<qint64>("entries");
        QTest::newRow("torch 2.6, Linux") << "cs336_forward_bf16_linux_torch26.pickle" << qint64(43)
                                          << qint64(861929472) << qint64(525286400) << qint64(2811);
        QTest::newRow("torch 2.9, Windows")
            << "cs336_transformer_windows_torch29.pickle" << qint64(216) << qint64(14180941824)
            << qint64(1377753600) << qint64(5163);
        QTest::newRow("training, annotations")
            << "decomfl_training_annotations_torch29.pickle" << qint64(61) << qint64(1897922560)
            << qint64(1014430208) << qint64(23105);
        QTest::newRow("no history") << "sketchkv_segments_only_torch24.pickle" << qint64(259)
                                    << qint64(17133731840) << qint64(16397578240) << qint64(1);
    }

    void readsEveryRealSnapshot()
    {
        QFETCH(QString, file);
        QFETCH(qint64, segments);
        QFETCH(qint64, reserved);
        QFETCH(qint64, allocated);
        QFETCH(qint64, entries);
        const std::filesystem::path path = test::sharedSnapshot(file.toUtf8().constData());
        const test::CliRun run = test::runCli({"memory", path.string(), "--json"});
        QVERIFY2(run.code == 0, run.err.c_str());
        const json j = json::parse(run.out);
        QCOMPARE(j["segments"].get<qint64>(), segments);
        QCOMPARE(j["reserved_bytes"].get<qint64>(), reserved);
        QCOMPARE(j["allocated_bytes"].get<qint64>(), allocated);
        QCOMPARE(j["trace_entries"].get<qint64>(), entries);
        for (const char* key : {"devices", "peak_allocated_bytes", "peak_time_us",
                                "top_stacks_at_peak", "leaks", "findings"})
            QVERIFY2(j.contains(key), key);
        // Allocated never exceeds what the allocator held: the replayed peak included.
        QVERIFY(j["allocated_bytes"].get<qint64>() <= reserved);
        if (entries > 1)
            QVERIFY2(j["peak_allocated_bytes"].get<qint64>() <= reserved, run.out.c_str());
        QVERIFY(j["peak_allocated_bytes"].get<qint64>() >= allocated);
    }

    // Fragmentation on a real snapshot, against pickle.load's reading of its segments: the
    // split segment caching the most, and the segments cached whole.
    void splitSegmentsAreReadAsPickleLoadReadsThem()
    {
        const test::CliRun run = test::runCli(
            {"memory", test::sharedSnapshot("cs336_transformer_windows_torch29.pickle").string(),
             "--json"});
        QVERIFY2(run.code == 0, run.err.c_str());
        const json j = json::parse(run.out);
        const json& worst = j["split_segments"].at(0);
        QCOMPARE(worst["inactive_bytes"].get<qint64>(), qint64(267812864));
        QCOMPARE(worst["allocated_bytes"].get<qint64>(), qint64(61440000));
        QCOMPARE(worst["reserved_bytes"].get<qint64>(), qint64(329252864));
        QCOMPARE(j["split_segments"].at(1)["inactive_bytes"].get<qint64>(), qint64(72351744));
        QCOMPARE(j["free_segments"].get<qint64>(), qint64(170));
        QCOMPARE(j["free_segment_bytes"].get<qint64>(), qint64(11773411328));
    }

    // At any size: the reader keeps only the memo entries a later GET fetches, and a sink
    // that takes each trace entry as it is appended lets the reader reuse the entry's slots:
    // the arena holds a few batches of entries, not the file's 23,105.
    void takenEntriesAreReleasedAsTheyAreRead()
    {
        class Counter : public snapshot::PickleSink
        {
        public:
            bool take(const snapshot::PickleArena& arena, const snapshot::PickleValue& dict,
                      uint32_t) override
            {
                if (!arena.get(dict, "action"))
                    return false;
                ++taken;
                return true;
            }
            size_t taken = 0;
        };
        const std::string bytes =
            bytesOf(test::sharedSnapshot("decomfl_training_annotations_torch29.pickle"));
        Counter counter;
        snapshot::PickleReadOptions options;
        options.sink = &counter;
        const snapshot::PickleResult kept = snapshot::readPickle(bytes, options);
        QVERIFY2(kept.ok(), kept.error.c_str());
        QCOMPARE(counter.taken, size_t(23105));
        QVERIFY2(kept.arena.dicts.size() < 3000, std::to_string(kept.arena.dicts.size()).c_str());
        QVERIFY2(kept.arena.lists.size() < 3000, std::to_string(kept.arena.lists.size()).c_str());
        const snapshot::PickleResult whole = snapshot::readPickle(bytes);  // no sink: every dict
        QVERIFY(whole.ok());
        QVERIFY(whole.arena.dicts.size() > 23105);
    }

    // What was alive at the peak, by place, as Python reads the same file: replaying its
    // device_traces to the peak's time, grouped by the innermost Python frame outside torch.
    void thePeakIsGroupedAsPickleLoadReadsIt()
    {
        const test::CliRun run = test::runCli(
            {"memory", test::sharedSnapshot("decomfl_training_annotations_torch29.pickle").string(),
             "--json"});
        QVERIFY2(run.code == 0, run.err.c_str());
        const json top = json::parse(run.out)["top_stacks_at_peak"];
        const std::pair<const char*, qint64> expected[] = {
            {"adam_forward.py:168 <listcomp>", 500957184},
            {"client.py:176 reset_model", 500957184},
            {"adam_forward.py:267 update_K_param_paramwise", 308871168},
            {"adam_forward.py:185 generate_perturbation_norm_paramwise", 154435584}};
        for (size_t i = 0; i < std::size(expected); ++i) {
            QCOMPARE(QString::fromStdString(top.at(i)["place"].get<std::string>()),
                     QString(expected[i].first));
            QCOMPARE(top.at(i)["bytes"].get<qint64>(), expected[i].second);
        }
        // By module: the line that called the innermost nn.Module each allocation was made
        // under (past torch/nn/modules/module.py's call frames), as Python groups them.
        const test::CliRun windows = test::runCli(
            {"memory", test::sharedSnapshot("cs336_transformer_windows_torch29.pickle").string(),
             "--json"});
        const json modules = json::parse(windows.out)["top_modules_at_peak"];
        const std::pair<const char*, qint64> byModule[] = {{"model.py:386 forward", 4228251648},
                                                           {"model.py:382 forward", 3639214080},
                                                           {"model.py:399 forward", 2415919104}};
        for (size_t i = 0; i < std::size(byModule); ++i) {
            QCOMPARE(QString::fromStdString(modules.at(i)["module_call"].get<std::string>()),
                     QString(byModule[i].first));
            QCOMPARE(modules.at(i)["bytes"].get<qint64>(), byModule[i].second);
        }
    }

    // The memo shares frame dicts and frame lists: they are interned once, not copied.
    void framesAndStacksAreInterned()
    {
        const snapshot::LoadedSnapshot loaded = snapshot::loadSnapshotFile(
            test::sharedSnapshot("decomfl_training_annotations_torch29.pickle"));
        QVERIFY2(loaded.model, loaded.error.c_str());
        const snapshot::SnapshotModel& m = *loaded.model;
        QCOMPARE(m.entries.size(), size_t(23105));
        QCOMPARE(m.annotations.size(), size_t(8));
        QVERIFY(m.stacks.size() < m.entries.size() / 4);
        QVERIFY(m.frames.size() < 5000);
        size_t withStack = 0;
        for (const snapshot::TraceEntry& e : m.entries)
            withStack += e.stack != 0;
        QCOMPARE(withStack, m.entries.size());  // every entry has frames in this file
        // The place names the user's line, not torch's or an installed package's.
        const snapshot::SnapshotSummary s = snapshot::summarize(m);
        QVERIFY(!s.topStacksAtPeak.empty());
        for (const snapshot::StackBytes& g : s.topStacksAtPeak) {
            const std::string place = m.place(g.stack);
            QVERIFY2(place.find("module.py") == std::string::npos, place.c_str());
        }
        // Two iterations marked (zero_grad twice): too few to call anything a leak.
        QVERIFY(s.leaks.empty());
    }

    // A pickle that names or calls code is refused, whatever it would have done.
    void codeIsRefusedNeverRun_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("opcode");
        QTest::newRow("GLOBAL") << QByteArray("\x80\x02"
                                              "cos\nsystem\n"
                                              "q\x00.",
                                              16)
                                << "GLOBAL";
        QTest::newRow("STACK_GLOBAL")
            << QByteArray("\x80\x04\x8c\x02os\x8c\x06system\x93.", 16) << "STACK_GLOBAL";
        QTest::newRow("REDUCE") << QByteArray("\x80\x04]R.", 5) << "REDUCE";
        QTest::newRow("BUILD") << QByteArray("\x80\x04}}b.", 6) << "BUILD";
    }

    void codeIsRefusedNeverRun()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, opcode);
        const snapshot::LoadedSnapshot loaded =
            snapshot::readSnapshot(std::string_view(bytes.constData(), size_t(bytes.size())));
        QVERIFY(!loaded.model);
        QVERIFY2(loaded.error.find(opcode.toStdString()) != std::string::npos,
                 loaded.error.c_str());
        QVERIFY(loaded.error.find("refused") != std::string::npos);
        QVERIFY(loaded.error.find('\n') == std::string::npos);
        // The command line: one line, exit 2, nothing on standard output.
        const std::filesystem::path path =
            std::filesystem::path(m_dir.path().toStdString()) / "evil.pickle";
        std::ofstream(path, std::ios::binary).write(bytes.constData(), bytes.size());
        const test::CliRun run = test::runCli({"memory", path.string()});
        QCOMPARE(run.code, 2);
        QVERIFY(run.out.empty());
        QCOMPARE(std::count(run.err.begin(), run.err.end(), '\n'), 1);
    }

    void aTruncatedOrForeignFileIsOneLine()
    {
        const std::string whole =
            bytesOf(test::sharedSnapshot("cs336_forward_bf16_linux_torch26.pickle"));
        for (size_t cut : {size_t(1), size_t(2), size_t(100), whole.size() / 2, whole.size() - 1}) {
            const snapshot::LoadedSnapshot loaded =
                snapshot::readSnapshot(std::string_view(whole).substr(0, cut));
            QVERIFY2(!loaded.model, std::to_string(cut).c_str());
            QVERIFY2(!loaded.error.empty() && loaded.error.find('\n') == std::string::npos,
                     loaded.error.c_str());
        }
        QVERIFY(snapshot::readSnapshot("{\"traceEvents\": []}").error.find("not a pickle") !=
                std::string::npos);
        QVERIFY(snapshot::readSnapshot(PickleWriter().list().endList().done())
                    .model);  // an empty list of segments
        QVERIFY(snapshot::readSnapshot(PickleWriter().dict().endDict().done())
                    .error.find("not a memory snapshot") != std::string::npos);
        const test::CliRun missing = test::runCli({"memory", "/no/such/snapshot.pickle"});
        QCOMPARE(missing.code, 2);
        QVERIFY(missing.err.find("no such file") != std::string::npos);
    }

    // torch.cuda.memory_snapshot()'s bare list of segments, saved under a .json name:
    // the bytes decide, and the other commands point to `memory`.
    void aBareListUnderAJsonNameIsASnapshot()
    {
        PickleWriter w;
        w.list();
        segment(w, 1 << 20, {{4096, "active_allocated"}, {8192, "inactive"}});
        segment(w, 1 << 24, {{1 << 20, "active_allocated"}});
        w.endList();
        const std::filesystem::path path =
            std::filesystem::path(m_dir.path().toStdString()) / "state.json";
        std::ofstream(path, std::ios::binary) << w.done();
        const test::CliRun run = test::runCli({"memory", path.string(), "--json"});
        QVERIFY2(run.code == 0, run.err.c_str());
        const json j = json::parse(run.out);
        QCOMPARE(j["form"].get<std::string>(), std::string("segments list"));
        QCOMPARE(j["segments"].get<int>(), 2);
        QCOMPARE(j["reserved_bytes"].get<int64_t>(), int64_t(4096 + 8192 + (1 << 20)));
        QCOMPARE(j["allocated_bytes"].get<int64_t>(), int64_t(4096 + (1 << 20)));
        QCOMPARE(j["largest_free_block_bytes"].get<int64_t>(), int64_t(8192));
        for (const char* command : {"info", "summary", "diagnose"}) {
            const test::CliRun other = test::runCli({command, path.string()});
            QCOMPARE(other.code, 2);
            QVERIFY2(other.err.find("kinetoscope memory") != std::string::npos, other.err.c_str());
        }
    }

    // The history replayed: the peak, what was alive at it, an out-of-memory reading.
    void theHistoryGivesThePeakAndTheOutOfMemory()
    {
        const int64_t MiB = 1 << 20;
        PickleWriter w;
        w.dict().str("segments").list();
        segment(w, 0x100000000, {{64 * MiB, "active_allocated"}, {448 * MiB, "inactive"}});
        w.endList().str("device_traces").list().list();
        entry(w, "segment_alloc", 0x100000000, 512 * MiB, 1000);
        entry(w, "alloc", 0x100000000, 64 * MiB, 1000, "/home/u/train.py", 10);   // weights: kept
        entry(w, "alloc", 0x104000000, 300 * MiB, 2000, "/home/u/model.py", 42);  // activations
        entry(w, "alloc", 0x116C00000, 100 * MiB, 2500, "/home/u/model.py", 43);
        entry(w, "free_requested", 0x104000000, 300 * MiB, 3000);
        entry(w, "free_completed", 0x104000000, 300 * MiB, 3001);
        entry(w, "free_requested", 0x116C00000, 100 * MiB, 3100);
        entry(w, "free_completed", 0x116C00000, 100 * MiB, 3101);
        w.dict()
            .key("action", "oom")
            .key("addr", 0)
            .key("size", 600 * MiB)
            .key("device_free", 20 * MiB)
            .key("time_us", 4000);
        w.endDict();
        w.endList().endList().endDict();
        const snapshot::LoadedSnapshot loaded = snapshot::readSnapshot(w.done());
        QVERIFY2(loaded.model, loaded.error.c_str());
        const snapshot::SnapshotSummary s = snapshot::summarize(*loaded.model);
        QCOMPARE(s.peakAllocatedBytes, 464 * MiB);
        QCOMPARE(s.peakTimeUs, int64_t(2500));
        QCOMPARE(s.perDevice[0].startAllocatedBytes, int64_t(0));
        QCOMPARE(s.topStacksAtPeak.size(), size_t(3));
        QCOMPARE(loaded.model->place(s.topStacksAtPeak[0].stack), std::string("model.py:42 step"));
        QCOMPARE(s.topStacksAtPeak[0].bytes, 300 * MiB);
        QVERIFY(s.outOfMemory && s.outOfMemory->requestedBytes == 600 * MiB &&
                s.outOfMemory->deviceFreeBytes == 20 * MiB);
        // 448 MiB cached free in one block: the request needed more than the cache and the
        // device together, not a tidier cache.
        QCOMPARE(s.outOfMemory->reservedUnallocatedBytes, 448 * MiB);
        QCOMPARE(s.outOfMemory->largestFreeBlockBytes, 448 * MiB);
        QVERIFY(!s.outOfMemory->fragmented());
        QVERIFY(!s.findings.empty());
        QCOMPARE(s.findings.front().id, std::string("snapshot-out-of-memory"));
        QCOMPARE(s.findings.front().severity, analysis::Severity::High);
    }

    // A snapshot of the same run as a trace: its peak placed in the trace's step, phase, op.
    // ResNet-50 on a V100 (2021): at 1623212388540300 us the autograd thread is in
    // aten::cudnn_convolution_backward_input, inside ProfilerStep#5; at 1623212388614894 us
    // the main thread is in aten::cudnn_convolution (under conv2d) in ProfilerStep#6 (read
    // from the JSON with Python). The snapshot is written here with its peak at that time.
    void thePeakIsPlacedInATraceOfTheSameRun_data()
    {
        QTest::addColumn<qint64>("peakUs");
        QTest::addColumn<QString>("step");
        QTest::addColumn<QString>("phase");
        QTest::addColumn<QString>("op");
        QTest::newRow("backward") << qint64(1623212388540300) << "ProfilerStep#5"
                                  << "backward"
                                  << "aten::cudnn_convolution_backward_input";
        QTest::newRow("forward") << qint64(1623212388614894) << "ProfilerStep#6"
                                 << "forward"
                                 << "aten::cudnn_convolution";
        QTest::newRow("after the trace") << qint64(1623212390000000) << ""
                                         << ""
                                         << "";
    }
    void thePeakIsPlacedInATraceOfTheSameRun()
    {
        QFETCH(qint64, peakUs);
        QFETCH(QString, step);
        QFETCH(QString, phase);
        QFETCH(QString, op);
        const int64_t MiB = 1 << 20;
        PickleWriter w;
        w.dict().str("segments").list();
        segment(w, 0x100000000, {{512 * MiB, "inactive"}});
        w.endList().str("device_traces").list().list();
        entry(w, "alloc", 0x100000000, 64 * MiB, peakUs - 1000, "/home/u/train.py", 10);
        entry(w, "alloc", 0x104000000, 300 * MiB, peakUs, "/home/u/model.py", 42);
        entry(w, "free_requested", 0x104000000, 300 * MiB, peakUs + 50);
        entry(w, "free_requested", 0x100000000, 64 * MiB, peakUs + 60);
        w.endList().endList().endDict();
        const std::string file = (m_dir.path() + QStringLiteral("/peak.pickle")).toStdString();
        {
            std::ofstream out(file, std::ios::binary);
            out << w.done();
        }
        const std::string trace =
            test::sharedTrace("kineto/resnet50_v100_workers4_2021.pt.trace.json.gz").string();
        const test::CliRun run = test::runCli({"memory", file, "--trace", trace, "--json"});
        QVERIFY2(run.code == 0, run.err.c_str());
        const json placed = json::parse(run.out)["peak_in_trace"];
        QCOMPARE(placed["in_window"].get<bool>(), !step.isEmpty());
        QCOMPARE(QString::fromStdString(placed["step"].get<std::string>()), step);
        QCOMPARE(QString::fromStdString(placed["phase"].get<std::string>()), phase);
        QCOMPARE(QString::fromStdString(placed["op"].get<std::string>()), op);
        const std::string sentence = placed["sentence"].get<std::string>();
        QVERIFY2(step.isEmpty() ? sentence.find("after the trace ends") != std::string::npos
                                : sentence.find(step.toStdString() + "'s " + phase.toStdString()) !=
                                      std::string::npos,
                 sentence.c_str());
        const test::CliRun text = test::runCli({"memory", file, "--trace", trace});
        QVERIFY(text.out.find("In the trace: The peak is") != std::string::npos);
    }

    // A training loop peaks in every step: the snapshot's first peak is before a trace
    // taken later in the run, but a later step reaches the same peak inside its window, and
    // that one is placed (a run profiled after its measured steps, as the engine does).
    void aRecurringPeakIsPlacedWhereTheTraceSeesIt()
    {
        const int64_t MiB = 1 << 20;
        const int64_t inside = 1623212388540300;  // ProfilerStep#5's backward (above)
        const int64_t before = inside - 10'000'000;
        PickleWriter w;
        w.dict().str("segments").list();
        segment(w, 0x100000000, {{512 * MiB, "inactive"}});
        w.endList().str("device_traces").list().list();
        entry(w, "alloc", 0x100000000, 64 * MiB, before - 1000, "/home/u/train.py", 10);
        // Three steps, each to 364 MiB and back to 64: iterations (snapshot_iterations.h).
        for (int64_t at : {before, before + 1'000'000, inside}) {
            entry(w, "alloc", 0x104000000, 300 * MiB, at, "/home/u/model.py", 42);
            entry(w, "free_requested", 0x104000000, 300 * MiB, at + 50);
        }
        entry(w, "free_requested", 0x100000000, 64 * MiB, inside + 60);
        w.endList().endList().endDict();
        const std::string file = (m_dir.path() + QStringLiteral("/recurring.pickle")).toStdString();
        test::writeFile(file, w.done());
        const std::string trace =
            test::sharedTrace("kineto/resnet50_v100_workers4_2021.pt.trace.json.gz").string();
        const test::CliRun run = test::runCli({"memory", file, "--trace", trace, "--json"});
        QVERIFY2(run.code == 0, run.err.c_str());
        const json out = json::parse(run.out);
        QCOMPARE(out["peak_time_us"].get<int64_t>(), before);  // the first is the peak
        const json placed = out["peak_in_trace"];
        QVERIFY(placed["in_window"].get<bool>());
        QCOMPARE(placed["step"].get<std::string>(), std::string("ProfilerStep#5"));
        QCOMPARE(placed["phase"].get<std::string>(), std::string("backward"));
        QCOMPARE(placed["peak_moments"].get<int>(), 3);
        QCOMPARE(placed["peak_moments_in_window"].get<int>(), 1);
        QCOMPARE(placed["time_us"].get<int64_t>(), inside);  // the step the trace holds
        const std::string sentence = placed["sentence"].get<std::string>();
        QVERIFY2(sentence.find("within 1 % of its peak 3 times (at most once an iteration), 1 of "
                               "them in the trace's window") != std::string::npos,
                 sentence.c_str());
    }

    // C++ stacks (a LibTorch program, the engine): the operator the program called and
    // what called it, past the recorder's, the allocator's and the dispatcher's frames.
    // The frames are an H200 run's (tests/data/h200_runs/snapshot), shortened where their
    // parameter lists ran on.
    void aCppStackNamesTheOperatorAndItsCaller_data()
    {
        QTest::addColumn<QStringList>("frames");
        QTest::addColumn<QString>("place");
        const QStringList recorder = {
            "torch::unwind::unwind()", "torch::CapturedTraceback::gather(bool, bool, bool)",
            "torch::cuda::(anonymous namespace)::gather_with_cpp()",
            "c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(unsigned "
            "long, CUstream_st*)",
            "at::detail::empty_cuda(c10::ArrayRef<long>, c10::TensorOptions const&)"};
        const QString wrapper =
            "c10::impl::wrap_kernel_functor_unboxed_<c10::impl::detail::WrapFunctionIntoFunctor_<"
            "c10::CompileTimeFunctionPointer<at::Tensor (at::Tensor const&, at::Tensor const&), "
            "&at::(anonymous namespace)::wrapper_CUDA_mm>>>::call(c10::OperatorKernel*, "
            "c10::DispatchKeySet, at::Tensor const&, at::Tensor const&)";
        QTest::newRow("forward in a module")
            << recorder +
                   QStringList{"at::_ops::mm::redispatch(c10::DispatchKeySet, at::Tensor const&, "
                               "at::Tensor const&)",
                               "torch::autograd::VariableType::(anonymous namespace)::mm("
                               "c10::DispatchKeySet, at::Tensor const&, at::Tensor const&)",
                               wrapper,
                               "at::_ops::mm::call(at::Tensor const&, at::Tensor const&)",
                               "at::native::matmul(at::Tensor const&, at::Tensor const&)",
                               "at::_ops::matmul::call(at::Tensor const&, at::Tensor const&)",
                               "torch::nn::LinearImpl::forward(at::Tensor const&)",
                               "kinetoscope::engine::TransformerImpl::forward(at::Tensor const&)",
                               "__libc_start_main"}
            << "aten::matmul in torch::nn::LinearImpl::forward";
        QTest::newRow("backward, a derivative formula")
            << recorder +
                   QStringList{
                       "at::_ops::mm::call(at::Tensor const&, at::Tensor const&)",
                       "torch::autograd::generated::details::mm_mat1_backward(at::Tensor "
                       "const&, at::Tensor const&)",
                       "torch::autograd::generated::AddmmBackward0_apply_functional(std::"
                       "vector<at::Tensor, std::allocator<at::Tensor> >&&, std::array<bool, "
                       "3ul>)",
                       "torch::autograd::generated::AddmmBackward0::apply(std::vector<at::"
                       "Tensor, std::allocator<at::Tensor> >&&)",
                       "torch::autograd::Engine::thread_main(std::shared_ptr<torch::"
                       "autograd::GraphTask> const&)",
                       "__clone"}
            << "aten::mm in AddmmBackward0";
        QTest::newRow("backward, the engine itself")
            << recorder +
                   QStringList{"void at::native::gpu_reduce_kernel<float, float, 4, 4>(at::"
                               "TensorIterator&, at::native::ReduceOp<float> const&)",
                               "at::_ops::sum_dim_IntList::call(at::Tensor const&, "
                               "c10::OptionalArrayRef<long>, bool, std::optional<c10::ScalarType>)",
                               "at::Tensor at::_sum_to<c10::SymInt>(at::Tensor, "
                               "c10::ArrayRef<c10::SymInt>, bool)",
                               "torch::autograd::InputMetadata::reduce_grad(at::Tensor&) const",
                               "torch::autograd::Engine::evaluate_function(std::shared_ptr<torch::"
                               "autograd::GraphTask>&, torch::autograd::Node*)",
                               "pthread_condattr_setpshared"}
            << "aten::sum_dim_IntList in autograd's engine (backward)";
        QTest::newRow("an optimizer's state")
            << recorder + QStringList{"at::_ops::zeros_like::call(at::Tensor const&, "
                                      "std::optional<c10::ScalarType>)",
                                      "torch::optim::Adam::step(std::function<at::Tensor ()>)",
                                      "main"}
            << "aten::zeros_like in torch::optim::Adam::step";
        QTest::newRow("a stripped caller")
            << recorder + QStringList{"at::_ops::zeros_like::call(at::Tensor const&, "
                                      "std::optional<c10::ScalarType>)",
                                      "void std::_Hashtable<std::__cxx11::basic_string<char>, "
                                      "unsigned long>::_M_assign_elements(std::_Hashtable const&)",
                                      "??", "__libc_start_main"}
            << "aten::zeros_like";
        QTest::newRow("a module in a Sequential")
            << recorder +
                   QStringList{"at::_ops::gelu::call(at::Tensor const&, "
                               "std::basic_string_view<char>)",
                               "torch::nn::AnyModuleHolder<kinetoscope::engine::detail::("
                               "anonymous namespace)::EncoderBlockImpl, at::Tensor>::forward("
                               "std::vector<torch::nn::AnyValue>&&)",
                               "kinetoscope::engine::detail::forwardBlocks(torch::nn::"
                               "Sequential&, at::Tensor, long)"}
            << "aten::gelu in kinetoscope::engine::detail::(anonymous "
               "namespace)::EncoderBlockImpl::forward";
        QTest::newRow("the program's own function")
            << recorder + QStringList{"at::_ops::empty::call(c10::ArrayRef<long>)",
                                      "auto myapp::(anonymous namespace)::makeBuffer<float>(long)",
                                      "main"}
            << "aten::empty in myapp::(anonymous namespace)::makeBuffer";
    }
    void aCppStackNamesTheOperatorAndItsCaller()
    {
        QFETCH(QStringList, frames);
        QFETCH(QString, place);
        std::vector<std::string> owned;
        for (const QString& f : frames)
            owned.push_back(f.toStdString());
        const std::vector<std::string_view> signatures(owned.begin(), owned.end());
        QCOMPARE(QString::fromStdString(snapshot::nativePlace(signatures)), place);
    }

    // A demangled signature's function: without return type, template arguments or
    // parameters, whatever the demangler wrote around it.
    void aSignatureGivesItsFunction_data()
    {
        QTest::addColumn<QString>("signature");
        QTest::addColumn<QString>("function");
        QTest::newRow("return type and templates")
            << "void at::native::gpu_reduce_kernel<float, float, 4, 4>(at::TensorIterator&)"
            << "at::native::gpu_reduce_kernel";
        QTest::newRow("anonymous namespace")
            << "at::(anonymous namespace)::create_out(c10::ArrayRef<long>, "
               "c10::TensorOptions const&)"
            << "at::(anonymous namespace)::create_out";
        QTest::newRow("anonymous namespace in a template argument")
            << "torch::nn::AnyModuleHolder<kinetoscope::engine::(anonymous namespace)::BlockImpl, "
               "at::Tensor>::forward(std::vector<torch::nn::AnyValue>&&)"
            << "torch::nn::AnyModuleHolder::forward";
        QTest::newRow("a conversion operator") << "c10::SymInt::operator long() const"
                                               << "c10::SymInt::operator long";
        QTest::newRow("operator new") << "operator new(unsigned long)"
                                      << "operator new";
        QTest::newRow("decltype (auto)") << "decltype (auto) myapp::apply<int>(int&&)"
                                         << "myapp::apply";
        QTest::newRow("a lambda") << "main::{lambda(int)#1}::operator()(int) const"
                                  << "main::{lambda(int)#1}::operator";
        QTest::newRow("no parameters") << "__libc_start_main"
                                       << "__libc_start_main";
        QTest::newRow("unknown") << "??"
                                 << "??";
    }
    void aSignatureGivesItsFunction()
    {
        QFETCH(QString, signature);
        QFETCH(QString, function);
        QCOMPARE(QString::fromStdString(snapshot::qualifiedFunction(signature.toStdString())),
                 function);
    }

    // The C library's frames are machinery; a program's function whose name begins like
    // one of them is not.
    void aProgramsOwnFunctionIsNotMachinery()
    {
        for (const char* machinery : {"clone", "__clone", "_start", "start_thread",
                                      "__libc_start_main", "pthread_condattr_setpshared", "??", ""})
            QVERIFY2(snapshot::isMachinery(machinery), machinery);
        for (const char* own : {"cloneModel", "start_threads_pool", "main", "myapp::train"})
            QVERIFY2(!snapshot::isMachinery(own), own);
    }

    // The engine's own snapshot of a GPU run (`kinetoscope run --memory-snapshot --profile`
    // on an H200, 2026-11-28: the transformer at hidden 64, 2 layers, batch 8; docs/gpu-run.md)
    // with the profiler trace of the same run. C++ stacks only: the places name the
    // operator and its caller. Every step peaks at the same bytes, and the trace, taken
    // after the measured steps, holds four of them.
    void anEngineSnapshotOfAGpuRunIsReadAndPlacedInItsTrace()
    {
        const std::filesystem::path run = KINETOSCOPE_SOURCE_DIR "/tests/data/h200_runs/snapshot";
        // Gzipped after the run, as gpu-check.sh keeps them: read as it is.
        const std::string file = (run / "memory_snapshot.pickle.gz").string();
        QVERIFY(snapshot::isSnapshotFile(file));
        const snapshot::LoadedSnapshot loaded = snapshot::loadSnapshotFile(file);
        QVERIFY2(loaded.model, loaded.error.c_str());
        const snapshot::SnapshotSummary s = snapshot::summarize(*loaded.model);
        // Python's pickle.load of the same file: len(segments), the sum of total_size, of the
        // active_allocated blocks' size, the device_traces entries; its replay's peak
        // (bench/snapshot_replay.py).
        QCOMPARE(s.segments, size_t(5));
        QCOMPARE(s.reservedBytes, int64_t(73400320));
        QCOMPARE(s.allocatedBytes, int64_t(68157440));
        QCOMPARE(s.traceEntries, size_t(5186));
        QCOMPARE(s.peakAllocatedBytes, int64_t(72667232));
        QCOMPARE(s.iterations, size_t(11));  // Optimizer.step annotations
        // Every full step: a Python replay of the same file, its maxima between Optimizer.step
        // annotations, had 10 within 1 % of the peak (the first step and the last lower).
        QCOMPARE(s.peakMomentsUs.size(), size_t(10));
        QVERIFY(!s.topStacksAtPeak.empty());
        // 32 MiB: the workspace cuBLAS takes for the main thread's handle in the first matmul
        // (and another for autograd's thread in backward).
        QCOMPARE(
            loaded.model->place(s.topStacksAtPeak.front().stack),
            std::string("cuBLAS workspace for aten::matmul in torch::nn::LinearImpl::forward"));
        bool optimizerState = false;
        for (const snapshot::StackBytes& g : s.topStacksAtPeak) {
            const std::string place = loaded.model->place(g.stack);
            QVERIFY2(place.starts_with("aten::") ||
                         place.starts_with("cuBLAS workspace for aten::"),
                     place.c_str());
            optimizerState |=
                place == "aten::zeros_like in kinetoscope::engine::detail::ClippedAdam::step";
        }
        QVERIFY(optimizerState);
        const std::vector<std::string> stack =
            loaded.model->readableStack(s.topStacksAtPeak.front().stack, 4);
        QCOMPARE(stack.front(),
                 std::string("at::cuda::setWorkspaceForHandle"));  // past the recorder
        QVERIFY(stack.back().starts_with("+ "));

        const test::CliRun placed =
            test::runCli({"memory", file, "--trace", (run / "trace.json.gz").string(), "--json"});
        QVERIFY2(placed.code == 0, placed.err.c_str());
        const json inTrace = json::parse(placed.out)["peak_in_trace"];
        QVERIFY(inTrace["in_window"].get<bool>());
        QCOMPARE(inTrace["peak_moments"].get<int>(), 10);
        QCOMPARE(inTrace["peak_moments_in_window"].get<int>(), 4);
        QCOMPARE(inTrace["step"].get<std::string>(), std::string("ProfilerStep#7"));
        QCOMPARE(inTrace["phase"].get<std::string>(), std::string("backward"));

        // The session names memory_snapshot.pickle; gzipped, it is still the session's.
        std::string error;
        const auto session = session::loadSession(run / "session.kinetoscope.json", error);
        QVERIFY2(session, error.c_str());
        QCOMPARE(session::snapshotOf(*session, run / "session.kinetoscope.json"),
                 run / "memory_snapshot.pickle.gz");

        // Cut short, it says so in one line and reads nothing.
        const std::string gz = test::readBytes(file);
        const std::string cut = (m_dir.path() + QStringLiteral("/cut.pickle.gz")).toStdString();
        test::writeFile(cut, gz.substr(0, gz.size() / 2));
        const snapshot::LoadedSnapshot truncated = snapshot::loadSnapshotFile(cut);
        QVERIFY(!truncated.model);
        QVERIFY2(truncated.error.find("the gzip stream ends early") != std::string::npos,
                 truncated.error.c_str());
        QVERIFY(truncated.error.find('\n') == std::string::npos);
    }

    // A training step's activations at the peak: the Windows transformer snapshot passes
    // through backward, and 11.7 GiB of its 13.0 GiB peak is freed before the dump. The forward-
    // only snapshots get no such finding: their temporaries are not activations for backward.
    void activationsThatDominateATrainingPeakAreAFinding()
    {
        const snapshot::LoadedSnapshot windows = snapshot::loadSnapshotFile(
            test::sharedSnapshot("cs336_transformer_windows_torch29.pickle"));
        QVERIFY(windows.model);
        const snapshot::SnapshotSummary s = snapshot::summarize(*windows.model);
        QVERIFY(s.backward);
        const analysis::Finding* f = nullptr;
        for (const analysis::Finding& g : s.findings)
            if (g.id == "snapshot-activations-dominate")
                f = &g;
        QVERIFY(f);
        // Python: replaying device_traces to the peak, the allocations alive then whose
        // address is freed later add up to 12,550,078,464 bytes.
        QCOMPARE(s.transientAtPeakBytes, int64_t(12550078464));
        QVERIFY(f->snippet.find("checkpoint(block, x") != std::string::npos);
        for (const char* forwardOnly : {"cs336_forward_bf16_linux_torch26.pickle",
                                        "decomfl_training_annotations_torch29.pickle"}) {
            const snapshot::LoadedSnapshot loaded =
                snapshot::loadSnapshotFile(test::sharedSnapshot(forwardOnly));
            const snapshot::SnapshotSummary other = snapshot::summarize(*loaded.model);
            QVERIFY(!other.backward);
            for (const analysis::Finding& g : other.findings)
                QVERIFY2(g.id != "snapshot-activations-dominate", forwardOnly);
        }
    }

    // One forward pass through similar layers repeats its allocations, but memory only grows
    // between them: one pass, no iterations, so nothing it keeps is called a leak.
    void aForwardPassIsNotIterations()
    {
        const snapshot::LoadedSnapshot loaded = snapshot::loadSnapshotFile(
            test::sharedSnapshot("cs336_forward_bf16_linux_torch26.pickle"));
        QVERIFY2(loaded.model, loaded.error.c_str());
        const snapshot::SnapshotSummary s = snapshot::summarize(*loaded.model);
        QCOMPARE(s.iterations, size_t(0));
        QVERIFY(s.leaks.empty());
    }

    // Fragmentation: per segment, what its blocks hold and cache; an out-of-memory whose
    // request the cache held in total but in no one block is fragmentation's.
    void aFragmentedCacheIsReadPerSegment()
    {
        const int64_t MiB = 1 << 20;
        PickleWriter w;
        w.dict().str("segments").list();
        segment(w, 0x100000000,
                {{100 * MiB, "active_allocated"},
                 {60 * MiB, "inactive"},
                 {40 * MiB, "active_allocated"},
                 {50 * MiB, "inactive"}});
        segment(w, 0x200000000, {{20 * MiB, "active_allocated"}, {2 * MiB, "inactive"}});
        w.endList().str("device_traces").list().list();
        w.dict()
            .key("action", "oom")
            .key("addr", 0)
            .key("size", 100 * MiB)
            .key("device_free", 0)
            .key("time_us", 10);
        w.endDict();
        w.endList().endList().endDict();
        const snapshot::LoadedSnapshot loaded = snapshot::readSnapshot(w.done());
        QVERIFY2(loaded.model, loaded.error.c_str());
        const snapshot::SnapshotSummary s = snapshot::summarize(*loaded.model);
        QCOMPARE(s.segmentUse.size(), size_t(2));
        const snapshot::SegmentUse& worst =
            s.segmentUse.front();  // the most cached in free blocks first
        QCOMPARE(worst.segment, uint32_t(0));
        QCOMPARE(worst.allocatedBytes, 140 * MiB);
        QCOMPARE(worst.inactiveBytes, 110 * MiB);
        QCOMPARE(worst.inactiveBlocks, uint32_t(2));
        QCOMPARE(worst.largestFreeBlockBytes, 60 * MiB);
        QVERIFY(s.outOfMemory);
        QCOMPARE(s.outOfMemory->reservedUnallocatedBytes, 112 * MiB);
        QCOMPARE(s.outOfMemory->largestFreeBlockBytes, 60 * MiB);
        QVERIFY(s.outOfMemory->fragmented());
        QVERIFY(s.findings.front().explanation.find("fragmentation") != std::string::npos);
        QVERIFY(s.findings.front().snippet.find("expandable_segments") != std::string::npos);
    }

    // The stacked timeline the GUI draws: at every column the bands alive add up to the
    // allocated bytes replayed, on every real snapshot; the peak column holds the peak.
    void theBandsStackToTheAllocatedBytes_data()
    {
        QTest::addColumn<QString>("file");
        for (const char* name :
             {"cs336_forward_bf16_linux_torch26.pickle", "cs336_transformer_windows_torch29.pickle",
              "decomfl_training_annotations_torch29.pickle",
              "sketchkv_segments_only_torch24.pickle"})
            QTest::newRow(name) << name;
    }
    void theBandsStackToTheAllocatedBytes()
    {
        QFETCH(QString, file);
        const snapshot::LoadedSnapshot loaded =
            snapshot::loadSnapshotFile(test::sharedSnapshot(file.toUtf8().constData()));
        QVERIFY2(loaded.model, loaded.error.c_str());
        const snapshot::SnapshotSummary s = snapshot::summarize(*loaded.model);
        const bool timed = s.firstTimeUs >= 0 && s.lastTimeUs > s.firstTimeUs;
        const std::vector<snapshot::DeviceTimeline> timelines =
            snapshot::timelinesOf(*loaded.model, timed);
        const snapshot::DeviceTimeline& t = timelines[size_t(s.peakDevice)];
        QCOMPARE(t.peakBytes, s.peakAllocatedBytes);
        const double from = t.size() ? double(t.when(0)) : 0,
                     to = t.size() ? double(t.when(t.size() - 1)) + 1 : 1;
        const std::vector<size_t> samples = snapshot::columnSamples(t, from, to, 400);
        size_t columns = 0;
        bool peakSeen = false;
        snapshot::forEachColumn(t, samples, [&](size_t c, const std::vector<uint32_t>& live) {
            int64_t stacked = 0;
            for (uint32_t b : live)
                stacked += t.bands[b].size;
            QCOMPARE(stacked, t.allocatedAfter(samples[c]));
            QVERIFY(std::is_sorted(live.begin(), live.end()));
            QCOMPARE(live, t.liveAfter(samples[c]));
            peakSeen |= stacked == t.peakBytes;
            ++columns;
        });
        QCOMPARE(columns, size_t(400));
        QVERIFY(peakSeen);
        // Reserved never falls below allocated, and the dump's reserved is where it ends.
        for (size_t i = 0; i < t.size(); ++i)
            QVERIFY2(t.reservedAfter(i + 1) >= t.allocated[i], std::to_string(i).c_str());
        QCOMPARE(t.reservedAfter(t.size()), s.perDevice[size_t(s.peakDevice)].reservedBytes);
    }

    // A place that keeps something alive from every iteration leaks; weights moved once
    // do not.
    void aLeakGrowsWithTheIterations_data()
    {
        QTest::addColumn<bool>("annotated");
        QTest::newRow("iterations from annotations") << true;
        QTest::newRow("iterations from a repeating allocation") << false;
    }
    void aLeakGrowsWithTheIterations()
    {
        QFETCH(bool, annotated);
        const int64_t MiB = 1 << 20;
        PickleWriter w;
        std::vector<std::pair<int64_t, std::string>> blocks{{100 * MiB, "active_allocated"}};
        for (int i = 0; i < 6; ++i)
            blocks.push_back({10 * MiB, "active_allocated"});
        w.dict().str("segments").list();
        segment(w, 0x200000000, blocks);
        w.endList().str("device_traces").list().list();
        entry(w, "alloc", 0x200000000, 100 * MiB, 0, "/home/u/train.py",
              5);  // the weights, at the start
        int64_t at = 0x200000000 + 100 * MiB;
        for (int i = 0; i < 6; ++i) {
            const int64_t t = 1000 * (i + 1);
            entry(w, "alloc", 0x300000000, 50 * MiB, t + 10, "/home/u/model.py",
                  42);  // activations: freed
            entry(w, "alloc", at, 10 * MiB, t + 20, "/home/u/train.py",
                  77);  // history.append(loss)
            entry(w, "free_requested", 0x300000000, 50 * MiB, t + 30);
            at += 10 * MiB;
        }
        w.endList().endList().str("external_annotations").list();
        for (int i = 0; i < 6 && annotated; ++i)
            w.dict()
                .key("name", "Optimizer.zero_grad#Adam.zero_grad")
                .key("stage", "START")
                .key("device", 0)
                .key("time_us", 1000 * (i + 1))
                .endDict();
        w.endList().endDict();
        const snapshot::LoadedSnapshot loaded = snapshot::readSnapshot(w.done());
        QVERIFY2(loaded.model, loaded.error.c_str());
        const snapshot::SnapshotSummary s = snapshot::summarize(*loaded.model);
        QCOMPARE(s.iterations, size_t(6));
        QVERIFY2(s.iterationsFoundBy.starts_with(annotated
                                                     ? "annotation Optimizer.zero_grad"
                                                     : "a repeating allocation at model.py:42"),
                 s.iterationsFoundBy.c_str());
        QCOMPARE(s.leaks.size(), size_t(1));
        QCOMPARE(loaded.model->place(s.leaks[0].stack), std::string("train.py:77 step"));
        // The history runs from 0 to 6,030 us: those allocated from 2,010 us on, five of six.
        QCOMPARE(s.leaks[0].allocations, int64_t(5));
        bool found = false;
        for (const analysis::Finding& f : s.findings)
            found |= f.id == "snapshot-leak" && f.title.find("train.py:77") != std::string::npos;
        QVERIFY(found);
    }

    void memoryHasHelp()
    {
        const test::CliRun run = test::runCli({"memory", "--help"});
        QCOMPARE(run.code, 0);
        QVERIFY(run.out.find("memory SNAPSHOT") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestSnapshot)
#include "test_snapshot.moc"
