// Reading what a trace recorded about an operator call (op_work.h): the dtype names torch
// writes in "Input type", the ScalarType codes of dtype arguments, the ints, bools and lists
// of "Concrete Inputs", and "Input Dims" both as text and as parsed JSON. Everything here
// reads untrusted text: what does not parse is refused (nullopt, or no inputs), never guessed.
#include "core/roofline/op_work_internal.h"

#include <charconv>
#include <utility>

namespace kinetoscope::roofline {

const char* precisionName(Precision precision)
{
    switch (precision) {
    case Precision::Fp64:
        return "fp64";
    case Precision::Fp32:
        return "fp32";
    case Precision::Fp16:
        return "fp16";
    case Precision::Bf16:
        return "bf16";
    case Precision::Fp8:
        return "fp8";
    case Precision::Int8:
        return "int8";
    case Precision::Int:
        return "int";
    case Precision::Unknown:
        break;
    }
    return "unknown";
}

namespace {

using detail::trim;

struct Spelling
{
    std::string_view name;
    Precision precision;
    int bytes;
};

// Every spelling torch has written for a tensor dtype in "Input type": the C++ type names
// (caffe2 TypeMeta, as the compiler demangles them) and c10::ScalarType names. "Double",
// "Int" and "Bool" are absent on purpose: older traces use them for non-tensor arguments
// (IValue tags), so they are not tensor dtypes here; "double", "int" and "bool" are.
constexpr Spelling kSpellings[] = {
    {"float", Precision::Fp32, 4},
    {"Float", Precision::Fp32, 4},
    {"double", Precision::Fp64, 8},
    {"Half", Precision::Fp16, 2},
    {"half", Precision::Fp16, 2},
    {"BFloat16", Precision::Bf16, 2},
    {"bfloat16", Precision::Bf16, 2},
    {"Float8_e4m3fn", Precision::Fp8, 1},
    {"Float8_e5m2", Precision::Fp8, 1},
    {"Float8_e4m3fnuz", Precision::Fp8, 1},
    {"Float8_e5m2fnuz", Precision::Fp8, 1},
    {"Float8_e8m0fnu", Precision::Fp8, 1},
    // Two fp4 values per byte; the dims count the packed pairs. No fp4 roof exists here.
    {"Float4_e2m1fn_x2", Precision::Unknown, 1},
    {"complex<float>", Precision::Fp32, 8},
    {"ComplexFloat", Precision::Fp32, 8},
    {"complex<double>", Precision::Fp64, 16},
    {"ComplexDouble", Precision::Fp64, 16},
    {"complex<c10::Half>", Precision::Fp16, 4},
    {"complex<Half>", Precision::Fp16, 4},
    {"ComplexHalf", Precision::Fp16, 4},
    {"long int", Precision::Int, 8},
    {"long", Precision::Int, 8},
    {"long long", Precision::Int, 8},
    {"long long int", Precision::Int, 8},
    {"int64_t", Precision::Int, 8},
    {"Long", Precision::Int, 8},
    {"int", Precision::Int, 4},
    {"int32_t", Precision::Int, 4},
    {"short int", Precision::Int, 2},
    {"short", Precision::Int, 2},
    {"int16_t", Precision::Int, 2},
    {"Short", Precision::Int, 2},
    {"unsigned long int", Precision::Int, 8},
    {"unsigned long", Precision::Int, 8},
    {"unsigned long long", Precision::Int, 8},
    {"unsigned long long int", Precision::Int, 8},
    {"uint64_t", Precision::Int, 8},
    {"unsigned int", Precision::Int, 4},
    {"uint32_t", Precision::Int, 4},
    {"unsigned short int", Precision::Int, 2},
    {"unsigned short", Precision::Int, 2},
    {"uint16_t", Precision::Int, 2},
    {"signed char", Precision::Int8, 1},
    {"int8_t", Precision::Int8, 1},
    {"Char", Precision::Int8, 1},
    {"unsigned char", Precision::Int8, 1},
    {"uint8_t", Precision::Int8, 1},
    {"Byte", Precision::Int8, 1},
    {"bool", Precision::Int, 1},
    {"qint8", Precision::Int8, 1},
    {"quint8", Precision::Int8, 1},
    {"qint32", Precision::Int, 4},
    {"quint4x2", Precision::Int8, 1},
    {"quint2x4", Precision::Int8, 1},
};

}  // namespace

DType dtypeOf(std::string_view inputType)
{
    std::string_view name = trim(inputType);
    if (name.starts_with("c10::"))
        name.remove_prefix(5);
    for (const Spelling& spelling : kSpellings) {
        if (spelling.name == name)
            return DType{spelling.precision, spelling.bytes};
    }
    return {};
}

// ---------------------------------------------------------------------------------------
// Scalars, lists and dtype codes as torch writes them (the models read them through Call)
// ---------------------------------------------------------------------------------------

namespace detail {

std::string_view trim(std::string_view text)
{
    constexpr std::string_view kSpace = " \t\r\n";
    const size_t first = text.find_first_not_of(kSpace);
    if (first == std::string_view::npos)
        return {};
    const size_t last = text.find_last_not_of(kSpace);
    return text.substr(first, last - first + 1);
}

std::optional<int64_t> parseInt(std::string_view text)
{
    text = trim(text);
    if (text.starts_with('+'))
        text.remove_prefix(1);
    int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || text.empty())
        return std::nullopt;
    return value;
}

std::optional<bool> parseBool(std::string_view text)
{
    text = trim(text);
    if (text == "True" || text == "true")
        return true;
    if (text == "False" || text == "false")
        return false;
    return std::nullopt;
}

namespace {

// Splits "[a, b, c]" into its items; a bare value is a list of one. nullopt when the
// brackets do not match or the list nests.
std::optional<std::vector<std::string_view>> splitList(std::string_view text)
{
    text = trim(text);
    std::vector<std::string_view> items;
    if (!text.starts_with('[')) {
        if (text.empty() || text.find_first_of("[],") != std::string_view::npos)
            return std::nullopt;
        items.push_back(text);
        return items;
    }
    if (!text.ends_with(']'))
        return std::nullopt;
    std::string_view body = trim(text.substr(1, text.size() - 2));
    if (body.find_first_of("[]") != std::string_view::npos)
        return std::nullopt;
    if (body.empty())
        return items;
    for (;;) {
        const size_t comma = body.find(',');
        items.push_back(trim(body.substr(0, comma)));
        if (comma == std::string_view::npos)
            break;
        body = body.substr(comma + 1);
    }
    return items;
}

}  // namespace

// "[2, 2]" or "3" (torch writes an int argument bare and an int list in brackets).
std::optional<std::vector<int64_t>> parseIntList(std::string_view text)
{
    const auto items = splitList(text);
    if (!items)
        return std::nullopt;
    std::vector<int64_t> values;
    for (std::string_view item : *items) {
        const auto value = parseInt(item);
        if (!value)
            return std::nullopt;
        values.push_back(*value);
    }
    return values;
}

// "[True, True, False]".
std::optional<std::vector<bool>> parseBoolList(std::string_view text)
{
    const auto items = splitList(text);
    if (!items)
        return std::nullopt;
    std::vector<bool> values;
    for (std::string_view item : *items) {
        const auto value = parseBool(item);
        if (!value)
            return std::nullopt;
        values.push_back(*value);
    }
    return values;
}

// A c10::ScalarType as torch records a dtype argument (its enum value, e.g. "15").
std::optional<DType> dtypeOfCode(int64_t code)
{
    switch (code) {
    case 0:   // Byte
    case 1:   // Char
    case 12:  // QInt8
    case 13:  // QUInt8
    case 16:  // QUInt4x2
    case 17:  // QUInt2x4
        return DType{Precision::Int8, 1};
    case 2:   // Short
    case 27:  // UInt16
        return DType{Precision::Int, 2};
    case 3:   // Int
    case 14:  // QInt32
    case 28:  // UInt32
        return DType{Precision::Int, 4};
    case 4:   // Long
    case 29:  // UInt64
        return DType{Precision::Int, 8};
    case 5:
        return DType{Precision::Fp16, 2};
    case 6:
        return DType{Precision::Fp32, 4};
    case 7:
        return DType{Precision::Fp64, 8};
    case 8:  // ComplexHalf
        return DType{Precision::Fp16, 4};
    case 9:  // ComplexFloat
        return DType{Precision::Fp32, 8};
    case 10:  // ComplexDouble
        return DType{Precision::Fp64, 16};
    case 11:  // Bool
        return DType{Precision::Int, 1};
    case 15:
        return DType{Precision::Bf16, 2};
    case 23:  // Float8_e5m2
    case 24:  // Float8_e4m3fn
    case 25:  // Float8_e5m2fnuz
    case 26:  // Float8_e4m3fnuz
    case 44:  // Float8_e8m0fnu
        return DType{Precision::Fp8, 1};
    case 45:  // Float4_e2m1fn_x2
        return DType{Precision::Unknown, 1};
    default:
        return std::nullopt;
    }
}

}  // namespace detail

// ---------------------------------------------------------------------------------------
// Reading the recorded arguments
// ---------------------------------------------------------------------------------------

namespace {

using detail::parseInt;

// ---- "Input Dims" as text: "[[4, 8], [8, 16], [[2, 3], [2, 3]], []]" ----

class DimsText
{
public:
    explicit DimsText(std::string_view text) : text_(text) {}

    // The inputs, or nullopt when the text is not a list of dims lists.
    std::optional<std::vector<OpInput>> parse()
    {
        std::vector<OpInput> inputs;
        if (!take('['))
            return std::nullopt;
        if (!take(']')) {
            do {
                OpInput input;
                if (!item(input))
                    return std::nullopt;
                inputs.push_back(std::move(input));
            } while (take(','));
            if (!take(']'))
                return std::nullopt;
        }
        skipSpace();
        if (pos_ != text_.size())
            return std::nullopt;
        return inputs;
    }

private:
    void skipSpace()
    {
        while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                       text_[pos_] == '\n' || text_[pos_] == '\r'))
            ++pos_;
    }
    bool take(char c)
    {
        skipSpace();
        if (pos_ < text_.size() && text_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }
    bool peek(char c)
    {
        skipSpace();
        return pos_ < text_.size() && text_[pos_] == c;
    }
    std::optional<int64_t> number()
    {
        skipSpace();
        size_t end = pos_;
        if (end < text_.size() && text_[end] == '-')
            ++end;
        while (end < text_.size() && text_[end] >= '0' && text_[end] <= '9')
            ++end;
        const auto value = parseInt(text_.substr(pos_, end - pos_));
        pos_ = end;
        return value;
    }
    // "[4, 8]" after its '[': the integers up to the ']'.
    bool ints(std::vector<int64_t>& out)
    {
        if (take(']'))
            return true;
        do {
            const auto value = number();
            if (!value)
                return false;
            out.push_back(*value);
        } while (take(','));
        return take(']');
    }
    // One argument: a tensor's dims, or a TensorList's dims lists.
    bool item(OpInput& input)
    {
        if (!take('['))
            return false;
        if (take(']'))
            return true;
        if (!peek('['))
            return ints(input.dims);
        do {
            std::vector<int64_t> dims;
            if (!take('[') || !ints(dims))
                return false;
            input.list.push_back(std::move(dims));
        } while (take(','));
        return take(']');
    }

    std::string_view text_;
    size_t pos_ = 0;
};

// ---- "Input Dims" as parsed JSON ----

bool intsOf(const trace::ArgValue::Array& array, std::vector<int64_t>& out)
{
    for (const trace::ArgValue& value : array) {
        const auto integer = value.integer();
        if (!integer)
            return false;
        out.push_back(*integer);
    }
    return true;
}

bool dimsOf(const trace::ArgValue& value, OpInput& input)
{
    const auto* array = value.array();
    if (!array)
        return false;
    if (array->empty())
        return true;
    if (!array->front().array())
        return intsOf(*array, input.dims);
    for (const trace::ArgValue& element : *array) {
        const auto* inner = element.array();
        std::vector<int64_t> dims;
        if (!inner || !intsOf(*inner, dims))
            return false;
        input.list.push_back(std::move(dims));
    }
    return true;
}

std::string textOf(const trace::ArgValue& value)
{
    if (const std::string* text = value.string())
        return *text;
    return trace::argText(value);
}

}  // namespace

std::vector<OpInput> opInputs(std::span<const trace::Arg> args)
{
    const trace::ArgValue* dims = trace::findArg(args, "Input Dims");
    const auto* dimsArray = dims ? dims->array() : nullptr;
    if (!dimsArray)
        return {};
    std::vector<OpInput> inputs(dimsArray->size());
    for (size_t i = 0; i < dimsArray->size(); ++i) {
        if (!dimsOf((*dimsArray)[i], inputs[i]))
            return {};
    }
    const trace::ArgValue* types = trace::findArg(args, "Input type");
    if (const auto* array = types ? types->array() : nullptr) {
        for (size_t i = 0; i < array->size() && i < inputs.size(); ++i)
            inputs[i].type = textOf((*array)[i]);
    }
    // Strides: a tensor's list of integers, kept only when it has one per dim.
    const trace::ArgValue* strides = trace::findArg(args, "Input Strides");
    if (const auto* array = strides ? strides->array() : nullptr) {
        for (size_t i = 0; i < array->size() && i < inputs.size(); ++i) {
            const auto* entry = (*array)[i].array();
            std::vector<int64_t> values;
            if (entry && !entry->empty() && intsOf(*entry, values) &&
                values.size() == inputs[i].dims.size())
                inputs[i].strides = std::move(values);
        }
    }
    const trace::ArgValue* concrete = trace::findArg(args, "Concrete Inputs");
    if (const auto* array = concrete ? concrete->array() : nullptr) {
        for (size_t i = 0; i < array->size() && i < inputs.size(); ++i)
            inputs[i].concrete = textOf((*array)[i]);
    }
    return inputs;
}

std::vector<OpInput> opInputsFromDims(std::string_view inputDims)
{
    return DimsText(inputDims).parse().value_or(std::vector<OpInput>{});
}

}  // namespace kinetoscope::roofline
