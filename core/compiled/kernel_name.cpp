#include "core/compiled/kernel_name.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <span>

namespace kinetoscope::compiled {

namespace {

// aten op names of more than one word that Inductor's origins commonly carry, without a
// leading '_' (a name that has one, like _unsafe_view, is found as '_' + one of these). The
// longest match wins, so "native_layer_norm" is one op and not "native" + "layer_norm".
constexpr std::string_view kMultiWordOps[] = {
    "adaptive_avg_pool2d",
    "adaptive_avg_pool2d_backward",
    "addcdiv",
    "as_strided",
    "as_strided_scatter",
    "avg_pool2d",
    "avg_pool2d_backward",
    "batch_norm",
    "binary_cross_entropy",
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "bitwise_xor",
    "clamp_max",
    "clamp_min",
    "constant_pad_nd",
    "embedding_dense_backward",
    "empty_like",
    "fused_rms_norm",
    "full_like",
    "gelu_backward",
    "group_norm",
    "hardtanh_backward",
    "index_add",
    "index_copy",
    "index_fill",
    "index_put",
    "index_select",
    "layer_norm",
    "leaky_relu",
    "leaky_relu_backward",
    "log_softmax",
    "log_softmax_backward_data",
    "masked_fill",
    "masked_scatter",
    "masked_select",
    "logical_and",
    "logical_not",
    "logical_or",
    "max_pool2d_with_indices",
    "max_pool2d_with_indices_backward",
    "mse_loss",
    "native_batch_norm",
    "native_batch_norm_backward",
    "native_batch_norm_legit",
    "native_batch_norm_legit_functional",
    "native_batch_norm_legit_no_training",
    "native_dropout",
    "native_dropout_backward",
    "native_group_norm",
    "native_group_norm_backward",
    "native_layer_norm",
    "native_layer_norm_backward",
    "new_empty",
    "new_ones",
    "new_zeros",
    "nll_loss_backward",
    "nll_loss_forward",
    "nll_loss2d_backward",
    "nll_loss2d_forward",
    "ones_like",
    "rms_norm",
    "scatter_add",
    "scatter_reduce",
    "select_backward",
    "select_scatter",
    "sigmoid_backward",
    "silu_backward",
    "slice_backward",
    "slice_scatter",
    "softmax_backward_data",
    "tanh_backward",
    "threshold_backward",
    "to_copy",
    "unsafe_view",
    "upsample_bilinear2d",
    "upsample_nearest2d",
    "var_mean",
    "zeros_like",
};

std::vector<std::string_view> splitWords(std::string_view text)
{
    std::vector<std::string_view> words;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t end = std::min(text.find('_', start), text.size());
        words.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return words;
}

bool isDigits(std::string_view word)
{
    return !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0;
    });
}

// An old Triton's argument signature after the index ("0d1d2d3d4d", "0d1d2de"): digits
// with 'd' (divisible by 16) and 'e' (equal to 1) marks, starting with a digit.
bool isSignature(std::string_view word)
{
    return word.size() >= 2 && std::isdigit(static_cast<unsigned char>(word.front())) != 0 &&
           std::all_of(word.begin(), word.end(),
                       [](char c) {
                           return std::isdigit(static_cast<unsigned char>(c)) != 0 || c == 'd' ||
                                  c == 'e';
                       }) &&
           !isDigits(word);
}

KernelKind kindOf(std::string_view word)
{
    if (word == "poi")
        return KernelKind::Pointwise;
    if (word == "red")
        return KernelKind::Reduction;
    if (word == "per")
        return KernelKind::PersistentReduction;
    if (word == "tem")
        return KernelKind::Template;
    if (word == "for")
        return KernelKind::Foreach;
    return KernelKind::Other;
}

// Splits the words after "fused" into op names, the longest listed name first.
std::vector<std::string> opsOf(std::span<const std::string_view> words)
{
    std::vector<std::string> ops;
    size_t i = 0;
    while (i < words.size()) {
        std::string prefix;
        size_t first = i;
        if (words[i].empty()) {  // "__x": an op whose name starts with '_'
            prefix = "_";
            ++first;
        }
        if (first >= words.size())
            break;
        size_t taken = 1;
        std::string joined{words[first]};
        std::string candidate = joined;
        for (size_t j = first + 1; j < words.size() && !words[j].empty(); ++j) {
            candidate += '_';
            candidate += words[j];
            if (std::find(std::begin(kMultiWordOps), std::end(kMultiWordOps), candidate) !=
                std::end(kMultiWordOps)) {
                taken = j - first + 1;
                joined = candidate;
            }
        }
        ops.push_back(prefix + joined);
        i = first + taken;
    }
    return ops;
}

}  // namespace

const char* kernelKindName(KernelKind kind)
{
    switch (kind) {
    case KernelKind::Pointwise:
        return "pointwise";
    case KernelKind::Reduction:
        return "reduction";
    case KernelKind::PersistentReduction:
        return "persistent reduction";
    case KernelKind::Template:
        return "template";
    case KernelKind::Foreach:
        return "foreach";
    case KernelKind::Other:
        break;
    }
    return "other";
}

std::optional<CompiledKernelName> parseCompiledKernelName(std::string_view name)
{
    // Inductor's C++ kernels recorded as ops carry their graph first: "graph_0_cpp_fused_...".
    if (name.starts_with("graph_")) {
        size_t end = 6;
        while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end])) != 0)
            ++end;
        if (end > 6 && end < name.size() && name[end] == '_')
            name.remove_prefix(end + 1);
    }
    std::vector<std::string_view> words = splitWords(name);
    if (words.size() < 2 || (words[0] != "triton" && words[0] != "cpp"))
        return std::nullopt;
    CompiledKernelName parsed;
    parsed.backend = std::string{words[0]};
    size_t next = 1;
    if (parsed.backend == "triton") {
        parsed.kind = kindOf(words[1]);
        if (parsed.kind == KernelKind::Other)
            return std::nullopt;  // "triton_" + anything else is not Inductor's
        next = 2;
    }
    // The index, and an old Triton's signature after it.
    if (!words.empty() && isSignature(words.back()))
        words.pop_back();
    if (words.size() > next && isDigits(words.back()))
        words.pop_back();
    else if (parsed.backend == "cpp")
        return std::nullopt;  // Inductor's C++ kernels always end in their index
    // An old Triton's signature without a 'd' or 'e' mark is digits too ("_0_0123"): the
    // index is then the word before it. No aten op is named by digits alone.
    if (words.size() > next && isDigits(words.back()))
        words.pop_back();
    if (words.size() > next && words[next] == "fused")
        parsed.fusedOps = opsOf(std::span{words}.subspan(next + 1));
    else if (parsed.backend == "cpp")
        return std::nullopt;
    return parsed;
}

std::string fusedOpsText(const CompiledKernelName& name)
{
    std::string text;
    for (const std::string& op : name.fusedOps) {
        if (!text.empty())
            text += " · ";
        text += op;
    }
    return text;
}

}  // namespace kinetoscope::compiled
