// The user's own model: a TorchScript file written by torch.jit.save in Python (or
// torch::jit::Module::save in C++), loaded and trained in C++. Its own translation
// unit: torch/script.h is heavy to compile.
#include "core/engine/engine_internal.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <regex>
#include <string_view>
#include <torch/script.h>

namespace kinetoscope::engine::detail {

namespace {

std::string firstLine(std::string text)
{
    if (const size_t newline = text.find('\n'); newline != std::string::npos)
        text.resize(newline);
    return text;
}

// The number of features the Linear that failed takes, when it failed on the input itself
// (flattened or not): "mat1 and mat2 shapes cannot be multiplied (64x256 and 20x64)" for a
// batch of 64 samples of 256 values gives 20. Nothing (0) for a layer further in, whose
// input the samples' shape does not set alone.
int64_t featuresOfFirstLinear(const std::string& reason, const torch::Tensor& inputs)
{
    static const std::regex kMatmul(
        R"(mat1 and mat2 shapes cannot be multiplied \((\d+)x(\d+) and (\d+)x(\d+)\))");
    std::smatch m;
    if (!std::regex_search(reason, m, kMatmul) || inputs.dim() < 1)
        return 0;
    auto number = [&m](int group) {  // 0 for digits past int64_t
        int64_t value = 0;
        const std::string digits = m[group].str();
        std::from_chars(digits.data(), digits.data() + digits.size(), value);
        return value;
    };
    const int64_t rows = number(1), columns = number(2), wanted = number(3);
    const int64_t batch = inputs.size(0);
    return rows == batch && batch > 0 && columns > 0 && inputs.numel() % batch == 0 &&
                   columns == inputs.numel() / batch && wanted != columns
               ? wanted
               : 0;
}

class ScriptModel final : public Model
{
public:
    ScriptModel(torch::jit::Module module, const RunConfig& config, const SampleSpec& data)
        : m_module(std::move(module)), m_dataset(config.dataset),
          m_shapeGiven(!config.inputShape.empty()), m_sampleShape(data.shape)
    {
    }

    torch::Tensor forward(const torch::Tensor& inputs) override
    {
        c10::IValue out;
        try {
            out = m_module.forward({inputs});
        } catch (const c10::Error& e) {
            if (isOutOfMemory(e))
                throw;
            throw UserError(failedOn(inputs, e.what_without_backtrace()));
        } catch (const std::bad_alloc&) {
            throw;
        } catch (const std::exception& e) {
            // The interpreter rethrows what it met as text: an out-of-memory inside the
            // model is one still, for the arms and the batch sweep that stop at one.
            const std::string reason = torchReason(e.what());
            if (isOutOfMemoryMessage(reason))
                TORCH_CHECK_WITH(OutOfMemoryError, false, reason);
            throw UserError(failedOn(inputs, e.what()));
        }
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
    // One line: torch's reason, the input the model was given and what sets it.
    std::string failedOn(const torch::Tensor& inputs, const std::string& message) const
    {
        const std::string reason = torchReason(message);
        std::string text = "the TorchScript model failed on its input: " + reason +
                           "; the input was " + m_dataset + " samples of shape " +
                           shapeText(m_sampleShape) + " (batch " + shapeText(inputs.sizes()) + ")";
        if (m_dataset != "synthetic")
            return text + ": the model must take them as they are (--input-shape sets "
                          "synthetic samples only)";
        text += m_shapeGiven ? ", from --input-shape" : ", the default without --input-shape";
        text += ": pass --input-shape with the shape of one sample the model takes";
        if (const int64_t features = featuresOfFirstLinear(reason, inputs))
            text += " (--input-shape " + std::to_string(features) + " fits the layer that failed)";
        return text;
    }

    torch::jit::Module m_module;
    std::string m_dataset;
    bool m_shapeGiven;
    std::vector<int64_t> m_sampleShape;
};

}  // namespace

std::string torchReason(const std::string& message)
{
    static constexpr std::string_view kInterpreter =
        "The following operation failed in the TorchScript interpreter.";
    if (!message.starts_with(kInterpreter))
        return firstLine(message);
    // The last line that opens with an error's class: "RuntimeError: ...",
    // "torch.jit.Error: ...", "OutOfMemoryError: ...".
    static const std::regex kErrorLine(R"(^[A-Za-z_][\w.]*(Error|Exception): (.*)$)");
    std::string reason;
    size_t begin = 0;
    while (begin < message.size()) {
        const size_t end = std::min(message.find('\n', begin), message.size());
        const std::string line = message.substr(begin, end - begin);
        if (std::smatch m; std::regex_match(line, m, kErrorLine) && m[2].length() > 0)
            reason = m[2];
        begin = end + 1;
    }
    return reason.empty() ? firstLine(message) : reason;
}

std::string shapeText(c10::IntArrayRef sizes)
{
    if (sizes.empty())
        return "a scalar";
    std::string text;
    for (const int64_t size : sizes)
        text += (text.empty() ? "" : "x") + std::to_string(size);
    return text;
}

bool isScriptModelPath(const std::string& model)
{
    std::error_code ec;
    return model.find('/') != std::string::npos || model.ends_with(".pt") ||
           model.ends_with(".pth") || model.ends_with(".ts") ||
           std::filesystem::is_regular_file(model, ec);
}

std::unique_ptr<Model> loadScriptModel(const RunConfig& config, const SampleSpec& data)
{
    const std::string& path = config.model;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throw UserError("cannot load the TorchScript model '" + path + "': no such file");
    try {
        torch::jit::Module module = torch::jit::load(path);
        auto model = std::make_unique<ScriptModel>(std::move(module), config, data);
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
