// The work of one operator call from its recorded arguments: the catalogue of ops the
// roofline knows, each name mapped onto its family's model (op_work_<family>.cpp), workOf,
// which runs it, and the op kinds' names. Formulas and their sources: docs/roofline.md,
// "What each op does".
//
// Everything here reads untrusted text (a trace). Sizes are multiplied in double (no
// integer overflow), negative sizes are refused here before any formula runs, and a figure
// that comes out beyond any real GPU's reach is refused as well, with a reason (figures(),
// op_work_shapes.cpp).
#include "core/roofline/op_work_internal.h"

#include <algorithm>
#include <functional>
#include <unordered_map>

namespace kinetoscope::roofline {

const char* opKindName(OpKind kind)
{
    switch (kind) {
    case OpKind::Matmul:
        return "matmul";
    case OpKind::Convolution:
        return "convolution";
    case OpKind::Attention:
        return "attention";
    case OpKind::Elementwise:
        return "elementwise";
    case OpKind::Normalization:
        return "normalization";
    case OpKind::Softmax:
        return "softmax";
    case OpKind::Reduction:
        return "reduction";
    case OpKind::Copy:
        return "copy";
    }
    return "unknown";
}

bool isMatrixKind(OpKind kind)
{
    return kind == OpKind::Matmul || kind == OpKind::Convolution || kind == OpKind::Attention;
}

// ---------------------------------------------------------------------------------------
// The catalogue
// ---------------------------------------------------------------------------------------

namespace detail {

namespace {

using Model = std::function<OpWork(const Call&)>;

struct NamedModel
{
    std::string_view name;
    OpWork (*model)(const Call&);
};

constexpr NamedModel kMatrixOps[] = {
    {"aten::mm", mmWork},
    {"aten::addmm", addmmWork},
    {"aten::bmm", bmmWork},
    {"aten::baddbmm", baddbmmWork},
    {"aten::addbmm", addbmmWork},
    {"aten::matmul", matmulWork},
    {"aten::linear", linearWork},
    {"aten::mv", mvPlain},
    {"aten::addmv", addmvWork},
    {"aten::_scaled_mm", scaledMmWork},
    {"aten::_int_mm", intMmWork},
    {"aten::_grouped_mm", groupedMmPlain},
    {"aten::_scaled_grouped_mm", scaledGroupedMmWork},
};

constexpr NamedModel kOtherOps[] = {
    {"aten::cudnn_convolution_backward_input", cudnnBackwardInput},
    {"aten::cudnn_convolution_backward_weight", cudnnBackwardWeight},
    {"aten::miopen_convolution_backward_input", cudnnBackwardInput},
    {"aten::miopen_convolution_backward_weight", cudnnBackwardWeight},
    {"aten::cat", catWork},
    {"aten::index_select", indexSelectWork},
    {"aten::embedding", embeddingWork},
    {"aten::gather", gatherWork},
    {"aten::embedding_dense_backward", embeddingBackwardWork},
    {"aten::embedding_backward", embeddingBackwardWork},
    {"aten::_foreach_norm", foreachNormWork},
};

struct ConvOp
{
    std::string_view name;
    ConvArgs args;
};

//                               bias stride pad dil trans outpad groups fixed-transposed
constexpr ConvOp kConvOps[] = {
    {"aten::convolution", {2, 3, 4, 5, 6, 7, 8, false}},
    {"aten::_convolution", {2, 3, 4, 5, 6, 7, 8, false}},
    {"aten::conv1d", {2, 3, 4, 5, -1, -1, 6, false}},
    {"aten::conv2d", {2, 3, 4, 5, -1, -1, 6, false}},
    {"aten::conv3d", {2, 3, 4, 5, -1, -1, 6, false}},
    {"aten::conv_transpose1d", {2, 3, 4, 7, -1, 5, 6, true}},
    {"aten::conv_transpose2d", {2, 3, 4, 7, -1, 5, 6, true}},
    {"aten::conv_transpose3d", {2, 3, 4, 7, -1, 5, 6, true}},
    {"aten::cudnn_convolution", {-1, 3, 2, 4, -1, -1, 5, false}},
    {"aten::cudnn_convolution_transpose", {-1, 4, 2, 5, -1, 3, 6, true}},
    {"aten::miopen_convolution", {2, 4, 3, 5, -1, -1, 6, false}},
    {"aten::miopen_depthwise_convolution", {2, 4, 3, 5, -1, -1, 6, false}},
    {"aten::miopen_convolution_transpose", {2, 5, 3, 6, -1, 4, 7, true}},
    {"aten::mkldnn_convolution", {2, 4, 3, 5, -1, -1, 6, false}},
};

struct ConvBackwardOp
{
    std::string_view name;
    ConvBackwardArgs args;
};

//                                    grad_output input weight transposed output_mask
constexpr ConvBackwardOp kConvBackwardOps[] = {
    {"aten::convolution_backward", {0, 1, 2, 7, 10}},
    {"aten::cudnn_convolution_backward", {1, 0, 2, -1, 10}},
    {"aten::miopen_convolution_backward", {1, 0, 2, -1, 9}},
};

struct AttentionOp
{
    std::string_view name;
    AttentionArgs args;
};

constexpr auto kB = Layout::BHLE;
constexpr auto kL = Layout::BLHE;
constexpr auto kFlag = CausalArg::Flag;
constexpr auto kMaskType = CausalArg::MaskType;
constexpr auto kTL = Align::TopLeft;
constexpr auto kBR = Align::BottomRight;

//                layout backward causal-arg kind align varlen window-left window-right
constexpr AttentionOp kAttentionOps[] = {
    {"aten::scaled_dot_product_attention", {kB, false, 5, kFlag, kTL, -1, -1, -1}},
    {"aten::_scaled_dot_product_flash_attention", {kB, false, 4, kFlag, kTL, -1, -1, -1}},
    {"aten::_scaled_dot_product_flash_attention_for_cpu", {kB, false, 4, kFlag, kTL, -1, -1, -1}},
    {"aten::_scaled_dot_product_efficient_attention", {kB, false, 6, kFlag, kTL, -1, -1, -1}},
    {"aten::_scaled_dot_product_cudnn_attention", {kB, false, 6, kFlag, kTL, -1, -1, -1}},
    {"aten::_flash_attention_forward", {kL, false, 8, kFlag, kBR, 3, 11, 12}},
    {"aten::_efficient_attention_forward", {kL, false, 9, kMaskType, kTL, 4, -1, -1}},
    {"aten::_scaled_dot_product_flash_attention_backward", {kB, true, 11, kFlag, kTL, 6, -1, -1}},
    {"aten::_scaled_dot_product_efficient_attention_backward",
     {kB, true, 11, kFlag, kTL, -1, -1, -1}},
    {"aten::_scaled_dot_product_cudnn_attention_backward", {kB, true, 14, kFlag, kTL, 9, -1, -1}},
    {"aten::_flash_attention_backward", {kL, true, 11, kFlag, kBR, 6, 15, 16}},
    {"aten::_efficient_attention_backward", {kL, true, 14, kMaskType, kTL, 6, -1, -1}},
};

constexpr OpKind kEw = OpKind::Elementwise;

// Base names: "add" covers aten::add, aten::add_ and aten::_foreach_add(_).
constexpr ElementwiseOp kElementwiseOps[] = {
    // Arithmetic and math (binary, ternary, unary)
    {"add", Out::Promote, kEw, kBinary, false},
    {"sub", Out::Promote, kEw, kBinary, false},
    {"rsub", Out::Promote, kEw, kBinary, false},
    {"mul", Out::Promote, kEw, kBinary, false},
    {"div", Out::TrueDivide, kEw, kBinary, false},
    {"floor_divide", Out::Promote, kEw, kBinary, false},
    {"remainder", Out::Promote, kEw, kBinary, false},
    {"fmod", Out::Promote, kEw, kBinary, false},
    {"pow", Out::Promote, kEw, kBinary, false},
    {"maximum", Out::Promote, kEw, kBinary, false},
    {"minimum", Out::Promote, kEw, kBinary, false},
    {"atan2", Out::Promote, kEw, kBinary, false},
    {"lerp", Out::Promote, kEw, kTernary, false},
    {"addcmul", Out::Promote, kEw, kTernary, false},
    {"addcdiv", Out::Promote, kEw, kTernary, false},
    {"where", Out::Where, kEw, kTernary, false},
    {"masked_fill", Out::First, kEw, kTernary, false},
    {"clamp", Out::Promote, kEw, kTernary, false},
    {"clamp_min", Out::Promote, kEw, kUnary, false},
    {"clamp_max", Out::Promote, kEw, kUnary, false},
    {"clip", Out::Promote, kEw, kTernary, false},
    {"abs", Out::Promote, kEw, kUnary, false},
    {"neg", Out::Promote, kEw, kUnary, false},
    {"sign", Out::Promote, kEw, kUnary, false},
    {"reciprocal", Out::Promote, kEw, kUnary, false},
    {"sqrt", Out::Promote, kEw, kUnary, false},
    {"rsqrt", Out::Promote, kEw, kUnary, false},
    {"square", Out::Promote, kEw, kUnary, false},
    {"exp", Out::Promote, kEw, kUnary, false},
    {"exp2", Out::Promote, kEw, kUnary, false},
    {"expm1", Out::Promote, kEw, kUnary, false},
    {"log", Out::Promote, kEw, kUnary, false},
    {"log1p", Out::Promote, kEw, kUnary, false},
    {"log2", Out::Promote, kEw, kUnary, false},
    {"log10", Out::Promote, kEw, kUnary, false},
    {"sin", Out::Promote, kEw, kUnary, false},
    {"cos", Out::Promote, kEw, kUnary, false},
    {"tan", Out::Promote, kEw, kUnary, false},
    {"tanh", Out::Promote, kEw, kUnary, false},
    {"sigmoid", Out::Promote, kEw, kUnary, false},
    {"erf", Out::Promote, kEw, kUnary, false},
    {"erfinv", Out::Promote, kEw, kUnary, false},
    {"floor", Out::Promote, kEw, kUnary, false},
    {"ceil", Out::Promote, kEw, kUnary, false},
    {"round", Out::Promote, kEw, kUnary, false},
    {"trunc", Out::Promote, kEw, kUnary, false},
    {"frac", Out::Promote, kEw, kUnary, false},
    {"nan_to_num", Out::Promote, kEw, kUnary, false},
    {"bitwise_not", Out::Promote, kEw, kUnary, false},
    {"bitwise_and", Out::Promote, kEw, kBinary, false},
    {"bitwise_or", Out::Promote, kEw, kBinary, false},
    {"bitwise_xor", Out::Promote, kEw, kBinary, false},
    {"cumsum", Out::First, kEw, kUnary, false},
    // Activations
    {"relu", Out::Promote, kEw, kUnary, false},
    {"gelu", Out::Promote, kEw, kUnary, false},
    {"silu", Out::Promote, kEw, kUnary, false},
    {"mish", Out::Promote, kEw, kUnary, false},
    {"hardswish", Out::Promote, kEw, kUnary, false},
    {"hardsigmoid", Out::Promote, kEw, kUnary, false},
    {"hardtanh", Out::Promote, kEw, kUnary, false},
    {"leaky_relu", Out::Promote, kEw, kUnary, false},
    {"elu", Out::Promote, kEw, kUnary, false},
    {"softplus", Out::Promote, kEw, kUnary, false},
    {"threshold", Out::Promote, kEw, kUnary, false},
    // Comparisons and logic
    {"eq", Out::Bool, kEw, kBinary, false},
    {"ne", Out::Bool, kEw, kBinary, false},
    {"lt", Out::Bool, kEw, kBinary, false},
    {"le", Out::Bool, kEw, kBinary, false},
    {"gt", Out::Bool, kEw, kBinary, false},
    {"ge", Out::Bool, kEw, kBinary, false},
    {"logical_and", Out::Bool, kEw, kBinary, false},
    {"logical_or", Out::Bool, kEw, kBinary, false},
    {"logical_xor", Out::Bool, kEw, kBinary, false},
    {"logical_not", Out::Bool, kEw, kUnary, false},
    {"isnan", Out::Bool, kEw, kUnary, false},
    // Activation gradients: (grad_output, input or output, ...) -> grad_input
    {"threshold_backward", Out::First, kEw, kBinary, false},
    {"gelu_backward", Out::First, kEw, kBinary, false},
    {"silu_backward", Out::First, kEw, kBinary, false},
    {"sigmoid_backward", Out::First, kEw, kBinary, false},
    {"tanh_backward", Out::First, kEw, kBinary, false},
    {"hardswish_backward", Out::First, kEw, kBinary, false},
    {"hardsigmoid_backward", Out::First, kEw, kBinary, false},
    {"hardtanh_backward", Out::First, kEw, kBinary, false},
    {"leaky_relu_backward", Out::First, kEw, kBinary, false},
    {"elu_backward", Out::First, kEw, 0b100001, false},
    {"softplus_backward", Out::First, kEw, kBinary, false},
    {"mish_backward", Out::First, kEw, kBinary, false},
    {"native_dropout_backward", Out::First, kEw, kBinary, false},
    {"_masked_scale", Out::First, kEw, kBinary, false},
    // Dropout: the output and its mask
    {"dropout", Out::Dropout, kEw, kUnary, false},
    {"native_dropout", Out::Dropout, kEw, kUnary, false},
    {"_fused_dropout", Out::Dropout, kEw, kUnary, false},
    // Stores: the first argument written only
    {"fill", Out::Overwrite, kEw, kBinary, false},
    {"zero", Out::Overwrite, kEw, kUnary, false},
    {"normal", Out::Overwrite, kEw, kUnary, true},
    {"uniform", Out::Overwrite, kEw, kUnary, true},
    {"bernoulli", Out::Overwrite, kEw, kBinary, true},
    {"random", Out::Overwrite, kEw, kUnary, true},
    {"exponential", Out::Overwrite, kEw, kUnary, true},
    // Copies: the destination written at its dtype, the source read at its own
    {"copy", Out::Overwrite, OpKind::Copy, kBinary, false},
};

struct NormOp
{
    std::string_view name;
    NormArgs args;
};

//                 input weight mask backward bias-grad FLOPs-per-element
constexpr NormOp kNormOps[] = {
    {"aten::layer_norm", {0, -1, -1, false, false, 5}},
    {"aten::native_layer_norm", {0, -1, -1, false, false, 5}},
    {"aten::rms_norm", {0, -1, -1, false, false, 4}},
    {"aten::_fused_rms_norm", {0, -1, -1, false, false, 4}},
    {"aten::group_norm", {0, -1, -1, false, false, 5}},
    {"aten::native_group_norm", {0, -1, -1, false, false, 5}},
    {"aten::instance_norm", {0, -1, -1, false, false, 5}},
    {"aten::batch_norm", {0, -1, -1, false, false, 5}},
    {"aten::_batch_norm_impl_index", {0, -1, -1, false, false, 5}},
    {"aten::native_batch_norm", {0, -1, -1, false, false, 5}},
    {"aten::_native_batch_norm_legit", {0, -1, -1, false, false, 5}},
    {"aten::_native_batch_norm_legit_no_training", {0, -1, -1, false, false, 5}},
    {"aten::_batch_norm_with_update", {0, -1, -1, false, false, 5}},
    {"aten::_batch_norm_no_update", {0, -1, -1, false, false, 5}},
    {"aten::cudnn_batch_norm", {0, -1, -1, false, false, 5}},
    {"aten::miopen_batch_norm", {0, -1, -1, false, false, 5}},
    {"aten::native_layer_norm_backward", {1, 5, 7, true, true, 10}},
    {"aten::_fused_rms_norm_backward", {1, 4, 5, true, false, 8}},
    {"aten::native_group_norm_backward", {1, 4, 9, true, true, 10}},
    {"aten::native_batch_norm_backward", {1, 2, 9, true, true, 10}},
    {"aten::batch_norm_backward", {1, 2, 9, true, true, 10}},
    {"aten::cudnn_batch_norm_backward", {0, 2, -1, true, true, 10}},
    {"aten::miopen_batch_norm_backward", {0, 2, -1, true, true, 10}},
};

constexpr OutArgsOp kOutArgsOps[] = {
    {"sgl_kernel::silu_and_mul", OpKind::Elementwise, 0b1, 1},
    {"_C::silu_and_mul", OpKind::Elementwise, 0b1, 1},
    {"aiter::rmsnorm", OpKind::Normalization, 0b1, 4},
    {"aiter::add_rmsnorm", OpKind::Normalization, 0b1001, 5},
};

struct SoftmaxOp
{
    std::string_view name;
    SoftmaxArgs args;
};

constexpr SoftmaxOp kSoftmaxOps[] = {
    {"aten::softmax", {false, false}},
    {"aten::_softmax", {false, true}},
    {"aten::_safe_softmax", {false, false}},
    {"aten::log_softmax", {false, false}},
    {"aten::_log_softmax", {false, true}},
    {"aten::_softmax_backward_data", {true, false}},
    {"aten::_log_softmax_backward_data", {true, false}},
};

struct ReductionOp
{
    std::string_view name;
    ReductionArgs args;
};

constexpr auto kV = RedOut::Values;

//   dims-overload args, dim, dtype (full), dtype (dims), output, FLOPs/element, int->long,
//   binary overload
constexpr ReductionOp kReductionOps[] = {
    {"aten::sum", {3, 1, 1, 3, kV, 1, true, false}},
    {"aten::mean", {3, 1, 1, 3, kV, 1, false, false}},
    {"aten::prod", {3, 1, 1, 3, kV, 1, true, false}},
    {"aten::amax", {2, 1, -1, -1, kV, 1, false, false}},
    {"aten::amin", {2, 1, -1, -1, kV, 1, false, false}},
    {"aten::max", {3, 1, -1, -1, RedOut::ValuesIndices, 1, false, true}},
    {"aten::min", {3, 1, -1, -1, RedOut::ValuesIndices, 1, false, true}},
    {"aten::argmax", {2, 1, -1, -1, RedOut::Indices, 1, false, false}},
    {"aten::argmin", {2, 1, -1, -1, RedOut::Indices, 1, false, false}},
    {"aten::any", {2, 1, -1, -1, RedOut::Bool, 1, false, false}},
    {"aten::all", {2, 1, -1, -1, RedOut::Bool, 1, false, false}},
    {"aten::norm", {4, 2, 2, 4, kV, 2, false, false}},
    {"aten::linalg_vector_norm", {3, 2, -1, 4, kV, 2, false, false}},
    {"aten::var", {3, 1, -1, -1, kV, 3, false, false}},
    {"aten::std", {3, 1, -1, -1, kV, 3, false, false}},
    {"aten::var_mean", {3, 1, -1, -1, RedOut::TwoValues, 3, false, false}},
    {"aten::std_mean", {3, 1, -1, -1, RedOut::TwoValues, 3, false, false}},
    {"aten::logsumexp", {2, 1, -1, -1, kV, 4, false, false}},
};

struct PoolOp
{
    std::string_view name;
    PoolArgs args;
};

//                    pool backward spatial kernel stride padding dilation ceil
constexpr PoolOp kPoolOps[] = {
    {"aten::max_pool2d_with_indices", {Pool::Max, false, 2, 1, 2, 3, 4, 5}},
    {"aten::max_pool3d_with_indices", {Pool::Max, false, 3, 1, 2, 3, 4, 5}},
    {"aten::max_pool2d_with_indices_backward", {Pool::Max, true, 2, 1, 2, 3, 4, 5}},
    {"aten::max_pool3d_with_indices_backward", {Pool::Max, true, 3, 1, 2, 3, 4, 5}},
    {"aten::avg_pool2d", {Pool::Avg, false, 2, 1, 2, 3, -1, 4}},
    {"aten::avg_pool3d", {Pool::Avg, false, 3, 1, 2, 3, -1, 4}},
    {"aten::avg_pool2d_backward", {Pool::Avg, true, 2, 1, 2, 3, -1, 4}},
    {"aten::avg_pool3d_backward", {Pool::Avg, true, 3, 1, 2, 3, -1, 4}},
    {"aten::adaptive_avg_pool2d", {Pool::Adaptive, false, 2, 1, -1, -1, -1, -1}},
    {"aten::_adaptive_avg_pool2d", {Pool::Adaptive, false, 2, 1, -1, -1, -1, -1}},
    {"aten::adaptive_avg_pool3d", {Pool::Adaptive, false, 3, 1, -1, -1, -1, -1}},
    {"aten::_adaptive_avg_pool3d", {Pool::Adaptive, false, 3, 1, -1, -1, -1, -1}},
    {"aten::_adaptive_avg_pool2d_backward", {Pool::Adaptive, true, 2, 1, -1, -1, -1, -1}},
    {"aten::_adaptive_avg_pool3d_backward", {Pool::Adaptive, true, 3, 1, -1, -1, -1, -1}},
};

struct Registry
{
    std::unordered_map<std::string_view, Model> exact;
    std::unordered_map<std::string_view, const ElementwiseOp*> elementwise;
};

Registry buildRegistry()
{
    Registry registry;
    auto& exact = registry.exact;
    for (const NamedModel& op : kMatrixOps)
        exact.emplace(op.name, op.model);
    for (const NamedModel& op : kOtherOps)
        exact.emplace(op.name, op.model);
    for (const ConvOp& op : kConvOps)
        exact.emplace(op.name, [&op](const Call& call) { return convForwardWork(op.args, call); });
    for (const ConvBackwardOp& op : kConvBackwardOps) {
        exact.emplace(op.name, [&op](const Call& call) { return convBackwardWork(op.args, call); });
    }
    for (const AttentionOp& op : kAttentionOps)
        exact.emplace(op.name, [&op](const Call& call) { return attentionWork(op.args, call); });
    for (const NormOp& op : kNormOps)
        exact.emplace(op.name, [&op](const Call& call) { return normWork(op.args, call); });
    for (const OutArgsOp& op : kOutArgsOps)
        exact.emplace(op.name, [&op](const Call& call) { return outArgsWork(op, call); });
    for (const SoftmaxOp& op : kSoftmaxOps)
        exact.emplace(op.name, [&op](const Call& call) { return softmaxWork(op.args, call); });
    for (const ReductionOp& op : kReductionOps)
        exact.emplace(op.name, [&op](const Call& call) { return reductionWork(op.args, call); });
    for (const PoolOp& op : kPoolOps)
        exact.emplace(op.name, [&op](const Call& call) { return poolWork(op.args, call); });
    for (const ElementwiseOp& op : kElementwiseOps)
        registry.elementwise.emplace(op.base, &op);
    return registry;
}

const Registry& registry()
{
    static const Registry instance = buildRegistry();
    return instance;
}

// How a name maps onto the catalogue.
struct Resolved
{
    const Model* exact = nullptr;
    const ElementwiseOp* elementwise = nullptr;
    Form form = Form::Plain;
    bool forEach = false;
};

std::optional<Resolved> resolve(std::string_view name)
{
    const Registry& catalogue = registry();
    if (const auto it = catalogue.exact.find(name); it != catalogue.exact.end())
        return Resolved{&it->second, nullptr, Form::Plain, false};
    constexpr std::string_view kAten = "aten::";
    constexpr std::string_view kForEach = "_foreach_";
    if (!name.starts_with(kAten))
        return std::nullopt;
    std::string_view base = name.substr(kAten.size());
    Resolved resolved;
    if (base.starts_with(kForEach)) {
        base.remove_prefix(kForEach.size());
        resolved.forEach = true;
    }
    if (base.ends_with('_') && !base.ends_with("__")) {
        base.remove_suffix(1);
        resolved.form = Form::InPlace;
    }
    const auto it = catalogue.elementwise.find(base);
    if (it == catalogue.elementwise.end())
        return std::nullopt;
    if (it->second->inPlaceOnly && resolved.form != Form::InPlace)
        return std::nullopt;
    resolved.elementwise = it->second;
    return resolved;
}

bool negativeSize(std::span<const OpInput> inputs)
{
    const auto negative = [](const Dims& dims) {
        return std::any_of(dims.begin(), dims.end(), [](int64_t size) { return size < 0; });
    };
    return std::any_of(inputs.begin(), inputs.end(), [&](const OpInput& in) {
        return negative(in.dims) || std::any_of(in.list.begin(), in.list.end(), negative);
    });
}

// The kind a resolved op reports when its call cannot be costed at all.
OpKind kindOf(const Resolved& resolved)
{
    // Run an exact model on no arguments: it says which kind it is while refusing.
    if (resolved.exact)
        return (*resolved.exact)(Call({})).kind;
    // resolve() sets one of the two; an op resolved to neither reads as elementwise.
    return resolved.elementwise ? resolved.elementwise->kind : OpKind::Elementwise;
}

}  // namespace

}  // namespace detail

bool inCatalogue(std::string_view opName)
{
    return detail::resolve(opName).has_value() || detail::compiledLaunchKind(opName).has_value();
}

std::optional<OpWork> workOf(std::string_view opName, std::span<const OpInput> inputs)
{
    using namespace detail;
    if (const auto compiledKind = compiledLaunchKind(opName)) {
        // A compiled graph's kernel launch: older torch records it without its arguments.
        if (inputs.empty())
            return unmodelled(*compiledKind, "the launch recorded no shapes (record_shapes off, "
                                             "or an older torch that records none for "
                                             "compiled kernels)");
        if (negativeSize(inputs))
            return unmodelled(*compiledKind, "negative size in the recorded dims");
        return compiledLaunchWork(opName, Call(inputs));
    }
    const auto resolved = resolve(opName);
    if (!resolved)
        return std::nullopt;
    if (inputs.empty())
        return unmodelled(kindOf(*resolved), "no shapes recorded (record_shapes off)");
    if (negativeSize(inputs))
        return unmodelled(kindOf(*resolved), "negative size in the recorded dims");
    const Call call(inputs);
    if (resolved->elementwise) {
        if (resolved->forEach)
            return foreachWork(*resolved->elementwise, resolved->form, call);
        return elementwiseWork(*resolved->elementwise, resolved->form, call);
    }
    if (resolved->exact == nullptr)  // resolve() sets one of the two
        return std::nullopt;
    return (*resolved->exact)(call);
}

}  // namespace kinetoscope::roofline
