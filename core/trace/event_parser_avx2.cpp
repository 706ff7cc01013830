// The event parser built with AVX2 (this file gets -mavx2 -mbmi -mpclmul -mlzcnt):
// simdjson's Haswell kernels, several times faster. Only called when the CPU has AVX2.
#define KINETOSCOPE_PARSER_FACTORY makeAvx2EventParserBackend
#include "core/trace/event_parser_body.inc"
