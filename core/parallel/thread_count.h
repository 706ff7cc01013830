#pragma once
// How many threads a piece of work may use. Every command takes `--threads N` and the app
// has a setting; 0 means "the machine's cores", 1 means the serial path (no thread is
// started at all), and any other number is taken as given.
#include <cstddef>

namespace kinetoscope::parallel {

// The cores this process may run on (its CPU affinity), at least 1.
unsigned availableCores();
// `requested` with 0 resolved to availableCores(); never 0.
unsigned resolveThreads(unsigned requested);
// A budget of `total` threads shared by `parts` jobs running side by side (the traces of
// a multi-rank job, the two sides of a comparison): each gets at least 1.
unsigned shareOf(unsigned total, size_t parts);

}  // namespace kinetoscope::parallel
