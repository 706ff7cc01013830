// The roofline on traces whose answer is known (a bf16 GEMM loop on an H100 written here,
// attention on the math path and on a fused kernel) and on every shared real trace:
// what it rates, against which roof, that no figure is above a roof unflagged, and what
// the diagnosis makes of it (below-roofline, attention-unfused, their causal gains).
#ifndef Q_MOC_RUN
#include "core/analysis/diagnosis/diagnosis.h"
#include "core/analysis/summary.h"
#include "core/trace/trace_loader.h"
#include "tests/support/op_loop_trace.h"
#include "tests/support/test_support.h"
#endif

#include <QtTest>
#include <algorithm>
#include <cmath>
#include <filesystem>

using namespace kinetoscope;
using namespace kinetoscope::analysis;
using namespace kinetoscope::roofline;

namespace {

using kinetoscope::test::opLoopTrace;
constexpr int kSteps = kinetoscope::test::kOpLoopSteps;
constexpr int kRepeats = kinetoscope::test::kOpLoopRepeats;

const char* kBf16Gemm =
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
    "segment_k_off_kernel__5x_cublas";

struct Analysed
{
    std::shared_ptr<const trace::TraceModel> model;
    TraceSummary summary;
    std::vector<Finding> findings;
};

Analysed analyse(const std::string& json)
{
    Analysed a;
    trace::LoadResult loaded = trace::loadTraceText(json);
    a.model = loaded.model;
    if (!loaded.ok() || !a.model)
        return a;
    a.summary = summarize(*a.model);
    a.findings = diagnose({*a.model, a.summary, Thresholds{}});
    return a;
}

const Finding* findingOf(const Analysed& a, const std::string& id)
{
    for (const Finding& f : a.findings)
        if (f.id == id)
            return &f;
    return nullptr;
}

const OpRoofline* rowOf(const Roofline& r, const std::string& name)
{
    for (const OpRoofline& o : r.ops)
        if (o.name == name)
            return &o;
    return nullptr;
}

const KernelRoofline* kernelRowOf(const Roofline& r, const std::string& name)
{
    for (const KernelRoofline& k : r.kernels)
        if (k.name == name)
            return &k;
    return nullptr;
}

// A tensor argument as a compiled kernel's launch records it.
OpInput tensorArg(std::vector<int64_t> dims, std::vector<int64_t> strides,
                  std::string type = "c10::BFloat16")
{
    OpInput in;
    in.dims = std::move(dims);
    in.strides = std::move(strides);
    in.type = std::move(type);
    return in;
}

OpInput scalarArg(std::string value)
{
    OpInput in;
    in.type = "Scalar";
    in.concrete = std::move(value);
    return in;
}

}  // namespace

class TestRoofline : public QObject
{
    Q_OBJECT

private slots:
    // The contract of summary --json: aten::mm [[M,K],[K,N]] does 2MKN FLOPs; aten::addmm
    // with a 1-D or a 2-D bias too (the bias add is not counted); the H100's bf16 roof.
    void gemmWorkAndRoof()
    {
        const Analysed a = analyse(opLoopTrace({
            {"aten::mm",
             "[[4096, 4096], [4096, 4096]]",
             "[\"c10::BFloat16\", \"c10::BFloat16\"]",
             "",
             {{kBf16Gemm, 300}}},
            {"aten::addmm",
             "[[512], [1024, 2048], [2048, 512]]",
             "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\"]",
             "",
             {{kBf16Gemm, 40}}},
            {"aten::addmm",
             "[[1024, 512], [1024, 2048], [2048, 512]]",
             "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\"]",
             "",
             {{kBf16Gemm, 40}}},
        }));
        QVERIFY(a.model);
        const Roofline& r = a.summary.roofline;
        QVERIFY(r.peaks);
        QCOMPARE(r.device, std::string("NVIDIA H100 80GB HBM3"));
        QVERIFY(!r.peaks->estimated);
        const OpRoofline* mm = rowOf(r, "aten::mm");
        QVERIFY(mm);
        QCOMPARE(mm->calls, int64_t(kSteps * kRepeats));
        QCOMPARE(mm->flopsPerCall, 2.0 * 4096 * 4096 * 4096);
        QCOMPARE(mm->bytesPerCall, 3.0 * 4096 * 4096 * 2);
        QCOMPARE(mm->precision, Precision::Bf16);
        QCOMPARE(mm->rating.roofs.tflops, r.peaks->fp16Tflops);
        QCOMPARE(mm->rating.bound, Bound::Compute);
        QVERIFY(std::fabs(mm->rating.achievedTflops - 2.0 * 4096 * 4096 * 4096 / 300e-6 / 1e12) <
                1e-6);
        QVERIFY(mm->rating.shareOfRoof > 0.3 && mm->rating.shareOfRoof < 0.6);
        QVERIFY(!mm->rating.abovePeak);
        int addmms = 0;
        for (const OpRoofline& o : r.ops)
            if (o.name == "aten::addmm") {
                ++addmms;
                QCOMPARE(o.flopsPerCall, 2.0 * 1024 * 2048 * 512);
            }
        QCOMPARE(addmms, 2);
        // A kernel that is its call's only kernel carries the call's work.
        QVERIFY(!r.kernels.empty());
        QCOMPARE(r.kernels.front().name, std::string(kBf16Gemm));
        QCOMPARE(r.kernels.front().ratedCalls, int64_t(3 * kSteps * kRepeats));
    }

    // A bf16 GEMM at a seventh of its roof, on a GPU that sets the pace: below-roofline,
    // with the causal gain of the kernels at 60 % of the roof.
    void gemmFarBelowItsRoof()
    {
        const Analysed a = analyse(opLoopTrace({
            {"aten::mm",
             "[[4096, 4096], [4096, 4096]]",
             "[\"c10::BFloat16\", \"c10::BFloat16\"]",
             "",
             {{kBf16Gemm, 1000}}},
            {"aten::mm",
             "[[4096, 4096], [4096, 4096]]",
             "[\"c10::BFloat16\", \"c10::BFloat16\"]",
             "",
             {{kBf16Gemm, 1000}}},
        }));
        QVERIFY(a.model);
        const Finding* f = findingOf(a, "below-roofline");
        QVERIFY(f);
        QCOMPARE(a.findings.front().id, std::string("below-roofline"));
        const OpRoofline* mm = rowOf(a.summary.roofline, "aten::mm");
        QVERIFY(mm);
        // Each 1 ms call would take flops / (60 % of the bf16 roof).
        const double targetUs =
            mm->flopsPerCall / (kComputeTargetShare * a.summary.roofline.peaks->fp16Tflops * 1e12) *
            1e6;
        const double plantedUs = 2 * kRepeats * (1000 - targetUs);
        QVERIFY2(std::fabs(f->estimatedGainNs / 1e3 - plantedUs) < 0.1 * plantedUs,
                 qPrintable(QStringLiteral("gain %1 us, planted %2 us")
                                .arg(f->estimatedGainNs / 1e3)
                                .arg(plantedUs)));
        QVERIFY(f->evidence.ops.front().event.valid());
        QVERIFY(f->evidence.ops.front().name.starts_with("aten::mm [[4096, 4096]"));
        QCOMPARE(f->evidence.kernels.front().name, std::string(kBf16Gemm));
        // The same GEMM near its roof is not a finding.
        const Analysed good = analyse(opLoopTrace({
            {"aten::mm",
             "[[4096, 4096], [4096, 4096]]",
             "[\"c10::BFloat16\", \"c10::BFloat16\"]",
             "",
             {{kBf16Gemm, 220}}},
        }));
        QVERIFY(!findingOf(good, "below-roofline"));
    }

    // A chain of memory-bound ops at a tenth of the bandwidth: unfused-elementwise's gain is
    // the chain replayed as one kernel that streams the costliest member's bytes at half the
    // bandwidth (the roofline knows them), not at the costliest member's measured time.
    void aFusedChainStreamsAtTheRoofline()
    {
        const std::string big = "[[64, 1024, 1024], [64, 1024, 1024]]";
        const std::string types = "[\"c10::BFloat16\", \"c10::BFloat16\"]";
        const Analysed a = analyse(opLoopTrace({
            {"aten::mul", big, types, "", {{"vectorized_elementwise_kernel<4, mul>", 2000}}},
            {"aten::relu",
             "[[64, 1024, 1024]]",
             "[\"c10::BFloat16\"]",
             "",
             {{"vectorized_elementwise_kernel<4, relu>", 1500}}},
        }));
        QVERIFY(a.model);
        const Finding* f = findingOf(a, "unfused-elementwise");
        QVERIFY(f);
        const OpRoofline* mul = rowOf(a.summary.roofline, "aten::mul");
        QVERIFY(mul);
        QCOMPARE(mul->bytesPerCall, 3.0 * 64 * 1024 * 1024 * 2);
        const double fusedUs = mul->bytesPerCall /
                               (kStreamingTargetShare * a.summary.roofline.peaks->memoryGBps) / 1e3;
        const double plantedUs = kRepeats * (1500 + 2000 - fusedUs);
        QVERIFY2(std::fabs(f->estimatedGainNs / 1e3 - plantedUs) < 0.1 * plantedUs,
                 qPrintable(QStringLiteral("gain %1 us, planted %2 us")
                                .arg(f->estimatedGainNs / 1e3)
                                .arg(plantedUs)));
    }

    // A small GEMM cannot fill 132 SMs: it is judged at the share its tiles can fill, and
    // one that runs about as fast as that allows is not a finding.
    void smallGemmJudgedByWhatItCanFill()
    {
        // 256 x 256 output: 4 tiles of 128 x 128 for 132 SMs; 2 x 256 x 4096 x 256 FLOPs.
        const Analysed a = analyse(opLoopTrace({
            {"aten::mm",
             "[[256, 4096], [4096, 256]]",
             "[\"c10::BFloat16\", \"c10::BFloat16\"]",
             "",
             {{kBf16Gemm, 30}}},
            {"aten::mm",
             "[[8192, 8192], [8192, 8192]]",
             "[\"c10::BFloat16\", \"c10::BFloat16\"]",
             "",
             {{kBf16Gemm, 1900}}},
        }));
        QVERIFY(a.model);
        const auto gap = a.summary.roofGaps.find({"aten::mm", "[[256, 4096], [4096, 256]]"});
        QVERIFY(gap == a.summary.roofGaps.end());
        QVERIFY(!findingOf(a, "below-roofline"));
    }

    // Attention on the math path (GEMM and softmax kernels) against the same call on a
    // fused kernel: only the first is attention-unfused.
    void attentionOffAFusedKernel()
    {
        const std::string dims =
            "[[8, 16, 2048, 64], [8, 16, 2048, 64], [8, 16, 2048, 64], [], [], [], [], []]";
        const std::string types = "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"\", "
                                  "\"Scalar\", \"Scalar\", \"\", \"Scalar\"]";
        const std::string concrete = "[\"\", \"\", \"\", \"\", \"0.\", \"False\", \"\", \"False\"]";
        const Analysed math = analyse(
            opLoopTrace({{"aten::scaled_dot_product_attention",
                          dims,
                          types,
                          concrete,
                          {{kBf16Gemm, 700}, {"softmax_warp_forward", 900}, {kBf16Gemm, 700}}}}));
        QVERIFY(math.model);
        const OpRoofline* row = rowOf(math.summary.roofline, "aten::scaled_dot_product_attention");
        QVERIFY(row);
        QCOMPARE(row->kind, OpKind::Attention);
        QCOMPARE(row->flopsPerCall, 4.0 * 8 * 16 * 2048 * 2048 * 64);
        const Finding* f = findingOf(math, "attention-unfused");
        QVERIFY(f);
        QVERIFY(f->estimatedGainNs > 0);
        QVERIFY(f->snippet.find("sdpa_kernel") != std::string::npos);
        QVERIFY(!findingOf(math, "below-roofline"));  // its time is attention-unfused's alone
        const Analysed fused = analyse(opLoopTrace({{"aten::scaled_dot_product_attention",
                                                     dims,
                                                     types,
                                                     concrete,
                                                     {{"flash_fwd_kernel", 900}}}}));
        QVERIFY(fused.model);
        QVERIFY(!findingOf(fused, "attention-unfused"));
    }

    // fp32 on a Tensor Core GPU is no-tensor-cores' finding, not below-roofline's: one
    // cause, one finding.
    void fp32OffTensorCoresIsNotBelowRoofline()
    {
        const Analysed a = analyse(opLoopTrace({
            {"aten::mm",
             "[[4096, 4096], [4096, 4096]]",
             "[\"float\", \"float\"]",
             "",
             {{"ampere_sgemm_128x64_tn", 6000}}},
        }));
        QVERIFY(a.model);
        const OpRoofline* mm = rowOf(a.summary.roofline, "aten::mm");
        QVERIFY(mm);
        QCOMPARE(mm->rating.roofs.tflops, a.summary.roofline.peaks->fp32Tflops);
        QVERIFY(!findingOf(a, "below-roofline"));
        QVERIFY(findingOf(a, "no-tensor-cores"));
    }

    // torch.compile on an MI300X (bf16, torch 2.x): each Triton kernel's launch op (a CPU op
    // named after the kernel, with its arguments' dims, strides and dtypes) is rated, its
    // kernel's time charged to it rather than to the compiled region around it. Bytes by
    // hand: every tensor argument once, at 2 bytes (bf16); the Scalars (xnumel, rnumel) none.
    //   red_..._0:  x [8,4096,2048] + weight [2048] + out [8,4096,2048]
    //               = 2 x 67,108,864 x 2 + 2,048 x 2 = 268,439,552 B in 77.074 us = 3,483 GB/s
    //   red_..._1:  [8,4096,2048] + [32768,2048] + [2048] + [8,4096,2048]
    //               = 3 x 134,217,728 + 4,096     = 402,657,280 B in 90.653 us = 4,442 GB/s
    //   poi_..._2:  [8,4096,8192] + [32768,8192]
    //               = 2 x 268,435,456 x 2         = 1,073,741,824 B in 527.382 us = 2,036 GB/s
    //   poi_..._3:  [8,4096,2048] x 2 + [32768,2048]
    //               = 3 x 134,217,728             = 402,653,184 B in 140.848 us = 2,859 GB/s
    // FLOPs: one per element of the largest tensor (67,108,864 for the 2048-wide ones,
    // 268,435,456 for the 8192-wide one). All under the MI300X's 5.3 TB/s, none flagged.
    void compiledKernelsOnTheRealTritonTrace()
    {
        const auto path = test::sharedTrace("tracelens/torch_compile_triton.json.gz");
        if (!std::filesystem::exists(path))
            QSKIP("no shared traces beside the repository");
        trace::LoadResult loaded = trace::loadTraceFile(path);
        QVERIFY(loaded.model);
        const Roofline& r = summarize(*loaded.model).roofline;
        QVERIFY(r.peaks);
        struct Expected
        {
            std::string name;
            OpKind kind;
            double bytes;
            double flops;
            int64_t kernelNs;
            double gbps;
            std::string fused;
        };
        const Expected expected[] = {
            {"triton_red_fused_add_mean_mul_pow_rsqrt_0", OpKind::Reduction, 268'439'552,
             67'108'864, 77'074, 3'483, "add · mean · mul · pow · rsqrt"},
            {"triton_red_fused__unsafe_view_add_mean_mul_pow_rsqrt_1", OpKind::Reduction,
             402'657'280, 67'108'864, 90'653, 4'442,
             "_unsafe_view · add · mean · mul · pow · rsqrt"},
            {"triton_poi_fused__unsafe_view_mul_silu_2", OpKind::Elementwise, 1'073'741'824,
             268'435'456, 527'382, 2'036, "_unsafe_view · mul · silu"},
            {"triton_poi_fused__unsafe_view_add_3", OpKind::Elementwise, 402'653'184, 67'108'864,
             140'848, 2'859, "_unsafe_view · add"},
        };
        int64_t compiledNs = 0;
        for (const Expected& e : expected) {
            const OpRoofline* row = rowOf(r, e.name);
            QVERIFY2(row, e.name.c_str());
            QVERIFY2(row->modelled(), row->unmodelled.c_str());
            QCOMPARE(row->kind, e.kind);
            QCOMPARE(row->precision, Precision::Bf16);
            QCOMPARE(row->calls, int64_t(1));
            QCOMPARE(row->bytesPerCall, e.bytes);
            QCOMPARE(row->flopsPerCall, e.flops);
            QCOMPARE(row->deviceNs, e.kernelNs);  // its kernel's time, charged to it
            QVERIFY2(std::abs(row->rating.achievedGbps - e.gbps) < 1, e.name.c_str());
            QCOMPARE(row->rating.bound, Bound::Memory);
            QVERIFY(!row->rating.abovePeak);
            QVERIFY(row->note.empty());
            QCOMPARE(row->fusedOps, e.fused);
            QCOMPARE(row->kernels.size(), size_t(1));
            QCOMPARE(row->kernels.front().first, e.name);
            // The kernel, its launch's only one, is rated with the same figures.
            const KernelRoofline* kernel = kernelRowOf(r, e.name);
            QVERIFY2(kernel, e.name.c_str());
            QCOMPARE(kernel->op, e.name);
            QCOMPARE(kernel->bytes, e.bytes);
            QCOMPARE(kernel->fusedOps, e.fused);
            compiledNs += e.kernelNs;
        }
        // No row for the compiled region: its GEMMs and attention keep their aten ops.
        QVERIFY(!rowOf(r, "Torch-Compiled Region: 0/0"));
        QVERIFY(rowOf(r, "aten::mm"));
        QVERIFY(rowOf(r, "aten::mm")->fusedOps.empty());
        // Every kernel is rated now: the GEMMs, attention and the four Triton kernels.
        QCOMPARE(r.ratedNs, r.kernelNs);
        QVERIFY(compiledNs > 800'000);
    }

    // An older compiled run (A100, fp32, hta/triton_example): one pointwise launch over
    // three [10, 10] float tensors (x, and sin and cos written): 3 x 100 x 4 = 1,200 bytes,
    // 100 FLOPs, in its 1.76 us kernel.
    void aSmallCompiledKernelInFp32()
    {
        const auto path = test::sharedTrace("hta/triton_example.json.gz");
        if (!std::filesystem::exists(path))
            QSKIP("no shared traces beside the repository");
        trace::LoadResult loaded = trace::loadTraceFile(path);
        QVERIFY(loaded.model);
        const Roofline& r = summarize(*loaded.model).roofline;
        const OpRoofline* row = rowOf(r, "triton_poi_fused_add_cos_sin_0");
        QVERIFY(row);
        QVERIFY2(row->modelled(), row->unmodelled.c_str());
        QCOMPARE(row->precision, Precision::Fp32);
        QCOMPARE(row->bytesPerCall, 1200.0);
        QCOMPARE(row->flopsPerCall, 100.0);
        QCOMPARE(row->deviceNs, int64_t(1760));
        QCOMPARE(row->fusedOps, std::string("add · cos · sin"));
    }

    // The compiled launch's model on its own: a broadcast (stride-0) dimension holds no
    // bytes; a template's FLOPs are its matrix product, found whatever the bias's place; a
    // launch without shapes is catalogued and says why it has no figures.
    void compiledLaunchModel()
    {
        QVERIFY(inCatalogue("triton_poi_fused_add_0"));
        QVERIFY(inCatalogue("triton_per_fused_layer_norm_tanh_0_0d1d2d3d4d"));
        QVERIFY(!inCatalogue("triton_helper"));
        QVERIFY(!inCatalogue("CompiledFunction"));

        // out[m, n] = x[m, n] + b[n] broadcast as [1024, 512] with strides [0, 1]: the bias's
        // 512 elements, not 1024 x 512. (1024 x 512 x 2 + 512) x 4 bytes.
        const std::vector<OpInput> add = {
            tensorArg({1024, 512}, {512, 1}, "float"), tensorArg({1024, 512}, {0, 1}, "float"),
            tensorArg({1024, 512}, {512, 1}, "float"), scalarArg("524288")};
        auto work = workOf("triton_poi_fused_add_0", add);
        QVERIFY(work && work->modelled());
        QCOMPARE(work->kind, OpKind::Elementwise);
        QCOMPARE(work->bytes, (1024.0 * 512 * 2 + 512) * 4);
        QCOMPARE(work->flops, 1024.0 * 512);
        QCOMPARE(work->precision, Precision::Fp32);

        // addmm + relu template: bias [N] broadcast to [M, N], A [M, K], B [K, N], out [M, N].
        // FLOPs 2·M·N·K (2 x 256 x 128 x 64); bytes bias 128 + A + B + out, at 2 bytes.
        const std::vector<OpInput> addmm = {
            tensorArg({256, 128}, {0, 1}), tensorArg({256, 64}, {64, 1}),
            tensorArg({64, 128}, {1, 64}), tensorArg({256, 128}, {128, 1})};
        work = workOf("triton_tem_fused_addmm_relu_0", addmm);
        QVERIFY(work && work->modelled());
        QCOMPARE(work->kind, OpKind::Matmul);
        QCOMPARE(work->flops, 2.0 * 256 * 128 * 64);
        QCOMPARE(work->bytes, (128.0 + 256 * 64 + 64 * 128 + 256 * 128) * 2);
        QCOMPARE(work->precision, Precision::Bf16);

        // bmm template: [B, M, K] x [B, K, N] -> [B, M, N].
        const std::vector<OpInput> bmm = {tensorArg({4, 32, 16}, {}), tensorArg({4, 16, 8}, {}),
                                          tensorArg({4, 32, 8}, {})};
        work = workOf("triton_tem_fused_bmm_1", bmm);
        QVERIFY(work && work->modelled());
        QCOMPARE(work->flops, 2.0 * 4 * 32 * 16 * 8);

        // A convolution template: x [2, 16, 8, 8], w [32, 16, 3, 3], y [2, 32, 6, 6]:
        // 2 x numel(y) x 16 x 3 x 3.
        const std::vector<OpInput> conv = {tensorArg({2, 16, 8, 8}, {}),
                                           tensorArg({32, 16, 3, 3}, {}),
                                           tensorArg({2, 32, 6, 6}, {})};
        work = workOf("triton_tem_fused_convolution_0", conv);
        QVERIFY(work && work->modelled());
        QCOMPARE(work->kind, OpKind::Convolution);
        QCOMPARE(work->flops, 2.0 * (2 * 32 * 6 * 6) * (16 * 3 * 3));

        // A template whose operands do not multiply, and one of no GEMM: no figures.
        work = workOf("triton_tem_fused_mm_0",
                      std::vector<OpInput>{tensorArg({8, 4}, {}), tensorArg({8, 4}, {})});
        QVERIFY(work && !work->modelled());
        work = workOf("triton_tem_fused_0", bmm);
        QVERIFY(work && !work->modelled());

        // A launch recorded without its arguments (older torch): catalogued, no figures.
        work = workOf("triton_red_fused_sum_0", {});
        QVERIFY(work);
        QCOMPARE(work->kind, OpKind::Reduction);
        QVERIFY(work->unmodelled.find("no shapes") != std::string::npos);
    }

    // Every shared real trace: the rated time is part of the kernel time; every figure
    // with a roof is under it or flagged; and the flagged time is small (a model off by 2x
    // would push whole op kinds over their roofs).
    void realTracesStayUnderTheirRoofs()
    {
        const auto files = test::sharedTraceFiles();
        if (files.empty())
            QSKIP("no shared traces beside the repository");
        double rated = 0, flagged = 0;
        int withPeaks = 0, withRatedOps = 0;
        for (const auto& path : files) {
            trace::LoadResult loaded = trace::loadTraceFile(path);
            if (!loaded.model)
                continue;
            const TraceSummary s = summarize(*loaded.model);
            const Roofline& r = s.roofline;
            QVERIFY2(r.ratedNs <= r.chargedNs && r.chargedNs <= r.kernelNs,
                     qPrintable(QString::fromStdString(path.string())));
            withPeaks += r.peaks.has_value();
            withRatedOps += r.ratedNs > 0;
            for (const OpRoofline& o : r.ops) {
                if (!o.modelled())
                    continue;
                QVERIFY(o.flopsPerCall >= 0 && o.bytesPerCall >= 0);
                const bool above =
                    (o.rating.roofs.tflops > 0 &&
                     o.rating.achievedTflops > o.rating.roofs.tflops) ||
                    (o.rating.roofs.gbps > 0 && o.rating.achievedGbps > o.rating.roofs.gbps);
                QCOMPARE(o.rating.abovePeak, above);
                QCOMPARE(o.note.empty(), !above);
                rated += double(o.deviceNs);
                flagged += above ? double(o.deviceNs) : 0;
                if (above)
                    qInfo().noquote()
                        << QString::fromStdString(path.filename().string() + ": " + o.name + " " +
                                                  o.inputShapes + " -- " + o.note);
            }
        }
        QVERIFY(withPeaks >= 20);
        QVERIFY(withRatedOps >= 10);
        QVERIFY2(
            flagged < 0.05 * rated,
            qPrintable(
                QStringLiteral("%1 of %2 ms above a roof").arg(flagged / 1e6).arg(rated / 1e6)));
    }
};

QTEST_GUILESS_MAIN(TestRoofline)
#include "test_roofline.moc"
