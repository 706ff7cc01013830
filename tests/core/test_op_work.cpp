// The work of one operator call: FLOPs and bytes from the recorded shapes, dtypes and
// concrete inputs. The argument layouts below are copied from real torch.profiler traces
// (under /work/shared/traces: the ROCm ResNet, the 2021 V100 ResNet-50, the B200
// DeepSeek step, the torch.compile flash-attention trace); the figures are worked by hand.
#include "core/roofline/op_work.h"

#include <QtTest>
#include <cmath>
#include <cstdint>
#include <random>

using namespace kinetoscope::roofline;
namespace trace = kinetoscope::trace;

namespace {

// A call as the trace records it: "Input Dims" as text, then "Input type" and "Concrete
// Inputs" one entry per argument.
std::vector<OpInput> call(std::string_view dims, const std::vector<std::string>& types,
                          const std::vector<std::string>& concrete = {})
{
    std::vector<OpInput> inputs = opInputsFromDims(dims);
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (i < types.size())
            inputs[i].type = types[i];
        if (i < concrete.size())
            inputs[i].concrete = concrete[i];
    }
    return inputs;
}

OpWork work(std::string_view op, const std::vector<OpInput>& inputs)
{
    const auto result = workOf(op, inputs);
    if (!result)
        qFatal("%s is not in the catalogue", std::string(op).c_str());
    if (!result->modelled())
        qWarning("%s unmodelled: %s", std::string(op).c_str(), result->unmodelled.c_str());
    return *result;
}

const std::string kBf16 = "c10::BFloat16";

}  // namespace

class TestOpWork : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // ---- dtypes and argument parsing ----

    void dtypeSpellings()
    {
        struct Case
        {
            const char* spelling;
            Precision precision;
            int bytes;
        };
        const Case cases[] = {
            {"float", Precision::Fp32, 4},
            {"double", Precision::Fp64, 8},
            {"c10::Half", Precision::Fp16, 2},
            {"Half", Precision::Fp16, 2},
            {"c10::BFloat16", Precision::Bf16, 2},
            {"BFloat16", Precision::Bf16, 2},
            {"c10::Float8_e4m3fn", Precision::Fp8, 1},
            {"c10::Float8_e5m2", Precision::Fp8, 1},
            {"c10::Float8_e4m3fnuz", Precision::Fp8, 1},
            {"long int", Precision::Int, 8},
            {"long", Precision::Int, 8},
            {"int", Precision::Int, 4},
            {"short int", Precision::Int, 2},
            {"signed char", Precision::Int8, 1},
            {"unsigned char", Precision::Int8, 1},
            {"bool", Precision::Int, 1},
            {"c10::complex<float>", Precision::Fp32, 8},
            {"c10::complex<double>", Precision::Fp64, 16},
            {" float ", Precision::Fp32, 4},
            // Not tensor dtypes: non-tensor arguments (old traces' IValue tags included).
            {"Scalar", Precision::Unknown, 0},
            {"ScalarList", Precision::Unknown, 0},
            {"TensorList", Precision::Unknown, 0},
            {"GenericList", Precision::Unknown, 0},
            {"Int", Precision::Unknown, 0},
            {"Bool", Precision::Unknown, 0},
            {"Double", Precision::Unknown, 0},
            {"", Precision::Unknown, 0},
        };
        for (const Case& c : cases) {
            const DType dtype = dtypeOf(c.spelling);
            QVERIFY2(dtype.precision == c.precision, c.spelling);
            QCOMPARE(dtype.bytes, c.bytes);
        }
        QCOMPARE(QString(precisionName(Precision::Bf16)), QString("bf16"));
        QCOMPARE(QString(precisionName(Precision::Unknown)), QString("unknown"));
        QCOMPARE(QString(opKindName(OpKind::Normalization)), QString("normalization"));
        QVERIFY(isMatrixKind(OpKind::Attention));
        QVERIFY(!isMatrixKind(OpKind::Copy));
    }

    void dimsTextWithTensorLists()
    {
        const auto inputs = opInputsFromDims("[[[2, 6, 2], [2, 6, 2]], [4, 8], [], [[]]]");
        QCOMPARE(inputs.size(), size_t(4));
        QCOMPARE(inputs[0].list.size(), size_t(2));
        QCOMPARE(inputs[0].list[1], (std::vector<int64_t>{2, 6, 2}));
        QVERIFY(inputs[0].dims.empty());
        QCOMPARE(inputs[1].dims, (std::vector<int64_t>{4, 8}));
        QVERIFY(inputs[2].dims.empty() && inputs[2].list.empty());
        QCOMPARE(inputs[3].list.size(), size_t(1));
        QVERIFY(inputs[3].list[0].empty());
        QVERIFY(inputs[0].type.empty() && inputs[0].concrete.empty());

        QCOMPARE(opInputsFromDims("[]").size(), size_t(0));
        QCOMPARE(opInputsFromDims(" [ [ -1 , 2 ] ] ").at(0).dims, (std::vector<int64_t>{-1, 2}));
        // Malformed: nothing, rather than a guess.
        for (const char* bad : {"", "[", "[[1, [2]]]", "[[1, 2]", "[[1.5]]", "[[1]] x", "[[[[1]]]]",
                                "[[99999999999999999999]]", "[1, 2]", "{}"})
            QVERIFY2(opInputsFromDims(bad).empty(), bad);
    }

    void argsFromParsedJson()
    {
        using trace::ArgValue;
        const auto ints = [](std::initializer_list<int64_t> values) {
            ArgValue::Array array;
            for (const int64_t v : values) {
                ArgValue item;
                item.value = v;
                array.push_back(std::move(item));
            }
            return ArgValue{std::move(array)};
        };
        const auto strings = [](std::initializer_list<const char*> values) {
            ArgValue::Array array;
            for (const char* v : values) {
                ArgValue item;
                item.value = std::string(v);
                array.push_back(std::move(item));
            }
            return ArgValue{std::move(array)};
        };
        ArgValue::Array dims;
        dims.push_back(ints({8, 16}));
        dims.push_back(ArgValue{ArgValue::Array{ints({2}), ints({3, 4})}});
        dims.push_back(ints({}));
        const std::vector<trace::Arg> args = {
            {"External id", ArgValue{int64_t{7}}},
            {"Input Dims", ArgValue{std::move(dims)}},
            {"Input type", strings({"float", "TensorList", "ScalarList"})},
            {"Concrete Inputs", strings({"", "", "[2, 2]"})},
        };
        const auto inputs = opInputs(args);
        QCOMPARE(inputs.size(), size_t(3));
        QCOMPARE(inputs[0].dims, (std::vector<int64_t>{8, 16}));
        QCOMPARE(inputs[1].list.size(), size_t(2));
        QCOMPARE(inputs[1].list[1], (std::vector<int64_t>{3, 4}));
        QCOMPARE(inputs[0].type, std::string("float"));
        QCOMPARE(inputs[2].concrete, std::string("[2, 2]"));

        QVERIFY(opInputs({}).empty());
        const std::vector<trace::Arg> noShapes = {{"Input type", strings({"float"})}};
        QVERIFY(opInputs(noShapes).empty());
        const std::vector<trace::Arg> badShapes = {
            {"Input Dims", ArgValue{ArgValue::Array{strings({"x"})}}}};
        QVERIFY(opInputs(badShapes).empty());
    }

    // ---- the catalogue's edges ----

    void catalogueMembership()
    {
        for (const char* name :
             {"aten::mm", "aten::linear", "aten::add", "aten::add_", "aten::_foreach_add_",
              "aten::_foreach_lerp_", "aten::relu_", "aten::copy_", "aten::fill_", "aten::normal_",
              "aten::cat", "aten::convolution_backward", "aten::native_layer_norm",
              "aten::_flash_attention_forward", "aten::sum"})
            QVERIFY2(inCatalogue(name), name);
        for (const char* name : {"aten::view",
                                 "aten::reshape",
                                 "aten::t",
                                 "aten::transpose",
                                 "aten::expand",
                                 "aten::as_strided",
                                 "aten::slice",
                                 "aten::select",
                                 "aten::permute",
                                 "aten::empty",
                                 "aten::empty_strided",
                                 "aten::detach",
                                 "aten::normal",
                                 "aten::_to_copy",
                                 "aten::__and__",
                                 "aten::",
                                 "mm",
                                 "",
                                 "ProfilerStep#1",
                                 "myop::mm"})
            QVERIFY2(!inCatalogue(name), name);
        QVERIFY(!workOf("aten::view", call("[[2, 3], []]", {"float", "ScalarList"})));
        QVERIFY(!workOf("my_lib::my_op", call("[[2, 3]]", {"float"})));
    }

    void catalogueOpsWithoutShapesSayWhy()
    {
        const auto mm = workOf("aten::mm", {});
        QVERIFY(mm && !mm->modelled());
        QCOMPARE(mm->kind, OpKind::Matmul);
        QVERIFY(QString::fromStdString(mm->unmodelled).contains("no shapes"));
        // Shapes but no dtypes (the trace model's "Input Dims" text alone).
        const auto noTypes = workOf("aten::mm", opInputsFromDims("[[8, 16], [16, 32]]"));
        QVERIFY(noTypes && !noTypes->modelled());
        const auto conv = workOf("aten::convolution", {});
        QCOMPARE(conv->kind, OpKind::Convolution);
        QCOMPARE(workOf("aten::add_", {})->kind, OpKind::Elementwise);
        QCOMPARE(workOf("aten::copy_", {})->kind, OpKind::Copy);
        QCOMPARE(workOf("aten::softmax", {})->kind, OpKind::Softmax);
    }

    // ---- matrix products ----

    void mmCountsMultiplyAddsAndEachOperandOnce()
    {
        const OpWork w = work("aten::mm", call("[[8, 16], [16, 32]]", {"float", "float"}));
        QVERIFY(w.modelled());
        QCOMPARE(w.kind, OpKind::Matmul);
        QCOMPARE(w.flops, 8192.0);
        QCOMPARE(w.bytes, (8.0 * 16 + 16 * 32 + 8 * 32) * 4);
        QCOMPARE(w.precision, Precision::Fp32);

        const auto mismatched = workOf("aten::mm", call("[[8, 16], [15, 32]]", {"float", "float"}));
        QVERIFY(mismatched && !mismatched->modelled());
    }

    void addmmCountsTheBiasReadNotItsAdd()
    {
        // The 2021 ResNet-50 layout: [[bias], [M, K], [K, N], beta, alpha].
        const OpWork vector = work("aten::addmm", call("[[32], [8, 16], [16, 32], [], []]",
                                                       {"float", "float", "float", "Int", "Int"}));
        QCOMPARE(vector.flops, 8192.0);
        QCOMPARE(vector.bytes, (32.0 + 128 + 512 + 256) * 4);
        const OpWork matrix =
            work("aten::addmm",
                 call("[[8, 32], [8, 16], [16, 32], [], []]",
                      {"float", "float", "float", "Scalar", "Scalar"}, {"", "", "", "1", "1"}));
        QCOMPARE(matrix.flops, 8192.0);
        QCOMPARE(matrix.bytes, (256.0 + 128 + 512 + 256) * 4);
    }

    void batchedAndBroadcastMatmul()
    {
        const OpWork bmm = work("aten::bmm", call("[[4, 8, 16], [4, 16, 32]]", {kBf16, kBf16}));
        QCOMPARE(bmm.flops, 2.0 * 4 * 8 * 16 * 32);
        QCOMPARE(bmm.bytes, (512.0 + 2048 + 1024) * 2);
        QCOMPARE(bmm.precision, Precision::Bf16);

        const OpWork baddbmm =
            work("aten::baddbmm", call("[[4, 8, 32], [4, 8, 16], [4, 16, 32], [], []]",
                                       {kBf16, kBf16, kBf16, "Scalar", "Scalar"}));
        QCOMPARE(baddbmm.flops, 2.0 * 4 * 8 * 16 * 32);

        // torch.matmul: batch dims broadcast, B read once.
        const OpWork batched =
            work("aten::matmul", call("[[2, 3, 8, 16], [16, 4]]", {"float", "float"}));
        QCOMPARE(batched.flops, 2.0 * 6 * 8 * 16 * 4);
        QCOMPARE(batched.bytes, (768.0 + 64 + 192) * 4);
        const OpWork broadcast =
            work("aten::matmul", call("[[5, 1, 8, 16], [3, 16, 4]]", {"float", "float"}));
        QCOMPARE(broadcast.flops, 2.0 * 15 * 8 * 16 * 4);
        const OpWork dot = work("aten::matmul", call("[[16], [16]]", {"float", "float"}));
        QCOMPARE(dot.flops, 32.0);
        QCOMPARE(dot.bytes, (16.0 + 16 + 1) * 4);
        const OpWork matrixVector =
            work("aten::matmul", call("[[8, 16], [16]]", {"float", "float"}));
        QCOMPARE(matrixVector.flops, 2.0 * 8 * 16);
        const OpWork vectorMatrix =
            work("aten::matmul", call("[[16], [3, 16, 4]]", {"float", "float"}));
        QCOMPARE(vectorMatrix.flops, 2.0 * 3 * 16 * 4);
        QVERIFY(!workOf("aten::matmul", call("[[2, 8, 16], [3, 16, 4]]", {"float", "float"}))
                     ->modelled());
    }

    void linearFromTheDeepSeekTrace()
    {
        // aten::linear [[2, 6, 2], [50257, 2], []]: 12 rows, K = 2, N = 50257, no bias.
        const OpWork w = work("aten::linear", call("[[2, 6, 2], [50257, 2], []]",
                                                   {"float", "float", ""}, {"", "", ""}));
        QCOMPARE(w.flops, 2.0 * 12 * 2 * 50257);
        QCOMPARE(w.bytes, (24.0 + 100514 + 12 * 50257) * 4);
        const OpWork biased = work("aten::linear", call("[[32, 2048], [1000, 2048], [1000]]",
                                                        {"float", "float", "float"}));
        QCOMPARE(biased.flops, 2.0 * 32 * 2048 * 1000);
        QCOMPARE(biased.bytes, (32.0 * 2048 + 1000 * 2048 + 1000 + 32 * 1000) * 4);
    }

    void scaledAndGroupedMm()
    {
        const std::vector<std::string> types = {"c10::Float8_e4m3fn",
                                                "c10::Float8_e4m3fn",
                                                "float",
                                                "float",
                                                "",
                                                "",
                                                "Scalar",
                                                "Scalar"};
        const std::string dims = "[[16, 32], [32, 64], [], [], [], [], [], []]";
        // out_dtype recorded (15 = bfloat16).
        const OpWork recorded =
            work("aten::_scaled_mm", call(dims, types, {"", "", "", "", "", "", "15", "False"}));
        QCOMPARE(recorded.flops, 2.0 * 16 * 32 * 64);
        QCOMPARE(recorded.bytes, 512.0 + 2048 + 4 + 4 + 16 * 64 * 2);
        QCOMPARE(recorded.precision, Precision::Fp8);
        // out_dtype recorded as None: torch's default, the first operand's dtype.
        const OpWork none =
            work("aten::_scaled_mm", call(dims,
                                          {"c10::Float8_e4m3fn", "c10::Float8_e4m3fn", "float",
                                           "float", "", "", "", "Scalar"},
                                          {"", "", "", "", "", "", "", "False"}));
        QCOMPARE(none.bytes, 512.0 + 2048 + 4 + 4 + 16 * 64);
        // No Concrete Inputs at all: bf16 assumed.
        const OpWork unknown = work("aten::_scaled_mm", call(dims, types));
        QCOMPARE(unknown.bytes, recorded.bytes);
        // _int_mm: int8 operands, an int32 output.
        const OpWork integer =
            work("aten::_int_mm", call("[[16, 32], [32, 64]]", {"signed char", "signed char"}));
        QCOMPARE(integer.flops, 2.0 * 16 * 32 * 64);
        QCOMPARE(integer.bytes, 16.0 * 32 + 32 * 64 + 16 * 64 * 4);

        // _grouped_mm 2-D x 3-D: 64 routed rows against 4 experts' [32, 16] weights.
        const OpWork grouped =
            work("aten::_grouped_mm", call("[[64, 32], [4, 32, 16], [4], [], []]",
                                           {kBf16, kBf16, "int", "", ""}, {"", "", "", "", ""}));
        QCOMPARE(grouped.flops, 2.0 * 64 * 32 * 16);
        QCOMPARE(grouped.bytes, 64.0 * 32 * 2 + 4 * 32 * 16 * 2 + 4 * 4 + 64 * 16 * 2);
        const OpWork batchedGroups =
            work("aten::_grouped_mm", call("[[4, 8, 32], [4, 32, 16]]", {kBf16, kBf16}));
        QCOMPARE(batchedGroups.flops, 2.0 * 4 * 8 * 32 * 16);
        // 2-D x 2-D: the offsets give the output's group count.
        const OpWork weightGrad =
            work("aten::_grouped_mm", call("[[16, 64], [64, 8], [4]]", {kBf16, kBf16, "int"}));
        QCOMPARE(weightGrad.flops, 2.0 * 16 * 64 * 8);
        QCOMPARE(weightGrad.bytes, 16.0 * 64 * 2 + 64 * 8 * 2 + 16 + 4 * 16 * 8 * 2);
    }

    // ---- convolutions ----

    void convolutionWithStrideAndPaddingFromConcreteInputs()
    {
        // The ROCm ResNet's first layer: 7x7, stride 2, padding 3, 224 -> 112.
        const OpWork w =
            work("aten::convolution",
                 call("[[10, 3, 224, 224], [64, 3, 7, 7], [], [], [], [], [], [], []]",
                      {kBf16, kBf16, "", "ScalarList", "ScalarList", "ScalarList", "Scalar",
                       "ScalarList", "Scalar"},
                      {"", "", "", "[2, 2]", "[3, 3]", "[1, 1]", "False", "[0, 0]", "1"}));
        QVERIFY(w.modelled());
        QCOMPARE(w.kind, OpKind::Convolution);
        QCOMPARE(w.flops, 2.0 * 10 * (64 * 3 * 7 * 7) * (112 * 112));
        QCOMPARE(w.bytes, (10.0 * 3 * 224 * 224 + 64 * 3 * 7 * 7 + 10 * 64 * 112 * 112) * 2);
        QCOMPARE(w.precision, Precision::Bf16);

        // miopen_convolution puts padding before stride: 3x3, padding 1, stride 2, 14 -> 7.
        const OpWork miopen =
            work("aten::miopen_convolution",
                 call("[[10, 256, 14, 14], [512, 256, 3, 3], [], [], [], [], [], [], []]",
                      {kBf16, kBf16, "", "ScalarList", "ScalarList", "ScalarList", "Scalar",
                       "Scalar", "Scalar"},
                      {"", "", "", "[1, 1]", "[2, 2]", "[1, 1]", "1", "False", "False"}));
        QCOMPARE(miopen.flops, 2.0 * 10 * (512 * 256 * 9) * 49);
        QCOMPARE(miopen.bytes, (10.0 * 256 * 196 + 512 * 256 * 9 + 10 * 512 * 49) * 2);

        // Grouped (depthwise) conv2d with a bias: weight [C, 1, 3, 3], groups = C.
        const OpWork depthwise = work(
            "aten::conv2d",
            call("[[2, 8, 10, 10], [8, 1, 3, 3], [8], [], [], [], []]",
                 {"float", "float", "float", "ScalarList", "ScalarList", "ScalarList", "Scalar"},
                 {"", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "8"}));
        QCOMPARE(depthwise.flops, 2.0 * 2 * (8 * 9) * 100);
        QCOMPARE(depthwise.bytes, (2.0 * 800 + 72 + 8 + 2 * 800) * 4);
        const OpWork same = work(
            "aten::conv2d", call("[[1, 4, 9, 9], [4, 4, 3, 3], [], [], [], [], []]",
                                 {"float", "float", "", "ScalarList", "", "ScalarList", "Scalar"},
                                 {"", "", "", "[1, 1]", "same", "[1, 1]", "1"}));
        QCOMPARE(same.flops, 2.0 * 1 * (4 * 4 * 9) * 81);
    }

    void transposedConvolution()
    {
        // conv_transpose2d(input, weight [Cin, Cout/g, k, k], bias, stride, padding,
        // output_padding, groups, dilation): 8 -> (8-1)*2 - 2 + 3 + 1 + 1 = 16.
        const OpWork w = work("aten::conv_transpose2d",
                              call("[[1, 4, 8, 8], [4, 2, 3, 3], [], [], [], [], [], []]",
                                   {"float", "float", "", "ScalarList", "ScalarList", "ScalarList",
                                    "Scalar", "ScalarList"},
                                   {"", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "1", "[1, 1]"}));
        QCOMPARE(w.flops, 2.0 * 1 * (4 * 2 * 9) * 64);
        QCOMPARE(w.bytes, (256.0 + 72 + 1 * 2 * 16 * 16) * 4);
    }

    void convolutionWithoutConcreteInputsIsUnmodelled()
    {
        // torch 1.8 (2021): stride and padding are GenericLists with no values.
        const auto inputs = call("[[32, 3, 224, 224], [64, 3, 7, 7], [], [], [], [], [], [], []]",
                                 {"float", "float", "GenericList", "GenericList", "GenericList",
                                  "Int", "Bool", "Bool", "Bool"});
        const auto w = workOf("aten::cudnn_convolution", inputs);
        QVERIFY(w && !w->modelled());
        QCOMPARE(w->kind, OpKind::Convolution);
        QVERIFY(QString::fromStdString(w->unmodelled).contains("not recorded"));
        QVERIFY(QString::fromStdString(w->unmodelled).contains("stride"));
        QCOMPARE(w->flops, 0.0);
    }

    void convolutionBackwardFollowsTheOutputMask()
    {
        // ROCm ResNet: 3x3 stride 2 from 14 to 7; grad_output gives the output size.
        const std::string dims = "[[10, 512, 7, 7], [10, 256, 14, 14], [512, 256, 3, 3], [], [], "
                                 "[], [], [], [], [], []]";
        const std::vector<std::string> types = {
            kBf16,        kBf16,    kBf16,        "ScalarList", "ScalarList", "ScalarList",
            "ScalarList", "Scalar", "ScalarList", "Scalar",     "ScalarList"};
        const double forward = 2.0 * 10 * (512 * 256 * 9) * 49;
        const double gradOut = 10.0 * 512 * 49, input = 10.0 * 256 * 196, weight = 512.0 * 256 * 9;
        const OpWork both = work("aten::convolution_backward",
                                 call(dims, types,
                                      {"", "", "", "[0]", "[2, 2]", "[1, 1]", "[1, 1]", "False",
                                       "[0, 0]", "1", "[True, True, False]"}));
        QCOMPARE(both.flops, 2 * forward);
        QCOMPARE(both.bytes, (gradOut + 2 * (input + weight)) * 2);
        const OpWork weightOnly = work("aten::convolution_backward",
                                       call(dims, types,
                                            {"", "", "", "[0]", "[2, 2]", "[1, 1]", "[1, 1]",
                                             "False", "[0, 0]", "1", "[False, True, False]"}));
        QCOMPARE(weightOnly.flops, forward);
        QCOMPARE(weightOnly.bytes, (gradOut + input + weight) * 2);
        const OpWork withBias = work("aten::convolution_backward",
                                     call(dims, types,
                                          {"", "", "", "[512]", "[2, 2]", "[1, 1]", "[1, 1]",
                                           "False", "[0, 0]", "1", "[False, True, True]"}));
        QCOMPARE(withBias.bytes, (gradOut + input + weight + 512) * 2);
    }

    void oldCudnnConvolutionBackward()
    {
        // torch 1.8: cudnn_convolution_backward(self, grad_output, weight, padding, stride,
        // dilation, groups, benchmark, deterministic, allow_tf32, output_mask), no values.
        // The mask unrecorded, grad_input and grad_weight are both counted.
        const OpWork w = work(
            "aten::cudnn_convolution_backward",
            call("[[32, 512, 7, 7], [32, 2048, 7, 7], [2048, 512, 1, 1], [], [], [], [], [], [], "
                 "[], []]",
                 {"float", "float", "float", "GenericList", "GenericList", "GenericList", "Int",
                  "Bool", "Bool", "Bool", "GenericList"}));
        const double forward = 2.0 * 32 * (2048 * 512) * 49;
        QCOMPARE(w.flops, 2 * forward);
        const double gradOut = 32.0 * 2048 * 49, input = 32.0 * 512 * 49, weight = 2048.0 * 512;
        QCOMPARE(w.bytes, (gradOut + 2 * (input + weight)) * 4);

        // Its children need the other operand's size, recorded only with Concrete Inputs.
        const auto part =
            workOf("aten::cudnn_convolution_backward_input",
                   call("[[], [32, 2048, 7, 7], [2048, 512, 1, 1], [], [], [], [], [], [], []]",
                        {"GenericList", "float", "float", "GenericList", "GenericList",
                         "GenericList", "Int", "Bool", "Bool", "Bool"}));
        QVERIFY(part && !part->modelled());
        const OpWork recorded =
            work("aten::cudnn_convolution_backward_input",
                 call("[[], [32, 2048, 7, 7], [2048, 512, 1, 1], [], [], [], [], [], [], []]",
                      {"ScalarList", "float", "float", "ScalarList", "ScalarList", "ScalarList",
                       "Scalar", "Scalar", "Scalar", "Scalar"},
                      {"[32, 512, 7, 7]", "", "", "[0, 0]", "[1, 1]", "[1, 1]", "1", "False",
                       "False", "True"}));
        QCOMPARE(recorded.flops, forward);
        QCOMPARE(recorded.bytes, (gradOut + weight + input) * 4);
    }

    // ---- attention ----

    void sdpaCausalHalvesTheWork()
    {
        // _scaled_dot_product_flash_attention(q, k, v, dropout_p, is_causal,
        // return_debug_mask, scale), [B, H, L, E].
        const std::string dims =
            "[[2, 8, 128, 64], [2, 8, 128, 64], [2, 8, 128, 64], [], [], [], []]";
        const std::vector<std::string> types = {kBf16,    kBf16,    kBf16,   "Scalar",
                                                "Scalar", "Scalar", "Scalar"};
        const OpWork dense = work("aten::_scaled_dot_product_flash_attention",
                                  call(dims, types, {"", "", "", "0.", "False", "False", "0.125"}));
        QCOMPARE(dense.kind, OpKind::Attention);
        QCOMPARE(dense.flops, 4.0 * 2 * 8 * 128 * 128 * 64);
        QCOMPARE(dense.bytes, 4 * (2.0 * 8 * 128 * 64) * 2);
        QCOMPARE(dense.precision, Precision::Bf16);
        const OpWork causal = work("aten::_scaled_dot_product_flash_attention",
                                   call(dims, types, {"", "", "", "0.", "True", "False", "0.125"}));
        QCOMPARE(causal.flops, dense.flops / 2);
        QCOMPARE(causal.bytes, dense.bytes);
        // is_causal not recorded: counted as not causal.
        const OpWork unknown = work("aten::_scaled_dot_product_flash_attention", call(dims, types));
        QCOMPARE(unknown.flops, dense.flops);

        // The public op: (q, k, v, attn_mask, dropout_p, is_causal, scale, enable_gqa); the
        // mask is read. Top-left causal with L = 128 < S = 512 keeps L / 2S of the scores.
        const OpWork masked = work(
            "aten::scaled_dot_product_attention",
            call("[[1, 4, 128, 64], [1, 4, 512, 64], [1, 4, 512, 64], [128, 512], [], [], [], []]",
                 {"float", "float", "float", "bool", "Scalar", "Scalar", "", "Scalar"},
                 {"", "", "", "", "0.", "True", "", "False"}));
        QCOMPARE(masked.flops, 4.0 * 4 * 128 * 512 * 64 / 8);
        QCOMPARE(masked.bytes, (4.0 * 128 * 64 + 2 * 4 * 512 * 64 + 4 * 128 * 64) * 4 + 128 * 512);
    }

    void flashForwardUsesTheBLHELayout()
    {
        // The torch.compile trace's _flash_attention_forward: [B, L, H, E] = [8, 4096, 16, 128].
        const auto inputs = call(
            "[[8, 4096, 16, 128], [8, 4096, 16, 128], [8, 4096, 16, 128], [], [], [], [], [], [], "
            "[], [], [], [], [], []]",
            {kBf16, kBf16, kBf16, "", "", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar",
             "Scalar", "", "", "", ""},
            {"", "", "", "", "", "4096", "4096", "0.", "False", "False", "0.088388347648318433", "",
             "", "", ""});
        const OpWork w = work("aten::_flash_attention_forward", inputs);
        QCOMPARE(w.flops, 4.0 * 8 * 16 * 4096 * 4096 * 128);
        QCOMPARE(w.bytes, 4 * (8.0 * 4096 * 16 * 128) * 2);

        // Decode with a bottom-right causal mask: one query sees all 1024 keys (less half
        // of the diagonal step).
        const OpWork decode = work("aten::_flash_attention_forward",
                                   call("[[4, 1, 8, 64], [4, 1024, 8, 64], [4, 1024, 8, 64], [], "
                                        "[], [], [], [], [], [], [], "
                                        "[], [], [], []]",
                                        {kBf16, kBf16, kBf16, "", "", "Scalar", "Scalar", "Scalar",
                                         "Scalar", "Scalar", "Scalar", "", "", "", ""},
                                        {"", "", "", "", "", "1", "1024", "0.", "True", "False",
                                         "0.125", "", "", "", ""}));
        QCOMPARE(decode.flops, 4.0 * 4 * 8 * 1 * 1024 * 64 * (1 - 1.0 / 2048));

        // A packed variable-length batch: the lengths are not recorded.
        const auto packed = workOf("aten::_flash_attention_forward",
                                   call("[[100, 8, 64], [100, 8, 64], [100, 8, 64], [5], [5]]",
                                        {kBf16, kBf16, kBf16, "int", "int"}));
        QVERIFY(packed && !packed->modelled());
    }

    void groupedQueryAttention()
    {
        // 32 query heads share 8 key/value heads: FLOPs by query heads, bytes as stored.
        const OpWork w =
            work("aten::_scaled_dot_product_flash_attention",
                 call("[[1, 32, 256, 128], [1, 8, 256, 128], [1, 8, 256, 128], [], [], [], []]",
                      {kBf16, kBf16, kBf16, "Scalar", "Scalar", "Scalar", "Scalar"},
                      {"", "", "", "0.", "False", "False", ""}));
        QCOMPARE(w.flops, 4.0 * 32 * 256 * 256 * 128);
        QCOMPARE(w.bytes, (32.0 * 256 * 128 * 2 + 2 * 8 * 256 * 128) * 2);
    }

    void attentionBackwardIsTwoAndAHalfForwards()
    {
        // (grad_out, q, k, v, out, logsumexp, cum_seq_q, cum_seq_k, max_q, max_k,
        // dropout_p, is_causal, philox_seed, philox_offset, scale)
        const OpWork w =
            work("aten::_scaled_dot_product_flash_attention_backward",
                 call("[[2, 8, 128, 64], [2, 8, 128, 64], [2, 8, 128, 64], [2, 8, 128, 64], "
                      "[2, 8, 128, 64], [2, 8, 128], [], [], [], [], [], [], [], [], []]",
                      {kBf16, kBf16, kBf16, kBf16, kBf16, "float", "", "", "Scalar", "Scalar",
                       "Scalar", "Scalar", "long int", "long int", "Scalar"},
                      {"", "", "", "", "", "", "", "", "128", "128", "0.", "True", "", "", ""}));
        const double forward = 4.0 * 2 * 8 * 128 * 128 * 64 / 2;
        QCOMPARE(w.flops, 2.5 * forward);
        const double tensor = 2.0 * 8 * 128 * 64;
        // Read: grad_out, q, k, v, out (bf16), logsumexp (fp32), the two 0-dim int64 philox
        // tensors; written: dq, dk, dv.
        QCOMPARE(w.bytes, 5 * tensor * 2 + 2 * 8 * 128 * 4 + 2 * 8 + 3 * tensor * 2);
    }

    // ---- streaming ops ----

    void inPlaceElementwiseReadsAndWritesItsTarget()
    {
        // The 2021 ResNet-50's residual add: add_(self, other, alpha).
        const OpWork w = work("aten::add_", call("[[32, 256, 56, 56], [32, 256, 56, 56], []]",
                                                 {"float", "float", "Int"}));
        const double n = 32.0 * 256 * 56 * 56;
        QCOMPARE(w.kind, OpKind::Elementwise);
        QCOMPARE(w.flops, n);
        QCOMPARE(w.bytes, 3 * n * 4);
        QCOMPARE(w.precision, Precision::Fp32);

        const OpWork relu = work("aten::relu_", call("[[4, 8]]", {kBf16}));
        QCOMPARE(relu.bytes, 2 * 32.0 * 2);
        const OpWork fill =
            work("aten::fill_", call("[[10, 50257], []]", {"float", "Scalar"}, {"", "0"}));
        QCOMPARE(fill.bytes, 502570.0 * 4);
    }

    void elementwiseBroadcastAndPromotion()
    {
        const OpWork mul = work("aten::mul", call("[[2, 6, 8], [8]]", {"float", "float"}));
        QCOMPARE(mul.flops, 96.0);
        QCOMPARE(mul.bytes, (96.0 + 8 + 96) * 4);
        // bf16 times an fp32 0-dim tensor stays bf16.
        const OpWork scaled = work("aten::mul", call("[[1024], []]", {kBf16, "float"}));
        QCOMPARE(scaled.bytes, 1024.0 * 2 + 4 + 1024 * 2);
        // where(cond [1, 1, 6, 6] bool, x [2, 2, 6, 6] float, scalar): cond read, no promotion.
        const OpWork where = work("aten::where", call("[[1, 1, 6, 6], [2, 2, 6, 6], []]",
                                                      {"bool", "float", "Scalar"}, {"", "", "0"}));
        QCOMPARE(where.flops, 144.0);
        QCOMPARE(where.bytes, 36.0 + 144 * 4 + 144 * 4);
        const OpWork compare = work("aten::gt", call("[[100], [100]]", {"float", "float"}));
        QCOMPARE(compare.bytes, 800.0 + 100);
        const OpWork dropout = work("aten::native_dropout",
                                    call("[[2, 6, 2], [], []]", {"float", "Scalar", "Scalar"}));
        QCOMPARE(dropout.bytes, 24.0 * 4 * 2 + 24);
        // mul.out(self, other, out), ROCm layout: torch lists `out` among the inputs; it is
        // written, not read (the 0-dim double is the wrapped Python scalar).
        const OpWork out =
            work("aten::mul", call("[[1000], [], [1000]]", {kBf16, "double", kBf16}, {"", "", ""}));
        QCOMPARE(out.bytes, 1000.0 * 2 + 8 + 1000 * 2);
        QVERIFY(!workOf("aten::add", call("[[3], [4]]", {"float", "float"}))->modelled());
    }

    void copyConvertsBetweenDtypes()
    {
        // copy_(self bf16, src fp32): the source read at 4 bytes, the destination written at 2.
        const OpWork w = work("aten::copy_", call("[[1024, 1024], [1024, 1024], []]",
                                                  {kBf16, "float", "Scalar"}, {"", "", "False"}));
        QCOMPARE(w.kind, OpKind::Copy);
        QCOMPARE(w.flops, 1048576.0);
        QCOMPARE(w.bytes, 1048576.0 * (4 + 2));
        QCOMPARE(w.precision, Precision::Fp32);
    }

    void foreachOpsNeedTheListDtype()
    {
        // The DeepSeek step's AdamW: torch records the lists' sizes but not their dtype.
        const std::string dims = "[[[50257, 2], [1024, 2], [2]], []]";
        const auto unknown =
            workOf("aten::_foreach_mul_", call(dims, {"TensorList", "Scalar"}, {"", "0.999"}));
        QVERIFY(unknown && !unknown->modelled());
        QVERIFY(QString::fromStdString(unknown->unmodelled).contains("dtype"));
        // Were the dtype known, each tensor is read and written once.
        const OpWork known =
            work("aten::_foreach_mul_", call(dims, {"float", "Scalar"}, {"", "0.999"}));
        const double n = 50257.0 * 2 + 1024 * 2 + 2;
        QCOMPARE(known.flops, n);
        QCOMPARE(known.bytes, 2 * n * 4);
        const OpWork lerp = work("aten::_foreach_lerp_", call("[[[4], [8]], [[4], [8]], []]",
                                                              {"float", "float", "Scalar"}));
        QCOMPARE(lerp.bytes, 12.0 * 4 * 3);
        const auto cat = workOf(
            "aten::cat", call("[[[2, 6, 2], [2, 6, 2]], []]", {"TensorList", "Scalar"}, {"", "2"}));
        QVERIFY(cat && !cat->modelled());
        QCOMPARE(cat->kind, OpKind::Copy);
    }

    void normalizationsAndSoftmax()
    {
        // native_layer_norm(input, normalized_shape, weight, bias, eps), DeepSeek layout.
        const OpWork ln = work("aten::native_layer_norm",
                               call("[[2, 6, 2], [], [2], [2], []]",
                                    {"float", "ScalarList", "float", "float", "Scalar"},
                                    {"", "[2]", "", "", "1e-05"}));
        QCOMPARE(ln.kind, OpKind::Normalization);
        QCOMPARE(ln.flops, 5.0 * 24);
        QCOMPARE(ln.bytes, (24.0 + 2 + 2 + 24) * 4);

        // native_batch_norm_backward, ROCm layout: bf16 activations, fp32 saved statistics.
        const OpWork bnBackward = work(
            "aten::native_batch_norm_backward",
            call(
                "[[10, 512, 7, 7], [10, 512, 7, 7], [512], [512], [512], [512], [512], [], [], []]",
                {kBf16, kBf16, kBf16, kBf16, kBf16, "float", "float", "Scalar", "Scalar",
                 "ScalarList"},
                {"", "", "", "", "", "", "", "True", "1e-05", "[True, True, True]"}));
        const double n = 10.0 * 512 * 49;
        QCOMPARE(bnBackward.flops, 10 * n);
        QCOMPARE(bnBackward.bytes, (2 * n + 3 * 512) * 2 + 2 * 512 * 4 + n * 2 + 2 * 512 * 2);
        QCOMPARE(bnBackward.precision, Precision::Fp32);

        const OpWork logSoftmax =
            work("aten::_log_softmax",
                 call("[[10, 50257], [], []]", {"float", "Scalar", "Scalar"}, {"", "1", "False"}));
        QCOMPARE(logSoftmax.kind, OpKind::Softmax);
        QCOMPARE(logSoftmax.flops, 5.0 * 502570);
        QCOMPARE(logSoftmax.bytes, 2 * 502570.0 * 4);
        const OpWork halfToFloat =
            work("aten::_softmax",
                 call("[[4, 8], [], []]", {kBf16, "Scalar", "Scalar"}, {"", "-1", "True"}));
        QCOMPARE(halfToFloat.bytes, 32.0 * 2 + 32 * 4);
        const OpWork backward =
            work("aten::_softmax_backward_data",
                 call("[[2, 2, 6, 6], [2, 2, 6, 6], [], []]",
                      {"float", "float", "Scalar", "Scalar"}, {"", "", "-1", "6"}));
        QCOMPARE(backward.flops, 4.0 * 144);
        QCOMPARE(backward.bytes, 3 * 144.0 * 4);
    }

    void reductionsCountTheOutputWhenTheDimsAreRecorded()
    {
        const OpWork sum =
            work("aten::sum", call("[[10, 1000], [], [], []]", {kBf16, "ScalarList", "Scalar", ""},
                                   {"", "[0]", "True", ""}));
        QCOMPARE(sum.kind, OpKind::Reduction);
        QCOMPARE(sum.flops, 10000.0);
        QCOMPARE(sum.bytes, 10000.0 * 2 + 1000 * 2);
        const OpWork mean = work("aten::mean", call("[[10, 512, 7, 7], [], [], []]",
                                                    {kBf16, "ScalarList", "Scalar", ""},
                                                    {"", "[-1, -2]", "True", ""}));
        QCOMPARE(mean.bytes, 10.0 * 512 * 49 * 2 + 5120 * 2);
        // 2021: the dims are a GenericList with no value: only the read is counted.
        const OpWork old = work("aten::mean", call("[[32, 2048, 7, 7], [], [], []]",
                                                   {"float", "GenericList", "Bool", ""}));
        QCOMPARE(old.bytes, 32.0 * 2048 * 49 * 4);
        // 2022 (HTA diff traces): the dim list's type is "" and there are no Concrete
        // Inputs; that is not dim=None.
        const OpWork blank =
            work("aten::sum", call("[[1024, 40], [], [], []]", {"float", "", "Scalar", ""}));
        QCOMPARE(blank.bytes, 1024.0 * 40 * 4);
        // With Concrete Inputs an empty entry of an empty type is None: a full reduction.
        const OpWork none =
            work("aten::sum", call("[[1024, 40], [], [], []]", {"float", "", "Scalar", ""},
                                   {"", "", "False", ""}));
        QCOMPARE(none.bytes, 1024.0 * 40 * 4 + 4);
        const OpWork full = work("aten::sum", call("[[4, 4], []]", {"long int", ""}));
        QCOMPARE(full.bytes, 16.0 * 8 + 8);
        const OpWork argmax =
            work("aten::argmax",
                 call("[[4, 100], [], []]", {"float", "Scalar", "Scalar"}, {"", "1", "False"}));
        QCOMPARE(argmax.bytes, 400.0 * 4 + 4 * 8);
        // 2021: adaptive_avg_pool2d's output_size has no value; the read alone is counted.
        const OpWork pool = work("aten::adaptive_avg_pool2d",
                                 call("[[32, 2048, 7, 7], []]", {"float", "GenericList"}));
        QCOMPARE(pool.bytes, 32.0 * 2048 * 49 * 4);
        const OpWork pooled =
            work("aten::adaptive_avg_pool2d",
                 call("[[10, 512, 7, 7], []]", {kBf16, "ScalarList"}, {"", "[1, 1]"}));
        QCOMPARE(pooled.bytes, (10.0 * 512 * 49 + 10 * 512) * 2);
        const OpWork pairwise = work("aten::max", call("[[8], [8]]", {"float", "float"}));
        QCOMPARE(pairwise.kind, OpKind::Elementwise);
    }

    void maxPoolingFromTheResNetTrace()
    {
        const OpWork w =
            work("aten::max_pool2d_with_indices",
                 call("[[10, 64, 112, 112], [], [], [], [], []]",
                      {kBf16, "ScalarList", "ScalarList", "ScalarList", "ScalarList", "Scalar"},
                      {"", "[3, 3]", "[2, 2]", "[1, 1]", "[1, 1]", "False"}));
        const double out = 10.0 * 64 * 56 * 56;
        QCOMPARE(w.flops, out * 9);
        QCOMPARE(w.bytes, 10.0 * 64 * 112 * 112 * 2 + out * 2 + out * 8);
        // The backward needs no stride: grad_output carries the output's size.
        const OpWork backward = work(
            "aten::max_pool2d_with_indices_backward",
            call("[[32, 64, 56, 56], [32, 64, 112, 112], [], [], [], [], [], [32, 64, 56, 56]]",
                 {"float", "float", "GenericList", "GenericList", "GenericList", "GenericList",
                  "Bool", "long int"}));
        const double grad = 32.0 * 64 * 56 * 56;
        QCOMPARE(backward.flops, grad);
        QCOMPARE(backward.bytes, grad * 4 + grad * 8 + 32.0 * 64 * 112 * 112 * 4);
    }

    void vendorKernelsWithOutputArguments()
    {
        // sgl_kernel::silu_and_mul(out [T, D], input [T, 2D]).
        const OpWork silu = work("sgl_kernel::silu_and_mul",
                                 call("[[15360, 12288], [15360, 24576]]", {kBf16, kBf16}));
        QCOMPARE(silu.flops, 15360.0 * 12288);
        QCOMPARE(silu.bytes, 15360.0 * (12288 + 24576) * 2);
        const OpWork rms = work("aiter::rmsnorm", call("[[15360, 4096], [15360, 4096], [4096], []]",
                                                       {kBf16, kBf16, kBf16, "Scalar"}));
        QCOMPARE(rms.kind, OpKind::Normalization);
        QCOMPARE(rms.bytes, (2 * 15360.0 * 4096 + 4096) * 2);
    }

    // ---- hostile input ----

    void absurdSizesAreRefusedNotOverflowed()
    {
        const auto huge = workOf("aten::mm", call("[[9223372036854775807, 9223372036854775807], "
                                                  "[9223372036854775807, 2]]",
                                                  {"float", "float"}));
        QVERIFY(huge && !huge->modelled());
        const auto negative = workOf("aten::mm", call("[[-8, 16], [16, 32]]", {"float", "float"}));
        QVERIFY(negative && !negative->modelled());
        QVERIFY(QString::fromStdString(negative->unmodelled).contains("negative"));
        const auto zeroStride =
            workOf("aten::convolution",
                   call("[[1, 3, 8, 8], [4, 3, 3, 3], [], [], [], [], [], [], []]",
                        {"float", "float", "", "ScalarList", "ScalarList", "ScalarList", "Scalar",
                         "ScalarList", "Scalar"},
                        {"", "", "", "[0, 0]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1"}));
        QVERIFY(zeroStride && !zeroStride->modelled());
        const auto hugeStride = workOf(
            "aten::convolution", call("[[1, 3, 8, 8], [4, 3, 3, 3], [], [], [], [], [], [], []]",
                                      {"float", "float", "", "ScalarList", "ScalarList",
                                       "ScalarList", "Scalar", "ScalarList", "Scalar"},
                                      {"", "", "", "[9223372036854775807]",
                                       "[-9223372036854775807]", "[9223372036854775807]", "True",
                                       "[9223372036854775807]", "-9223372036854775808"}));
        QVERIFY(hugeStride && !hugeStride->modelled());
        const auto kernelTooBig =
            workOf("aten::conv2d",
                   call("[[1, 3, 2, 2], [4, 3, 5, 5], [], [], [], [], []]",
                        {"float", "float", "", "ScalarList", "ScalarList", "ScalarList", "Scalar"},
                        {"", "", "", "[1, 1]", "[0, 0]", "[1, 1]", "1"}));
        QVERIFY(kernelTooBig && !kernelTooBig->modelled());
    }

    // Random arguments against every kind of op: no crash, no NaN, no negative figure.
    void survivesFuzzing()
    {
        const char* ops[] = {
            "aten::mm",
            "aten::addmm",
            "aten::bmm",
            "aten::baddbmm",
            "aten::matmul",
            "aten::linear",
            "aten::mv",
            "aten::_scaled_mm",
            "aten::_grouped_mm",
            "aten::_scaled_grouped_mm",
            "aten::convolution",
            "aten::conv_transpose2d",
            "aten::cudnn_convolution",
            "aten::miopen_convolution",
            "aten::convolution_backward",
            "aten::cudnn_convolution_backward",
            "aten::cudnn_convolution_backward_weight",
            "aten::scaled_dot_product_attention",
            "aten::_flash_attention_forward",
            "aten::_efficient_attention_backward",
            "aten::add_",
            "aten::where",
            "aten::_foreach_addcdiv_",
            "aten::copy_",
            "aten::fill_",
            "aten::native_layer_norm",
            "aten::native_batch_norm_backward",
            "aten::_softmax",
            "aten::sum",
            "aten::max",
            "aten::linalg_vector_norm",
            "aten::max_pool2d_with_indices",
            "aten::avg_pool2d",
            "aten::_adaptive_avg_pool2d",
            "aten::cat",
            "aten::index_select",
            "aten::embedding",
            "aten::embedding_dense_backward",
            "aten::_foreach_norm",
            "aiter::add_rmsnorm",
        };
        const char* types[] = {
            "float", "c10::BFloat16",      "long int", "bool", "Scalar", "ScalarList", "TensorList",
            "",      "c10::Float8_e4m3fn", "int"};
        const char* concretes[] = {"",
                                   "[1, 1]",
                                   "[2]",
                                   "True",
                                   "False",
                                   "[True, False, True]",
                                   "0",
                                   "-1",
                                   "15",
                                   "[-3, 7]",
                                   "[0, 0]",
                                   "9223372036854775807",
                                   "[9223372036854775807, 1]",
                                   "same",
                                   "[]",
                                   "x",
                                   "[1, [2]]"};
        const int64_t sizes[] = {0, 1, 2, 3, 7, 64, -1, 1LL << 40, INT64_MAX};
        std::mt19937_64 random(20240607);
        const auto pick = [&](size_t n) { return static_cast<size_t>(random() % n); };
        for (int round = 0; round < 40000; ++round) {
            std::vector<OpInput> inputs(pick(12));
            for (OpInput& in : inputs) {
                const auto dims = [&] {
                    std::vector<int64_t> d(pick(6));
                    for (int64_t& s : d)
                        s = sizes[pick(std::size(sizes))];
                    return d;
                };
                if (pick(6) == 0) {
                    in.list.resize(pick(4));
                    for (auto& d : in.list)
                        d = dims();
                } else {
                    in.dims = dims();
                }
                in.type = types[pick(std::size(types))];
                in.concrete = concretes[pick(std::size(concretes))];
            }
            for (const char* op : ops) {
                const auto w = workOf(op, inputs);
                QVERIFY(w.has_value());
                QVERIFY(std::isfinite(w->flops) && std::isfinite(w->bytes));
                QVERIFY(w->flops >= 0 && w->bytes >= 0);
                QVERIFY(w->modelled() || (w->flops == 0 && w->bytes == 0));
            }
        }
        // And the dims text parser on random bytes.
        const std::string alphabet = "[], -0123456789 e.";
        for (int round = 0; round < 20000; ++round) {
            std::string text(pick(24), ' ');
            for (char& c : text)
                c = alphabet[pick(alphabet.size())];
            const auto inputs = opInputsFromDims(text);
            (void)workOf("aten::add", inputs);
        }
    }
};

QTEST_GUILESS_MAIN(TestOpWork)
#include "test_op_work.moc"
