#include "core/snapshot/native_frames.h"

#include <algorithm>
#include <initializer_list>

namespace kinetoscope::snapshot {

namespace {

constexpr std::string_view kAnonymous = "(anonymous namespace)";
constexpr char kAnonymousMark = '\x01';  // stands for kAnonymous while the name is cut

bool startsWithAny(std::string_view text, std::initializer_list<std::string_view> prefixes)
{
    for (std::string_view p : prefixes)
        if (text.starts_with(p))
            return true;
    return false;
}

// What called the operator, when a frame says so: "" for a frame that does not.
std::string callerOf(std::string_view q)
{
    if (startsWithAny(q, {"torch::nn::AnyModule", "torch::nn::AnyValue"}))
        return {};  // a Sequential's plumbing: the held module's frame says more (heldModule)
    if (q.starts_with("torch::nn::") || q.starts_with("torch::optim::"))
        return std::string(q);  // a C++ module's forward, a functional, an optimizer's step
    if (constexpr std::string_view generated = "torch::autograd::generated::";
        q.starts_with(generated)) {  // an autograd node: its class names the op it differentiates
        std::string_view node = q.substr(generated.size());
        if (node.starts_with("details::"))
            return {};  // a derivative formula (mm_mat1_backward): its node comes next
        node = node.substr(0, node.find("::"));
        if (constexpr std::string_view functional = "_apply_functional"; node.ends_with(functional))
            node.remove_suffix(functional.size());
        return std::string(node);
    }
    if (q.starts_with("torch::autograd::Engine::"))
        return "autograd's engine (backward)";
    if (q.starts_with("torch::autograd::backward") || q == "at::Tensor::backward")
        return "backward()";
    if (q.starts_with("torch::jit::"))
        return "the TorchScript interpreter";
    if (q.starts_with("torch::") || isMachinery(q))
        return {};
    return std::string(q);  // the program's own function
}

}  // namespace

std::string qualifiedFunction(std::string_view signature)
{
    // The head: up to the parameter list, "(anonymous namespace)" kept as one mark, a
    // lambda's "{lambda(...)#1}" copied whole, a "decltype (auto)" return type skipped.
    std::string head;
    int angles = 0;
    for (size_t i = 0; i < signature.size(); ++i) {
        const std::string_view rest = signature.substr(i);
        const char c = signature[i];
        if (angles == 0 && rest.starts_with(kAnonymous)) {
            head += kAnonymousMark;
            i += kAnonymous.size() - 1;
        } else if (angles == 0 && c == '{') {  // "{lambda()#1}", "{unnamed type#1}"
            const size_t close = std::min(rest.find('}'), rest.size() - 1);
            head += rest.substr(0, close + 1);
            i += close;
        } else if (angles == 0 && rest.starts_with("decltype (")) {
            i += std::min(rest.find(')'), rest.size() - 1);
        } else if (c == '(' && angles == 0) {
            break;
        } else if (c == '<') {
            ++angles;
        } else if (c == '>' && angles > 0) {
            --angles;
        } else if (angles == 0) {
            head += c;
        }
    }
    // The return type ends at the last space outside template arguments (removed above)
    // and before an operator's name ("Foo::operator bool", "operator new").
    const size_t op = head.find("operator");
    const size_t space = op == std::string::npos ? head.find_last_of(' ')
                         : op == 0               ? std::string::npos
                                                 : head.find_last_of(' ', op - 1);
    if (space != std::string::npos)
        head.erase(0, space + 1);
    std::string name;
    for (char ch : head)
        name += ch == kAnonymousMark ? std::string(kAnonymous) : std::string(1, ch);
    return name;
}

bool isMachinery(std::string_view q)
{
    // The C library's and the loader's frames by name; "__" names are the implementation's.
    for (std::string_view exact : {"_start", "clone", "clone3", "start_thread"})
        if (q == exact)
            return true;
    return q.empty() || q == "??" ||
           startsWithAny(q, {"at::", "c10::", "std::", "__gnu_cxx::", "torch::unwind::",
                             "torch::CapturedTraceback::", "torch::cuda::",
                             "torch::autograd::VariableType", "__", "pthread_"});
}

std::string heldModule(std::string_view signature)
{
    constexpr std::string_view holder = "torch::nn::AnyModuleHolder<";
    size_t at = signature.find(holder);
    if (at == std::string_view::npos || (at > 0 && signature[at - 1] != ' '))
        return {};
    at += holder.size();
    std::string_view module;
    int angles = 1;
    size_t i = at;
    for (; i < signature.size() && angles > 0; ++i) {
        const char c = signature[i];
        angles += c == '<' ? 1 : c == '>' ? -1 : 0;
        if (module.empty() && (angles == 0 || (angles == 1 && c == ',')))
            module = signature.substr(at, i - at);
    }
    // The holder's forward itself, not its other members (InvokeForward and the like).
    if (module.empty() || !signature.substr(i).starts_with("::forward("))
        return {};
    return std::string(module) + "::forward";
}

std::string nativePlace(const std::vector<std::string_view>& signatures)
{
    constexpr std::string_view ops = "at::_ops::", call = "::call";
    std::string op, caller;
    bool workspace = false;  // cuBLAS's workspace, made once per handle (thread and stream)
    for (std::string_view signature : signatures) {
        const std::string q = qualifiedFunction(signature);
        const std::string_view name = q;
        workspace |=
            name == "at::cuda::setWorkspaceForHandle" || name == "at::cuda::getCUDABlasLtWorkspace";
        if (name.starts_with(ops) && name.ends_with(call)) {
            op = name.substr(ops.size(), name.size() - ops.size() - call.size());
            continue;
        }
        caller = heldModule(signature);  // a module in a Sequential: the module's own forward
        if (caller.empty())
            caller = callerOf(name);
        if (!caller.empty())
            break;
    }
    std::string place =
        op.empty() ? caller : "aten::" + op + (caller.empty() ? std::string() : " in " + caller);
    if (!workspace)
        return place;
    return place.empty() ? "cuBLAS workspace" : "cuBLAS workspace for " + place;
}

}  // namespace kinetoscope::snapshot
