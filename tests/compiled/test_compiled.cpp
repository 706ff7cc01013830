// What torch.compile made of a window (issue 55), on real runs: train_graph_break.py
// (tests/data/compiled/), a compiled classifier whose forward breaks the graph with
// `.item()`, profiled here on the CPU by `kinetoscope profile` (make_traces.sh), and the
// compiled traces others wrote (shared/traces).
#ifndef Q_MOC_RUN
#include "core/analysis/roofline_gaps.h"
#include "core/compiled/compiled_line.h"
#include "core/compiled/compiled_window.h"
#include "core/compiled/graph_break_text.h"
#include "core/compiled/kernel_name.h"
#include "core/format/format.h"
#include "tests/support/diagnosed.h"
#include "tests/support/op_loop_trace.h"
#include "tests/support/test_support.h"
#endif

#include <QtTest>
#include <algorithm>
#include <fstream>

using namespace kinetoscope;
using kinetoscope::test::Diagnosed;
using kinetoscope::test::diagnoseFile;
using kinetoscope::test::figure;
using kinetoscope::test::findFinding;

namespace {

std::filesystem::path fixture(const std::string& name)
{
    return test::dataFile("compiled/" + name);
}

// Inductor's kernels as a recent torch records their launches: a CPU op named after the
// kernel, its arguments' dims and dtypes (bf16 tensors, then the element counts as Scalars),
// the kernel itself under it.
test::OpCall pointwise(int64_t us)
{
    return {"triton_poi_fused_add_mul_0",
            "[[8192, 8192], [8192, 8192], [8192, 8192], []]",
            "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\"]",
            "[\"\", \"\", \"\", \"67108864\"]",
            {{"triton_poi_fused_add_mul_0", us}}};
}
// x [8192, 8192] reduced to [8192]: 134,234,112 bytes.
test::OpCall reduction(int64_t us)
{
    return {"triton_red_fused_add_mean_1",
            "[[8192, 8192], [8192], [], []]",
            "[\"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\"]",
            "[\"\", \"\", \"8192\", \"8192\"]",
            {{"triton_red_fused_add_mean_1", us}}};
}
// A bf16 GEMM near its roof (no finding of its own): 220 us.
test::OpCall gemm()
{
    return {"aten::mm",
            "[[4096, 4096], [4096, 4096]]",
            "[\"c10::BFloat16\", \"c10::BFloat16\"]",
            "",
            {{"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_"
              "execute_segment_k_off_kernel__5x_cublas",
              220}}};
}

// A generated kernel's time at kStreamingTargetShare of the H100 SXM's 3.35 TB/s, us.
double atTargetUs(double bytes)
{
    return bytes / (analysis::kStreamingTargetShare * 3350e9) * 1e6;
}

}  // namespace

class TestCompiled : public QObject
{
    Q_OBJECT

private slots:
    void kernelNames_data();
    void kernelNames();
    void notCompiledKernels();
    void resumedFrames();
    void graphBreakOnARealRun();
    void selfTimesOfACompiledRunAddUp();
    void recompileOnARealRun();
    void cachedGraphsAreNotRecompiles();
    void unnamedCppKernelsOfACpuRun();
    void aBreakInALoopLeavesTheModelsOwnCodeEager();
    void sharedCompiledTraces();
    void generatedKernelsFarBelowBandwidth();
    void generatedKernelsNearBandwidth();
    void generatedKernelsTooSmallAShare();
};

void TestCompiled::kernelNames_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("backend");
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("ops");
    // From shared/traces: tracelens/torch_compile_triton (torch 2.6+), gpupuzzlers/
    // torch_compile_fusion (an older Triton's signature after the index), hta/triton_example.
    QTest::newRow("reduction, leading underscore")
        << "triton_red_fused__unsafe_view_add_mean_mul_pow_rsqrt_1"
        << "triton"
        << "reduction"
        << "_unsafe_view · add · mean · mul · pow · rsqrt";
    QTest::newRow("pointwise") << "triton_poi_fused__unsafe_view_mul_silu_2"
                               << "triton"
                               << "pointwise"
                               << "_unsafe_view · mul · silu";
    // Helper 43's CPU run (Inductor's C++ kernels, kernel profiling on): a causal mask.
    QTest::newRow("masked_fill, one op")
        << "graph_0_cpp_fused__softmax_bitwise_not_clone_masked_fill_mul_ones_split_transpose_"
           "tril_view_2"
        << "cpp"
        << "other"
        << "_softmax · bitwise_not · clone · masked_fill · mul · ones · split · transpose · tril · "
           "view";
    QTest::newRow("old signature") << "triton_per_fused_layer_norm_tanh_0_0d1d2d3d4d"
                                   << "triton"
                                   << "persistent reduction"
                                   << "layer_norm · tanh";
    QTest::newRow("capitalised origin")
        << "triton_per_fused_Linear_layer_norm_tanh_view_0_0d1d2d3d4d"
        << "triton"
        << "persistent reduction"
        << "Linear · layer_norm · tanh · view";
    QTest::newRow("hta") << "triton_poi_fused_add_cos_sin_0"
                         << "triton"
                         << "pointwise"
                         << "add · cos · sin";
    QTest::newRow("longest name wins") << "triton_red_fused_native_layer_norm_backward_3"
                                       << "triton"
                                       << "reduction"
                                       << "native_layer_norm_backward";
    QTest::newRow("template") << "triton_tem_fused_addmm_relu_0"
                              << "triton"
                              << "template"
                              << "addmm · relu";
    QTest::newRow("cpp as an op") << "graph_0_cpp_fused_gelu_view_2"
                                  << "cpp"
                                  << "other"
                                  << "gelu · view";
    QTest::newRow("cpp") << "cpp_fused_add_mul_relu_0"
                         << "cpp"
                         << "other"
                         << "add · mul · relu";
    QTest::newRow("no ops named") << "triton_poi_0"
                                  << "triton"
                                  << "pointwise"
                                  << "";
    QTest::newRow("foreach") << "triton_for_fused_0"
                             << "triton"
                             << "foreach"
                             << "";
    QTest::newRow("convolution template") << "triton_tem_fused_convolution_0"
                                          << "triton"
                                          << "template"
                                          << "convolution";
    QTest::newRow("to_copy") << "triton_poi_fused__to_copy_add_0"
                             << "triton"
                             << "pointwise"
                             << "_to_copy · add";
    QTest::newRow("backward data") << "triton_red_fused__log_softmax_backward_data_2"
                                   << "triton"
                                   << "reduction"
                                   << "_log_softmax_backward_data";
    QTest::newRow("signature of digits") << "triton_poi_fused_add_0_0123"
                                         << "triton"
                                         << "pointwise"
                                         << "add";
    QTest::newRow("template, signature") << "triton_tem_fused_mm_0_0d1d2d"
                                         << "triton"
                                         << "template"
                                         << "mm";
}

void TestCompiled::kernelNames()
{
    QFETCH(QString, name);
    QFETCH(QString, backend);
    QFETCH(QString, kind);
    QFETCH(QString, ops);
    const std::optional<compiled::CompiledKernelName> parsed =
        compiled::parseCompiledKernelName(name.toStdString());
    QVERIFY(parsed);
    QCOMPARE(QString::fromStdString(parsed->backend), backend);
    QCOMPARE(QString::fromLatin1(compiled::kernelKindName(parsed->kind)), kind);
    QCOMPARE(QString::fromStdString(compiled::fusedOpsText(*parsed)), ops);
}

void TestCompiled::notCompiledKernels()
{
    for (const char* name :
         {"ampere_sgemm_128x64_tn", "void at::native::vectorized_elementwise_kernel<4>", "triton",
          "triton_helper", "cpp_fused_add", "cpp_something_0", "attn_fwd"})
        QVERIFY2(!compiled::parseCompiledKernelName(name), name);
}

// The break: the forward reads `h.abs().max().item()`, so Dynamo compiles the frame up to
// it (frame 2: the linear, the activation, the reduction), runs .item() eagerly and enters
// the resumed rest (a nested region: the norm, the head). Every steady step holds one
// break, between the first graph's end and the second graph's start.
// Dynamo names the function it resumes after a break for the function and line it resumes
// at; no other frame names a line that way.
void TestCompiled::resumedFrames()
{
    const std::optional<compiled::SourceLine> line =
        compiled::resumedAt("models/block.py(112): torch_dynamo_resume_in_forward_at_112");
    QVERIFY(line);
    QCOMPARE(line->file, std::string("models/block.py"));
    QCOMPARE(line->function, std::string("forward"));
    QCOMPARE(line->line, 112);
    // A function whose own name has "_at_" in it.
    const std::optional<compiled::SourceLine> nested =
        compiled::resumedAt("train.py(9): torch_dynamo_resume_in_look_at_data_at_9");
    QVERIFY(nested);
    QCOMPARE(nested->function, std::string("look_at_data"));
    QCOMPARE(nested->line, 9);
    // A second break, inside the function resumed after the first: its line, the user's
    // function.
    const std::optional<compiled::SourceLine> second = compiled::resumedAt(
        "train.py(35): torch_dynamo_resume_in_torch_dynamo_resume_in_forward_at_28_at_35");
    QVERIFY(second);
    QCOMPARE(second->function, std::string("forward"));
    QCOMPARE(second->line, 35);
    for (const char* frame :
         {"train.py(28): forward", "train.py(28): torch_dynamo_resume_in_forward_at_",
          "train.py(28): torch_dynamo_resume_in_forward_at_2x",
          "torch_dynamo_resume_in_forward_at_28", "<built-in method item of Tensor object>"})
        QVERIFY2(!compiled::resumedAt(frame), frame);
}

void TestCompiled::graphBreakOnARealRun()
{
    const Diagnosed d = diagnoseFile(fixture("graph_break_stacks.json.gz"));
    QVERIFY(d.model);
    const compiled::CompiledWindow& c = d.summary.compiled;
    QVERIFY(c.compiled);
    // A step runs four compiled graphs: the forward's two (before and after the break) and
    // their two backward graphs.
    QCOMPARE(c.graphsPerStep, 4.0);
    QVERIFY(c.graphShare > 0 && c.graphShare <= c.regionShare && c.regionShare < 1);
    QVERIFY(c.cacheLookupNsPerStep > 0);  // the guards, before each of the two forward regions
    QVERIFY(c.compilations.empty());      // steps 3-5: compiled in steps 0 and 1
    QCOMPARE(c.deviceShare, -1.0);        // a CPU run
    QCOMPARE(c.breaks.size(), size_t(1));
    const compiled::GraphBreak& b = c.breaks.front();
    QCOMPARE(b.perStep, 1.0);
    QCOMPARE(b.ops.front(), std::string("aten::item"));
    QCOMPARE(b.call, std::string("Tensor.item"));
    QVERIFY2(b.source.find("train_graph_break.py") != std::string::npos &&
                 b.source.find("forward") != std::string::npos,
             b.source.c_str());
    // The eager op itself is a few microseconds; the break (guards, the resumed region's
    // entry, Python) is far more.
    QVERIFY(b.eagerNsPerStep > 0 && b.gapNsPerStep > 5 * b.eagerNsPerStep);
    QVERIFY(b.example.valid());
    // The break's line, named by the frame Dynamo resumed after it: the script's own line
    // there is the .item() that broke the graph.
    QCOMPARE(b.line.function, std::string("forward"));
    QVERIFY2(b.line.file.ends_with("train_graph_break.py"), b.line.file.c_str());
    QVERIFY(b.line.line > 0);
    std::ifstream script(fixture("train_graph_break.py"));
    std::string text;
    for (int n = 0; n < b.line.line && std::getline(script, text); ++n) {
    }
    QVERIFY2(text.find(".item()") != std::string::npos, text.c_str());

    const analysis::Finding* f = findFinding(d.findings, "graph-break");
    QVERIFY(f);
    QVERIFY2(f->title.find("Tensor.item() (aten::item)") != std::string::npos, f->title.c_str());
    const std::string where = "forward at train_graph_break.py:" + std::to_string(b.line.line);
    QVERIFY2(f->title.find(where) != std::string::npos, f->title.c_str());
    // One naming for the finding, the Overview's line and the CLI: the call, short, and where.
    QCOMPARE(compiled::breakPlace(b), "Tensor.item in " + where);
    QVERIFY(compiled::compiledLine(c).find(compiled::breakPlace(b)) != std::string::npos);
    QCOMPARE(figure(*f, "break_time_per_step_us"), b.gapNsPerStep / 1e3);
    // A CPU run: the host's time is the step, and the break's own time less the eager op
    // is what removing it saves.
    QVERIFY(std::abs(f->estimatedGainNs - (b.gapNsPerStep - b.eagerNsPerStep)) < 1);
    QVERIFY(f->snippet.find("torch._dynamo.explain") != std::string::npos);
    // The compiled graphs' own time on the CPU (Inductor's C++ kernels, unnamed in the
    // trace) is the model's compute, compiled: told so, not named as if a region were an op.
    // The op that holds most of the step here holds under the 30 % the rule asks for.
    analysis::Thresholds low;
    low.hostHotspotShare = 0.10;
    const Diagnosed lowered = kinetoscope::test::diagnoseText(
        test::readDecompressed(fixture("graph_break_stacks.json.gz")), low);
    const analysis::Finding* hot = findFinding(lowered.findings, "host-compute-bound");
    QVERIFY(hot);
    QVERIFY2(hot->title.starts_with("torch.compile's compiled code ("), hot->title.c_str());
}

// A compiled region's ops run under the Python frames of the code Inductor generated (and its
// `## Call CompiledFxGraph ##` range): its self time leaves them out all the same, as an
// eager op's does (helper 43: CompiledFunctionBackward's self time was its total, mm and bmm
// inside it counted twice, and read as "the compiled code holds 45.8 % of the step").
void TestCompiled::selfTimesOfACompiledRunAddUp()
{
    const Diagnosed d = diagnoseFile(fixture("graph_break_stacks.json.gz"));
    QVERIFY(d.model);
    const trace::TraceModel& model = *d.model;
    // Every op counted once: the ops' self times add up to no more than the outermost ops'
    // time (an op none of whose enclosing events is an op).
    int64_t outermostNs = 0;
    for (const trace::Event& e : model.events()) {
        if (e.category != trace::Category::CpuOp || analysis::isMarkerSpan(model.text(e.name)))
            continue;
        bool outermost = true;
        for (trace::EventId up = e.parent; up.valid() && outermost; up = model.event(up).parent)
            outermost = model.event(up).category != trace::Category::CpuOp ||
                        analysis::isMarkerSpan(model.text(model.event(up).name));
        outermostNs += outermost ? e.durationNs : 0;
    }
    int64_t selfNs = 0;
    int64_t regionSelf = -1, regionTotal = -1;
    for (const analysis::OpStats& s : d.summary.ops.byName) {
        selfNs += s.selfCpuNs;
        if (s.name == "CompiledFunctionBackward") {
            regionSelf = s.selfCpuNs;
            regionTotal = s.cpuTotalNs;
        }
    }
    QVERIFY2(
        selfNs <= outermostNs,
        qPrintable(QStringLiteral("%1 ns of self time in %2 ns").arg(selfNs).arg(outermostNs)));
    QVERIFY(regionTotal > 0 && regionSelf >= 0 && regionSelf < regionTotal / 2);
    // The loop thread's profile per step: no more self time than the step holds.
    double hostSelf = 0;
    for (const analysis::HostOpTime& o : d.summary.host.bySelfTime)
        hostSelf += o.selfNs;
    QVERIFY2(hostSelf <= d.summary.host.stepNs,
             qPrintable(QStringLiteral("%1 of %2").arg(hostSelf).arg(d.summary.host.stepNs)));
}

// The epoch's last batch is 16 samples, not 64: at step 12 the guards on the input's shape
// fail and Dynamo compiles both frames again (2/1 and 6/2: frame/compile), 0.6 s inside one
// step. An expert reads it as a recompilation, a one-off for this run (the frames are then
// dynamic), not as warm-up and not as a per-step cost; the fix is drop_last or mark_dynamic.
void TestCompiled::recompileOnARealRun()
{
    const Diagnosed d = diagnoseFile(fixture("recompile.json.gz"));
    QVERIFY(d.model);
    const analysis::WindowClass& w = d.summary.window;
    QCOMPARE(w.allSteps.size(), size_t(4));
    for (size_t i = 0; i < w.allSteps.size(); ++i)
        QCOMPARE(w.roles[i] == analysis::StepRole::Steady, w.allSteps[i].name != "ProfilerStep#12");
    const compiled::CompiledWindow& c = d.summary.compiled;
    QCOMPARE(c.compilations.size(), size_t(2));
    for (const compiled::Compilation& k : c.compilations) {
        QVERIFY(k.recompile);
        QCOMPARE(k.step, std::string("ProfilerStep#12"));
        QVERIFY(k.durationNs > 100'000'000);
        QVERIFY2(k.compileId.ends_with("/1") || k.compileId.ends_with("/2"), k.compileId.c_str());
    }
    const analysis::Finding* f = findFinding(d.findings, "recompilation");
    QVERIFY(f);
    QVERIFY2(f->title.find("2 recompilations in ProfilerStep#12") != std::string::npos,
             f->title.c_str());
    QCOMPARE(f->estimatedGainNs, 0.0);  // a one-off: not in the steady step
    QCOMPARE(f->severity, analysis::Severity::Low);
    QVERIFY(f->fix.find("drop_last") != std::string::npos);
    QVERIFY2(!findFinding(d.findings, "warmup-in-window"), "a recompilation read as warm-up");
}

// The compiled traces others wrote. tracelens: one compiled call of a Llama block on an
// MI300X, every kernel from the compiled graph (four Triton launches with shapes, the
// GEMMs and flash attention). hta: one Triton kernel, inside a region with no graph-run
// span. gpupuzzlers (an older torch, no region spans, Triton's driver calls unrecorded):
// eager against compiled on tiny tensors, the Triton kernels 97 of 375 us of device time
// and the compiled graphs' GEMMs 24 more.
// Helper 43's run: Dynamo keeps a graph of Block.forward for each of the two blocks (compile
// ids 1/0 and 1/1), both compiled before the window; every step runs both. An expert reads
// no recompilation (there is no compile span in the window); the first step of the window
// switching from 1/0 to 1/1 was read as one.
void TestCompiled::cachedGraphsAreNotRecompiles()
{
    const Diagnosed d = diagnoseFile(fixture("two_blocks_graph_break.json.gz"));
    QVERIFY(d.model);
    const compiled::CompiledWindow& c = d.summary.compiled;
    QVERIFY(c.compiled);
    QVERIFY2(c.compilations.empty(),
             c.compilations.empty() ? "" : c.compilations[0].compileId.c_str());
    QVERIFY(!findFinding(d.findings, "recompilation"));
    QVERIFY(findFinding(d.findings, "graph-break"));  // what the window does show
}

// Inductor's C++ kernels where the trace names none (its kernel profile off, torch's
// default): their time from their Python frames with stacks, else the graph runs' own time;
// nothing where they are named (recorded as ops) or on a device.
void TestCompiled::unnamedCppKernelsOfACpuRun()
{
    const auto windowOf = [](const std::filesystem::path& path) {
        const Diagnosed d = diagnoseFile(path);
        return d.summary;
    };
    const auto stacks =
        windowOf(test::dataFile("eager_vs_compiled/compiled_unnamed_stacks.json.gz"));
    const compiled::CompiledWindow& framed = stacks.compiled;
    QVERIFY(framed.unnamedKernelsFromFrames);
    // Each kernel's own frame: several a graph run, and less than the graph runs' time.
    QVERIFY(framed.unnamedKernelCallsPerStep > 2 * framed.graphsPerStep);
    QVERIFY(framed.unnamedKernelNsPerStep > 0);
    QVERIFY(framed.unnamedKernelNsPerStep < framed.graphShare * stacks.causal.stepNs);

    const auto plain = windowOf(test::dataFile("eager_vs_compiled/compiled_unnamed.json.gz"));
    QVERIFY(!plain.compiled.unnamedKernelsFromFrames);
    QCOMPARE(plain.compiled.unnamedKernelCallsPerStep,
             plain.compiled.graphsPerStep);  // one call each
    QVERIFY(plain.compiled.unnamedKernelNsPerStep > 0);
    QVERIFY(plain.compiled.unnamedKernelNsPerStep <
            plain.compiled.graphShare * plain.causal.stepNs);

    for (const char* named :
         {"eager_vs_compiled/compiled.json.gz", "eager_vs_compiled/eager.json.gz"})
        QCOMPARE(windowOf(test::dataFile(named)).compiled.unnamedKernelNsPerStep, 0.0);
}

// train_two_blocks.py --mode break: Block 0's forward reads .item() inside LM.forward's loop
// over the blocks. Dynamo runs LM.forward itself eagerly (no region of its frame): the
// embedding, the final LayerNorm and the head run outside every graph, which nothing said
// (helper 43). And the break's mean over three steps is one slow step's (a 5 ms guard
// check), which the finding now says beside the typical step.
void TestCompiled::aBreakInALoopLeavesTheModelsOwnCodeEager()
{
    const Diagnosed d = diagnoseFile(fixture("two_blocks_graph_break.json.gz"));
    QVERIFY(d.model);
    const compiled::CompiledWindow& c = d.summary.compiled;
    QCOMPARE(c.compiledModel, std::string("LM"));
    for (const char* op : {"aten::linear", "aten::layer_norm", "aten::embedding"})
        QVERIFY2(std::find(c.eagerModelOps.begin(), c.eagerModelOps.end(), op) !=
                     c.eagerModelOps.end(),
                 op);
    // The guards, the regions and the graph runs are not the model's eager code.
    for (const std::string& op : c.eagerModelOps)
        QVERIFY2(!compiled::isCompilerSpan(op) && op != "aten::addmm" && op != "aten::item",
                 op.c_str());
    QVERIFY(c.eagerModelNsPerStep > 1e6 && c.eagerModelNsPerStep < 5e6);
    QCOMPARE(c.breaks.size(), size_t{1});
    const compiled::GraphBreak& b = c.breaks.front();
    QVERIFY(b.gapNsTypical < b.gapNsPerStep && b.gapNsPerStep < b.gapNsLargest);
    QVERIFY(b.gapNsLargest > 2 * b.gapNsTypical);
    const analysis::Finding* f = findFinding(d.findings, "graph-break");
    QVERIFY(f);
    QVERIFY2(f->explanation.find("LM's own code ran outside every compiled graph: aten::linear") !=
                     std::string::npos &&
                 f->explanation.find("a typical step spends " + format::duration(b.gapNsTypical)) !=
                     std::string::npos,
             f->explanation.c_str());
    QVERIFY(figure(*f, "eager_model_code_per_step_us") > 1000);

    // A break outside any loop (train_graph_break.py): the frames around it compiled, so no
    // model code ran eagerly, and its steps are alike.
    const Diagnosed other = diagnoseFile(fixture("graph_break_stacks.json.gz"));
    QCOMPARE(other.summary.compiled.eagerModelNsPerStep, 0.0);
    const analysis::Finding* g = findFinding(other.findings, "graph-break");
    QVERIFY(g);
    QVERIFY(g->explanation.find("own code") == std::string::npos);
    QVERIFY(g->explanation.find("typical step") == std::string::npos);
}

void TestCompiled::sharedCompiledTraces()
{
    struct Expected
    {
        const char* name;
        double graphsPerStep;
        double launchesPerStep;
        double deviceShareLow, deviceShareHigh;
    };
    for (const Expected& e :
         {Expected{"tracelens/torch_compile_triton.json.gz", 1, 4, 1, 1},
          Expected{"hta/triton_example.json.gz", 1, 1, 1, 1},
          Expected{"gpupuzzlers/torch_compile_fusion.json.gz", 2, 0, 0.30, 0.34}}) {
        const Diagnosed d = diagnoseFile(test::sharedTrace(e.name));
        QVERIFY(d.model);
        const compiled::CompiledWindow& c = d.summary.compiled;
        QVERIFY2(c.compiled, e.name);
        QCOMPARE(c.graphsPerStep, e.graphsPerStep);
        QCOMPARE(c.launchesPerStep, e.launchesPerStep);
        QVERIFY2(c.deviceShare >= e.deviceShareLow - 1e-9 &&
                     c.deviceShare <= e.deviceShareHigh + 1e-9,
                 (std::string(e.name) + ": " + std::to_string(c.deviceShare)).c_str());
        QVERIFY(c.cacheLookupNsPerStep > 0);
        QVERIFY(c.breaks.empty() && c.compilations.empty());
        QVERIFY(!findFinding(d.findings, "graph-break") &&
                !findFinding(d.findings, "recompilation"));
        // No generated kernel runs far under the bandwidth (compiled-below-bandwidth's
        // verdicts below).
        QVERIFY2(!findFinding(d.findings, "compiled-below-bandwidth"), e.name);
        for (const auto& [key, verdict] : d.summary.roofGaps)
            QVERIFY2(verdict.gap != analysis::RoofGap::BelowBandwidth, key.first.c_str());
    }
    // compiled-below-bandwidth on the real compiled runs. tracelens (an MI300X, 5.3 TB/s): the
    // four Triton launches stream at 38 % (the SiLU-and-multiply pointwise, 527 us), 54 %,
    // 66 % and 84 % of the bandwidth, every one above the quarter a generated kernel is judged
    // far below at (half of kStreamingTargetShare): well-generated kernels, no finding. hta:
    // one pointwise kernel of 1,200 bytes in 1.76 us (0.04 % of an A100's bandwidth), but
    // shorter than any kernel can be (kShortestKernelNs): nothing to gain, and the window is
    // too short to judge anyway. gpupuzzlers: an older torch records no launch op for its
    // Triton kernels, so none is rated.
    {
        const Diagnosed d =
            diagnoseFile(test::sharedTrace("tracelens/torch_compile_triton.json.gz"));
        QVERIFY(d.model);
        const auto& peaks = d.summary.roofline.peaks;
        QVERIFY(peaks && peaks->memoryGBps == 5300);
        int generated = 0;
        for (const roofline::OpRoofline& row : d.summary.roofline.ops) {
            if (!analysis::isGeneratedStreamingKernel(row))
                continue;
            ++generated;
            const double share = row.rating.achievedGbps / peaks->memoryGBps;
            QVERIFY2(share > 0.38 && share < 0.84, row.name.c_str());
            QCOMPARE(row.rating.shareOfRoof, share);  // memory-bound: its roof is the bandwidth
            QVERIFY(share >= 0.5 * analysis::kStreamingTargetShare);
        }
        QCOMPARE(generated, 4);
        const Diagnosed hta = diagnoseFile(test::sharedTrace("hta/triton_example.json.gz"));
        QVERIFY(hta.model);
        const auto& ops = hta.summary.roofline.ops;
        const auto tiny = std::find_if(ops.begin(), ops.end(), [](const roofline::OpRoofline& row) {
            return row.name == "triton_poi_fused_add_cos_sin_0";
        });
        QVERIFY(tiny != ops.end() && hta.summary.roofline.peaks);
        QVERIFY(tiny->rating.achievedGbps / hta.summary.roofline.peaks->memoryGBps < 0.001);
        const analysis::RoofVerdict verdict = analysis::judgeRoof(*tiny, hta.summary.roofline, 108);
        QCOMPARE(verdict.gap, analysis::RoofGap::None);
        QCOMPARE(verdict.factor, 1.0);
        const Diagnosed puzzlers =
            diagnoseFile(test::sharedTrace("gpupuzzlers/torch_compile_fusion.json.gz"));
        QVERIFY(puzzlers.model);
        QVERIFY(std::none_of(puzzlers.summary.roofline.ops.begin(),
                             puzzlers.summary.roofline.ops.end(),
                             [](const roofline::OpRoofline& row) {
                                 return analysis::isGeneratedStreamingKernel(row);
                             }));
    }
    // An eager trace holds nothing compiled.
    const Diagnosed eager = diagnoseFile(test::sharedTrace("hta/alexnet_critical_path.json.gz"));
    QVERIFY(eager.model);
    QVERIFY(!eager.summary.compiled.compiled);
}

// Inductor's pointwise kernel at 10 % of an H100's bandwidth (402,653,184 bytes a call in
// 1,200 us: 336 GB/s) and its reduction at 6.7 % (134,234,112 bytes in 600 us), beside a GEMM
// near its roof, on a GPU that sets the pace (tests/support/op_loop_trace.h). An expert
// reads: the generated kernels are slow, not the GEMM; at half the bandwidth (what generated
// kernels stream at) each call would take 240 us and 80 us. The finding names both kernels
// with their fused ops, GB/s and share of the bandwidth; its gain is the causal model's, the
// step replayed with them at that target.
void TestCompiled::generatedKernelsFarBelowBandwidth()
{
    const Diagnosed d = kinetoscope::test::diagnoseText(
        test::opLoopTrace({gemm(), pointwise(1200), reduction(600)}));
    QVERIFY(d.model);
    const analysis::Finding* f = findFinding(d.findings, "compiled-below-bandwidth");
    QVERIFY(f);
    QCOMPARE(d.findings.front().id, std::string("compiled-below-bandwidth"));
    QCOMPARE(f->severity, analysis::Severity::High);
    const double plantedUs = test::kOpLoopRepeats * ((1200 - atTargetUs(402'653'184.0)) +
                                                     (600 - atTargetUs(134'234'112.0)));
    QVERIFY2(std::fabs(f->estimatedGainNs / 1e3 - plantedUs) < 0.05 * plantedUs,
             qPrintable(QStringLiteral("gain %1 us, planted %2 us")
                            .arg(f->estimatedGainNs / 1e3)
                            .arg(plantedUs)));
    QVERIFY(f->estimatedGainNs <= d.summary.breakdown.all.averageTotalNs);
    QVERIFY2(f->title.starts_with("torch.compile: 2 generated kernels stream at "),
             f->title.c_str());
    QVERIFY2(f->explanation.find("triton_poi_fused_add_mul_0 (add · mul) moves") !=
                 std::string::npos,
             f->explanation.c_str());
    QVERIFY2(f->explanation.find("10.0 % of 3.35 TB/s") != std::string::npos,
             f->explanation.c_str());
    QCOMPARE(f->evidence.ops.front().name, std::string("triton_poi_fused_add_mul_0 (add · mul)"));
    QVERIFY(f->evidence.ops.front().event.valid());
    QCOMPARE(f->evidence.kernels.size(), size_t(2));
    QCOMPARE(figure(*f, "memory_bandwidth_gbps"), 3350.0);
    QVERIFY(figure(*f, "share_of_roof") > 0.08 && figure(*f, "share_of_roof") < 0.1);
    QVERIFY(f->fix.find("TORCH_LOGS=output_code") != std::string::npos);
    QVERIFY(f->fix.find("max-autotune") != std::string::npos);
    // The GEMM is not the finding's, and no other rule claims these kernels' time.
    QVERIFY(!findFinding(d.findings, "below-roofline"));
    QVERIFY(!findFinding(d.findings, "unfused-elementwise"));
    double gains = 0;
    for (const analysis::Finding& g : d.findings) {
        QVERIFY(g.estimatedGainNs >= 0);
        gains += g.estimatedGainNs;
    }
    QVERIFY(gains <= d.summary.breakdown.all.averageTotalNs);
}

// The same kernels near the bandwidth (the pointwise at 40 %, the reduction at 34 %) are what
// generated kernels reach: no finding. Faster than the bandwidth allows (above its peak: the
// bytes or the peak are wrong) a kernel is never judged; and a template (a GEMM Inductor
// wrote) far below its roof is below-roofline's, not this rule's.
void TestCompiled::generatedKernelsNearBandwidth()
{
    const Diagnosed near = kinetoscope::test::diagnoseText(
        test::opLoopTrace({gemm(), pointwise(300), reduction(120)}));
    QVERIFY(near.model);
    QVERIFY(!findFinding(near.findings, "compiled-below-bandwidth"));
    const Diagnosed abovePeak =
        kinetoscope::test::diagnoseText(test::opLoopTrace({gemm(), pointwise(50), reduction(20)}));
    QVERIFY(abovePeak.model);
    QVERIFY(!findFinding(abovePeak.findings, "compiled-below-bandwidth"));
    for (const auto& [key, verdict] : abovePeak.summary.roofGaps)
        QVERIFY2(verdict.gap != analysis::RoofGap::BelowBandwidth, key.first.c_str());
    const test::OpCall slowTemplate{"triton_tem_fused_mm_0",
                                    "[[4096, 4096], [4096, 4096], [4096, 4096]]",
                                    "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\"]",
                                    "",
                                    {{"triton_tem_fused_mm_0", 2000}}};
    const Diagnosed tem =
        kinetoscope::test::diagnoseText(test::opLoopTrace({slowTemplate, pointwise(300)}));
    QVERIFY(tem.model);
    QVERIFY(!findFinding(tem.findings, "compiled-below-bandwidth"));
    QVERIFY(findFinding(tem.findings, "below-roofline"));
}

// A small generated kernel far under the bandwidth (three [1024, 1024] bf16 tensors, 6.3 MB,
// in 40 us: 4.7 %) beside seven GEMMs: 2.5 % of the step, under the 3 % a finding needs
// (compiled_below_bandwidth_share); with the threshold at 1 % it is one.
void TestCompiled::generatedKernelsTooSmallAShare()
{
    const test::OpCall small{"triton_poi_fused_mul_2",
                             "[[1024, 1024], [1024, 1024], [1024, 1024], []]",
                             "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", "
                             "\"Scalar\"]",
                             "[\"\", \"\", \"\", \"1048576\"]",
                             {{"triton_poi_fused_mul_2", 40}}};
    const std::vector<test::OpCall> calls = {gemm(), gemm(), gemm(), gemm(),
                                             gemm(), gemm(), gemm(), small};
    const std::string json = test::opLoopTrace(calls);
    const Diagnosed d = kinetoscope::test::diagnoseText(json);
    QVERIFY(d.model);
    QVERIFY(!findFinding(d.findings, "compiled-below-bandwidth"));
    analysis::Thresholds low;
    low.compiledBelowBandwidthShare = 0.01;
    const Diagnosed lowered = kinetoscope::test::diagnoseText(json, low);
    const analysis::Finding* f = findFinding(lowered.findings, "compiled-below-bandwidth");
    QVERIFY(f);
    QVERIFY2(f->title.starts_with("torch.compile: a generated kernel streams at "),
             f->title.c_str());
    // 40 us for bytes that take 1.9 us at the full bandwidth: no launch or tail explains
    // that, so the kernel is not called too small.
    QVERIFY2(f->explanation.find("too little to fill the GPU") == std::string::npos,
             f->explanation.c_str());

    // Four kernels of three [256, 256] bf16 tensors (393 KB: 0.12 us at the full bandwidth)
    // that take 8 us each: small in bytes and short as measured, so launch and tail set
    // their time.
    const test::OpCall tiny{"triton_poi_fused_mul_3",
                            "[[256, 256], [256, 256], [256, 256], []]",
                            "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", "
                            "\"Scalar\"]",
                            "[\"\", \"\", \"\", \"65536\"]",
                            {{"triton_poi_fused_mul_3", 8}}};
    const Diagnosed tinyKernels =
        kinetoscope::test::diagnoseText(test::opLoopTrace({gemm(), gemm(), gemm(), gemm(), gemm(),
                                                           gemm(), gemm(), tiny, tiny, tiny, tiny}),
                                        low);
    const analysis::Finding* t = findFinding(tinyKernels.findings, "compiled-below-bandwidth");
    QVERIFY(t);
    QVERIFY2(t->explanation.find("too little to fill the GPU") != std::string::npos,
             t->explanation.c_str());
}

QTEST_GUILESS_MAIN(TestCompiled)
#include "test_compiled.moc"
