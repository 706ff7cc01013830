// The user's own model: a TorchScript file written by torch.jit.save in Python (or
// torch::jit::Module::save in C++), loaded and trained in C++. Its own translation
// unit: torch/script.h is heavy to compile.
#include "core/engine/engine_internal.h"

#include <filesystem>
#include <torch/script.h>

namespace kinetoscope::engine::detail {

namespace {

class ScriptModel final : public Model
{
public:
    explicit ScriptModel(torch::jit::Module module) : m_module(std::move(module)) {}

    torch::Tensor forward(const torch::Tensor& inputs) override
    {
        const c10::IValue out = m_module.forward({inputs});
        if (out.isTensor())
            return out.toTensor();
        // A model returning (logits, ...) is common; train on its first tensor.
        if (out.isTuple() && !out.toTupleRef().elements().empty() &&
            out.toTupleRef().elements()[0].isTensor())
            return out.toTupleRef().elements()[0].toTensor();
        throw UserError("the TorchScript model's forward must return a tensor of logits");
    }

    std::vector<torch::Tensor> parameters() override
    {
        std::vector<torch::Tensor> result;
        for (const torch::Tensor& p : m_module.parameters(/*recurse=*/true))
            if (p.requires_grad())
                result.push_back(p);
        return result;
    }

    void to(torch::Device device) override { m_module.to(device); }
    void train() override { m_module.train(true); }
    void eval() override { m_module.eval(); }

private:
    torch::jit::Module m_module;
};

std::string firstLine(std::string text)
{
    if (const size_t newline = text.find('\n'); newline != std::string::npos)
        text.resize(newline);
    return text;
}

}  // namespace

bool isScriptModelPath(const std::string& model)
{
    std::error_code ec;
    return model.find('/') != std::string::npos || model.ends_with(".pt") ||
           model.ends_with(".pth") || model.ends_with(".ts") ||
           std::filesystem::is_regular_file(model, ec);
}

std::unique_ptr<Model> loadScriptModel(const std::string& path)
{
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throw UserError("cannot load the TorchScript model '" + path + "': no such file");
    try {
        torch::jit::Module module = torch::jit::load(path);
        auto model = std::make_unique<ScriptModel>(std::move(module));
        if (model->parameters().empty())
            throw UserError("the TorchScript model '" + path + "' has no trainable parameters");
        return model;
    } catch (const c10::Error& e) {
        throw UserError(
            "cannot load the TorchScript model '" + path +
            "' (is it a torch.jit.save file?): " + firstLine(e.what_without_backtrace()));
    }
}

}  // namespace kinetoscope::engine::detail
