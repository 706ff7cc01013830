// `kinetoscope summary TRACE [--json]`: the contracted JSON keys, on every real trace.
#include "core/document/document.h"
#include "tests/support/cli_runner.h"
#include "tests/support/test_support.h"

#include <QtTest>
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

using kinetoscope::test::sharedTrace;
using nlohmann::json;

namespace {
using Run = kinetoscope::test::CliRun;
using kinetoscope::test::runCli;
// RFC 4180 records: quoted fields may hold commas, doubled quotes and line breaks.
std::vector<std::vector<std::string>> parseCsv(const std::string& text)
{
    std::vector<std::vector<std::string>> records(1, std::vector<std::string>(1));
    bool quoted = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        std::string& field = records.back().back();
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"')
                field += text[++i];
            else if (c == '"')
                quoted = false;
            else
                field += c;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            records.back().emplace_back();
        } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
            ++i;
            records.emplace_back(1);
        } else {
            field += c;
        }
    }
    if (records.back().size() == 1 && records.back()[0].empty())
        records.pop_back();  // after the last CRLF
    return records;
}

size_t columnOf(const std::vector<std::string>& header, const std::string& name)
{
    return size_t(std::find(header.begin(), header.end(), name) - header.begin());
}

// Every number in the document is finite (no NaN or inf leaks out as a made-up value).
bool allFinite(const json& value)
{
    if (value.is_number_float())
        return std::isfinite(value.get<double>());
    if (value.is_structured()) {
        for (const auto& item : value)
            if (!allFinite(item))
                return false;
    }
    return true;
}

// A summary with what may change from run to run left out: the time it took.
json withoutTimes(const std::string& out)
{
    json s = json::parse(out);
    s.erase("analysis_seconds");
    s.erase("load_seconds");
    return s;
}

// The text without its last line, "loaded in …, analysed in …".
std::string withoutTimeLine(const std::string& text)
{
    const size_t last = text.rfind("\nloaded in ");
    return last == std::string::npos ? text : text.substr(0, last);
}
}  // namespace

class TestCliSummary : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void printsTheContractedJson()
    {
        const Run run =
            runCli({"summary", sharedTrace("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz"),
                    "--json"});
        QCOMPARE(run.code, 0);
        const json s = json::parse(run.out);
        QCOMPARE(s["steps"].size(), size_t(6));
        const json& first = s["steps"][0];
        QCOMPARE(first["name"].get<std::string>(), std::string("ProfilerStep#5"));
        QVERIFY(first.contains("start_us"));
        QCOMPARE(first["duration_us"].get<double>(), 187948.0);
        QCOMPARE(first["breakdown_us"]["dataloader"].get<double>(), 69317.0);
        for (const char* key : {"kernel", "memcpy", "memset", "communication", "runtime",
                                "dataloader", "cpu_exec", "other", "total"})
            QVERIFY2(s["breakdown_us"].contains(key), key);
        QVERIFY(std::abs(s["breakdown_us"]["kernel"].get<double>() - 98588.67) < 0.01);
        const json& gpu = s["gpu"]["0"];
        QVERIFY(std::abs(gpu["utilization"].get<double>() - 0.5551) < 1e-4);
        QVERIFY(std::abs(gpu["sm_efficiency"].get<double>() - 0.5468) < 1e-4);
        QVERIFY(std::abs(gpu["achieved_occupancy"].get<double>() - 49.128) < 1e-3);
        QCOMPARE(gpu["tensor_core_share"].get<double>(), 0.0);
        QVERIFY(s["top_ops"].size() > 5);
        QVERIFY(s["top_ops"][0].contains("device_total_us"));
        QVERIFY(s["top_kernels"].size() > 5);
        QVERIFY(s["top_kernels"][0].contains("grid"));
        QVERIFY(s["memory"]["cuda:0"]["peak_allocated_bytes"].get<int64_t>() > 0);
        QVERIFY(s["memory"]["cuda:0"]["peak_reserved_bytes"].is_null());  // 2021: no totals
        QVERIFY(!s.contains("utilization_series"));
        QCOMPARE(s["modules"]["recorded"].get<bool>(), false);  // no Python tracer in 2021
        // fp32 convolutions on a V100: two thirds of the kernel time is in eligible ops,
        // none of it on Tensor Cores (the SIMT cuDNN kernels).
        QVERIFY(std::abs(s["tensor_cores"]["eligible_share"].get<double>() - 0.676) < 0.001);
        QCOMPARE(s["tensor_cores"]["tensor_core_share_of_eligible"].get<double>(), 0.0);
        QVERIFY(s["modules"]["tree"].empty());
        // What the trace is, first, and the causal model of its steady step.
        QCOMPARE(s["window"]["kind"].get<std::string>(), std::string("training"));
        QCOMPARE(s["window"]["steady_steps"].get<size_t>(), size_t(6));
        QVERIFY(s["window"]["headline"].get<std::string>().starts_with("training, 6 steady steps"));
        const json& model = s["causal_model"];
        QVERIFY(std::abs(model["replayed_step_us"].get<double>() - model["step_us"].get<double>()) <
                0.01 * model["step_us"].get<double>());
        QVERIFY(model["device_idle_by_host_state_us"]["dataloader"].get<double>() > 59000.0);
        QVERIFY(model["gain_us"]["dataloader"].get<double>() > 59000.0);
    }

    // The module hierarchy, depth first, and its lines in the text (figures checked by
    // hand in test_modules).
    // The "roofline" contract on a real B200 training step: the device and its peaks, and
    // for every GEMM row FLOPs per call of 2·M·K·N read from its own input shapes.
    void printsTheRooflineContract()
    {
        const Run run = runCli(
            {"summary", sharedTrace("misc/aipe_b200_deepseek_v3_train_step.json.gz"), "--json"});
        QCOMPARE(run.code, 0);
        const json r = json::parse(run.out)["roofline"];
        QCOMPARE(r["device"].get<std::string>(), std::string("NVIDIA B200"));
        QCOMPARE(r["peaks"]["model"].get<std::string>(), std::string("B200"));
        QVERIFY(r["peaks"]["fp16_bf16_tflops"].get<double>() > 2000);
        QVERIFY(r["peaks"]["memory_gbps"].get<double>() > 7000);
        QVERIFY(r["rated_time_us"].get<double>() <= r["kernel_time_us"].get<double>());
        int gemms = 0;
        for (const json& op : r["ops"]) {
            for (const char* key : {"name", "input_shapes", "dtype", "calls", "flops_per_call",
                                    "bytes_per_call", "device_time_us", "achieved_tflops",
                                    "achieved_gbps", "peak_tflops", "peak_gbps", "bound"})
                QVERIFY2(op.contains(key), key);
            const std::string name = op["name"];
            if ((name != "aten::mm" && name != "aten::addmm") || op["flops_per_call"].is_null())
                continue;
            const json shapes = json::parse(op["input_shapes"].get<std::string>());
            const json& a = shapes[name == "aten::mm" ? 0 : 1];
            const json& b = shapes[name == "aten::mm" ? 1 : 2];
            const double m = a[0], k = a[1], n = b[1];
            QCOMPARE(op["flops_per_call"].get<double>(), 2 * m * k * n);
            QVERIFY(op["achieved_tflops"].get<double>() <= op["peak_tflops"].get<double>());
            ++gemms;
        }
        QVERIFY(gemms >= 3);
        const Run text =
            runCli({"summary", sharedTrace("misc/aipe_b200_deepseek_v3_train_step.json.gz")});
        QVERIFY(text.out.find("Kernel efficiency (roofline)") != std::string::npos);
        QVERIFY2(text.out.find("; fp32 75.0 TFLOP/s, TF32 1.10 PFLOP/s, fp16/bf16 2.25 PFLOP/s, "
                               "memory 7.70 TB/s\n") != std::string::npos,
                 text.out.c_str());
    }

    // A part without TF32 (Volta) says so: never "tf32 0.00 FLOP/s" (issue 50).
    void aPeakThePartLacksIsNamedNotZero()
    {
        const Run text =
            runCli({"summary", sharedTrace("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz")});
        QCOMPARE(text.code, 0);
        QVERIFY2(text.out.find("as V100 DGXS; fp32 15.7 TFLOP/s, no TF32, fp16/bf16 125 TFLOP/s, "
                               "memory 900 GB/s\n") != std::string::npos,
                 text.out.c_str());
        QVERIFY(text.out.find(" 0.00 FLOP/s") == std::string::npos);
    }

    void listsTheModules()
    {
        const std::string file = sharedTrace("tracelens/rocm_mi300_resnet_act_checkpoint.json.gz");
        const Run run = runCli({"summary", file, "--json"});
        QCOMPARE(run.code, 0);
        const json modules = json::parse(run.out)["modules"];
        QCOMPARE(modules["recorded"].get<bool>(), true);
        QCOMPARE(modules["module_spans"].get<int>(), 450);
        QCOMPARE(modules["tree"].size(), size_t(134));
        const json& top = modules["tree"][0];
        QCOMPARE(top["path"].get<std::string>(), std::string("DistributedDataParallel_0"));
        QCOMPARE(top["depth"].get<int>(), 0);
        QVERIFY(std::abs(top["device_total_us"].get<double>() - 6515.6) < 0.2);
        QCOMPARE(top["top_kernels"][0]["calls"].get<int>(), 180);
        QCOMPARE(modules["tree"][1]["path"].get<std::string>(),
                 std::string("DistributedDataParallel_0/ResNet_0"));
        QCOMPARE(modules["tree"][1]["depth"].get<int>(), 1);
        const Run text = runCli({"summary", file});
        QVERIFY(
            text.out.find("450 module spans; 10.7 ms of 100 ms device time launched inside them") !=
            std::string::npos);
        const Run none =
            runCli({"summary", sharedTrace("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz")});
        QVERIFY(none.out.find("no nn.Module spans in this trace") != std::string::npos);
    }

    // The memory curves for scripts, reduced to the points asked for, the peak kept.
    void printsTheMemoryCurveReduced()
    {
        const std::string file = sharedTrace("misc/aipe_b200_deepseek_v3_train_step.json.gz");
        const Run run = runCli({"summary", file, "--json", "--memory-points", "20"});
        QCOMPARE(run.code, 0);
        const json gpu = json::parse(run.out)["memory"]["cuda:0"];
        QVERIFY(gpu["samples"].get<size_t>() > 20);
        const json& curve = gpu["curve"];
        QVERIFY(curve.size() >= 10 && curve.size() <= 20);
        int64_t highest = 0;
        double last = 0;
        for (const json& point : curve) {
            QVERIFY(point[0].get<double>() >= last);  // in time order
            last = point[0].get<double>();
            highest = std::max(highest, point[1].get<int64_t>());
        }
        QCOMPARE(highest, gpu["peak_allocated_bytes"].get<int64_t>());
        // What was alive at the peak: the loss's log-softmax among the stacks.
        bool logSoftmax = false;
        for (const json& live : gpu["live_at_peak"])
            logSoftmax |= live["stack"].get<std::string>() ==
                          "aten::cross_entropy_loss > aten::log_softmax > aten::_log_softmax";
        QVERIFY(logSoftmax);
        QVERIFY(!json::parse(runCli({"summary", file, "--json"}).out)["memory"]["cuda:0"].contains(
            "curve"));
        const Run bad = runCli({"summary", file, "--memory-points", "many"});
        QCOMPARE(bad.code, 2);
        QVERIFY(bad.err.find("--memory-points needs a number") != std::string::npos);
    }

    // A folder (or several files) is a job: one row per rank, the straggler line.
    void summarisesAFolderOfRanksAsAJob()
    {
        const std::string folder = kinetoscope::test::sharedTrace("param/dlrm_8_ranks").string();
        const auto run = kinetoscope::test::runCli({"summary", folder, "--json"});
        QCOMPARE(run.code, 0);
        const nlohmann::json j = nlohmann::json::parse(run.out);
        QCOMPARE(j["job"]["ranks"].size(), size_t{8});
        QCOMPARE(j["job"]["ranks"][5]["rank_from"].get<std::string>(),
                 std::string("distributedInfo"));
        QVERIFY(j["job"]["straggler"].is_null());
        const auto text = kinetoscope::test::runCli({"summary", folder});
        QVERIFY(text.out.starts_with("job of 8 ranks (world size 8)"));
        QVERIFY(text.out.find("No single straggler") != std::string::npos);
        const auto missing = kinetoscope::test::runCli({"summary", folder, "/no/such/rank.json"});
        QCOMPARE(missing.code, 2);
        QVERIFY(missing.err.find("/no/such/rank.json") != std::string::npos);
    }

    // `summary --csv TABLE`: RFC 4180 with a header row stating units, raw numbers equal to
    // the analysis's own, times after the trace's first event; a job's tables for a job.
    void writesEachTableAsCsv()
    {
        const std::string path =
            sharedTrace("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz").string();
        const auto doc = kinetoscope::document::open(path);
        QVERIFY(doc->model);
        const auto kernels =
            parseCsv(kinetoscope::test::runCli({"summary", path, "--csv", "kernels"}).out);
        QCOMPARE(kernels.size(), doc->summary.kernels.size() + 1);
        const auto& header = kernels.front();
        const size_t total = columnOf(header, "Total (ns)"),
                     calls = columnOf(header, "Calls (count)");
        QVERIFY(total < header.size() && calls < header.size());
        for (size_t r = 1; r < kernels.size(); ++r) {
            QCOMPARE(kernels[r].size(), header.size());
            const auto& k = doc->summary.kernels[r - 1];
            QCOMPARE(kernels[r][0], k.name);  // cuDNN names hold commas: quoted, whole
            QCOMPARE(std::stoll(kernels[r][total]), k.totalNs);
            QCOMPARE(std::stoll(kernels[r][calls]), k.calls);
        }
        QVERIFY(doc->summary.kernels.front().name.find(',') != std::string::npos);
        // Steps: every one, warm-up included, its begin after the first event in ns.
        const auto steps =
            parseCsv(kinetoscope::test::runCli({"summary", path, "--csv", "steps"}).out);
        QCOMPARE(steps.size(), doc->summary.window.allSteps.size() + 1);
        const size_t begin = columnOf(steps.front(), "Begin after the first event (ns)");
        QVERIFY(begin < steps.front().size());
        QCOMPARE(std::stoll(steps[1][begin]),
                 doc->summary.window.allSteps.front().beginNs - doc->model->beginNs());
        QCOMPARE(steps[1][0], std::string("ProfilerStep#5"));
        const auto ops = parseCsv(kinetoscope::test::runCli({"summary", path, "--csv", "ops"}).out);
        QCOMPARE(ops.size(), doc->summary.ops.byName.size() + 1);
        QCOMPARE(std::stoll(ops[1][columnOf(ops.front(), "Device total (ns)")]),
                 doc->summary.ops.byName.front().deviceTotalNs);
        // Memory by op, per device, in bytes.
        const std::string memoryTrace =
            sharedTrace("misc/aipe_b200_deepseek_v3_train_step.json.gz").string();
        const auto memory = parseCsv(
            kinetoscope::test::runCli({"summary", memoryTrace, "--csv", "memory-by-op"}).out);
        QVERIFY(memory.size() > 5);
        QVERIFY(columnOf(memory.front(), "Allocated (bytes)") < memory.front().size());
        // A job: one row per rank, one per collective and rank.
        const std::string folder = sharedTrace("param/dlrm_8_ranks").string();
        const auto ranks =
            parseCsv(kinetoscope::test::runCli({"summary", folder, "--csv", "ranks"}).out);
        QCOMPARE(ranks.size(), size_t(9));
        QCOMPARE(ranks[6][0], std::string("5"));
        const auto collectives =
            kinetoscope::test::runCli({"summary", folder, "--csv", "collectives"});
        QCOMPARE(collectives.code, 0);
        const auto rows = parseCsv(collectives.out);
        QVERIFY(rows.size() > 8 && (rows.size() - 1) % 8 == 0);
        QVERIFY(columnOf(rows.front(), "Wait (ns)") < rows.front().size());
        // Asked wrongly: one line, exit 2.
        for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
                 {"summary", path, "--csv", "bogus"},
                 {"summary", path, "--csv", "ranks"},
                 {"summary", folder, "--csv", "kernels"},
                 {"summary", path, "--csv"},
                 {"summary", path, "--csv", "ops", "--json"},
                 // two separate runs are no job: they have no ranks table
                 {"summary", path,
                  sharedTrace("kineto/resnet50_v100_workers4_2021.pt.trace.json.gz").string(),
                  "--csv", "ranks"}}) {
            const auto bad = kinetoscope::test::runCli(args);
            QCOMPARE(bad.code, 2);
            QVERIFY(bad.out.empty());
            QCOMPARE(std::count(bad.err.begin(), bad.err.end(), '\n'), std::ptrdiff_t(1));
        }
    }

    void includesTheSeriesOnRequest()
    {
        const Run run =
            runCli({"summary", sharedTrace("hta/sampled_rank0.json.gz"), "--json", "--series"});
        QCOMPARE(run.code, 0);
        const json s = json::parse(run.out);
        QCOMPARE(s["utilization_series"]["gpu"]["0"].size(), size_t(1000));
        QCOMPARE(s["utilization_series"]["cpu"].size(), size_t(1000));
    }

    void takesAnotherStepMarker()
    {
        const std::string trace = sharedTrace("hta/cpu_side_comms_only.json.gz");
        const Run bad = runCli({"summary", trace, "--step-marker", "no_such_annotation"});
        QCOMPARE(bad.code, 2);
        QVERIFY(bad.err.find("no_such_annotation") != std::string::npos);
        QCOMPARE(runCli({"summary", trace, "--step-marker"}).code, 2);
        QCOMPARE(runCli({"summary"}).code, 2);
        QCOMPARE(runCli({"summary", "/no/such/file.json"}).code, 2);
    }

    // --threads 1 is the serial path, 2 splits the reading and the analysis: the summary is
    // the same, as JSON and as text, for one trace and for a job (whose ranks share the
    // budget); only the time it took may differ.
    void theSummaryIsTheSameWhateverTheThreads()
    {
        const std::string trace =
            sharedTrace("kineto/resnet50_v100_workers0_2021.pt.trace.json.gz").string();
        const Run serial = runCli({"summary", trace, "--json", "--threads", "1"});
        const Run parallel = runCli({"summary", "--threads", "2", trace, "--json"});
        QCOMPARE(serial.code, 0);
        QCOMPARE(parallel.code, 0);
        const json a = withoutTimes(serial.out), b = withoutTimes(parallel.out);
        QVERIFY2(a == b, "summary --json differs between --threads 1 and --threads 2");
        QCOMPARE(a["steps"].size(), size_t(6));
        const Run serialText = runCli({"summary", trace, "--threads", "1"});
        const Run parallelText = runCli({"summary", trace, "--threads", "2"});
        QCOMPARE(serialText.code, 0);
        QCOMPARE(withoutTimeLine(serialText.out), withoutTimeLine(parallelText.out));
        const Run everyCore = runCli({"summary", trace, "--json", "--threads", "0"});
        QCOMPARE(everyCore.code, 0);
        QVERIFY(withoutTimes(everyCore.out) == a);

        const std::string job = KINETOSCOPE_SOURCE_DIR "/tests/data/ddp_gloo_4ranks";
        const Run jobSerial = runCli({"summary", job, "--threads", "1"});
        const Run jobParallel = runCli({"summary", job, "--threads", "2"});
        QVERIFY2(jobSerial.code == 0, jobSerial.err.c_str());
        QCOMPARE(jobParallel.code, 0);
        QCOMPARE(jobSerial.out, jobParallel.out);
        QVERIFY(jobSerial.out.find("straggler") != std::string::npos);
    }

    // A value that is not a thread count: one line naming it, exit 2, nothing printed.
    void aBadThreadCountIsOneLine()
    {
        const std::string trace = sharedTrace("hta/sampled_rank0.json.gz").string();
        for (const char* bad : {"-1", "two", "1.5", "", "4x", "1025", "99999999999"}) {
            const Run run = runCli({"summary", trace, "--threads", bad});
            QCOMPARE(run.code, 2);
            QVERIFY(run.out.empty());
            QCOMPARE(std::count(run.err.begin(), run.err.end(), '\n'), 1L);
            QVERIFY2(
                run.err.starts_with(
                    "kinetoscope summary: --threads takes 0 (every core) or a number of threads"),
                run.err.c_str());
            QVERIFY2(run.err.find(std::string("'") + bad + "'") != std::string::npos,
                     run.err.c_str());
        }
        const Run missing = runCli({"summary", trace, "--threads"});
        QCOMPARE(missing.code, 2);
        QVERIFY(missing.out.empty());
        QCOMPARE(missing.err,
                 std::string(
                     "kinetoscope summary: --threads needs a value: 0 (every core) or a number of "
                     "threads from 1 to 1024\n"));
    }

    void summarisesEveryRealTrace()
    {
        int files = 0;
        for (const auto& entry :
             std::filesystem::recursive_directory_iterator(kinetoscope::test::sharedTracesDir())) {
            const std::string path = entry.path().string();
            if (!entry.is_regular_file() || path.find(".json") == std::string::npos)
                continue;
            ++files;
            const Run run = runCli({"summary", path, "--json"});
            QVERIFY2(run.code == 0, (path + ": " + run.err).c_str());
            const json s = json::parse(run.out);
            QVERIFY2(s["steps"].size() >= 1, path.c_str());
            QVERIFY2(allFinite(s), path.c_str());
            QVERIFY(s["breakdown_us"]["total"].get<double>() >= 0.0);
            double sum = 0;
            for (const char* key : {"kernel", "memcpy", "memset", "communication", "runtime",
                                    "dataloader", "cpu_exec", "other"})
                sum += s["breakdown_us"][key].get<double>();
            QVERIFY2(std::abs(sum - s["breakdown_us"]["total"].get<double>()) < 0.01, path.c_str());
            const Run text = runCli({"summary", path});
            QCOMPARE(text.code, 0);
        }
        QVERIFY(files >= 30);
    }
};

QTEST_GUILESS_MAIN(TestCliSummary)
#include "test_cli_summary.moc"
