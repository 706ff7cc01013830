#pragma once
// Reading the C++ frames of a snapshot taken in a process without Python (the engine, or
// any LibTorch program recording with stacks "all"). Each frame is a demangled signature,
// innermost first: the recorder's own frames (torch::unwind, CapturedTraceback, the
// caching allocator), then the dispatcher's (at::_ops::mm::call, the autograd kernel
// VariableType::mm, wrappers), then whatever called the op: a C++ module's forward, an
// autograd node's apply in backward, an optimizer's step, the program's own function.
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope::snapshot {

// The qualified name of the function a demangled signature names, without its return
// type, template arguments or parameters: "void at::native::gpu_reduce_kernel<float,
// ...>(...)" -> "at::native::gpu_reduce_kernel"; "(anonymous namespace)" stays as it is.
std::string qualifiedFunction(std::string_view signature);

// Whether a qualified name belongs to the recorder, the dispatcher, ATen, c10 or the
// standard library, or is no name at all ("??", the C library's start-up frames):
// frames that say nothing about which of the program's calls allocated.
bool isMachinery(std::string_view qualified);

// "M::forward" for the frame of a module held in a torch::nn::Sequential
// ("torch::nn::AnyModuleHolder<M, at::Tensor>::forward(...)"), whose forward it inlines;
// "" for any other frame.
std::string heldModule(std::string_view signature);

// Where a native-only stack allocated: the outermost ATen operator the caller invoked
// and what invoked it, e.g. "aten::matmul in torch::nn::LinearImpl::forward",
// "aten::gelu_backward in GeluBackward0" (backward), "aten::zeros_like" when the caller's
// frames are unnamed (a stripped binary). The operator is the name of its C++ entry point
// (at::_ops::NAME::call), which joins an overload to its name: "sum_dim_IntList" is
// aten::sum.dim_IntList. "cuBLAS workspace for ..." when cuBLAS allocated its handle's
// workspace (kept for the handle's life, one per thread and stream). "" when no frame
// names an operator or a caller.
// `signatures` are the stack's frames, innermost first.
std::string nativePlace(const std::vector<std::string_view>& signatures);

}  // namespace kinetoscope::snapshot
