// The event parser built for any x86-64 (or other) CPU: simdjson's portable kernels.
#define KINETOSCOPE_PARSER_FACTORY makeGenericEventParserBackend
#include "core/trace/event_parser_body.inc"
