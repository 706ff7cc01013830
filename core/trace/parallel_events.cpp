#include "core/trace/parallel_events.h"

#include "core/trace/event_parser_backend.h"
#include "core/trace/json_scan.h"
#include "core/trace/trace_builder.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>
#include <utility>

namespace kinetoscope::trace {

namespace {

// Bytes without the zero-filling of std::vector: blocks are megabytes, read into at once.
struct Bytes
{
    std::unique_ptr<char[]> data;
    size_t size = 0;
    size_t capacity = 0;

    Bytes() = default;
    Bytes(Bytes&& other) noexcept { *this = std::move(other); }
    Bytes& operator=(Bytes&& other) noexcept
    {
        data = std::move(other.data);
        size = std::exchange(other.size, 0);
        capacity = std::exchange(other.capacity, 0);
        return *this;
    }

    void reserve(size_t wanted)
    {
        if (wanted <= capacity)
            return;
        auto grown = std::make_unique_for_overwrite<char[]>(wanted);
        if (size > 0)
            std::memcpy(grown.get(), data.get(), size);
        data = std::move(grown);
        capacity = wanted;
    }
    std::string_view view() const { return {data.get(), size}; }
};

struct Block
{
    enum class State
    {
        Queued,
        Parsing,
        Parsed,
        Failed
    };

    uint64_t offset = 0;    // of bytes.data[0] in the decompressed data
    Bytes bytes;            // [0, size) as read, then ']' and the parser's padding
    size_t arrayStart = 0;  // the byte that stands in for '[' while the block is parsed
    State state = State::Queued;
    bool outOfMemory = false;
    TraceBuilder chunk{TraceBuilder::Part::Chunk};

    uint64_t end() const { return offset + bytes.size; }
};

class BlockPipeline
{
public:
    BlockPipeline(const ParallelEventsInput& input, EventParser& ownParser, TraceBuilder& builder)
        : m_input(input), m_ownParser(ownParser), m_builder(builder)
    {
        m_carry.reserve(input.start.size() + kPaddingBytes);
        std::memcpy(m_carry.data.get(), input.start.data(), input.start.size());
        m_carry.size = input.start.size();
        m_carryOffset = input.startOffset;
    }
    ~BlockPipeline() { stopWorkers(); }
    BlockPipeline(const BlockPipeline&) = delete;
    BlockPipeline& operator=(const BlockPipeline&) = delete;

    ParallelEventsOutcome run();

private:
    std::unique_ptr<Block> cutBlock();

    // Parses the block into its chunk; returns its new state (Parsed or Failed), which the
    // caller stores under the lock.
    static Block::State parse(Block& block, EventParser& parser, std::vector<BatchEvent>& batch);
    void work();
    void stopWorkers();
    void handBack(std::unique_ptr<Block> failed, ParallelEventsOutcome& outcome);

    const ParallelEventsInput& m_input;
    EventParser& m_ownParser;
    TraceBuilder& m_builder;
    Bytes m_carry;  // read, not yet in a block: from the '}' that ends the last block cut
    uint64_t m_carryOffset = 0;
    bool m_firstBlock = true;
    bool m_sourceDone = false;
    bool m_cancelled = false;

    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::deque<std::unique_ptr<Block>> m_blocks;  // in file order; the front is appended next
    bool m_stopping = false;
    std::vector<std::jthread> m_workers;
};

Block::State BlockPipeline::parse(Block& block, EventParser& parser, std::vector<BatchEvent>& batch)
{
    char* const p = block.bytes.data.get();
    const char standIn = p[block.arrayStart];
    p[block.arrayStart] = '[';
    const std::string_view text(p + block.arrayStart, block.bytes.size + 1 - block.arrayStart);
    bool parsed = false;
    try {
        parsed = parser.parseArray(text, kPaddingBytes, batch);
        if (parsed)
            block.chunk.addBatch(batch, block.offset + block.arrayStart);
    } catch (const std::bad_alloc&) {
        block.outOfMemory = true;
        parsed = false;
    }
    p[block.arrayStart] = standIn;  // the bytes are handed back as read should this block fail
    return parsed ? Block::State::Parsed : Block::State::Failed;
}

void BlockPipeline::work()
{
    std::unique_ptr<EventParser> parser;
    std::vector<BatchEvent> batch;
    try {
        parser = std::make_unique<EventParser>(m_input.parser);
    } catch (const std::bad_alloc&) {
        return;  // the other threads do the work
    }
    std::unique_lock lock(m_mutex);
    for (;;) {
        Block* next = nullptr;
        m_changed.wait(lock, [&] {
            if (m_stopping)
                return true;
            for (auto& block : m_blocks)
                if (block->state == Block::State::Queued) {
                    next = block.get();
                    return true;
                }
            return false;
        });
        if (m_stopping)
            return;
        next->state = Block::State::Parsing;
        lock.unlock();
        const Block::State done = parse(*next, *parser, batch);
        lock.lock();
        next->state = done;
        m_changed.notify_all();
    }
}

void BlockPipeline::stopWorkers()
{
    {
        const std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_changed.notify_all();
    m_workers.clear();  // joins
}

std::unique_ptr<Block> BlockPipeline::cutBlock()
{
    // Reads until the block holds blockBytes, then cuts it after its last whole event; an
    // event longer than the look-back makes the block grow, to 64 blocks' size at most.
    auto block = std::make_unique<Block>();
    Bytes& bytes = block->bytes;
    bytes = std::move(m_carry);
    block->offset = m_carryOffset;
    size_t target = std::max(m_input.blockBytes, bytes.size);
    const size_t largest = m_input.blockBytes * 64;
    for (;;) {
        bytes.reserve(target + 1 + kPaddingBytes);
        while (bytes.size < target && !m_sourceDone) {
            const size_t got = m_input.read(bytes.data.get() + bytes.size, target - bytes.size);
            bytes.size += got;
            m_sourceDone = got == 0;
            if (m_input.progress && !m_input.progress(block->offset + bytes.size)) {
                m_cancelled = true;
                break;
            }
        }
        // The block's first event: after the byte standing before it (the first block), or
        // after the '}' that ended the block before and the ',' between them.
        const std::string_view text = bytes.view();
        size_t firstBrace = 1;
        while (firstBrace < text.size() && text[firstBrace] != '{')
            ++firstBrace;
        const size_t end = m_cancelled || firstBrace >= text.size()
                               ? std::string_view::npos
                               : json_scan::lastElementEnd(text, firstBrace, m_input.lookBackBytes);
        if (end != std::string_view::npos) {
            // The carry can outgrow a block (a block grown for a long event): sized to it.
            const size_t carried = bytes.size - (end - 1);
            m_carry.reserve(std::max(m_input.blockBytes, carried) + 1 + kPaddingBytes);
            m_carry.size = carried;
            std::memcpy(m_carry.data.get(), bytes.data.get() + end - 1, m_carry.size);
            m_carryOffset = block->offset + end - 1;
            bytes.size = end;
            bytes.data[end] = ']';
            std::memset(bytes.data.get() + end + 1, ' ', kPaddingBytes);
            if (!m_firstBlock)
                block->arrayStart = text.find(',', 1);
            m_firstBlock = false;
            return block;
        }
        if (m_cancelled || m_sourceDone || target >= largest) {
            m_carry = std::move(bytes);  // no more blocks: the serial reader takes the rest
            m_sourceDone = true;
            return nullptr;
        }
        target *= 2;
    }
}

void BlockPipeline::handBack(std::unique_ptr<Block> failed, ParallelEventsOutcome& outcome)
{
    // Every byte from the failed block on, as read: the blocks overlap by one byte (each
    // starts with the '}' that ends the one before), and so does the carry.
    stopWorkers();  // no block is being parsed (and so altered) from here on
    std::vector<char>& rest = outcome.rest;
    auto add = [&rest](const Bytes& bytes, size_t from) {
        if (bytes.size > from)
            rest.insert(rest.end(), bytes.data.get() + from, bytes.data.get() + bytes.size);
    };
    if (failed) {
        outcome.restOffset = failed->offset;
        outcome.failedBlockEnd = failed->end();
        add(failed->bytes, 0);
        for (const auto& block : m_blocks)
            add(block->bytes, 1);
        add(m_carry, 1);
    } else {
        outcome.restOffset = m_carryOffset;
        add(m_carry, 0);
    }
    m_blocks.clear();
}

ParallelEventsOutcome BlockPipeline::run()
{
    ParallelEventsOutcome outcome;
    for (unsigned t = 1; t < m_input.threads; ++t) {
        try {
            m_workers.emplace_back([this] { work(); });
        } catch (const std::system_error&) {
            break;  // no more threads to be had: the ones started (and this one) do the rest
        }
    }
    const size_t inFlight = 2 * size_t(m_input.threads);
    std::vector<BatchEvent> batch;
    std::unique_lock lock(m_mutex);
    for (;;) {
        // 1. Append the next block in file order as soon as it is parsed.
        if (!m_blocks.empty() && (m_blocks.front()->state == Block::State::Parsed ||
                                  m_blocks.front()->state == Block::State::Failed)) {
            std::unique_ptr<Block> next = std::move(m_blocks.front());
            m_blocks.pop_front();
            lock.unlock();
            if (next->outOfMemory)
                throw std::bad_alloc();
            if (next->state == Block::State::Failed) {
                handBack(std::move(next), outcome);
                return outcome;
            }
            m_builder.append(std::move(next->chunk));
            outcome.appendedAny = true;
            m_builder.expectTotal(next->end(), m_input.totalBytes);
            lock.lock();
            continue;
        }
        // 2. Keep the workers fed.
        if (!m_sourceDone && m_blocks.size() < inFlight) {
            lock.unlock();
            std::unique_ptr<Block> block = cutBlock();
            if (m_cancelled) {
                outcome.cancelled = true;
                stopWorkers();
                return outcome;
            }
            lock.lock();
            if (block) {
                m_blocks.push_back(std::move(block));
                m_changed.notify_all();
            }
            continue;
        }
        if (m_blocks.empty()) {  // every block appended, and no more to cut
            lock.unlock();
            handBack(nullptr, outcome);
            return outcome;
        }
        // 3. Parse a block here rather than wait.
        Block* queued = nullptr;
        for (auto& block : m_blocks)
            if (block->state == Block::State::Queued) {
                queued = block.get();
                break;
            }
        if (queued) {
            queued->state = Block::State::Parsing;
            lock.unlock();
            const Block::State done = parse(*queued, m_ownParser, batch);
            lock.lock();
            queued->state = done;
            m_changed.notify_all();
            continue;
        }
        m_changed.wait(lock);
    }
}

}  // namespace

ParallelEventsOutcome readEventsInParallel(const ParallelEventsInput& input, EventParser& ownParser,
                                           TraceBuilder& builder)
{
    BlockPipeline pipeline(input, ownParser, builder);
    return pipeline.run();
}

}  // namespace kinetoscope::trace
